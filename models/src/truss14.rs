//! The plane 14-bar truss of \[HPIM\] §5.1 (digest P13) with a holonomic constraint on its tip
//! node a: (i) a circular slot, (ii) a prescribed vertical motion. The structure (M, K, the
//! load) comes from [`structure`]; the constraint models below supply Φ(t, D) and its kernels
//! through `#[model(...)]` (their own `mass`/`force` are placeholders that
//! [`mbsim::runtime::Structural`] replaces). Bars: E = 2.1e11 N/m², ρ = 7800 kg/m³,
//! A = 9.0e-4 m²; no damping.
//!
//! # Readings of Fig. 2 (not available in text, \[AMBIG-41\]) — every choice is here
//!
//! The text fixes only node a near (5.0, 1.0) m (slot centre (e_x + 5.0, e_y + 1.0)) and "a
//! plane truss with 14 bars". Our reading: a cantilever truss of depth 1 m and span 5 m,
//! pinned at the wall (x = 0) in both corners, four bays of 1.25 m, tapering to the tip node a.
//!
//! ```text
//!   S2 (0,1) ─── 4 (1.25,1) ─── 5 (2.5,1) ─── 6 (3.75,1) ─── a (5,1)
//!     │  ╲          │   ╲          │   ╲          │          ╱
//!     │    ╲        │     ╲        │     ╲        │       ╱
//!   S1 (0,0) ─── 1 (1.25,0) ─── 2 (2.5,0) ─── 3 (3.75,0)
//! ```
//!
//! - Bars (14): top chord S2-4, 4-5, 5-6, 6-a; bottom chord S1-1, 1-2, 2-3; verticals 1-4,
//!   2-5, 3-6; diagonals S2-1, 4-2, 5-3; the tip diagonal 3-a. (The S1–S2 wall edge is the
//!   support, not a bar.) Statically determinate: 7 free nodes, 14 DOFs, K nonsingular.
//! - DOFs (u, v) of free nodes 1, 2, 3, 4, 5, 6, a in that order ([`NODES`]).
//! - Lumped mass (ρ A L / 2 to each end), the choice of the period's truss codes.
//! - The load p(t) acts at bottom node 2 (2.5, 0), downward (−Y).
//! - Loads: `10000 sin(20 π t)` N (the text) or `10000` N ([`Loading`]); the captions' "sin 20t"
//!   is read as the text's 20 π t (\[AMBIG-42\]).

use std::f64::consts::PI;

use mbsim::model;
use mbsim::nalgebra::{DMatrix, DVector};
use mbsim::runtime::catalog::ModelEntry;
use mbsim::runtime::structural::elements::{Assembly, Bar, MassKind};
use mbsim::runtime::{Load, Structural, Structure, TimeFunction};

/// Young's modulus [N/m²].
pub const YOUNG: f64 = 2.1e11;
/// Density [kg/m³].
pub const DENSITY: f64 = 7800.0;
/// Cross-section area [m²].
pub const AREA: f64 = 9.0e-4;
/// Free node positions (1, 2, 3, 4, 5, 6, a); DOFs 2i, 2i + 1 are (u, v) of node i.
pub const NODES: [[f64; 2]; 7] = [
    [1.25, 0.0],
    [2.5, 0.0],
    [3.75, 0.0],
    [1.25, 1.0],
    [2.5, 1.0],
    [3.75, 1.0],
    [5.0, 1.0],
];
/// The pinned supports S1 (0, 0) and S2 (0, 1).
pub const SUPPORTS: [[f64; 2]; 2] = [[0.0, 0.0], [0.0, 1.0]];
/// Bars as (end, end): `Ok(i)` free node i of [`NODES`], `Err(j)` support j of [`SUPPORTS`].
pub const BARS: [(Result<usize, usize>, Result<usize, usize>); 14] = [
    (Err(1), Ok(3)),
    (Ok(3), Ok(4)),
    (Ok(4), Ok(5)),
    (Ok(5), Ok(6)),
    (Err(0), Ok(0)),
    (Ok(0), Ok(1)),
    (Ok(1), Ok(2)),
    (Ok(0), Ok(3)),
    (Ok(1), Ok(4)),
    (Ok(2), Ok(5)),
    (Err(1), Ok(0)),
    (Ok(3), Ok(1)),
    (Ok(4), Ok(2)),
    (Ok(2), Ok(6)),
];
/// The loaded DOF: v of bottom node 2 (index 1 of [`NODES`]); the load points along −Y.
pub const LOAD_DOF: usize = 3;
/// Load amplitude [N].
pub const LOAD: f64 = 10_000.0;
/// The DOFs (u_a, v_a) of node a.
pub const NODE_A: [usize; 2] = [12, 13];

/// The two loadings of §5.1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Loading {
    /// p(t) = 10000 sin(20 π t) N.
    Harmonic,
    /// p(t) = 10000 N.
    Constant,
}

/// M, K (C = 0) and the load of the truss.
pub fn structure(loading: Loading) -> Structure {
    let mut asm = Assembly::new(14);
    let at = |end: Result<usize, usize>| match end {
        Ok(i) => (NODES[i], [Some(2 * i), Some(2 * i + 1)]),
        Err(j) => (SUPPORTS[j], [None, None]),
    };
    for (a, b) in BARS {
        let ((pa, da), (pb, db)) = (at(a), at(b));
        let bar = Bar {
            from: pa,
            to: pb,
            ea: YOUNG * AREA,
            rho_a: DENSITY * AREA,
        };
        let dofs = [da[0], da[1], db[0], db[1]];
        asm.add(dofs, &bar.stiffness(), &bar.mass(MassKind::Lumped));
    }
    let mut shape = DVector::zeros(14);
    shape[LOAD_DOF] = -1.0;
    let time = match loading {
        Loading::Harmonic => TimeFunction::sine(LOAD, 10.0),
        Loading::Constant => TimeFunction::constant(LOAD),
    };
    let mut st = Structure::undamped(asm.mass, asm.stiffness);
    st.loads.push(Load { shape, time });
    st
}

/// Constraint (i): node a in a circular slot of radius r centred at (e_x, e_y) from its rest
/// position, Φ = (u_a − e_x)² + (v_a − e_y)² − r².
#[model(
    coordinates: [u1, v1, u2, v2, u3, v3, u4, v4, u5, v5, u6, v6, ua, va],
    holonomic: [slot = (ua - ex).powi(2) + (va - ey).powi(2) - r.powi(2)],
    mass: diag(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    force: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Truss14Slot {
    /// Slot centre offset e_x [m] (0.05).
    pub ex: f64,
    /// Slot centre offset e_y [m] (0).
    pub ey: f64,
    /// Slot radius r [m] (0.05).
    pub r: f64,
}

/// Constraint (ii): v_a = amp sin(ω t) (amp = 0.005 m, ω = 2π rad/s).
#[model(
    coordinates: [u1, v1, u2, v2, u3, v3, u4, v4, u5, v5, u6, v6, ua, va],
    holonomic: [prescribed = va - amp * (omega * t).sin()],
    mass: diag(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    force: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Truss14Prescribed {
    /// Amplitude [m] (0.005).
    pub amp: f64,
    /// Angular frequency [rad/s] (2π).
    pub omega: f64,
}

/// Constraint (i) with the paper's data, on the truss under `loading`.
pub fn slot(loading: Loading) -> Structural<Truss14Slot> {
    let slot = Truss14Slot {
        ex: 0.05,
        ey: 0.0,
        r: 0.05,
    };
    Structural::new(structure(loading), slot)
}

/// Constraint (ii) with the paper's data, on the truss under `loading`.
pub fn prescribed(loading: Loading) -> Structural<Truss14Prescribed> {
    let c = Truss14Prescribed {
        amp: 0.005,
        omega: 2.0 * PI,
    };
    Structural::new(structure(loading), c)
}

/// The initial state of constraint (ii): D = 0, D' consistent (v_a' = amp ω, the rest 0).
pub fn prescribed_initial() -> (Vec<f64>, Vec<f64>) {
    let mut v0 = vec![0.0; 14];
    v0[NODE_A[1]] = 0.005 * 2.0 * PI;
    (vec![0.0; 14], v0)
}

/// The percentage error of constraint (i): (√((u_a − e_x)² + (v_a − e_y)²) − r)/r · 100.
pub fn slot_error_percent(d: &[f64]) -> f64 {
    let (ua, va) = (d[NODE_A[0]], d[NODE_A[1]]);
    ((ua - 0.05).hypot(va) - 0.05) / 0.05 * 100.0
}

/// The dense mass matrix, for tests.
pub fn mass_matrix() -> DMatrix<f64> {
    structure(Loading::Constant).mass
}

/// The catalog entry: constraint (ii) under p = 10000 N (Table 2's setting), a structural
/// model (`mbsim simulate truss14 --method hpim --h 1e-4`).
pub const ENTRY: ModelEntry = ModelEntry {
    name: "truss14",
    title: "14-bar plane truss, tip node driven v_a = 0.005 sin 2πt, p = 10 kN (n = 14, m = 1)",
    source: "[HPIM] §5.1 constraint (ii) (digest P13); geometry our reading of Fig. 2",
    build: || Box::new(prescribed(Loading::Constant)),
    initial: |_| prescribed_initial(),
    t_end: 0.2,
    dt_out: 0.001,
    rtol: 1e-8,
    kernels: include_str!("generated/truss14_prescribed.rs"),
};
