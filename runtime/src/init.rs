//! Consistent initialization: the consistent state nearest to a user's (q0, v0), keeping the
//! values the user gave where the constraints allow.
//!
//! 1. Positions: Gauss–Newton on Φ(t0, q) = 0 with minimum-norm corrections over the free
//!    coordinates, δq = G_fᵀ(G_f G_fᵀ)⁻¹ Φ (solved through the augmented matrix with the
//!    identity in the (1,1) block), where G_f is Φ_q with the fixed coordinates' columns
//!    zeroed, so fixed coordinates never move. Stops at ‖Φ‖∞ ≤ `tol`, floored at Φ's
//!    round-off (`position_tolerance`). (Euclidean in q: the guess is in the coordinates
//!    the user chose, and the fixed ones are what they asked for.)
//! 2. Velocities: one projection onto G v + [Φ_t; b] = 0 (exact, the constraint is linear in
//!    v) with the fixed velocities held, in the metric of [`VelocityMetric`]: by default the
//!    smallest change of kinetic energy, min ½ (v − v0)ᵀ M (v − v0) subject to the
//!    constraints, i.e. `[M_F G_Fᵀ; G_F 0][δ; μ] = [0; r]` over the free velocities F. That
//!    matrix is nonsingular when G_F has full row rank and M is positive definite on ker G_F;
//!    since ker G_F ⊂ ker G (a free direction is one whose fixed components are zero), the
//!    second condition follows from M being positive definite on ker G — exactly what the
//!    accelerations [M Gᵀ; G 0][v̇; λ] = [Q; γ] need at t0 anyway. So a singular M needs no
//!    regularisation where the model can run at all: a massless coordinate whose velocity the
//!    constraints determine (an auxiliary coordinate, a massless slider) takes whatever the
//!    constraints make it, at no cost, and the velocities that carry mass keep v0 wherever
//!    the constraints allow (the Euclidean projection instead spread the correction over all
//!    coordinates, and slowed the bodies of a model with an auxiliary coordinate). Where M is
//!    not positive definite on ker G (a massless coordinate the constraints leave free), the
//!    minimiser is not unique and the accelerations are undefined: the factorization fails
//!    with [`SimError::SingularKkt`], as the dynamics would.
//!    Its residual is held to `tol` floored at its round-off (`velocity_tolerance`).
//! 3. Accelerations and multipliers at t0 from the KKT solve.
//!
//! Fixed values come in two strengths: [`InitOptions::locked`] must hold (a failure is an
//! error), [`InitOptions::keep_q`]/[`InitOptions::keep_v`] (values the user gave) are kept
//! where the constraints allow: when they cannot all be kept, nothing kept must succeed, and
//! then each is kept in turn (positions first, in the order given) if the initialization still
//! succeeds with it; the report names the ones released and why (`released_*`,
//! `release_cause`). The report says which coordinates and velocities moved and by how much;
//! a failure ([`SimError::InitializationFailed`]) names the stage and every row still
//! violated, with its residual.
//!
//! A model with the sparse kernel forms keeps G and M as their nonzeros in both stages
//! (`init_sparse.rs`): the same matrices entry for entry, the same state bit for bit.

use crate::drift::{Drift, inf_norm};
use crate::error::{InitStage, SimError, ViolatedRow};
use crate::init_sparse::{eval_jacobian, hold, sparse_holds, stuck, velocity_residual};
use crate::kernels;
use crate::kkt::{KktWorkspace, Metric, accelerations_into};
use crate::system::{ConstrainedSystem, Dims};

/// The norm in which [`initialize`] changes the velocities least.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VelocityMetric {
    /// The kinetic energy of the change, ½ (v − v0)ᵀ M (v − v0) (see the module docs for a
    /// singular M).
    #[default]
    Mass,
    /// The Euclidean norm over all coordinates, ½ ‖v − v0‖² (mixes units; the behaviour
    /// before the mass metric, kept for comparison).
    Euclidean,
}

/// Settings of [`initialize`].
#[derive(Clone, Debug, PartialEq)]
pub struct InitOptions {
    /// Indices of coordinates (and their velocities) that must not change: an
    /// [`SimError::InitializationFailed`] when the constraints cannot hold with them fixed.
    pub locked: Vec<usize>,
    /// Indices of coordinates whose given value is kept where the constraints allow.
    pub keep_q: Vec<usize>,
    /// Indices of velocities whose given value is kept where the constraints allow.
    pub keep_v: Vec<usize>,
    /// The norm of the velocity correction, default [`VelocityMetric::Mass`].
    pub velocity_metric: VelocityMetric,
    /// Target for ‖Φ‖∞ and ‖G v + [Φ_t; b]‖∞, default 1e-12. A target below the round-off
    /// of evaluating them is raised to it: 16 ε (1 + ‖q‖∞) for Φ, 64 ε ‖v‖∞ for the velocities,
    /// so a tiny `tol` (a run's 0.1 · atol at atol 1e-30) stops at round-off instead of
    /// failing.
    pub tol: f64,
    /// Gauss–Newton iteration limit, default 50.
    pub max_iterations: usize,
}

impl Default for InitOptions {
    fn default() -> Self {
        Self {
            locked: Vec::new(),
            keep_q: Vec::new(),
            keep_v: Vec::new(),
            velocity_metric: VelocityMetric::Mass,
            tol: 1e-12,
            max_iterations: 50,
        }
    }
}

/// The consistent state and what it took to get there.
#[derive(Clone, Debug, PartialEq)]
pub struct InitReport {
    /// Consistent coordinates.
    pub q: Vec<f64>,
    /// Consistent velocities.
    pub v: Vec<f64>,
    /// Accelerations at t0.
    pub vdot: Vec<f64>,
    /// Multipliers at t0 (length m + k).
    pub lambda: Vec<f64>,
    /// `(index, q − q0)` for every coordinate that moved.
    pub moved_q: Vec<(usize, f64)>,
    /// `(index, v − v0)` for every velocity that moved.
    pub moved_v: Vec<(usize, f64)>,
    /// The entries of [`InitOptions::keep_q`] that could not be kept (they moved).
    pub released_q: Vec<usize>,
    /// The entries of [`InitOptions::keep_v`] that could not be kept.
    pub released_v: Vec<usize>,
    /// Why not: the failure of the initialization with every given value kept.
    pub release_cause: Option<SimError>,
    /// Gauss–Newton iterations used.
    pub iterations: usize,
    /// Residual drift of the returned state.
    pub residual: Drift,
}

/// Find the consistent state nearest to (q0, v0) at t0 (see the module docs).
pub fn initialize<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    opts: &InitOptions,
) -> Result<InitReport, SimError> {
    let d = sys.dims();
    crate::error::check_length("initialize: q0", q0.len(), d.n)?;
    crate::error::check_length("initialize: v0", v0.len(), d.n)?;
    for (what, list) in [
        ("locked coordinate", &opts.locked),
        ("keep_q coordinate", &opts.keep_q),
        ("keep_v velocity", &opts.keep_v),
    ] {
        if let Some(&i) = list.iter().find(|&&i| i >= d.n) {
            return Err(SimError::InvalidProblem {
                what: format!("initialize: {what} index {i} out of range (n = {})", d.n),
            });
        }
    }
    let start = Start { sys, t0, q0, v0 };
    match start.attempt(opts, &opts.keep_q, &opts.keep_v) {
        Ok(report) => Ok(report),
        Err(cause) if !(opts.keep_q.is_empty() && opts.keep_v.is_empty()) => {
            start.release(opts, cause)
        }
        Err(e) => Err(e),
    }
}

/// The problem of one [`initialize`] call.
struct Start<'a, S: ?Sized> {
    sys: &'a S,
    t0: f64,
    q0: &'a [f64],
    v0: &'a [f64],
}

impl<S: ConstrainedSystem + ?Sized> Start<'_, S> {
    /// With every given value kept the constraints failed (`cause`): keep none (that must
    /// succeed), then each given value in turn, positions first, if it still succeeds.
    fn release(&self, opts: &InitOptions, cause: SimError) -> Result<InitReport, SimError> {
        let mut best = self.attempt(opts, &[], &[])?;
        let (mut keep_q, mut keep_v) = (Vec::new(), Vec::new());
        let (mut released_q, mut released_v) = (Vec::new(), Vec::new());
        for &i in &opts.keep_q {
            keep_q.push(i);
            match self.attempt(opts, &keep_q, &keep_v) {
                Ok(r) => best = r,
                Err(_) => released_q.extend(keep_q.pop()),
            }
        }
        for &i in &opts.keep_v {
            keep_v.push(i);
            match self.attempt(opts, &keep_q, &keep_v) {
                Ok(r) => best = r,
                Err(_) => released_v.extend(keep_v.pop()),
            }
        }
        best.released_q = released_q;
        best.released_v = released_v;
        best.release_cause = Some(cause);
        Ok(best)
    }

    /// One initialization with `locked` plus `keep_q` positions and `keep_v` velocities fixed.
    fn attempt(
        &self,
        opts: &InitOptions,
        keep_q: &[usize],
        keep_v: &[usize],
    ) -> Result<InitReport, SimError> {
        let d = self.sys.dims();
        let fixed = |keep: &[usize]| -> Vec<usize> {
            let mut all: Vec<usize> = opts.locked.iter().chain(keep).copied().collect();
            all.sort_unstable();
            all.dedup();
            all
        };
        let (q, iterations, position) = self.positions(opts, &fixed(keep_q))?;
        let (v, vel) = self.velocities(opts, &q, &fixed(keep_v), iterations)?;
        let mut ws = KktWorkspace::new(d);
        let mut vdot = vec![0.0; d.n];
        let mut lambda = vec![0.0; d.constraint_rows()];
        accelerations_into(
            self.sys,
            self.t0,
            &q,
            &v,
            None,
            &mut ws,
            0.0,
            &mut vdot,
            &mut lambda,
        )?;
        let moved = |a: &[f64], b: &[f64]| -> Vec<(usize, f64)> {
            (0..d.n)
                .filter(|&i| a[i] != b[i])
                .map(|i| (i, a[i] - b[i]))
                .collect()
        };
        Ok(InitReport {
            moved_q: moved(&q, self.q0),
            moved_v: moved(&v, self.v0),
            q,
            v,
            vdot,
            lambda,
            released_q: Vec::new(),
            released_v: Vec::new(),
            release_cause: None,
            iterations,
            residual: Drift {
                position,
                velocity: vel,
            },
        })
    }

    /// Stage 1: q with ‖Φ(t0, q)‖∞ ≤ tol, the `fixed` coordinates unchanged; the iterations
    /// and the final ‖Φ‖∞.
    fn positions(
        &self,
        opts: &InitOptions,
        fixed: &[usize],
    ) -> Result<(Vec<f64>, usize, f64), SimError> {
        let (sys, t0, d) = (self.sys, self.t0, self.sys.dims());
        let mut q = self.q0.to_vec();
        let mut pos = KktWorkspace::new(Dims { k: 0, ..d });
        let sparse = sparse_holds(sys, &mut pos, fixed, Metric::Identity);
        let mut iterations = 0;
        loop {
            kernels::phi(sys, t0, &q, &mut pos.phi)?;
            let residual = inf_norm(&pos.phi);
            let tol = position_tolerance(opts.tol, &q);
            if residual <= tol {
                return Ok((q, iterations, residual));
            }
            if iterations == opts.max_iterations || !residual.is_finite() {
                return Err(SimError::InitializationFailed {
                    stage: InitStage::Positions,
                    residual,
                    iterations,
                    violated: ViolatedRow::collect(&pos.phi, tol, &sys.constraint_names()),
                });
            }
            eval_jacobian(sys, &mut pos, sparse, (t0, &q))?;
            hold(&mut pos, fixed, Metric::Identity);
            let names = sys.constraint_names();
            stuck(pos.jacobian(), &pos.phi, tol, &names).map_err(|violated| {
                SimError::InitializationFailed {
                    stage: InitStage::Positions,
                    residual,
                    iterations,
                    violated,
                }
            })?;
            iterations += 1;
            pos.factor(sys, Metric::Identity, t0, 0.0)?;
            let phi = pos.phi.clone();
            pos.solve_projection(&phi);
            for i in 0..d.n {
                q[i] -= pos.rhs[i];
            }
        }
    }

    /// Stage 2: v with G v + [Φ_t; b] = 0 at (t0, q), the `fixed` velocities unchanged,
    /// nearest to v0 in the options' metric; and the final residual.
    fn velocities(
        &self,
        opts: &InitOptions,
        q: &[f64],
        fixed: &[usize],
        iterations: usize,
    ) -> Result<(Vec<f64>, f64), SimError> {
        let (sys, t0, d) = (self.sys, self.t0, self.sys.dims());
        let mut v = self.v0.to_vec();
        let mut vel = KktWorkspace::new(d);
        let metric = match opts.velocity_metric {
            VelocityMetric::Mass => Metric::Mass,
            VelocityMetric::Euclidean => Metric::Identity,
        };
        let sparse = sparse_holds(sys, &mut vel, fixed, metric);
        eval_jacobian(sys, &mut vel, sparse, (t0, q))?;
        velocity_residual(sys, &mut vel, (t0, q, &v))?;
        let tol = velocity_tolerance(opts.tol, &v);
        if inf_norm(&vel.vel_res) <= tol {
            return Ok((v, inf_norm(&vel.vel_res)));
        }
        match (metric, sparse) {
            (Metric::Mass, true) => vel.eval_mass(sys, t0, q)?,
            (Metric::Mass, false) => kernels::mass(sys, t0, q, &mut vel.mass)?,
            (Metric::Identity, _) => {}
        }
        hold(&mut vel, fixed, metric);
        let names = sys.constraint_names();
        stuck(vel.jacobian(), &vel.vel_res, tol, &names).map_err(|violated| {
            SimError::InitializationFailed {
                stage: InitStage::Velocities,
                residual: inf_norm(&vel.vel_res),
                iterations,
                violated,
            }
        })?;
        vel.factor(sys, metric, t0, 0.0)?;
        let r = vel.vel_res.clone();
        vel.solve_projection(&r);
        for i in 0..d.n {
            v[i] -= vel.rhs[i];
        }
        eval_jacobian(sys, &mut vel, sparse, (t0, q))?;
        velocity_residual(sys, &mut vel, (t0, q, &v))?;
        let residual = inf_norm(&vel.vel_res);
        let bound = velocity_tolerance(opts.tol, &v);
        // NaN residuals fail too.
        if residual.is_nan() || residual > bound {
            return Err(SimError::InitializationFailed {
                stage: InitStage::Velocities,
                residual,
                iterations,
                violated: ViolatedRow::collect(&vel.vel_res, bound, &sys.constraint_names()),
            });
        }
        Ok((v, residual))
    }
}

/// Round-off of Φ in units of ε (1 + ‖q‖∞): R = 16 (see `position_tolerance`).
const POSITION_ROUND_OFF: f64 = 16.0;

/// Round-off of G v + [Φ_t; b] in units of ε ‖v‖∞: 64, the bound the velocity stage has
/// always checked its projection against.
const VELOCITY_ROUND_OFF: f64 = 64.0;

/// The ‖Φ‖∞ the positions stage stops at: `tol`, but not below Φ's round-off at q,
/// R ε (1 + ‖q‖∞) with R = [`POSITION_ROUND_OFF`].
///
/// Derivation. A row Φ_i is a sum of terms (coordinates, lengths times functions of them);
/// each floating-point operation errs by at most ε/2 relatively, so the computed Φ_i is off
/// by up to about (k ε / 2) Σ |terms| for a sum k deep, and even an exact evaluation cannot
/// get below what one unit in the last place of q changes, (ε / 2) Σ_j |∂Φ_i/∂q_j| |q_j|.
/// The runtime does not see the terms; as the integrator's own check of the initial state
/// does ([`crate::ConsistencyCheck::Auto`], 1e3 ε (1 + ‖q0‖∞)), it takes 1 + ‖q‖∞ as their
/// magnitude, and a few ε of it (R = 16, room for sums of several terms) as the level Newton
/// cannot go below. That is 62 times below the check's floor, so a state returned here always
/// passes `Auto`. The floor binds only where `tol` < 16 ε (1 + ‖q‖∞) ≈ 3.6e-15 (1 + ‖q‖∞):
/// with the default 1e-12, and with the CLI's 0.1 · atol wherever atol ≥ 3.6e-14 (1 + ‖q‖∞),
/// the result is the one without a floor, bit for bit. Without it, Andrews' mechanism at
/// atol 1e-30 (tol 1e-31) failed after 50 iterations with ‖Φ‖∞ = 3.5e-18 (`phi_4`, the only
/// row above 1e-31): Newton had reached round-off. A model whose terms are far larger than its
/// coordinates (lengths of 1e3 in angle coordinates) has a larger round-off than this
/// estimate; it fails as before, naming the rows at round-off.
pub(crate) fn position_tolerance(tol: f64, q: &[f64]) -> f64 {
    tol.max(POSITION_ROUND_OFF * f64::EPSILON * (1.0 + inf_norm(q)))
}

/// The ‖G v + [Φ_t; b]‖∞ the velocity stage accepts: `tol`, but not below the round-off of
/// the products G v, a few ε of their magnitude, estimated (as for Φ, without G's scale) by
/// 64 ε ‖v‖∞ (`VELOCITY_ROUND_OFF`). It had bounded the check after the projection alone;
/// it now also decides whether v0 needs a projection at all and which rows count as violated.
pub(crate) fn velocity_tolerance(tol: f64, v: &[f64]) -> f64 {
    tol.max(VELOCITY_ROUND_OFF * f64::EPSILON * inf_norm(v))
}
