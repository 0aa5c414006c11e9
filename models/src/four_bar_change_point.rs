//! A crank-driven four-bar at its change point (issue 12): ground l0 = 4 from O = (0, 0) to
//! D = (4, 0), crank l1 = 1 at O, coupler l2 = 3, rocker l3 = 2 at D. s + l = 1 + 4 = 5 =
//! p + q = 3 + 2: a change-point mechanism (Grashof's equality). Coordinates are the absolute
//! link angles θ1, θ2, θ3 (from the x axis; the rocker's from D); loop closure
//! `loop_x` = l1 cos θ1 + l2 cos θ2 − l3 cos θ3 − l0, `loop_y` = l1 sin θ1 + l2 sin θ2 −
//! l3 sin θ3, and the crank drive `crank` = θ1 − θ1₀ − ω t. Uniform bars of masses m1, m2, m3
//! under gravity (Lagrangian).
//!
//! At θ1 = π all four links are collinear (B = (−1, 0), C = (2, 0), θ2 = 0, θ3 = π): Φ_q =
//! [[−l1 sin θ1, −l2 sin θ2, l3 sin θ3], [l1 cos θ1, l2 cos θ2, −l3 cos θ3], [1, 0, 0]] has its
//! `loop_x` row zero, rank 2: the mechanism can switch branches there. With θ1₀ = π/2 and
//! ω = 0.5 rad/s the crank reaches it at t = π.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Crank-driven four-bar with l0 = 4, l1 = 1, l2 = 3, l3 = 2.
#[model(
    coordinates: [theta1, theta2, theta3],
    holonomic: [
        loop_x = l1 * theta1.cos() + l2 * theta2.cos() - l3 * theta3.cos() - l0,
        loop_y = l1 * theta1.sin() + l2 * theta2.sin() - l3 * theta3.sin(),
        crank = theta1 - theta10 - omega * t,
    ],
    kinetic: m1 * l1.powi(2) / 6.0 * theta1_dot.powi(2)
        + m2 / 2.0 * (l1.powi(2) * theta1_dot.powi(2) + l2.powi(2) / 4.0 * theta2_dot.powi(2)
            + l1 * l2 * (theta1 - theta2).cos() * theta1_dot * theta2_dot)
        + m2 * l2.powi(2) / 24.0 * theta2_dot.powi(2)
        + m3 * l3.powi(2) / 6.0 * theta3_dot.powi(2),
    potential: g * (m1 * l1 / 2.0 * theta1.sin()
        + m2 * (l1 * theta1.sin() + l2 / 2.0 * theta2.sin())
        + m3 * l3 / 2.0 * theta3.sin()),
    draw: {
        points: [
            O = (0.0, 0.0),
            A = (l1 * theta1.cos(), l1 * theta1.sin()),
            B = (l0 + l3 * theta3.cos(), l3 * theta3.sin()),
            C = (l0, 0.0),
        ],
        segments: [(O, A), (A, B), (B, C), (C, O)],
    },
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChangePoint {
    /// Ground length [m] (4).
    pub l0: f64,
    /// Crank length [m] (1).
    pub l1: f64,
    /// Coupler length [m] (3).
    pub l2: f64,
    /// Rocker length [m] (2).
    pub l3: f64,
    /// Link masses [kg] (1 each).
    pub m1: f64,
    /// Coupler mass [kg].
    pub m2: f64,
    /// Rocker mass [kg].
    pub m3: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Crank angle at t = 0 [rad] (π/2).
    pub theta10: f64,
    /// Crank speed [rad/s] (0.5).
    pub omega: f64,
}

impl FourBarChangePoint {
    /// l0 = 4, l1 = 1, l2 = 3, l3 = 2, unit masses, θ1₀ = π/2, ω = 0.5.
    pub fn chosen() -> Self {
        Self {
            l0: 4.0,
            l1: 1.0,
            l2: 3.0,
            l3: 2.0,
            m1: 1.0,
            m2: 1.0,
            m3: 1.0,
            g: 9.81,
            theta10: std::f64::consts::FRAC_PI_2,
            omega: 0.5,
        }
    }

    /// The assembled configuration at crank angle θ1 (coupler above the line B–D) and the
    /// velocities for crank speed ω (θ̇2, θ̇3 from the loop's velocity equations).
    pub fn assembled(&self, theta1: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (bx, by) = (self.l1 * theta1.cos(), self.l1 * theta1.sin());
        let (dx, dy) = (self.l0 - bx, -by);
        let d = (dx * dx + dy * dy).sqrt();
        // C on the circles |C − B| = l2, |C − D| = l3: distance along B→D and height above it.
        let along = (self.l2.powi(2) - self.l3.powi(2) + d * d) / (2.0 * d);
        let up = (self.l2.powi(2) - along * along).max(0.0).sqrt();
        let (ux, uy) = (dx / d, dy / d);
        let (cx, cy) = (bx + along * ux - up * uy, by + along * uy + up * ux);
        let theta2 = (cy - by).atan2(cx - bx);
        let theta3 = cy.atan2(cx - self.l0);
        // l2 θ̇2 (−s2, c2) − l3 θ̇3 (−s3, c3) = −l1 ω (−s1, c1), solved by Cramer's rule.
        let (s1, c1, s2, c2, s3, c3) = (
            theta1.sin(),
            theta1.cos(),
            theta2.sin(),
            theta2.cos(),
            theta3.sin(),
            theta3.cos(),
        );
        let (a11, a12, a21, a22) = (-self.l2 * s2, self.l3 * s3, self.l2 * c2, -self.l3 * c3);
        let (b1, b2) = (self.l1 * omega * s1, -self.l1 * omega * c1);
        let det = a11 * a22 - a12 * a21;
        let w2 = (b1 * a22 - a12 * b2) / det;
        let w3 = (a11 * b2 - b1 * a21) / det;
        (vec![theta1, theta2, theta3], vec![omega, w2, w3])
    }

    /// The assembled state at t = 0.
    pub fn initial(s: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut me = Self::chosen();
        for (name, slot) in [
            ("l0", &mut me.l0),
            ("l1", &mut me.l1),
            ("l2", &mut me.l2),
            ("l3", &mut me.l3),
            ("theta10", &mut me.theta10),
            ("omega", &mut me.omega),
        ] {
            *slot = s.parameter(name).unwrap_or(*slot);
        }
        me.assembled(me.theta10, me.omega)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "four-bar-change-point",
    title: "crank-driven four-bar l0 = 4, l1 = 1, l2 = 3, l3 = 2 into its change point (0 DOF)",
    source: "issue 12: a Grashof change-point four-bar (s + l = p + q), crank driven",
    build: || Box::new(FourBarChangePoint::chosen()),
    initial: FourBarChangePoint::initial,
    t_end: 6.0,
    dt_out: 0.01,
    rtol: 1e-6,
    kernels: include_str!("generated/four_bar_change_point.rs"),
};
