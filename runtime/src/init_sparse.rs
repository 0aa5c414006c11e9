//! `initialize`'s held projections on the workspace's storage: dense M and G, or their
//! nonzeros for a model with the sparse kernel forms ([`crate::sparse`]).
//!
//! Holding the fixed coordinates zeroes their columns of G and, in the mass metric, replaces
//! their rows and columns of M by the identity's. On the nonzeros that is the same matrix
//! entry for entry (the values outside the pattern are zero on both), so the KKT assembly
//! factors the same matrix and `initialize` finds the same state bit for bit, without the
//! dense fills of n² + (m + k)·n entries per Gauss–Newton iteration. A fixed coordinate whose
//! diagonal of M lies outside M's stated pattern (a massless coordinate) cannot take the
//! identity's 1 there: [`sparse_holds`] then says no and the stage stays dense.

use nalgebra::DMatrix;

use crate::error::{SimError, ViolatedRow};
use crate::kernels;
use crate::kkt::{KktWorkspace, Metric};
use crate::sparse::{Jac, mass_entries};
use crate::system::ConstrainedSystem;

/// Whether the held projection can run on the nonzeros of `ws`; if so, `ws` is prepared for
/// `sys` (its storage is the nonzeros), else left unprepared (dense).
pub(crate) fn sparse_holds<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    ws: &mut KktWorkspace,
    fixed: &[usize],
    metric: Metric,
) -> bool {
    if !sys.has_nonzero_forms() {
        return false;
    }
    // Checked before the workspace chooses its storage: a dense stage must stay unprepared.
    let diagonal_held = metric == Metric::Identity || {
        let entries = mass_entries(sys, ws.dims.n);
        fixed
            .iter()
            .all(|&j| entries.binary_search(&(j, j)).is_ok())
    };
    if diagonal_held {
        ws.prepare(sys);
    }
    diagonal_held && ws.sparse.is_some()
}

/// G at (t, q) into the workspace's storage: the nonzeros if `sparse`, else dense (by hand, so
/// the workspace stays dense).
pub(crate) fn eval_jacobian<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    ws: &mut KktWorkspace,
    sparse: bool,
    (t, q): (f64, &[f64]),
) -> Result<(), SimError> {
    match sparse {
        true => ws.eval_jacobian(sys, t, q),
        false => kernels::jacobian(sys, t, q, &mut ws.jac),
    }
}

/// G v + [Φ_t; b] at (t, q, v) into `ws.vel_res`, with the G at hand in the workspace.
pub(crate) fn velocity_residual<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    ws: &mut KktWorkspace,
    (t, q, v): (f64, &[f64], &[f64]),
) -> Result<(), SimError> {
    let jac = match &ws.sparse {
        Some(sp) => Jac::Sparse(&sp.jac),
        None => Jac::Dense(&ws.jac),
    };
    kernels::velocity_residual(sys, t, q, v, jac, &mut ws.tmp, &mut ws.vel_res)
}

/// Hold the `fixed` coordinates (sorted) in a projection: their Jacobian columns zeroed and, in
/// the mass metric, their rows and columns of M replaced by the identity's, so the (1,1) block
/// gives a zero correction on them and M restricted to the free ones elsewhere.
pub(crate) fn hold(ws: &mut KktWorkspace, fixed: &[usize], metric: Metric) {
    let Some(sp) = ws.sparse.as_deref_mut() else {
        for &j in fixed {
            ws.jac.column_mut(j).fill(0.0);
            if metric == Metric::Mass {
                identity_row_column(&mut ws.mass, j);
            }
        }
        return;
    };
    let is_fixed = |j: usize| fixed.binary_search(&j).is_ok();
    for p in 0..sp.jac.entries().len() {
        if is_fixed(sp.jac.entries()[p].1) {
            sp.jac.values[p] = 0.0;
        }
    }
    if metric == Metric::Mass {
        for p in 0..sp.mass.entries().len() {
            let (i, j) = sp.mass.entries()[p];
            if is_fixed(i) || is_fixed(j) {
                sp.mass.values[p] = if i == j { 1.0 } else { 0.0 };
            }
        }
    }
}

fn identity_row_column(m: &mut DMatrix<f64>, j: usize) {
    m.row_mut(j).fill(0.0);
    m.column_mut(j).fill(0.0);
    m[(j, j)] = 1.0;
}

/// `Err` with the violated rows (|r_i| > tol) that no free coordinate enters (their row of the
/// held Jacobian is zero): nothing can repair them, so fail at once and name them (the
/// factorization would only report a singular matrix).
pub(crate) fn stuck(
    jac: Jac<'_>,
    residual: &[f64],
    tol: f64,
    names: &[String],
) -> Result<(), Vec<ViolatedRow>> {
    let mut reached = vec![false; residual.len()];
    match jac {
        Jac::Dense(g) => {
            for (i, r) in reached.iter_mut().enumerate() {
                *r = g.row(i).iter().any(|&x| x != 0.0);
            }
        }
        Jac::Sparse(g) => {
            for (&(i, _), &x) in g.entries().iter().zip(&g.values) {
                reached[i] |= x != 0.0;
            }
        }
    }
    let rows: Vec<f64> = (0..residual.len())
        .map(|i| if reached[i] { 0.0 } else { residual[i] })
        .collect();
    let violated = ViolatedRow::collect(&rows, tol, names);
    if violated.is_empty() {
        Ok(())
    } else {
        Err(violated)
    }
}
