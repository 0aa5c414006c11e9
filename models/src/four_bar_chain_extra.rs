//! The N-four-bar chain (IFToMM A02) in body coordinates with one extra, redundant crank: the
//! chain of [`crate::four_bar_chain_bodies`] with N = 4 windows (cranks 0 … N, couplers
//! N + 1 … 2N) and crank 2N + 1 pinned to the ground at (ℓ/2, 0) and, by its tip, to the centre
//! of coupler 0. On the parallelogram branch the extra crank moves like the others, so its four
//! joint rows add one redundant row (rank 29 of 30 rows, 30 coordinates, 1 DOF): issue 22's
//! over-constrained chain. Rods are uniform (J = mℓ²/12), all of mass m.
//!
//! Exact reduction: every crank at the angle θ (from the x axis), couplers translating, so with
//! c = N + 2 cranks and N couplers T = ½ (c/3 + N) mℓ² θ̇², V = (c/2 + N) m g ℓ sin θ and
//! θ̈ = −(g/ℓ) (c/2 + N)/(c/3 + N) cos θ ([`FourBarChainExtra::kappa`]).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// The 4-window chain in body coordinates plus a redundant crank.
#[model(
    const N = 4,
    const B = 10,
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
        extra_pivot_x = ax[2 * N + 1] - len / 2.0,
        extra_pivot_y = ay[2 * N + 1],
        extra_tip_x = bx[2 * N + 1] - x[N + 1],
        extra_tip_y = by[2 * N + 1] - y[N + 1],
    ],
    mass: diag(
        for b in 0..B { m },
        for b in 0..B { m },
        for b in 0..B { m * len.powi(2) / 12.0 },
    ),
    force: [for b in 0..B { 0.0 }, for b in 0..B { -m * g }, for b in 0..B { 0.0 }],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChainExtra {
    /// Rod length ℓ [m] (1).
    pub len: f64,
    /// Rod mass [kg] (1).
    pub m: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

/// Windows of [`FourBarChainExtra`] (the model's `const N`).
pub const WINDOWS: usize = 4;

impl FourBarChainExtra {
    /// Unit lengths and masses, g = 9.81.
    pub fn unit() -> Self {
        Self {
            len: 1.0,
            m: 1.0,
            g: 9.81,
        }
    }

    /// κ of θ̈ = −κ cos θ (module docs).
    pub fn kappa(&self) -> f64 {
        let (c, n) = ((WINDOWS + 2) as f64, WINDOWS as f64);
        self.g / self.len * (c / 2.0 + n) / (c / 3.0 + n)
    }

    /// The state on the parallelogram branch with every crank at `theta` turning at `omega`.
    pub fn branch_state(&self, theta: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (n, l, bodies) = (WINDOWS, self.len, 2 * WINDOWS + 2);
        let (s, c) = theta.sin_cos();
        let (mut q, mut v) = (vec![0.0; 3 * bodies], vec![0.0; 3 * bodies]);
        for b in 0..bodies {
            let crank = |base: f64| {
                let (x, y) = (base + l / 2.0 * c, l / 2.0 * s);
                (
                    x,
                    y,
                    theta,
                    -l / 2.0 * s * omega,
                    l / 2.0 * c * omega,
                    omega,
                )
            };
            let (x, y, phi, vx, vy, w) = if b <= n {
                crank(b as f64 * l)
            } else if b == 2 * n + 1 {
                crank(l / 2.0)
            } else {
                let i = (b - n - 1) as f64;
                let (x, y) = ((i + 0.5) * l + l * c, l * s);
                (x, y, 0.0, -l * s * omega, l * c * omega, 0.0)
            };
            (q[b], q[bodies + b], q[2 * bodies + b]) = (x, y, phi);
            (v[b], v[bodies + b], v[2 * bodies + b]) = (vx, vy, w);
        }
        (q, v)
    }

    /// Released at rest 0.8 rad from hanging (θ = −π/2 + 0.8): it swings without reaching the
    /// horizontal, singular positions of the chain.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut chain = Self::unit();
        chain.len = sys.parameter("len").unwrap_or(1.0);
        chain.branch_state(-std::f64::consts::FRAC_PI_2 + 0.8, 0.0)
    }
}

/// [`FourBarChainExtra`] with its redundant row deleted by hand: the extra crank's tip joint
/// keeps only its x row (`extra_tip_y`, the row `mbsim check` names redundant, is gone). The
/// same mechanism with 29 independent rows: the yardstick of `cargo bench -p mbsim-tests --bench
/// redundant`.
#[model(
    const N = 4,
    const B = 10,
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
        extra_pivot_x = ax[2 * N + 1] - len / 2.0,
        extra_pivot_y = ay[2 * N + 1],
        extra_tip_x = bx[2 * N + 1] - x[N + 1],
    ],
    mass: diag(
        for b in 0..B { m },
        for b in 0..B { m },
        for b in 0..B { m * len.powi(2) / 12.0 },
    ),
    force: [for b in 0..B { 0.0 }, for b in 0..B { -m * g }, for b in 0..B { 0.0 }],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChainExtraReduced {
    /// Rod length ℓ [m] (1).
    pub len: f64,
    /// Rod mass [kg] (1).
    pub m: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl FourBarChainExtraReduced {
    /// The data of [`FourBarChainExtra::unit`].
    pub fn unit() -> Self {
        let c = FourBarChainExtra::unit();
        Self {
            len: c.len,
            m: c.m,
            g: c.g,
        }
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "four-bar-chain-extra",
    title: "4-window four-bar chain in body coordinates with a redundant extra crank (30 rows, rank 29)",
    source: "IFToMM multibody benchmark A02, body form + one redundant bar (issue 22)",
    build: || Box::new(FourBarChainExtra::unit()),
    initial: FourBarChainExtra::initial,
    t_end: 5.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/four_bar_chain_extra.rs"),
};
