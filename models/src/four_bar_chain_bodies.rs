//! The 40-window four-bar chain of [`crate::four_bar_chain`] (IFToMM A02) in body coordinates:
//! 81 planar bodies (cranks 0 … N, then couplers N + 1 … 2N) with the absolute coordinates
//! (x, y, φ) of each centre of mass (3 × 81 = 243 coordinates), every rod uniform of length ℓ
//! (J = mℓ²/12 about its centre), and revolute joints written as indexed families:
//! - `pivot_x[i]`, `pivot_y[i]`: crank i's end A on the ground at (iℓ, 0), i = 0 … N
//!   (41 joints, 82 rows);
//! - `left_x[i]`, `left_y[i]`: coupler i's end A on crank i's tip, and `right_x[i]`,
//!   `right_y[i]`: its end B on crank i + 1's tip, i = 0 … N − 1 (80 joints, 160 rows).
//!
//! 121 revolute joints, 242 rows (the "240 joint rows" leaves out the two rows of one
//! end: 81 bodies × 3 − 242 = 1 degree of freedom, as in the crank-angle form). End A of a
//! body is its centre − (ℓ/2)(cos φ, sin φ), end B its centre + (ℓ/2)(cos φ, sin φ); a crank's
//! end B is its tip.
//!
//! Oracle: the exact 1-DOF reduction of [`crate::four_bar_chain`] (ψ̈ = κ sin ψ on the
//! parallelogram branch), checked in `models/tests/suite/four_bar_chain.rs` from the KKT
//! accelerations of this model and from a run. This is the model the sparse KKT work
//! aims at (243 + 242 unknowns); on the dense path a run is slow, so the catalog's default run
//! is short.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// The N-four-bar chain as 81 planar bodies, N = 40.
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
    ],
    mass: diag(
        for b in 0..B { m[b] },
        for b in 0..B { m[b] },
        for b in 0..B { m[b] * len.powi(2) / 12.0 },
    ),
    force: [for b in 0..B { 0.0 }, for b in 0..B { -m[b] * g }, for b in 0..B { 0.0 }],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChainBodies {
    /// Rod length ℓ [m] (1).
    pub len: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Masses of the bodies [kg]: cranks 0 … 40, couplers 41 … 80 (1 each).
    pub m: [f64; 81],
}

/// Number of bodies (cranks and couplers) of [`FourBarChainBodies`] (the model's `const B`).
pub const BODIES: usize = 81;

impl FourBarChainBodies {
    /// The benchmark data: unit lengths and masses, g = 9.81.
    pub fn unit() -> Self {
        Self {
            len: 1.0,
            g: 9.81,
            m: [1.0; 81],
        }
    }

    /// The state of the chain on the parallelogram branch with every crank at angle `theta`
    /// turning at `omega`: crank i's centre at (iℓ + (ℓ/2) cos θ, (ℓ/2) sin θ), coupler i's at
    /// ((i + ½)ℓ + ℓ cos θ, ℓ sin θ) with φ = 0, translating with the tips.
    pub fn branch_state(&self, theta: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (n, l) = (BODIES / 2, self.len);
        let (s, c) = theta.sin_cos();
        let (mut q, mut v) = (vec![0.0; 3 * BODIES], vec![0.0; 3 * BODIES]);
        for b in 0..BODIES {
            let (x, y, phi, vx, vy, w) = match b <= n {
                true => {
                    let i = b as f64;
                    let (x, y) = (i * l + l / 2.0 * c, l / 2.0 * s);
                    (
                        x,
                        y,
                        theta,
                        -l / 2.0 * s * omega,
                        l / 2.0 * c * omega,
                        omega,
                    )
                }
                false => {
                    let i = (b - n - 1) as f64;
                    let (x, y) = ((i + 0.5) * l + l * c, l * s);
                    (x, y, 0.0, -l * s * omega, l * c * omega, 0.0)
                }
            };
            (q[b], q[BODIES + b], q[2 * BODIES + b]) = (x, y, phi);
            (v[b], v[BODIES + b], v[2 * BODIES + b]) = (vx, vy, w);
        }
        (q, v)
    }

    /// All cranks vertical turning at 1 rad/s (the benchmark's start).
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut chain = Self::unit();
        chain.len = sys.parameter("len").unwrap_or(1.0);
        chain.branch_state(std::f64::consts::FRAC_PI_2, 1.0)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "four-bar-chain-bodies",
    title: "IFToMM A02 40-window four-bar chain, 81 planar bodies (n = 243, m = 242)",
    source: "IFToMM multibody benchmark A02; body form of four-bar-chain",
    build: || Box::new(FourBarChainBodies::unit()),
    initial: FourBarChainBodies::initial,
    t_end: 0.1,
    dt_out: 0.001,
    rtol: 1e-8,
    kernels: include_str!("generated/four_bar_chain_bodies.rs"),
};
