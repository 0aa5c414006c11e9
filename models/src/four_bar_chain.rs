//! The 40-window four-bar chain of the IFToMM multibody benchmark A02 ("N-four-bar
//! mechanism"): N = 40 windows, N + 1 cranks of length ℓ pivoted on the ground every ℓ, N
//! coupler rods of length ℓ joining neighbouring crank tips, all uniform rods (unit lengths and
//! masses in the benchmark), gravity g along −y. Written with the model language's indexed
//! families: the coordinates are the crank angles θ[0] … θ[N] from the +x axis, the N
//! holonomic rows `coupler[i]` keep the couplers' lengths, and T and V are sums over the rods
//! (a uniform rod with end points A, B has T = (m/6)(|Ȧ|² + Ȧ·Ḃ + |Ḃ|²)). The hand-written
//! model of the runtime's tests (`runtime/tests/suite/common/models/four_bar_chain.rs`) documents Φ,
//! Φ_q, γ, L, M and Q in closed form; `models/tests/suite/four_bar_chain.rs` checks these kernels
//! against it.
//!
//! **The exact 1-DOF reduction** (the test oracle of this model and of its body form
//! [`crate::four_bar_chain_bodies`]). On the parallelogram branch every crank has the same
//! angle θ(t) and every coupler stays horizontal, translating with the crank tips. With
//! ψ = θ − π/2 the angle of the cranks from the upward vertical:
//! - T = ½ θ̇² [(N + 1) mℓ²/3 + N mℓ²] (cranks rotate about their pivots, J = mℓ²/3; couplers
//!   translate at the tips' speed ℓθ̇),
//! - V = m g ℓ sin θ [(N + 1)/2 + N] = m g ℓ cos ψ (3N + 1)/2 (crank centres at height
//!   (ℓ/2) sin θ, couplers at ℓ sin θ),
//! - so Lagrange's equation J_eff θ̈ = −∂V/∂θ gives
//!
//!   ψ̈ = κ sin ψ,  κ = (g/ℓ) · [(3N + 1)/2] / [(4N + 1)/3] = (g/ℓ) · 3(3N + 1) / (2(4N + 1)),
//!
//!   independent of m; for N = 40, ℓ = 1, g = 9.81: κ = 9.81 · 363/322 = 11.0590… s⁻² (an
//!   inverted compound pendulum; θ̈ = −κ cos θ in the crank angle). The chain started with all
//!   cranks vertical turning at ω0 = 1 rad/s stays on the branch, so each θ[i](t) follows this
//!   scalar ODE; the test integrates both and checks the KKT accelerations against κ sin ψ.
//!
//! Parameters: `len` ℓ, `g`, and the rods' masses as arrays, `mc: [f64; 41]` for the cranks
//! and `mr: [f64; 40]` for the couplers (array fields are the language's array parameters:
//! `mc[i]` in the model, `"mc[3]"` for `parameter` / `set_parameter`).

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// The N-four-bar chain, crank angles, N = 40.
#[model(
    const N = 40,
    coordinates: [theta[0..=N]],
    let tip_x[i in 0..=N] = i * len + len * theta[i].cos(),
    let tip_y[i in 0..=N] = len * theta[i].sin(),
    let tip_vx[i in 0..=N] = -len * theta[i].sin() * theta_dot[i],
    let tip_vy[i in 0..=N] = len * theta[i].cos() * theta_dot[i],
    holonomic: [for i in 0..N {
        coupler = (tip_x[i + 1] - tip_x[i]).powi(2) + (tip_y[i + 1] - tip_y[i]).powi(2)
            - len.powi(2)
    }],
    kinetic: sum(for i in 0..=N { mc[i] * len.powi(2) / 6.0 * theta_dot[i].powi(2) })
        + sum(for i in 0..N {
            mr[i] / 6.0 * (tip_vx[i].powi(2) + tip_vy[i].powi(2)
                + tip_vx[i] * tip_vx[i + 1] + tip_vy[i] * tip_vy[i + 1]
                + tip_vx[i + 1].powi(2) + tip_vy[i + 1].powi(2))
        }),
    potential: sum(for i in 0..=N { mc[i] * g * len / 2.0 * theta[i].sin() })
        + sum(for i in 0..N { mr[i] * g * (tip_y[i] + tip_y[i + 1]) / 2.0 }),
)]
#[derive(Clone, Debug, PartialEq)]
pub struct FourBarChain {
    /// Rod length ℓ [m] (1).
    pub len: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
    /// Masses of the cranks 0 … N [kg] (1 each).
    pub mc: [f64; 41],
    /// Masses of the couplers 0 … N − 1 [kg] (1 each).
    pub mr: [f64; 40],
}

/// Number of windows N of [`FourBarChain`] (the model's `const N`).
pub const WINDOWS: usize = 40;

/// κ of the 1-DOF reduction ψ̈ = κ sin ψ (module docs) for N windows, length ℓ, gravity g.
pub fn kappa(windows: usize, len: f64, g: f64) -> f64 {
    let n = windows as f64;
    g / len * 3.0 * (3.0 * n + 1.0) / (2.0 * (4.0 * n + 1.0))
}

impl FourBarChain {
    /// The benchmark data: unit lengths and masses, g = 9.81.
    pub fn unit() -> Self {
        Self {
            len: 1.0,
            g: 9.81,
            mc: [1.0; 41],
            mr: [1.0; 40],
        }
    }

    /// All cranks vertical turning at 1 rad/s (the benchmark's start), on the branch.
    pub fn initial(_: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        (
            vec![std::f64::consts::FRAC_PI_2; WINDOWS + 1],
            vec![1.0; WINDOWS + 1],
        )
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "four-bar-chain",
    title: "IFToMM A02 40-window four-bar chain, crank angles (n = 41, m = 40)",
    source: "IFToMM multibody benchmark A02; the runtime's hand-written FourBarChain",
    build: || Box::new(FourBarChain::unit()),
    initial: FourBarChain::initial,
    t_end: 0.5,
    dt_out: 0.005,
    rtol: 1e-8,
    kernels: include_str!("generated/four_bar_chain.rs"),
};
