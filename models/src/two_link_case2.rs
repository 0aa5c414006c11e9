//! The two-link manipulator of \[CHIN\] §4.4.3, case II (Table 4.7, SEEDS-DIGEST P7): the same
//! links as [`crate::TwoArmRobot`] (printed M and f), but the tip height follows a prescribed
//! motion, y2 = sin²(ω t) (4.26): a rheonomic constraint Φ(t, q) = y2 − sin²(ω t), so
//! Φ_t ≠ 0 enters the velocity invariant (ambiguity 21).
//!
//! Choices (ambiguity 17): "sin2(wt)" is read as sin²(ω t) (consistent with θ̇(0) = 0);
//! ω = 0.5 rad/s (the figures' value; Table 4.7 does not state it); T_end = 10 s as in case I.
//! Data as case I: m1 = m2 = 30 kg, l1 = l2 = 1 m, g = 9.81 m/s², θ(0) = (70°, −140°), θ̇(0) = 0
//! (y2(0) = 0 for l1 = l2).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Two-link manipulator, case II: prescribed tip height.
#[model(
    coordinates: [theta1, theta2],
    let c1 = theta1.cos(),
    let c2 = theta2.cos(),
    let s2 = theta2.sin(),
    let c12 = (theta1 + theta2).cos(),
    let y2 = l1 * theta1.sin() + l2 * (theta1 + theta2).sin(),
    let m12 = m2 * (l2.powi(2) / 3.0 + l1 * l2 * c2 / 2.0),
    let h = m2 * l1 * l2 * s2 / 2.0,
    holonomic: [y2 - (omega * t).sin().powi(2)],
    mass: [
        [m1 * l1.powi(2) / 3.0 + m2 * (l1.powi(2) + l2.powi(2) / 3.0 + l1 * l2 * c2), m12],
        [m12, m2 * l2.powi(2) / 3.0],
    ],
    force: [
        -m1 * g * l1 * c1 / 2.0 - m2 * g * (l1 * c1 + l2 * c12 / 2.0)
            + h * (2.0 * theta1_dot * theta2_dot + theta2_dot.powi(2)),
        -m2 * g * l2 * c12 / 2.0 - h * theta1_dot.powi(2),
    ],
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (l1 * c1, l1 * theta1.sin()),
            B = (l1 * c1 + l2 * c12, y2),
        ],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TwoLinkCase2 {
    /// Mass of link 1 [kg] (30, ambiguity 16).
    pub m1: f64,
    /// Mass of link 2 [kg] (30, ambiguity 16).
    pub m2: f64,
    /// Length of link 1 [m] (1).
    pub l1: f64,
    /// Length of link 2 [m] (1).
    pub l2: f64,
    /// Angular frequency of the prescribed tip height [rad/s] (0.5, ambiguity 17).
    pub omega: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl TwoLinkCase2 {
    /// The published data with ω = 0.5.
    pub fn published() -> Self {
        Self {
            m1: 30.0,
            m2: 30.0,
            l1: 1.0,
            l2: 1.0,
            omega: 0.5,
            g: 9.81,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "two-link-case2",
    title: "two-link manipulator, case II: tip height y2 = sin^2(omega t) (n = 2, m = 1)",
    source: "[CHIN] §4.4.3 Table 4.7 (digest P7, ambiguity 17)",
    build: || Box::new(TwoLinkCase2::published()),
    initial: crate::TwoArmRobot::initial,
    t_end: 10.0,
    dt_out: 0.02,
    rtol: 1e-5,
    kernels: include_str!("generated/two_link_case2.rs"),
};
