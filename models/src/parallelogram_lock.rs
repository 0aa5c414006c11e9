//! A mechanism redundant at every position but one: the parallelogram four-bar (two equal
//! cranks and a coupler as long as the ground link, planar body coordinates: 3 bodies, 9
//! coordinates, four revolute joints, 8 rows) with its coupler's orientation also locked
//! (`lock`: φ_coupler = 0, which the parallelogram keeps anyway). On the parallelogram branch
//! the 9 rows have rank 8 (1 DOF): one row is redundant, `lock` itself or a pin row,
//! depending on which the selection keeps. When the cranks pass the ground line (ψ = ±π/2,
//! every link collinear: the four-bar's change point, where the parallelogram could turn into
//! the anti-parallelogram) the pin rows alone drop to rank 7 and `lock` is the one row that
//! keeps the rank at 8: there the redundant row must change, so a run that turns the crank
//! over re-selects twice per turn (`Stats::redundancy`, by name and time in `summary.json`).
//!
//! Geometry: cranks of length ℓ pivoted at (0, 0) and (d, 0) (`p0`, `p1`: crank end A at the
//! centre − (ℓ/2)(cos φ, sin φ)); the coupler, of length d, pinned at its points (∓d/2, 0) to
//! the cranks' tips (`t0`, `t1`).
//!
//! Exact reduction: on the parallelogram branch both cranks have φ = ψ − π/2 (ψ from the
//! downward vertical) and the coupler translates, so with cranks of mass m and inertia mℓ²/12
//! about their centres and a coupler of mass m_c, T = ½ (2 mℓ²/3 + m_c ℓ²) ψ̇²,
//! V = −(m + m_c) ℓ g cos ψ: ψ̈ = −κ sin ψ with κ = g (m + m_c) / (ℓ (2m/3 + m_c)). From the
//! bottom at ψ̇0 = 8 rad/s (above the 2√κ = 6.6 rad/s that turns it over) it rotates.

use mbsim::model;
use mbsim::runtime::catalog::ModelEntry;

/// A parallelogram four-bar with its coupler's orientation locked (module docs).
#[model(
    bodies: [
        crank0 = body(m, m * len.powi(2) / 12.0),
        crank1 = body(m, m * len.powi(2) / 12.0),
        coupler = body(mc, mc * d.powi(2) / 12.0),
    ],
    holonomic: [
        lock = coupler_phi,
    ],
    joints: [
        p0 = revolute(ground, [0.0, 0.0], crank0, [-len / 2.0, 0.0]),
        p1 = revolute(ground, [d, 0.0], crank1, [-len / 2.0, 0.0]),
        t0 = revolute(crank0, [len / 2.0, 0.0], coupler, [-d / 2.0, 0.0]),
        t1 = revolute(crank1, [len / 2.0, 0.0], coupler, [d / 2.0, 0.0]),
    ],
    loads: [gravity([0.0, -g])],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct ParallelogramLock {
    /// Crank length ℓ [m] (1).
    pub len: f64,
    /// Pivot spacing and coupler length d [m] (1).
    pub d: f64,
    /// Crank mass [kg] (1).
    pub m: f64,
    /// Coupler mass [kg] (2).
    pub mc: f64,
    /// Gravitational acceleration [m/s²] (9.81).
    pub g: f64,
}

impl ParallelogramLock {
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
        self.g * (self.m + self.mc) / (self.len * (2.0 * self.m / 3.0 + self.mc))
    }

    /// The state on the parallelogram branch at crank angle ψ from the downward vertical,
    /// turning at ψ̇ = `omega`: (x, y, φ) of crank0, crank1, coupler.
    pub fn branch_state(&self, psi: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (s, c) = psi.sin_cos();
        let (l, d) = (self.len, self.d);
        let phi = psi - std::f64::consts::FRAC_PI_2;
        let (mut q, mut v) = (Vec::with_capacity(9), Vec::with_capacity(9));
        for k in [0.0, 1.0] {
            q.extend([k * d + l / 2.0 * s, -l / 2.0 * c, phi]);
            v.extend([l / 2.0 * c * omega, l / 2.0 * s * omega, omega]);
        }
        q.extend([d / 2.0 + l * s, -l * c, 0.0]);
        v.extend([l * c * omega, l * s * omega, 0.0]);
        (q, v)
    }

    /// At the bottom (ψ = 0), turning at 8 rad/s: it passes the change points.
    pub fn initial(sys: &dyn mbsim::runtime::ConstrainedSystem) -> (Vec<f64>, Vec<f64>) {
        let mut me = Self::chosen();
        me.len = sys.parameter("len").unwrap_or(me.len);
        me.d = sys.parameter("d").unwrap_or(me.d);
        me.branch_state(0.0, 8.0)
    }
}

/// The `mbsim` catalog entry of this model.
pub const ENTRY: ModelEntry = ModelEntry {
    name: "parallelogram-lock",
    title: "Parallelogram four-bar with its coupler's orientation locked (redundant except at the change points)",
    source: "issue 22: a mechanism whose redundant row changes at one position; exact reduction a compound pendulum",
    build: || Box::new(ParallelogramLock::chosen()),
    initial: ParallelogramLock::initial,
    t_end: 2.0,
    dt_out: 0.01,
    rtol: 1e-8,
    kernels: include_str!("generated/parallelogram_lock.rs"),
};
