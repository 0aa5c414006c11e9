//! An over-constrained parallelogram: a coupler pinned to three equal parallel cranks, in
//! planar body coordinates (4 bodies, 12 coordinates) with six revolute joints (12 rows).
//! Any two cranks already make a parallelogram; the third crank's tip joint repeats what they
//! impose, so G has rank 11 and the mechanism one degree of freedom (12 − 11), the redundant
//! row being `t2_y` in the model's order (`mbsim check` names it with its combination). This is
//! the over-constrained mechanism of issue 22, run by every method through the runtime's row
//! selection (`mbsim_runtime::redundancy`).
//!
//! Geometry: cranks of length ℓ pivoted on the ground at (−d, 0), (0, 0), (d, 0) (joints `p0`,
//! `p1`, `p2`: crank end A at its centre − (ℓ/2)(cos φ, sin φ)); the coupler, of length 2d,
//! pinned at its points (−d, 0), (0, 0), (d, 0) to the cranks' tips (joints `t0`, `t1`, `t2`).
//!
//! Exact reduction: on the parallelogram branch every crank has the angle φ = ψ − π/2 (ψ from
//! the downward vertical) and the coupler translates (φ_c = 0), so with cranks of mass m and
//! inertia mℓ²/12 about their centres and a coupler of mass m_c,
//! T = ½ (3 mℓ²/3 + m_c ℓ²) ψ̇², V = −(3 m ℓ/2 + m_c ℓ) g cos ψ, and
//! ψ̈ = −κ sin ψ with κ = g (3m/2 + m_c) / (ℓ (m + m_c)): a compound pendulum.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// Three parallel cranks and a coupler (rank 11 of 12 rows, 1 DOF).
#[model(
    bodies: [
        crank0 = body(m, m * len.powi(2) / 12.0),
        crank1 = body(m, m * len.powi(2) / 12.0),
        crank2 = body(m, m * len.powi(2) / 12.0),
        coupler = body(mc, mc * (2.0 * d).powi(2) / 12.0),
    ],
    joints: [
        p0 = revolute(ground, [-d, 0.0], crank0, [-len / 2.0, 0.0]),
        p1 = revolute(ground, [0.0, 0.0], crank1, [-len / 2.0, 0.0]),
        p2 = revolute(ground, [d, 0.0], crank2, [-len / 2.0, 0.0]),
        t0 = revolute(crank0, [len / 2.0, 0.0], coupler, [-d, 0.0]),
        t1 = revolute(crank1, [len / 2.0, 0.0], coupler, [0.0, 0.0]),
        t2 = revolute(crank2, [len / 2.0, 0.0], coupler, [d, 0.0]),
    ],
    loads: [gravity([0.0, -g])],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TripleCrank {
    /// Crank length ℓ [m] (1).
    pub len: f64,
    /// Pivot spacing d [m] (1).
    pub d: f64,
    /// Crank mass [kg] (1).
    pub m: f64,
    /// Coupler mass [kg] (2).
    pub mc: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl TripleCrank {
    /// ℓ = d = 1, m = 1, m_c = 2, g = 9.81.
    pub fn chosen() -> Self {
        Self {
            len: 1.0,
            d: 1.0,
            m: 1.0,
            mc: 2.0,
            g: 9.81,
        }
    }

    /// κ of the exact reduction ψ̈ = −κ sin ψ (module docs).
    pub fn kappa(&self) -> f64 {
        self.g * (1.5 * self.m + self.mc) / (self.len * (self.m + self.mc))
    }

    /// The state on the parallelogram branch at crank angle ψ from the downward vertical,
    /// turning at ψ̇ = `omega`: coordinates (x, y, φ) of crank0, crank1, crank2, coupler.
    pub fn branch_state(&self, psi: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (s, c) = psi.sin_cos();
        let (l, d) = (self.len, self.d);
        let phi = psi - std::f64::consts::FRAC_PI_2;
        let (mut q, mut v) = (Vec::with_capacity(12), Vec::with_capacity(12));
        for k in [-1.0, 0.0, 1.0] {
            q.extend([k * d + l / 2.0 * s, -l / 2.0 * c, phi]);
            v.extend([l / 2.0 * c * omega, l / 2.0 * s * omega, omega]);
        }
        q.extend([l * s, -l * c, 0.0]);
        v.extend([l * c * omega, l * s * omega, 0.0]);
        (q, v)
    }

    /// ψ = 1 rad from the downward vertical, at rest.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut me = Self::chosen();
        me.len = sys.parameter("len").unwrap_or(me.len);
        me.d = sys.parameter("d").unwrap_or(me.d);
        me.branch_state(1.0, 0.0)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "triple-crank",
    title: "Coupler on three parallel cranks, body coordinates (12 rows, rank 11: over-constrained)",
    source: "issue 22: over-constrained parallelogram; exact reduction a compound pendulum",
    build: || Box::new(TripleCrank::chosen()),
    initial: TripleCrank::initial,
    t_end: 10.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/triple_crank.rs"),
};

/// [`TripleCrank`] with its redundant row deleted by hand: the tip joint of crank 2 keeps only
/// its x row (`t2_x`, written out). The same mechanism with 11 independent rows on the whole
/// swing: the yardstick of `cargo bench -p mbsim-tests --bench redundant` (the cost of leaving a
/// row out against not having it). Not the y row: ∂t2_y/∂φ2 = (ℓ/2) cos φ2 vanishes with the
/// crank hanging (φ2 = −π/2), so a model keeping `t2_y` alone is singular at the bottom of every
/// swing (RKSTAB at rtol 1e-12 underflowed there, t = 1.48 s); `t2_x` loses rank only with
/// horizontal cranks, which a swing from ψ = 1 rad never reaches. The run's own selection
/// leaves `t2_x` out at ψ = 1 and takes it back when `t2_y` loses conditioning near the bottom
/// (a re-selection in `Stats::redundancy`).
#[model(
    bodies: [
        crank0 = body(m, m * len.powi(2) / 12.0),
        crank1 = body(m, m * len.powi(2) / 12.0),
        crank2 = body(m, m * len.powi(2) / 12.0),
        coupler = body(mc, mc * (2.0 * d).powi(2) / 12.0),
    ],
    holonomic: [
        t2_x = crank2_x + len / 2.0 * crank2_phi.cos() - coupler_x - d * coupler_phi.cos(),
    ],
    joints: [
        p0 = revolute(ground, [-d, 0.0], crank0, [-len / 2.0, 0.0]),
        p1 = revolute(ground, [0.0, 0.0], crank1, [-len / 2.0, 0.0]),
        p2 = revolute(ground, [d, 0.0], crank2, [-len / 2.0, 0.0]),
        t0 = revolute(crank0, [len / 2.0, 0.0], coupler, [-d, 0.0]),
        t1 = revolute(crank1, [len / 2.0, 0.0], coupler, [0.0, 0.0]),
    ],
    loads: [gravity([0.0, -g])],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct TripleCrankReduced {
    /// Crank length ℓ [m] (1).
    pub len: f64,
    /// Pivot spacing d [m] (1).
    pub d: f64,
    /// Crank mass [kg] (1).
    pub m: f64,
    /// Coupler mass [kg] (2).
    pub mc: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl TripleCrankReduced {
    /// The data of [`TripleCrank::chosen`].
    pub fn chosen() -> Self {
        let c = TripleCrank::chosen();
        Self {
            len: c.len,
            d: c.d,
            m: c.m,
            mc: c.mc,
            g: c.g,
        }
    }
}
