//! The "two-arm robot" of \[CHIN\] Table 3.1 (SEEDS-DIGEST P7): the two-link manipulator of
//! §4.4.3, case I, written with the mass matrix and forces **as printed** in the thesis (the
//! sibling model [`crate::TwoLink`] derives the same M and f from a Lagrangian;
//! `models/tests/suite/models.rs` checks that they agree).
//!
//! q = (θ1, θ2), θ2 relative to link 1; uniform links of masses `m1`, `m2` and lengths `l1`,
//! `l2`, link 1 pinned at the origin; the tip (x2, y2) = (l1 c1 + l2 c12, l1 s1 + l2 s12) stays
//! on the parabola y2 = x2² − b, Φ = y2 − x2² + b:
//!
//! ```text
//! M11 = m1 l1²/3 + m2 (l1² + l2²/3 + l1 l2 c2),  M12 = m2 (l2²/3 + l1 l2 c2 / 2),  M22 = m2 l2²/3
//! f1 = −m1 g l1 c1/2 − m2 g (l1 c1 + l2 c12/2) + (m2 l1 l2 s2 / 2)(2 θ̇1 θ̇2 + θ̇2²)
//! f2 = −m2 g l2 c12/2 − (m2 l1 l2 s2 / 2) θ̇1²
//! ```
//!
//! Data: m1 = m2 = 30 kg (the OCR's "3Q kg", ambiguity 16; with m1 = m2 the motion does not
//! depend on it, λ scales with it), l1 = l2 = 1 m, g = 9.81 m/s², θ(0) = (70°, −140°),
//! θ̇(0) = 0, so b = x2(0)² = (2 cos 70°)² = 0.467911… makes the start consistent.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Two-link manipulator, case I, printed mass matrix and forces.
#[model(
    coordinates: [theta1, theta2],
    let c1 = theta1.cos(),
    let c2 = theta2.cos(),
    let s2 = theta2.sin(),
    let c12 = (theta1 + theta2).cos(),
    let x2 = l1 * theta1.cos() + l2 * (theta1 + theta2).cos(),
    let y2 = l1 * theta1.sin() + l2 * (theta1 + theta2).sin(),
    let m12 = m2 * (l2.powi(2) / 3.0 + l1 * l2 * c2 / 2.0),
    let h = m2 * l1 * l2 * s2 / 2.0,
    holonomic: [y2 - x2.powi(2) + b],
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
        points: [O = (0.0, 0.0), A = (l1 * c1, l1 * theta1.sin()), B = (x2, y2)],
        segments: [(O, A), (A, B)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TwoArmRobot {
    /// Mass of link 1 [kg] (30, ambiguity 16).
    pub m1: f64,
    /// Mass of link 2 [kg] (30, ambiguity 16).
    pub m2: f64,
    /// Length of link 1 [m] (1).
    pub l1: f64,
    /// Length of link 2 [m] (1).
    pub l2: f64,
    /// Offset of the parabola y2 = x2² − b [m] (x2(0)² = 0.467911…).
    pub b: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl TwoArmRobot {
    /// θ(0) = (70°, −140°) (\[CHIN\] §4.4.3).
    pub const THETA0: [f64; 2] = [
        70.0 * std::f64::consts::PI / 180.0,
        -140.0 * std::f64::consts::PI / 180.0,
    ];

    /// The published data (m1 = m2 = 30 kg, l1 = l2 = 1 m, g = 9.81) with the consistent b.
    pub fn published() -> Self {
        Self {
            m1: 30.0,
            m2: 30.0,
            l1: 1.0,
            l2: 1.0,
            b: Self::consistent_b(1.0, 1.0),
            g: 9.81,
        }
    }

    /// b = x2(0)² for links of lengths l1, l2 at θ(0).
    pub fn consistent_b(l1: f64, l2: f64) -> f64 {
        let [t1, t2] = Self::THETA0;
        (l1 * t1.cos() + l2 * (t1 + t2).cos()).powi(2)
    }

    /// The initial guess θ(0) = (70°, −140°), θ̇(0) = 0 (for every manipulator model).
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        (Self::THETA0.to_vec(), vec![0.0; 2])
    }

    /// Helper-4's Lagrangian [`crate::TwoLink`] with the same published data.
    pub fn two_link() -> crate::TwoLink {
        crate::TwoLink {
            m1: 30.0,
            m2: 30.0,
            l1: 1.0,
            l2: 1.0,
            b: Self::consistent_b(1.0, 1.0),
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "two-arm-robot",
    title: "two-arm robot of Table 3.1 = manipulator case I, printed M and f (n = 2, m = 1)",
    source: "[CHIN] §3.4 Table 3.1 and §4.4.3 (digest P7)",
    build: || Box::new(TwoArmRobot::published()),
    initial: TwoArmRobot::initial,
    t_end: 10.0,
    dt_out: 0.02,
    rtol: 1e-6,
    kernels: include_str!("generated/two_arm_robot.rs"),
};
