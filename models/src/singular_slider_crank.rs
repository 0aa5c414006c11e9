//! The singular slider-crank of \[CHIN\] §4.5 (eq. 4.27, Figs. 4.26–4.32, SEEDS-DIGEST P10),
//! after Petzold–Ren–Maly: crank and rod of equal length `l` with point masses `m1` (crank tip)
//! and `m2` (slider), angles measured so that heights are l cos θ; the slider stays at height 0:
//! Φ = −cos θ1 − cos θ2 (as printed; G = (sin θ1, sin θ2) vanishes at (0, π), where the branches
//! θ2 = π ∓ θ1 cross). Written as a Lagrangian
//! T = ½ l² ((m1 + m2) θ̇1² + m2 θ̇2² + 2 m2 cos(θ2 − θ1) θ̇1 θ̇2),
//! V = (m1 + m2) g l cos θ1 + m2 g l cos θ2, which with m1 = m2 = l = 1, g = 9.8 gives the printed
//! M = [[2, cos θd], [cos θd, 1]] and f = (sin θd θ̇2² + 19.6 sin θ1, −sin θd θ̇1² + 9.8 sin θ2),
//! θd = θ2 − θ1 (ambiguity 22: these are the Lagrange signs).
//!
//! Chosen initial state (ambiguity 23, not in the seeds): on the branch θ2 = π − θ1 (the slider
//! moving along its line), θ1(0) = 5π/4, θ̇1(0) = −4.4 rad/s, θ̇2 = −θ̇1. On this branch the
//! energy is ½ (3 + 2 cos 2θ1) θ̇1² + g cos θ1, and the crank goes over the top (θ1 ≡ 0, the
//! singular point) at t ≈ 1.04 and again at t ≈ 2.70, as the thesis' runs on [0, 3] do.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Singular slider-crank (4.27).
#[model(
    coordinates: [theta1, theta2],
    holonomic: [-theta1.cos() - theta2.cos()],
    kinetic: l.powi(2) / 2.0 * ((m1 + m2) * theta1_dot.powi(2) + m2 * theta2_dot.powi(2)
        + 2.0 * m2 * (theta2 - theta1).cos() * theta1_dot * theta2_dot),
    potential: (m1 + m2) * g * l * theta1.cos() + m2 * g * l * theta2.cos(),
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (l * theta1.sin(), l * theta1.cos()),
            B = (l * (theta1.sin() + theta2.sin()), l * (theta1.cos() + theta2.cos())),
        ],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct SingularSliderCrank {
    /// Mass at the crank pin [kg] (1, implied by the printed M).
    pub m1: f64,
    /// Mass of the slider [kg] (1, implied by the printed M).
    pub m2: f64,
    /// Length of crank and rod [m] (1, implied by the printed M).
    pub l: f64,
    /// Gravitational acceleration [m/s²] (9.8, from the printed 19.6 and 9.8).
    pub g: f64,
}

impl SingularSliderCrank {
    /// Chosen initial crank angle [rad] (ambiguity 23).
    pub const THETA1_0: f64 = 1.25 * std::f64::consts::PI;
    /// Chosen initial crank rate [rad/s] (ambiguity 23).
    pub const OMEGA1_0: f64 = -4.4;

    /// m1 = m2 = l = 1, g = 9.8.
    pub fn published() -> Self {
        Self {
            m1: 1.0,
            m2: 1.0,
            l: 1.0,
            g: 9.8,
        }
    }

    /// On the branch θ2 = π − θ1 (slider moving along its line): θ1 = [`Self::THETA1_0`],
    /// θ̇1 = [`Self::OMEGA1_0`], θ̇2 = −θ̇1.
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let (t1, w1) = (Self::THETA1_0, Self::OMEGA1_0);
        (vec![t1, std::f64::consts::PI - t1], vec![w1, -w1])
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "singular-slider-crank",
    title: "singular slider-crank, G = 0 at (0, pi) (n = 2, m = 1)",
    source: "[CHIN] §4.5 eq. (4.27) (digest P10), after Petzold-Ren-Maly",
    build: || Box::new(SingularSliderCrank::published()),
    initial: SingularSliderCrank::initial,
    t_end: 3.0,
    dt_out: 0.01,
    rtol: 1e-5,
    kernels: include_str!("generated/singular_slider_crank.rs"),
};
