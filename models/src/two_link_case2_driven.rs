//! The two-link manipulator of \[CHIN\] §4.4.3 case II (digest P7, [`crate::TwoLinkCase2`])
//! made fully driven for inverse dynamics (\[HAUG\] §7.1, digest §2.8): besides the prescribed
//! tip height y2 = sin²(ω t) (4.26, row `tip_height`), the shoulder angle is prescribed,
//! θ1 = θ1₀ + a sin(ω t) (row `shoulder`, a driving constraint). With n = 2 = m the motion is
//! determined by the constraints alone; the multiplier of `shoulder` gives the shoulder's driving
//! torque τ1 = −λ_shoulder and that of `tip_height` the vertical force holding the tip on its
//! path. M and f are the thesis' printed ones (as in case II); the shoulder drive is our
//! addition (θ1₀ = 70° as the published initial state, a = 0.2 rad, ω = 0.5 rad/s).
//!
//! Closed form (checked in `cli/tests/analysis.rs`): θ1 as prescribed, θ1 + θ2 =
//! asin((sin²(ω t) − l1 sin θ1) / l2) (the branch through −70° at t = 0), their derivatives by
//! hand, and the torques τ = M(θ) θ̈ − f(θ, θ̇) = −Gᵀλ.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Two-link manipulator, case II, with the shoulder driven.
#[model(
    coordinates: [theta1, theta2],
    let c1 = theta1.cos(),
    let c2 = theta2.cos(),
    let s2 = theta2.sin(),
    let c12 = (theta1 + theta2).cos(),
    let y2 = l1 * theta1.sin() + l2 * (theta1 + theta2).sin(),
    let m12 = m2 * (l2.powi(2) / 3.0 + l1 * l2 * c2 / 2.0),
    let h = m2 * l1 * l2 * s2 / 2.0,
    holonomic: [
        tip_height = y2 - (omega * t).sin().powi(2),
        shoulder = theta1 - theta10 - amp * (omega * t).sin(),
    ],
    mass: [
        [m1 * l1.powi(2) / 3.0 + m2 * (l1.powi(2) + l2.powi(2) / 3.0 + l1 * l2 * c2), m12],
        [m12, m2 * l2.powi(2) / 3.0],
    ],
    force: [
        -m1 * g * l1 * c1 / 2.0 - m2 * g * (l1 * c1 + l2 * c12 / 2.0)
            + h * (2.0 * theta1_dot * theta2_dot + theta2_dot.powi(2)),
        -m2 * g * l2 * c12 / 2.0 - h * theta1_dot.powi(2),
    ],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TwoLinkCase2Driven {
    /// Mass of link 1 [kg] (30).
    pub m1: f64,
    /// Mass of link 2 [kg] (30).
    pub m2: f64,
    /// Length of link 1 [m] (1).
    pub l1: f64,
    /// Length of link 2 [m] (1).
    pub l2: f64,
    /// Angular frequency [rad/s] (0.5).
    pub omega: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Shoulder angle at t = 0 [rad] (70°).
    pub theta10: f64,
    /// Amplitude of the shoulder drive [rad] (0.2, chosen).
    pub amp: f64,
}

impl TwoLinkCase2Driven {
    /// The published links with the chosen shoulder drive.
    pub fn published() -> Self {
        Self {
            m1: 30.0,
            m2: 30.0,
            l1: 1.0,
            l2: 1.0,
            omega: 0.5,
            g: 9.81,
            theta10: 70f64.to_radians(),
            amp: 0.2,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "two-link-case2-driven",
    title: "two-link manipulator, case II with the shoulder driven (n = 2, m = 2, 0 DOF)",
    source: "[CHIN] §4.4.3 case II (digest P7) + a shoulder drive, for inverse dynamics",
    build: || Box::new(TwoLinkCase2Driven::published()),
    initial: crate::TwoArmRobot::initial,
    t_end: 10.0,
    dt_out: 0.02,
    rtol: 1e-5,
    kernels: include_str!("generated/two_link_case2_driven.rs"),
};
