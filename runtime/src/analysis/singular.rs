//! Singular configurations named at run time.
//!
//! Every integrator's run loop (`integrator/driver.rs`) hands a failed run's error and its last
//! accepted state to [`name_singularity`]. When the failure is one a singular configuration
//! causes — a singular KKT matrix blamed on G after the initial time (at t0 it is a defect of
//! the model or of the initial state, already reported as [`SimError::SingularKkt`] with its
//! dependent rows; `mbsim check` names them), or a step-size underflow — G = [Φ_q; A] is
//! evaluated at that state and ranked ([`super::jacobian_rank`]). If it is rank deficient
//! (a row within [`super::RANK_TOLERANCE`] of the others), or its condition exceeds
//! [`SINGULAR_CONDITION`], the error becomes [`SimError::SingularConfiguration`] with t, h, the
//! condition estimate and the dependent rows by name (the rows found dependent, or else the
//! row closest to the span of the others). Any other failure, or a well-conditioned G, leaves
//! the error as it was. Cold path: it runs once, after the run has failed.

use nalgebra::DMatrix;

use crate::error::{DependentRow, SimError, SingularBlock};
use crate::kernels;
use crate::system::ConstrainedSystem;

/// Condition of G above which a step-size underflow is blamed on a singular configuration:
/// 1/√ε ≈ 6.7e7. Accelerations then carry relative errors of about cond(G)·ε ≈ √ε ≈ 1.5e-8
/// per KKT solve, and the error controller keeps shrinking h without end near the point.
pub const SINGULAR_CONDITION: f64 = 6.7108864e7;

/// `err` as a [`SimError::SingularConfiguration`] when the state `z = (q, v)` (the last
/// accepted one; its q is what G is evaluated at, at the error's time) is a singular
/// configuration of `sys` (see the module docs); otherwise `err` unchanged.
pub(crate) fn name_singularity<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t0: f64,
    z: &[f64],
    err: SimError,
) -> SimError {
    let (t_state, h, forced) = match &err {
        SimError::SingularKkt {
            t,
            h,
            block: SingularBlock::Jacobian,
            ..
        } if *t != t0 => (*t, *h, true),
        SimError::StepSizeUnderflow { t, h } => (*t, *h, false),
        _ => return err,
    };
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.constraint_rows(), d.n);
    if kernels::jacobian(sys, t_state, &z[..d.n], &mut g).is_err() {
        return err;
    }
    let rank = super::jacobian_rank(&g, &sys.constraint_names());
    let deficient = rank.rank < d.constraint_rows();
    if !(forced || deficient || rank.condition > SINGULAR_CONDITION) {
        return err;
    }
    let mut rows: Vec<DependentRow> = rank.redundant.into_iter().map(|r| r.row).collect();
    if rows.is_empty()
        && let Some((row, distance)) = rank.weakest
    {
        let names = sys.constraint_names();
        rows.push(DependentRow {
            row,
            name: names
                .get(row)
                .cloned()
                .unwrap_or_else(|| format!("row {row}")),
            distance,
        });
    }
    SimError::SingularConfiguration {
        t: t_state,
        h,
        condition: rank.condition,
        rows,
    }
}
