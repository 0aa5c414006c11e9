//! Singular configurations named at run time.
//!
//! Every integrator's run loop (`integrator/driver.rs`) hands a failed run's error and its last
//! accepted state to [`name_singularity`]. When the failure is one a singular configuration
//! causes — a singular KKT matrix blamed on G after the initial time (at t0 it is a defect of
//! the model or of the initial state, already reported as [`SimError::SingularKkt`] with its
//! dependent rows; `mbsim check` names them), or a step-size underflow — G = [Φ_q; A] is
//! evaluated at that state and ranked ([`super::jacobian_rank`]). If it is rank deficient
//! (a row within [`super::RANK_TOLERANCE`] of the others), or the condition of the augmented
//! matrix [M Gᵀ; G 0] exceeds [`SINGULAR_CONDITION`] (or, for an underflow, grew more than
//! [`SINGULAR_GROWTH`]-fold since the run's start), the error becomes
//! [`SimError::SingularConfiguration`] with t, h, that condition and the dependent rows by name (the rows found dependent, or else the
//! row closest to the span of the others). Any other failure, or a well-conditioned G, leaves
//! the error as it was. Cold path: it runs once, after the run has failed.
//!
//! On a model with the sparse kernel forms whose K = [M Gᵀ; G 0] takes the banded layout (the
//! KKT solve's rule, [`KinematicSolver::Auto`]), nothing of order n + r is factored densely:
//! G is ranked on its nonzeros (`statics_band.rs`, the rows `check` names) and the condition
//! of K is estimated by Lanczos on K and on K⁻¹ through its banded LU
//! (`condition_augmented.rs`, within ~2e-6 relative of the SVD's plus both computations' ε·κ), and the
//! error says so ([`SimError::SingularConfiguration`]'s `condition_estimated`). Measured on
//! the A02 chain in body coordinates (K of order 485): see the README ("Singular
//! configurations").

use nalgebra::DMatrix;

use super::kinematics::KinematicSolver;
use crate::error::{DependentRow, SimError, SingularBlock};
use crate::kernels;
use crate::system::ConstrainedSystem;

/// The condition σ_max/σ_min of [M Gᵀ; G 0] at one state ([`augmented_condition`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AugmentedCondition {
    /// σ_max / σ_min (∞ when σ_min = 0).
    pub value: f64,
    /// Whether it is the Lanczos estimate of the banded path (relative Ritz residual 1e-6,
    /// plus the ε·κ round-off that the SVD carries as well) rather than a dense SVD.
    pub estimated: bool,
}

/// Condition of the augmented matrix [M Gᵀ; G 0] above which a step-size underflow is blamed
/// on a singular configuration: 10⁻⁶/ε ≈ 4.5e9. Above it every KKT solve carries relative
/// round-off of about cond · ε ≥ 10⁻⁶ in v̇ and λ — more than the local error tolerances of the
/// runs that underflow there — while a well-posed model stays far below it. (Near a rank loss
/// of G the condition grows like cond(G)²; it also grows when all of G shrinks, as at the
/// singular slider-crank's (0, π), which the relative condition of G alone cannot see.)
/// Measured: the change-point four-bar underflows with RKSTAB rtol 1e-11 at t ≈ π − 6.5e-7 and
/// rtol 1e-12 at π − 3.8e-6, where this condition is 5.6e13 and 1.6e12.
pub const SINGULAR_CONDITION: f64 = 1e-6 / f64::EPSILON;

/// Growth of the condition of [M Gᵀ; G 0] since the run's start above which a step-size
/// underflow is blamed on the configuration even below [`SINGULAR_CONDITION`]: the solve's
/// round-off there is 10⁶ times what the model had at t0, so it is the position, not the
/// model's scaling, that starves the step (a tight tolerance meets that round-off long before
/// 10⁻⁶). Measured: the change-point four-bar at RKSTAB rtol 2e-11 underflows 1.6e-4 s before
/// the point, where the condition is ~1e9 against ~1e1 at t0 (cond·ε ≈ 2e-7 ≫ rtol); a
/// well-posed model's condition stays within a few decades of its start.
pub const SINGULAR_GROWTH: f64 = 1e6;

/// `err` as a [`SimError::SingularConfiguration`] when the state `z = (q, v)` (the last
/// accepted one; its q is what G is evaluated at, at the error's time) is a singular
/// configuration of `sys` (see the module docs); otherwise `err` unchanged. `start` is the
/// run's initial q when known: a step-size underflow where the condition grew more than
/// [`SINGULAR_GROWTH`]-fold since then is named too.
pub(crate) fn name_singularity<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    (t0, start): (f64, Option<&[f64]>),
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
        SimError::StepSizeUnderflow { t, h, .. } => (*t, *h, false),
        _ => return err,
    };
    let d = sys.dims();
    let q = &z[..d.n];
    let Some((rank, measured)) = diagnose(sys, t_state, q) else {
        return err;
    };
    let deficient = rank.rank < d.constraint_rows();
    let condition = measured.value;
    let grown = || {
        let start =
            start.and_then(|q0| augmented_condition(sys, t0, q0, KinematicSolver::Auto).ok());
        start.is_some_and(|c0| condition > SINGULAR_GROWTH * c0.value)
    };
    if !(forced || deficient || condition > SINGULAR_CONDITION || grown()) {
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
        condition,
        condition_estimated: measured.estimated,
        rows,
    }
}

/// G's rank test and K's condition at (t, q): on the banded path when the model goes on it
/// (module docs), else dense; `None` if a kernel fails.
fn diagnose<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
) -> Option<(super::JacobianRank, AugmentedCondition)> {
    let names = sys.constraint_names();
    if let Some(policy) = super::statics_band::kkt_policy(sys, KinematicSolver::Auto) {
        let g = super::statics_band::SparseJacobian::eval(sys, t, q).ok()?;
        let rank = super::statics_band::jacobian_rank_banded(&g, &names, policy)
            .or_else(|| independent_rows(&g));
        let value = super::condition_augmented::augmented_condition_banded(sys, (t, q), policy);
        if let (Some(rank), Some(value)) = (rank, value) {
            let estimated = true;
            return Some((rank, AugmentedCondition { value, estimated }));
        }
    }
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.constraint_rows(), d.n);
    let mut mass = DMatrix::zeros(d.n, d.n);
    kernels::jacobian(sys, t, q, &mut g).ok()?;
    kernels::mass(sys, t, q, &mut mass).ok()?;
    let rank = super::jacobian_rank(&g, &names);
    let value = dense_condition(&mass, &g);
    let estimated = false;
    Some((rank, AugmentedCondition { value, estimated }))
}

/// The rank test on G's nonzeros when no row is redundant but the banded least squares of
/// `check` does not factor (G within a few √ε of a rank loss, as at the state a run fails):
/// the rank and the weakest row from the selection alone; `None` (the dense path) when rows are
/// redundant, whose distances need the least squares. Its condition is not computed (NaN; the
/// run loop reads K's).
fn independent_rows(g: &super::statics_band::SparseJacobian) -> Option<super::JacobianRank> {
    let pick = g.pick();
    pick.redundant.is_empty().then(|| super::JacobianRank {
        rank: pick.independent.len(),
        condition: f64::NAN,
        condition_measure: super::ConditionMeasure::TwoNormIterative,
        kept_condition: (f64::NAN, super::ConditionMeasure::TwoNormIterative),
        redundant: Vec::new(),
        weakest: pick.weakest.map(|row| (row, pick.weakest_distance)),
    })
}

/// The condition of [M Gᵀ; G 0] at (t, q) as the run loop measures it when it names a singular
/// configuration: under [`KinematicSolver::Auto`] the Lanczos estimate on a model whose K takes
/// the banded layout (module docs), else the dense SVD; `Dense` forces the SVD and `Banded` the
/// estimate (whatever the size; the SVD still if it does not apply or converge).
pub fn augmented_condition<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    solver: KinematicSolver,
) -> Result<AugmentedCondition, SimError> {
    crate::error::check_length("augmented_condition: q", q.len(), sys.dims().n)?;
    if let Some(policy) = super::statics_band::kkt_policy(sys, solver)
        && let Some(value) =
            super::condition_augmented::augmented_condition_banded(sys, (t, q), policy)
    {
        let estimated = true;
        return Ok(AugmentedCondition { value, estimated });
    }
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.constraint_rows(), d.n);
    let mut mass = DMatrix::zeros(d.n, d.n);
    kernels::jacobian(sys, t, q, &mut g)?;
    kernels::mass(sys, t, q, &mut mass)?;
    let value = dense_condition(&mass, &g);
    let estimated = false;
    Ok(AugmentedCondition { value, estimated })
}

/// σ_max / σ_min of [M Gᵀ; G 0] by a dense SVD (∞ if σ_min = 0).
fn dense_condition(mass: &DMatrix<f64>, g: &DMatrix<f64>) -> f64 {
    let (r, n) = g.shape();
    let mut k = DMatrix::zeros(n + r, n + r);
    k.view_mut((0, 0), (n, n)).copy_from(mass);
    k.view_mut((n, 0), (r, n)).copy_from(g);
    k.view_mut((0, n), (n, r)).tr_copy_from(g);
    let s = k.svd(false, false).singular_values;
    let (hi, lo) = (s.max(), s.min());
    if lo > 0.0 { hi / lo } else { f64::INFINITY }
}
