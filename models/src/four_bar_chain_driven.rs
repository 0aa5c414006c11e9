//! The A02 chain in body coordinates ([`crate::four_bar_chain_bodies`]: 81 planar bodies,
//! 243 coordinates, 242 revolute-joint rows) with crank 0 driven by a rheonomic constraint,
//! `drive` = φ₀ − θ₀ − ω t: 243 rows, 0 degrees of freedom. The model that kinematic analysis
//! and inverse dynamics run on at the size where the sparse path matters (issue 27): Φ_q is
//! square, 243 × 243, with at most 6 nonzeros per row.
//!
//! Exact solution: on the parallelogram branch every crank turns with crank 0, θ(t) = θ₀ + ω t,
//! and the couplers translate with the tips ([`FourBarChainDriven::exact_state`]). The catalog's
//! grid, θ from π/2 to π/2 + 1 over 1 s, stays away from the change point θ = π where the whole
//! chain lies on the ground line and Φ_q is singular.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

use crate::four_bar_chain_bodies::FourBarChainBodies;

/// The 40-window four-bar chain as 81 planar bodies, crank 0 driven at a constant rate.
#[model(
    const N = 40,
    const B = 81,
    coordinates: [x[0..B], y[0..B], phi[0..B]],
    let ax[b in 0..B] = x[b] - len / 2.0 * phi[b].cos(),
    let ay[b in 0..B] = y[b] - len / 2.0 * phi[b].sin(),
    let bx[b in 0..B] = x[b] + len / 2.0 * phi[b].cos(),
    let by[b in 0..B] = y[b] + len / 2.0 * phi[b].sin(),
    holonomic: [
        for i in 0..=N { [pivot_x = ax[i] - i * len, pivot_y = ay[i]] },
        for i in 0..N {
            [
                left_x = ax[N + 1 + i] - bx[i],
                left_y = ay[N + 1 + i] - by[i],
                right_x = bx[N + 1 + i] - bx[i + 1],
                right_y = by[N + 1 + i] - by[i + 1],
            ]
        },
        drive = phi[0] - theta0 - omega * t,
    ],
    mass: diag(
        for b in 0..B { m },
        for b in 0..B { m },
        for b in 0..B { m * len.powi(2) / 12.0 },
    ),
    force: [for b in 0..B { 0.0 }, for b in 0..B { -m * g }, for b in 0..B { 0.0 }],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChainDriven {
    /// Rod length ℓ [m] (1).
    pub len: f64,
    /// Rod mass [kg] (1).
    pub m: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Crank angle at t = 0 [rad] (π/2).
    pub theta0: f64,
    /// Crank rate [rad/s] (1).
    pub omega: f64,
}

impl FourBarChainDriven {
    /// Unit lengths and masses, g = 9.81, cranks vertical at t = 0 turning at 1 rad/s.
    pub fn unit() -> Self {
        Self {
            len: 1.0,
            m: 1.0,
            g: 9.81,
            theta0: std::f64::consts::FRAC_PI_2,
            omega: 1.0,
        }
    }

    /// The exact (q, v) at time `t`: every crank at θ₀ + ω t turning at ω (module docs).
    pub fn exact_state(&self, t: f64) -> (Vec<f64>, Vec<f64>) {
        let mut chain = FourBarChainBodies::unit();
        chain.len = self.len;
        chain.branch_state(self.theta0 + self.omega * t, self.omega)
    }

    /// The consistent start of the catalog's parameters, read from `sys`.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut chain = Self::unit();
        for (name, slot) in [
            ("len", &mut chain.len),
            ("theta0", &mut chain.theta0),
            ("omega", &mut chain.omega),
        ] {
            *slot = sys.parameter(name).unwrap_or(*slot);
        }
        chain.exact_state(0.0)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "four-bar-chain-driven",
    title: "IFToMM A02 chain in 81 planar bodies, crank 0 driven (n = m = 243, 0 DOF)",
    source: "IFToMM multibody benchmark A02; body form of four-bar-chain with a crank drive",
    build: || Box::new(FourBarChainDriven::unit()),
    initial: FourBarChainDriven::initial,
    t_end: 1.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/four_bar_chain_driven.rs"),
};
