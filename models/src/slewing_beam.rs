//! The slewing flexible beam of \[HPIM\] §5.2 (digest P14): a uniform cantilever (0.03 m ×
//! 0.03 m, length 1 m, E = 2.1e11 N/m², ρ = 7800 kg/m³) clamped to a rigid hub that turns by a
//! prescribed angle θ(t), five Euler–Bernoulli elements, no hub mass, no applied force, no
//! damping, under the constraint Φ = v₅ − v₆ = 0.
//!
//! # Readings (Fig. 5 is not available, \[AMBIG-43\]) — every choice is here
//!
//! - Floating frame: transverse deflection w(x, t) in the frame turning with the hub; nodes
//!   1…6 at x = 0, 0.2, …, 1.0 m, node 1 clamped; DOFs (w_i, ψ_i = ∂w/∂x) of nodes 2…6 in
//!   that order (n = 10).
//! - Points 5 and 6 are nodes 5 and 6 (x = 0.8 and 1.0 m): Φ = w₅ − w₆.
//! - The prescribed rotation enters as the rigid-frame inertia force (axial shortening and
//!   Coriolis terms dropped): ρA(ẅ + x θ̈ − θ̇² w) + EI w'''' = 0, so
//!   M D'' + K D = Q(t, D) with Q = −θ̈(t) f + θ̇(t)² M D, f = ∫ ρA x Nᵀ dx (consistent).
//! - θ(t) as printed on [0, 0.2] (50 t², then −50(0.02 − 0.4 t + t²)); at rest at 1 rad after
//!   0.2 s. Static initial conditions D = D' = 0. Span 0.3 s (not stated in the paper).

use std::sync::Arc;

use mbsim::model;
use mbsim::nalgebra::{DMatrix, DVector};
use mbsim::runtime::structural::elements::{Assembly, Beam};
use mbsim::runtime::{Structural, Structure};

/// Young's modulus [N/m²].
pub const YOUNG: f64 = 2.1e11;
/// Density [kg/m³].
pub const DENSITY: f64 = 7800.0;
/// Side of the square cross-section [m].
pub const SIDE: f64 = 0.03;
/// Beam length [m].
pub const LENGTH: f64 = 1.0;
/// Number of elements.
pub const ELEMENTS: usize = 5;
/// The span of the runs [s].
pub const SPAN: f64 = 0.3;

/// θ̇(t) and θ̈(t) of the prescribed slewing manoeuvre.
pub fn slew_rates(t: f64) -> (f64, f64) {
    if t < 0.1 {
        (100.0 * t, 100.0)
    } else if t < 0.2 {
        (-100.0 * (t - 0.2), -100.0)
    } else {
        (0.0, 0.0)
    }
}

/// θ(t).
pub fn slew_angle(t: f64) -> f64 {
    if t <= 0.1 {
        50.0 * t * t
    } else if t <= 0.2 {
        -50.0 * (0.02 - 0.4 * t + t * t)
    } else {
        1.0
    }
}

/// M, K and the rigid-frame inertia force Q(t, D) of the beam.
pub fn structure() -> Structure {
    let n = 2 * ELEMENTS;
    let le = LENGTH / ELEMENTS as f64;
    let beam = Beam {
        len: le,
        ei: YOUNG * SIDE.powi(4) / 12.0,
        rho_a: DENSITY * SIDE * SIDE,
    };
    let mut asm = Assembly::new(n);
    let mut arm = vec![0.0; n];
    for e in 0..ELEMENTS {
        let start = |k: usize| (e > 0).then(|| 2 * (e - 1) + k);
        let dofs = [start(0), start(1), Some(2 * e), Some(2 * e + 1)];
        asm.add(dofs, &beam.stiffness(), &beam.mass());
        Assembly::add_vector(&mut arm, dofs, &beam.moment_arm_load(e as f64 * le));
    }
    let arm = DVector::from_vec(arm);
    let mass = asm.mass.clone();
    let mut st = Structure::undamped(asm.mass, asm.stiffness);
    st.nonlinear = Some(Arc::new(move |t, d, _dv, out: &mut [f64]| {
        inertia_force(&mass, &arm, t, d, out)
    }));
    st
}

/// Q = −θ̈ f + θ̇² M D.
fn inertia_force(mass: &DMatrix<f64>, arm: &DVector<f64>, t: f64, d: &[f64], out: &mut [f64]) {
    let (rate, accel) = slew_rates(t);
    for i in 0..out.len() {
        let md: f64 = (0..d.len()).map(|j| mass[(i, j)] * d[j]).sum();
        out[i] = -accel * arm[i] + rate * rate * md;
    }
}

/// Φ = w₅ − w₆ (nodes 5 and 6).
#[model(
    coordinates: [w2, psi2, w3, psi3, w4, psi4, w5, psi5, w6, psi6],
    holonomic: [tie = w5 - w6],
    mass: diag(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    force: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SlewingBeamTie {}

/// The constrained beam.
pub fn system() -> Structural<SlewingBeamTie> {
    Structural::new(structure(), SlewingBeamTie {})
}

/// The DOFs of w₅ and w₆.
pub const TIE: [usize; 2] = [6, 8];
