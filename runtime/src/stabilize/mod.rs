//! Stabilization options and the post-stabilization driver shared by all integrators.
//!
//! [`Stabilization`] names the method; [`Stabilizer`] owns the preallocated workspace, the
//! DATOL test, the counters (NSTAB) and the CPU time spent stabilizing. The projection family
//! (PStab, S-both, velocity-only, GGᵀ, nonholonomic (3.75)) lives in `projection.rs`, S-full
//! (Algorithm 3.2) in `sfull.rs`. Baumgarte is not a post-step correction: it changes γ in the
//! KKT solve ([`crate::Baumgarte`]), and [`Stabilizer::apply`] does nothing for it.
//!
//! Conventions (\[CHIN\] Ch. 3, digest §2.3):
//! - the invariant is h(t, q, v) = (Φ(t, q); G v + [Φ_t; b]) (ambiguity 21: the rheonomic
//!   velocity residual includes Φ_t; nonholonomic rows contribute only to the velocity part);
//! - the drift measure (ambiguity 10) is `max(‖Φ‖∞, ‖G v + [Φ_t; b]‖∞)`, unscaled;
//! - with DATOL > 0 a correction is applied only when that drift exceeds DATOL; DATOL = 0
//!   stabilizes every step without measuring.

mod projection;
mod sfull;

use std::time::{Duration, Instant};

use nalgebra::DMatrix;

use crate::baumgarte::Baumgarte;
use crate::error::SimError;
use crate::kernels;
use crate::kkt::KktWorkspace;
use crate::lu::DenseLu;
use crate::system::{ConstrainedSystem, Dims};

/// How the constraint drift is controlled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stabilization {
    /// Direct integration of the index-1 form: the drift grows freely.
    None,
    /// Baumgarte: γ is replaced by γ̂ in every KKT solve (see [`Baumgarte`] for the mapping of
    /// Chin's B(g1, g2) and Haug/Wu's (α, β)). No post-step correction.
    Baumgarte(Baumgarte),
    /// PStab = "S-both2" (Algorithm 3.3) in the augmented-matrix form (4.15): M and G frozen at
    /// the unstabilized point, factored once; two passes, each correcting positions and
    /// velocities from residuals evaluated at the current point (Jacobi style, ambiguity 12).
    /// Drift O(h^{2(p+1)}).
    PStab,
    /// S-both (3.66): one pass of the PStab correction. Drift O(h^{p+1}) with a nilpotent
    /// amplification matrix.
    SBoth,
    /// S-full (Algorithm 3.2): F = Hᵀ(HHᵀ)⁻¹ with H = [[G, 0], [L, G]]; uses L(q, v).
    SFull,
    /// Velocity-only (Remark 3.5): one pass correcting v; q is left alone.
    VelocityOnly,
    /// The GGᵀ variant of PStab (Remark 3.4): P' = Gᵀ(GGᵀ)⁻¹ in both passes, i.e. the identity
    /// in the (1,1) block of the augmented matrix. Better conditioned with very uneven masses.
    GGt,
}

impl Stabilization {
    /// The Baumgarte gains, if this is Baumgarte.
    pub fn baumgarte(&self) -> Option<&Baumgarte> {
        match self {
            Stabilization::Baumgarte(b) => Some(b),
            _ => None,
        }
    }

    /// True for the methods that correct the state after a step.
    pub fn is_post_step(&self) -> bool {
        !matches!(self, Stabilization::None | Stabilization::Baumgarte(_))
    }

    /// A short name for reports and snapshots.
    pub fn name(&self) -> &'static str {
        match self {
            Stabilization::None => "none",
            Stabilization::Baumgarte(_) => "baumgarte",
            Stabilization::PStab => "pstab",
            Stabilization::SBoth => "s-both",
            Stabilization::SFull => "s-full",
            Stabilization::VelocityOnly => "velocity-only",
            Stabilization::GGt => "ggt",
        }
    }
}

/// Constraint drift at one state: ‖Φ‖∞ and ‖G v + [Φ_t; b]‖∞.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Drift {
    /// ‖Φ(t, q)‖∞ (holonomic rows only).
    pub position: f64,
    /// ‖G v + [Φ_t; b]‖∞ (holonomic and nonholonomic rows).
    pub velocity: f64,
}

impl Drift {
    /// `max(position, velocity)`, the quantity compared with DATOL.
    pub fn max(&self) -> f64 {
        self.position.max(self.velocity)
    }
}

/// Post-stabilization workspace and bookkeeping. Allocated once; `apply` allocates nothing.
#[derive(Clone, Debug)]
pub struct Stabilizer {
    kind: Stabilization,
    dims: Dims,
    /// M and G frozen at the unstabilized point, and their augmented factorization.
    kkt: KktWorkspace,
    /// G at the current point (for residuals).
    jac_r: DMatrix<f64>,
    pos_res: Vec<f64>,
    vel_res: Vec<f64>,
    tmp: Vec<f64>,
    dq: Vec<f64>,
    dv: Vec<f64>,
    /// S-full: Hᵀ (2n × (2m + k)), L (m × n), the factors of HHᵀ and ζ.
    ht: DMatrix<f64>,
    l: DMatrix<f64>,
    hh: DenseLu,
    zeta: Vec<f64>,
    /// Number of corrections applied (NSTAB).
    pub applications: usize,
    /// CPU (wall-clock) time spent in `apply`, including DATOL tests.
    pub time: Duration,
}

impl Stabilizer {
    /// Workspace for `kind` on a model of dimensions `dims`.
    pub fn new(kind: Stabilization, dims: Dims) -> Self {
        let (n, m, r) = (dims.n, dims.m, dims.constraint_rows());
        let sfull = matches!(kind, Stabilization::SFull);
        let hr = if sfull { 2 * m + dims.k } else { 0 };
        Self {
            kind,
            dims,
            kkt: KktWorkspace::new(dims),
            jac_r: DMatrix::zeros(r, n),
            pos_res: vec![0.0; r],
            vel_res: vec![0.0; r],
            tmp: vec![0.0; r],
            dq: vec![0.0; n],
            dv: vec![0.0; n],
            ht: DMatrix::zeros(if sfull { 2 * n } else { 0 }, hr),
            l: DMatrix::zeros(if sfull { m } else { 0 }, n),
            hh: DenseLu::new(hr),
            zeta: vec![0.0; hr],
            applications: 0,
            time: Duration::ZERO,
        }
    }

    /// The method.
    pub fn kind(&self) -> Stabilization {
        self.kind
    }

    /// The drift at (t, q, v).
    pub fn drift<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<Drift, SimError> {
        let m = self.dims.m;
        kernels::phi(sys, t, q, &mut self.pos_res[..m])?;
        kernels::jacobian(sys, t, q, &mut self.jac_r)?;
        kernels::velocity_residual(sys, t, q, v, &self.jac_r, &mut self.tmp, &mut self.vel_res)?;
        Ok(Drift {
            position: inf_norm(&self.pos_res[..m]),
            velocity: inf_norm(&self.vel_res),
        })
    }

    /// Post-stabilize (q, v) at time t in place, if the method is a post-step one and (for
    /// `datol > 0`) the drift exceeds `datol`. Returns whether a correction was applied.
    /// `h` only labels errors.
    #[allow(clippy::too_many_arguments)] // state, time, step label and DATOL are all needed
    pub fn apply<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
    ) -> Result<bool, SimError> {
        if !self.kind.is_post_step() || self.dims.constraint_rows() == 0 {
            return Ok(false);
        }
        let start = Instant::now();
        let result = self.apply_timed(sys, t, h, q, v, datol);
        self.time += start.elapsed();
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_timed<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
    ) -> Result<bool, SimError> {
        if datol > 0.0 && self.drift(sys, t, q, v)?.max() <= datol {
            return Ok(false);
        }
        self.applications += 1;
        match self.kind {
            Stabilization::SFull => self.s_full(sys, t, h, q, v)?,
            Stabilization::PStab => self.project(sys, t, h, q, v, projection::Variant::PSTAB)?,
            Stabilization::SBoth => self.project(sys, t, h, q, v, projection::Variant::S_BOTH)?,
            Stabilization::VelocityOnly => {
                self.project(sys, t, h, q, v, projection::Variant::VELOCITY_ONLY)?
            }
            Stabilization::GGt => self.project(sys, t, h, q, v, projection::Variant::GGT)?,
            Stabilization::None | Stabilization::Baumgarte(_) => {}
        }
        Ok(true)
    }
}

/// ‖x‖∞ (0 for an empty slice).
pub(crate) fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |s, v| s.max(v.abs()))
}
