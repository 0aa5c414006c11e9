//! Consistent initialization: the nearest consistent state to a user's (q0, v0).
//!
//! 1. Positions: Gauss–Newton on Φ(t0, q) = 0 with minimum-norm corrections over the free
//!    coordinates, δq = G_fᵀ(G_f G_fᵀ)⁻¹ Φ (solved through the augmented matrix with the
//!    identity in the (1,1) block), where G_f is Φ_q with the locked coordinates' columns
//!    zeroed, so locked coordinates never move. Stops at ‖Φ‖∞ ≤ `tol`.
//! 2. Velocities: one orthogonal projection onto G v + [Φ_t; b] = 0 (exact, the constraint is
//!    linear in v), again with locked velocities held fixed.
//! 3. Accelerations and multipliers at t0 from the KKT solve.
//!
//! The report says which coordinates and velocities moved and by how much; a failure
//! ([`SimError::InitializationFailed`]) names the stage and every row still violated, with its
//! residual.

use crate::drift::{Drift, inf_norm};
use crate::error::{InitStage, SimError, ViolatedRow};
use crate::kernels;
use crate::kkt::{KktWorkspace, Metric, accelerations_into};
use crate::system::{ConstrainedSystem, Dims};

/// Settings of [`initialize`].
#[derive(Clone, Debug, PartialEq)]
pub struct InitOptions {
    /// Indices of coordinates (and their velocities) that must not change.
    pub locked: Vec<usize>,
    /// Target for ‖Φ‖∞ and ‖G v + [Φ_t; b]‖∞, default 1e-12.
    pub tol: f64,
    /// Gauss–Newton iteration limit, default 50.
    pub max_iterations: usize,
}

impl Default for InitOptions {
    fn default() -> Self {
        Self {
            locked: Vec::new(),
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
    if let Some(&i) = opts.locked.iter().find(|&&i| i >= d.n) {
        return Err(SimError::InvalidProblem {
            what: format!(
                "initialize: locked coordinate index {i} out of range (n = {})",
                d.n
            ),
        });
    }
    let mut q = q0.to_vec();
    let mut pos = KktWorkspace::new(Dims { k: 0, ..d });
    let mut iterations = 0;
    loop {
        kernels::phi(sys, t0, &q, &mut pos.phi)?;
        let residual = inf_norm(&pos.phi);
        if residual <= opts.tol {
            break;
        }
        if iterations == opts.max_iterations || !residual.is_finite() {
            return Err(SimError::InitializationFailed {
                stage: InitStage::Positions,
                residual,
                iterations,
                violated: ViolatedRow::collect(&pos.phi, opts.tol, &sys.constraint_names()),
            });
        }
        iterations += 1;
        kernels::jacobian(sys, t0, &q, &mut pos.jac)?;
        lock_columns(&mut pos, &opts.locked);
        pos.factor(sys, Metric::Identity, t0, 0.0)?;
        let phi = pos.phi.clone();
        pos.solve_projection(&phi);
        for i in 0..d.n {
            q[i] -= pos.rhs[i];
        }
    }
    let mut v = v0.to_vec();
    let mut vel = KktWorkspace::new(d);
    kernels::jacobian(sys, t0, &q, &mut vel.jac)?;
    kernels::velocity_residual(sys, t0, &q, &v, &vel.jac, &mut vel.tmp, &mut vel.vel_res)?;
    if inf_norm(&vel.vel_res) > opts.tol {
        lock_columns(&mut vel, &opts.locked);
        vel.factor(sys, Metric::Identity, t0, 0.0)?;
        let r = vel.vel_res.clone();
        vel.solve_projection(&r);
        for i in 0..d.n {
            v[i] -= vel.rhs[i];
        }
        kernels::jacobian(sys, t0, &q, &mut vel.jac)?;
        kernels::velocity_residual(sys, t0, &q, &v, &vel.jac, &mut vel.tmp, &mut vel.vel_res)?;
        let residual = inf_norm(&vel.vel_res);
        let bound = opts.tol.max(64.0 * f64::EPSILON * inf_norm(&v));
        // NaN residuals fail too.
        if residual.is_nan() || residual > bound {
            return Err(SimError::InitializationFailed {
                stage: InitStage::Velocities,
                residual,
                iterations,
                violated: ViolatedRow::collect(&vel.vel_res, bound, &sys.constraint_names()),
            });
        }
    }
    let residual = Drift {
        position: inf_norm(&pos.phi),
        velocity: inf_norm(&vel.vel_res),
    };
    let mut vdot = vec![0.0; d.n];
    let mut lambda = vec![0.0; d.constraint_rows()];
    accelerations_into(sys, t0, &q, &v, None, &mut vel, 0.0, &mut vdot, &mut lambda)?;
    let moved = |a: &[f64], b: &[f64]| -> Vec<(usize, f64)> {
        (0..d.n)
            .filter(|&i| a[i] != b[i])
            .map(|i| (i, a[i] - b[i]))
            .collect()
    };
    Ok(InitReport {
        moved_q: moved(&q, q0),
        moved_v: moved(&v, v0),
        q,
        v,
        vdot,
        lambda,
        iterations,
        residual,
    })
}

/// Zero the Jacobian columns of locked coordinates so corrections leave them alone.
fn lock_columns(ws: &mut KktWorkspace, locked: &[usize]) {
    for &j in locked {
        ws.jac.column_mut(j).fill(0.0);
    }
}
