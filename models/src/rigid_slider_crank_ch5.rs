//! The rigid counterpart of the deformable slider-crank of \[CHIN\] Ch. 5 (SEEDS-DIGEST P12,
//! Figs. 5.12–5.13): the same crank (J, r, torque sin t − φ̇) and a rigid uniform connecting
//! rod of the same length, section and density, in the coordinates (R1, R2, θ, φ) with R the
//! rod's end A. T = ½ m |Ṙ|² + m (l/2) θ̇ (cos θ Ṙ2 − sin θ Ṙ1) + ½ (m l²/3) θ̇² + ½ J φ̇²,
//! V = m g (R2 + (l/2) sin θ); constraints as the deformable model's with the rod undeformed.
//! Data and choices as `deformable_slider_crank` (ambiguity 27).

#![allow(clippy::approx_constant)]

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// The rigid slider-crank of Chin Ch. 5 (n = 4, m = 3).
#[model(
    tangents: true,
    coordinates: [r1, r2, theta, phi],
    let mass = rho * PI * dia.powi(2) / 4.0 * len,
    holonomic: [
        crank_a_x = r1 - rc * phi.cos(),
        crank_a_y = r2 - rc * phi.sin(),
        slider_b = r2 + len * theta.sin(),
    ],
    kinetic: mass / 2.0 * (r1_dot.powi(2) + r2_dot.powi(2))
        + mass * len / 2.0 * theta_dot * (theta.cos() * r2_dot - theta.sin() * r1_dot)
        + mass * len.powi(2) / 6.0 * theta_dot.powi(2)
        + j_crank / 2.0 * phi_dot.powi(2),
    potential: mass * g * (r2 + len / 2.0 * theta.sin()),
    force: [0.0, 0.0, 0.0, t.sin() - phi_dot],
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (r1, r2),
            B = (r1 + len * theta.cos(), r2 + len * theta.sin()),
        ],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct RigidSliderCrankCh5 {
    /// Crank radius r [in] (6).
    pub rc: f64,
    /// Rod length l [in] (12).
    pub len: f64,
    /// Rod diameter D [in] (0.25).
    pub dia: f64,
    /// Density ρ [lb s²/in⁴] (0.0007331).
    pub rho: f64,
    /// Crank inertia J [lb in s²] (1.0, ambiguity 27).
    pub j_crank: f64,
    /// Gravity [in/s²] (386.088, chosen, ambiguity 27).
    pub g: f64,
}

impl RigidSliderCrankCh5 {
    /// Table 5.1 with the deformable model's choices.
    pub fn published() -> Self {
        Self {
            rc: 6.0,
            len: 12.0,
            dia: 0.25,
            rho: 0.0007331,
            j_crank: 1.0,
            g: 386.088,
        }
    }

    /// φ = 0 with crank speed `omega0`: consistent positions and velocities.
    pub fn initial_state(
        sys: &dyn mbsim::runtime::ConstrainedSystem,
        omega0: f64,
    ) -> (Vec<f64>, Vec<f64>) {
        let rc = sys.parameter("rc").unwrap_or(6.0);
        let len = sys.parameter("len").unwrap_or(12.0);
        (
            vec![rc, 0.0, 0.0, 0.0],
            vec![0.0, rc * omega0, -rc * omega0 / len, omega0],
        )
    }
}

/// The `mbsim` catalog entry of this model (crank speed 60 rad/s, the run of Figs. 5.12–5.13).
pub const ENTRY: ModelEntry = ModelEntry {
    name: "rigid-slider-crank-ch5",
    title: "rigid slider-crank of Chin Ch. 5 (n = 4, m = 3)",
    source: "[CHIN] Ch. 5 (digest P12, ambiguity 27)",
    build: || Box::new(RigidSliderCrankCh5::published()),
    initial: |sys| RigidSliderCrankCh5::initial_state(sys, 60.0),
    t_end: 4.0,
    dt_out: 0.01,
    rtol: 1e-6,
    kernels: include_str!("generated/rigid_slider_crank_ch5.rs"),
};
