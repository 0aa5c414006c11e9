//! A five-link wheel suspension in spatial bodies, after the mechanism of \[CHIN\] §4.4.2
//! (digest P8) whose published data (the Grupp–Simeon benchmark, NEWEUL equations) could not be
//! found (`docs/five-link-suspension-search.md`): the car body is the fixed frame; five rods
//! hang on it by universal joints and carry the wheel carrier by spherical joints; the wheel
//! turns on a revolute joint of the carrier at a driven constant rate; a spring-damper acts
//! between rod 4 (the lower rear link) and the body; a one-sided tire force pushes the wheel
//! up from the road.
//!
//! Topology as in the thesis (7 moving bodies, 4 independent loops); coordinates are Euler
//! parameters here (49 = 7 × 7), so the rows are 7 normalizations, 5 × 4 universal, 5 × 3
//! spherical, 5 revolute and 1 driver: 48 rows, one degree of freedom (the wheel travel).
//!
//! \[EXT\] chosen data (ours, documented here): lengths in m, body frame x forward, y outward,
//! z up, the design position below. Inner (body) points A_i and outer (carrier) points B_i:
//!
//! | link | A_i | B_i |
//! |---|---|---|
//! | 1 upper front | (0.15, 0.35, 0.20) | (0.05, 0.68, 0.18) |
//! | 2 upper rear | (−0.20, 0.35, 0.22) | (−0.05, 0.68, 0.18) |
//! | 3 lower front | (0.25, 0.30, −0.08) | (0.06, 0.70, −0.12) |
//! | 4 lower rear (spring) | (−0.25, 0.30, −0.10) | (−0.04, 0.70, −0.13) |
//! | 5 toe link | (−0.15, 0.32, 0.02) | (−0.14, 0.69, 0.00) |
//!
//! Rods 1 kg (J = (1e-4, m L²/12, m L²/12) about their axis x'); carrier 10 kg at
//! C = (0, 0.70, 0), J = (0.1, 0.1, 0.1); wheel 20 kg at W = (0, 0.75, 0) spinning about y,
//! J = (0.5, 0.9, 0.5), radius 0.3, driven at ω = 100 rad/s (30 m/s, the thesis' "30m/second");
//! the universal joints' body-side cross axis is x (the rods swing up and down about it).
//! Spring from (−0.15, 0.45, 0.35) on the body to rod 4's point 60 % out, k = 3e4 N/m,
//! c = 1.5e3 N s/m, rest length 0.1 m longer than at the design position (3 kN preload,
//! standing in for the absent car body's weight). Tire: F = max(kt (U(t) − (z_W − z_W0)) + F0, 0)
//! vertical at W (the thesis' (4.24) with our kt = 2e5 N/m and F0 the load that makes the
//! design position a static equilibrium, [`FiveLink::balanced`]), U(t) the road: case I a
//! 0.01 m bump U = 0.01 sin(2π(t + 0.2)) e^{−500 (t − 0.3)²} (the thesis' shape), case II a
//! 0.1 m drop at t = 0.2.
//! Gravity −9.81 along z.

// The macro constant-folds `2.0 * PI` into its f64 literal, which clippy mistakes for a
// hand-typed approximation of τ; the value is exactly `f64::consts::TAU`.
#![allow(clippy::approx_constant)]

use mbsim::model;
use mbsim::runtime::ConstrainedSystem;
use mbsim::runtime::catalog::ModelEntry;
use mbsim::spatial::{BodyState, from_matrix, set_body};

/// The five links' inner (body) points, x, y, z per link [m].
pub const INNER: [[f64; 3]; 5] = [
    [0.15, 0.35, 0.20],
    [-0.20, 0.35, 0.22],
    [0.25, 0.30, -0.08],
    [-0.25, 0.30, -0.10],
    [-0.15, 0.32, 0.02],
];
/// The five links' outer (carrier) points at the design position [m].
pub const OUTER: [[f64; 3]; 5] = [
    [0.05, 0.68, 0.18],
    [-0.05, 0.68, 0.18],
    [0.06, 0.70, -0.12],
    [-0.04, 0.70, -0.13],
    [-0.14, 0.69, 0.00],
];
/// Carrier centre of mass at the design position [m].
pub const CARRIER: [f64; 3] = [0.0, 0.70, 0.0];
/// Wheel centre at the design position [m].
pub const WHEEL: [f64; 3] = [0.0, 0.75, 0.0];
/// Spring's body point [m].
pub const SPRING_TOP: [f64; 3] = [-0.15, 0.45, 0.35];
/// Where the spring meets rod 4, as a fraction of its length from the inner end.
pub const SPRING_AT: f64 = 0.6;

/// Five-link suspension: universal, spherical and revolute joints, a driver, a TSDA and a
/// one-sided tire force.
#[model(
    const g = 9.81,
    let jc = 0.1,
    let road = if case2 > 0.5 { if t >= 0.2 { -drop } else { 0.0 } }
        else { bump * (2.0 * PI * (t + 0.2)).sin() * (-500.0 * (t - 0.3).powi(2)).exp() },
    let tire = (kt * (road - (wheel_z - zw0)) + f0).max(0.0),
    bodies: [
        rod1 = body(mr, [1.0e-4, mr * l[0].powi(2) / 12.0, mr * l[0].powi(2) / 12.0]),
        rod2 = body(mr, [1.0e-4, mr * l[1].powi(2) / 12.0, mr * l[1].powi(2) / 12.0]),
        rod3 = body(mr, [1.0e-4, mr * l[2].powi(2) / 12.0, mr * l[2].powi(2) / 12.0]),
        rod4 = body(mr, [1.0e-4, mr * l[3].powi(2) / 12.0, mr * l[3].powi(2) / 12.0]),
        rod5 = body(mr, [1.0e-4, mr * l[4].powi(2) / 12.0, mr * l[4].powi(2) / 12.0]),
        carrier = body(mc, [jc, jc, jc]),
        wheel = body(mw, [0.5, 0.9, 0.5]),
    ],
    joints: [
        inner1 = universal(ground, [a[0], a[1], a[2]], [1.0, 0.0, 0.0], rod1, [-l[0] / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        inner2 = universal(ground, [a[3], a[4], a[5]], [1.0, 0.0, 0.0], rod2, [-l[1] / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        inner3 = universal(ground, [a[6], a[7], a[8]], [1.0, 0.0, 0.0], rod3, [-l[2] / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        inner4 = universal(ground, [a[9], a[10], a[11]], [1.0, 0.0, 0.0], rod4, [-l[3] / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        inner5 = universal(ground, [a[12], a[13], a[14]], [1.0, 0.0, 0.0], rod5, [-l[4] / 2.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        outer1 = spherical(carrier, [b[0], b[1], b[2]], rod1, [l[0] / 2.0, 0.0, 0.0]),
        outer2 = spherical(carrier, [b[3], b[4], b[5]], rod2, [l[1] / 2.0, 0.0, 0.0]),
        outer3 = spherical(carrier, [b[6], b[7], b[8]], rod3, [l[2] / 2.0, 0.0, 0.0]),
        outer4 = spherical(carrier, [b[9], b[10], b[11]], rod4, [l[3] / 2.0, 0.0, 0.0]),
        outer5 = spherical(carrier, [b[12], b[13], b[14]], rod5, [l[4] / 2.0, 0.0, 0.0]),
        hub = revolute(carrier, [hx, hy, hz], [0.0, 1.0, 0.0], wheel, [0.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
        spin = rotation(hub, omega * t),
    ],
    loads: [
        gravity([0.0, 0.0, -g]),
        spring = tsda(ground, [st[0], st[1], st[2]], rod4, [sa, 0.0, 0.0], k, c, l0, 0.0),
        contact = force(wheel, [0.0, 0.0, 0.0], [0.0, 0.0, tire]),
    ],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FiveLink {
    /// Rod mass [kg].
    pub mr: f64,
    /// Carrier mass [kg].
    pub mc: f64,
    /// Wheel mass [kg].
    pub mw: f64,
    /// Inner points A_i (x, y, z per link) [m].
    pub a: [f64; 15],
    /// Outer points B_i − C in the carrier frame [m].
    pub b: [f64; 15],
    /// Rod lengths |B_i − A_i| [m].
    pub l: [f64; 5],
    /// Hub W − C in the carrier frame [m].
    pub hx: f64,
    /// See `hx`.
    pub hy: f64,
    /// See `hx`.
    pub hz: f64,
    /// Spring's body point [m].
    pub st: [f64; 3],
    /// Spring's point on rod 4 along its axis from its centre [m].
    pub sa: f64,
    /// Spring stiffness [N/m].
    pub k: f64,
    /// Damping [N s/m].
    pub c: f64,
    /// Spring rest length [m].
    pub l0: f64,
    /// Wheel spin rate [rad/s].
    pub omega: f64,
    /// Tire stiffness [N/m].
    pub kt: f64,
    /// Static tire load [N].
    pub f0: f64,
    /// Wheel centre height at the design position [m].
    pub zw0: f64,
    /// Case I road bump amplitude [m].
    pub bump: f64,
    /// Case II road drop at t = 0.2 [m].
    pub drop: f64,
    /// 0: case I (smooth bump), 1: case II (the road drops at t = 0.2).
    pub case2: f64,
}

/// b − a.
fn minus(b: [f64; 3], a: [f64; 3]) -> [f64; 3] {
    [b[0] - a[0], b[1] - a[1], b[2] - a[2]]
}

/// |d|.
fn norm(d: [f64; 3]) -> f64 {
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// u × w.
fn cross(u: [f64; 3], w: [f64; 3]) -> [f64; 3] {
    [
        u[1] * w[2] - u[2] * w[1],
        u[2] * w[0] - u[0] * w[2],
        u[0] * w[1] - u[1] * w[0],
    ]
}

impl FiveLink {
    /// The \[EXT\] chosen data (module docs), case I (a 0.01 m bump); case II (`case2 = 1`)
    /// drops the road by 0.1 m.
    pub fn chosen() -> Self {
        let (mut a, mut b, mut l) = ([0.0; 15], [0.0; 15], [0.0; 5]);
        for i in 0..5 {
            for k in 0..3 {
                a[3 * i + k] = INNER[i][k];
                b[3 * i + k] = OUTER[i][k] - CARRIER[k];
            }
            l[i] = norm(minus(OUTER[i], INNER[i]));
        }
        let (mr, mc, mw) = (1.0, 10.0, 20.0);
        // The spring's rod point and its length at the design position (no preload there).
        let sa = (SPRING_AT - 0.5) * l[3];
        let at: [f64; 3] =
            std::array::from_fn(|k| INNER[3][k] + SPRING_AT * (OUTER[3][k] - INNER[3][k]));
        FiveLink {
            mr,
            mc,
            mw,
            a,
            b,
            l,
            hx: WHEEL[0] - CARRIER[0],
            hy: WHEEL[1] - CARRIER[1],
            hz: WHEEL[2] - CARRIER[2],
            st: SPRING_TOP,
            sa,
            k: 3.0e4,
            c: 1.5e3,
            // Rest length 0.1 m longer than at the design position: 3 kN of preload, which
            // pushes the wheel down as the (absent) car body's weight would.
            l0: norm(minus(at, SPRING_TOP)) + 0.1,
            omega: 100.0,
            kt: 2.0e5,
            f0: 0.0,
            zw0: WHEEL[2],
            bump: 0.01,
            drop: 0.1,
            case2: 0.0,
        }
        .balanced()
    }

    /// The same model with `f0` the tire force that holds the design position in static
    /// equilibrium (wheel spinning, everything else at rest): [Gᵀ, −e] [λ; F] = Q₀ with Q₀
    /// the applied forces without the tire and e the generalized force of a unit vertical
    /// force at the wheel centre (49 equations, 48 multipliers and F).
    pub fn balanced(mut self) -> Self {
        let mut at_rest = self.clone();
        at_rest.kt = 0.0;
        at_rest.f0 = 0.0;
        let (q, _) = at_rest.design_state(&at_rest);
        let d = at_rest.dims();
        let (n, m) = (d.n, d.m);
        let v = vec![0.0; n];
        let (mut q0, mut q1) = (vec![0.0; n], vec![0.0; n]);
        at_rest.force_into(0.0, &q, &v, &mut q0);
        let mut unit = at_rest.clone();
        unit.f0 = 1.0;
        unit.force_into(0.0, &q, &v, &mut q1);
        let mut g = mbsim::nalgebra::DMatrix::zeros(m, n);
        at_rest.phi_q_into(0.0, &q, g.as_view_mut());
        let mut a = mbsim::nalgebra::DMatrix::zeros(n, m + 1);
        for i in 0..n {
            for j in 0..m {
                a[(i, j)] = g[(j, i)];
            }
            a[(i, m)] = -(q1[i] - q0[i]);
        }
        let rhs = mbsim::nalgebra::DVector::from_column_slice(&q0);
        let x = a
            .lu()
            .solve(&rhs)
            .expect("a nonsingular static system at the design position");
        self.f0 = x[m];
        self
    }

    /// The design position, at rest but for the wheel's spin.
    pub fn design_state(
        &self,
        sys: &dyn mbsim::runtime::ConstrainedSystem,
    ) -> (Vec<f64>, Vec<f64>) {
        let n = sys.dims().n;
        let (mut q, mut v) = (vec![0.0; n], vec![0.0; n]);
        for i in 0..5 {
            let d = minus(OUTER[i], INNER[i]);
            let len = norm(d);
            let x = [d[0] / len, d[1] / len, d[2] / len];
            // y' ⟂ the body-side cross axis (world x) and ⟂ x'.
            let w = cross([1.0, 0.0, 0.0], x);
            let wl = norm(w);
            let y = [w[0] / wl, w[1] / wl, w[2] / wl];
            let z = cross(x, y);
            let frame = [[x[0], y[0], z[0]], [x[1], y[1], z[1]], [x[2], y[2], z[2]]];
            let p = from_matrix(frame).expect("an orthonormal right-handed frame");
            let mid: [f64; 3] = std::array::from_fn(|k| 0.5 * (OUTER[i][k] + INNER[i][k]));
            let state = BodyState {
                r: mid,
                p,
                rdot: [0.0; 3],
                omega: [0.0; 3],
            };
            set_body(sys, &mut q, &mut v, &format!("rod{}", i + 1), state)
                .expect("the model's rods");
        }
        let identity = [1.0, 0.0, 0.0, 0.0];
        let carrier = BodyState {
            r: CARRIER,
            p: identity,
            rdot: [0.0; 3],
            omega: [0.0; 3],
        };
        set_body(sys, &mut q, &mut v, "carrier", carrier).expect("the carrier");
        let omega = sys.parameter("omega").unwrap_or(self.omega);
        let wheel = BodyState {
            r: WHEEL,
            p: identity,
            rdot: [0.0; 3],
            omega: [0.0, omega, 0.0],
        };
        set_body(sys, &mut q, &mut v, "wheel", wheel).expect("the wheel");
        (q, v)
    }

    /// The catalog's initial guess: the design position.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        FiveLink::chosen().design_state(sys)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "five-link",
    title: "five-link wheel suspension (Chin 4.4.2 topology), Euler parameters (n = 49, m = 48, 1 DOF)",
    source: "[CHIN] §4.4.2 topology (digest P8); benchmark data not found, geometry and data chosen [EXT]",
    build: || Box::new(FiveLink::chosen()),
    initial: FiveLink::initial,
    t_end: 1.0,
    dt_out: 0.005,
    rtol: 1e-4,
    kernels: include_str!("generated/five_link.rs"),
};
