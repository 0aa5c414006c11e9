//! The planar two-link manipulator of the thesis §4.4.3 (SEEDS-DIGEST P7), case I: uniform
//! links, link 1 pinned at the origin, `theta2` relative to link 1, the tip held on the
//! parabola y₂ = x₂² − b. Written as a Lagrangian; the mass matrix and forces printed in the
//! thesis are what `mbsim_codegen::lagrange` derives from it (checked in `models/tests/suite/lagrange.rs`).
//!
//! T = ½ (m1 l1²/3) θ̇1² + ½ m2 |ċ2|² + ½ (m2 l2²/12) ω² with ω = θ̇1 + θ̇2 and
//! |ċ2|² = l1² θ̇1² + (l2²/4) ω² + l1 l2 θ̇1 ω cos θ2 (centre c2 = l1 e(θ1) + (l2/2) e(θ1+θ2));
//! V = m1 g (l1/2) sin θ1 + m2 g (l1 sin θ1 + (l2/2) sin(θ1+θ2)); g is baked.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Two uniform links with the tip on a parabola (case I).
#[model(
    coordinates: [theta1, theta2],
    const g = 9.81,
    let w = theta1_dot + theta2_dot,
    let x2 = l1 * theta1.cos() + l2 * (theta1 + theta2).cos(),
    let y2 = l1 * theta1.sin() + l2 * (theta1 + theta2).sin(),
    holonomic: [y2 - x2.powi(2) + b],
    kinetic: m1 * l1.powi(2) / 6.0 * theta1_dot.powi(2)
        + m2 / 2.0 * (l1.powi(2) * theta1_dot.powi(2) + l2.powi(2) / 4.0 * w.powi(2)
            + l1 * l2 * theta1_dot * w * theta2.cos())
        + m2 * l2.powi(2) / 24.0 * w.powi(2),
    potential: m1 * g * l1 / 2.0 * theta1.sin()
        + m2 * g * (l1 * theta1.sin() + l2 / 2.0 * (theta1 + theta2).sin()),
    draw: {
        points: [O = (0.0, 0.0), A = (l1 * theta1.cos(), l1 * theta1.sin()), B = (x2, y2)],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TwoLink {
    /// Mass of link 1 [kg].
    pub m1: f64,
    /// Mass of link 2 [kg].
    pub m2: f64,
    /// Length of link 1 [m].
    pub l1: f64,
    /// Length of link 2 [m].
    pub l2: f64,
    /// Offset of the parabola y₂ = x₂² − b [m].
    pub b: f64,
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "two-link",
    title: "two-link manipulator, case I: tip on the parabola y2 = x2^2 - b (n = 2, m = 1)",
    source: "[CHIN] §4.4.3 Table 4.6 (digest P7), Lagrangian form",
    build: || Box::new(crate::TwoArmRobot::two_link()),
    initial: crate::TwoArmRobot::initial,
    t_end: 10.0,
    dt_out: 0.02,
    rtol: 1e-6,
    kernels: include_str!("generated/two_link.rs"),
};
