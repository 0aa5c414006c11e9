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
/// 10⁻³/√ε ≈ 6.7e4. Near a rank loss the augmented matrix [M Gᵀ; G 0] has a condition growing
/// like cond(G)², so above this bound every KKT solve carries relative round-off of about
/// cond(G)² ε ≥ 10⁻⁶ in v̇ and λ — more than the local error tolerances of the runs that
/// underflow there (measured: the change-point four-bar underflows at cond(G) ≈ 1.5e6 with
/// rtol 1e-10 and 1e-12), while a well-posed model stays far below it.
pub const SINGULAR_CONDITION: f64 = 1e-3 / 1.4901161193847656e-8;

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
