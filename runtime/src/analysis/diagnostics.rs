//! Model diagnostics: n, m, k, the numerical rank of G = [Φ_q; A] at a state, the degrees of
//! freedom n − rank G, the redundant constraint rows by name with the dependency found, and the
//! condition of G.
//!
//! Rank test (documented tolerance [`RANK_TOLERANCE`]): the rows of G are orthogonalized with
//! threshold row pivoting ([`crate::redundancy::select_redundant`], the selection every
//! integrator makes for an over-constrained model, so a run leaves out the rows named here);
//! a row whose distance to the span of the rows taken is at most `RANK_TOLERANCE ·
//! max_i ‖g_i‖` is dependent. Its dependency is the least-squares combination of the independent rows,
//! g_r ≈ Σ c_j g_j, reported with the coefficients. The condition is σ_max/σ_min of G: ∞
//! when a row is redundant (σ_min(G) is then at most the rank tolerance times the largest row
//! norm, and the SVD would only measure round-off), with the condition of the independent
//! rows beside it (`JacobianRank::kept_condition`, what a run factors).
//!
//! Cost on a large sparse model (issue 27): under [`KinematicSolver::Auto`] a model with the
//! sparse kernel forms whose augmented [I Gᵀ; G 0] takes the banded layout is ranked on G's
//! nonzeros (`statics_band.rs`: the same selection, so the same rows, rank and weakest row;
//! the dependencies by banded least squares). The condition σ_max/σ_min there is estimated
//! without a dense SVD (`condition_sparse.rs`: Lanczos on GGᵀ for σ_max and on (GGᵀ)⁻¹ with
//! the same banded factors for σ_min, each to a relative Ritz residual of 1e-6,
//! labelled [`ConditionMeasure::TwoNormIterative`]), and with redundant rows the independent
//! rows' condition the same way with the factors that leave the redundant rows out; a G with
//! more rows than columns, or an iteration that does not converge in its cap, keeps the dense
//! SVD. Measured on
//! the A02 chain in body coordinates (G 242 × 243, `cargo bench -p mbsim-models --bench
//! sparse_statics`, thread CPU, before the sparse condition): 29.7 ms dense, 7.4 ms banded;
//! the whole `mbsim check four-bar-chain-bodies` process 14.8 → 5.9 ms user CPU with it
//! (mean of 100 runs). [`crate::analysis::kinematics`] runs the dense check at every
//! grid point on its dense path only; on a large sparse driven model it takes the banded path
//! (the banded LU of Φ_q, its pivots' determinant and a 1-norm condition estimate).

use nalgebra::{DMatrix, DVector};

use super::kinematics::{ConditionMeasure, KinematicSolver};
use crate::error::{DependentRow, SimError};
use crate::kernels;
use crate::system::ConstrainedSystem;

/// Relative rank tolerance √ε ≈ 1.5e-8: a row is dependent when its distance to the span of
/// the rows taken before it ([`crate::redundancy::select_redundant`]) is at most this times
/// the largest row norm of G. At a state consistent to
/// ‖Φ‖ ≈ 1e-12 a dependency that holds on the constraint manifold leaves a distance of about
/// 1e-12 (far below), while a well-posed mechanism at a distance δ from a singular
/// configuration has its smallest row distance proportional to δ (far above unless δ ≲ 1e-8).
pub const RANK_TOLERANCE: f64 = 1.4901161193847656e-8;

/// A redundant (dependent) constraint row and the combination of independent rows it equals.
#[derive(Clone, Debug, PartialEq)]
pub struct Redundancy {
    /// The dependent row, its name and its (relative) distance to the others.
    pub row: DependentRow,
    /// `(row, name, c)`: g_row ≈ Σ c · g_other over the independent rows with |c| above
    /// `RANK_TOLERANCE` times the largest |c|.
    pub combination: Vec<(usize, String, f64)>,
}

/// Rank, condition and dependent rows of one Jacobian.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobianRank {
    /// Numerical rank.
    pub rank: usize,
    /// σ_max / σ_min over the min(rows, n) singular values (∞ if σ_min = 0, 1 for no rows).
    pub condition: f64,
    /// How `condition` was computed: [`ConditionMeasure::TwoNormSvd`] (the dense SVD), on
    /// the banded path [`ConditionMeasure::TwoNormIterative`], or
    /// [`ConditionMeasure::RankDeficient`] (∞) when rows are redundant.
    pub condition_measure: ConditionMeasure,
    /// σ_max / σ_min of the independent rows alone (the rows a run keeps,
    /// [`crate::redundancy`]) and how it was computed (the SVD, or on the banded path the
    /// Lanczos runs with the factors that leave the redundant rows out); `condition` when no
    /// row is redundant.
    pub kept_condition: (f64, ConditionMeasure),
    /// The dependent rows with their dependencies.
    pub redundant: Vec<Redundancy>,
    /// The independent row with the smallest distance `(row, relative distance)`, if any.
    pub weakest: Option<(usize, f64)>,
}

/// The diagnosis of a model at a state.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnosis {
    /// Coordinates.
    pub n: usize,
    /// Holonomic rows.
    pub m: usize,
    /// Nonholonomic rows.
    pub k: usize,
    /// Constraint row names, holonomic first.
    pub names: Vec<String>,
    /// Time of the state examined.
    pub t: f64,
    /// Coordinates of the state examined.
    pub q: Vec<f64>,
    /// ‖Φ(t, q)‖∞ at that state (the diagnosis means most on a consistent state).
    pub residual: f64,
    /// Rank, condition and redundancies of G = [Φ_q; A].
    pub jacobian: JacobianRank,
    /// Degrees of freedom n − rank G (velocity level, nonholonomic rows included).
    pub dof: usize,
}

impl Diagnosis {
    /// Whether the model is fully driven (0 DOF, no redundant rows, no nonholonomic rows):
    /// what kinematic analysis and inverse dynamics need.
    pub fn fully_driven(&self) -> bool {
        self.k == 0 && self.m == self.n && self.jacobian.rank == self.n
    }

    /// A plain-language verdict on the model for kinematic analysis.
    pub fn kinematic_advice(&self) -> String {
        let redundant: Vec<&str> = self
            .jacobian
            .redundant
            .iter()
            .map(|r| r.row.name.as_str())
            .collect();
        let mut parts = Vec::new();
        if !redundant.is_empty() {
            parts.push(format!(
                "over-constrained: redundant rows {} (remove them, or move off a singular \
                 configuration if they are independent elsewhere)",
                redundant.join(", ")
            ));
        }
        if self.k > 0 {
            parts.push(format!("{} nonholonomic rows do not fix positions", self.k));
        }
        if self.dof > 0 {
            parts.push(format!(
                "under-driven: {} degree(s) of freedom left; add {} driving constraint(s)",
                self.dof, self.dof
            ));
        }
        if parts.is_empty() {
            "fully driven".to_string()
        } else {
            parts.join("; ")
        }
    }
}

/// Diagnose `sys` at (t, q): evaluate G there and rank it (see the module docs).
pub fn check<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
) -> Result<Diagnosis, SimError> {
    check_with(sys, t, q, KinematicSolver::Auto)
}

/// [`check`] with the rank test on the path `solver` picks: banded (`statics_band.rs`, on G's
/// nonzeros; the same rows, rank and condition) for a large sparse model under `Auto`.
pub fn check_with<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    solver: KinematicSolver,
) -> Result<Diagnosis, SimError> {
    let d = sys.dims();
    crate::error::check_length("check: q", q.len(), d.n)?;
    let mut phi = vec![0.0; d.m];
    let names = sys.constraint_names();
    let banded = match super::statics_band::kkt_policy(sys, solver) {
        Some(policy) => {
            let g = super::statics_band::SparseJacobian::eval(sys, t, q)?;
            super::statics_band::jacobian_rank_banded(&g, &names, policy)
        }
        None => None,
    };
    let jacobian = match banded {
        Some(rank) => rank,
        None => {
            let mut g = DMatrix::zeros(d.constraint_rows(), d.n);
            kernels::jacobian(sys, t, q, &mut g)?;
            jacobian_rank(&g, &names)
        }
    };
    kernels::phi(sys, t, q, &mut phi)?;
    Ok(Diagnosis {
        n: d.n,
        m: d.m,
        k: d.k,
        t,
        q: q.to_vec(),
        residual: phi.iter().fold(0.0_f64, |s, x| s.max(x.abs())),
        dof: d.n - jacobian.rank,
        jacobian,
        names,
    })
}

/// Rank, condition and redundant rows of `g` with rows named `names`.
pub fn jacobian_rank(g: &DMatrix<f64>, names: &[String]) -> JacobianRank {
    let (r, n) = g.shape();
    let scale = g
        .row_iter()
        .map(|row| row.norm())
        .fold(0.0_f64, |s, x| s.max(x));
    let unit = if scale > 0.0 { scale } else { 1.0 };
    let pick = crate::redundancy::select_redundant(g);
    let (dependent, weakest) = (
        pick.redundant,
        pick.weakest.map(|row| (row, pick.weakest_distance * unit)),
    );
    let independent: Vec<usize> = (0..r).filter(|i| !dependent.contains(i)).collect();
    let redundant = dependent
        .iter()
        .map(|&row| redundancy(g, row, &independent, names, unit))
        .collect();
    let kept = condition(&g.select_rows(&independent), independent.len().min(n));
    let (condition, condition_measure) = if dependent.is_empty() {
        (kept, ConditionMeasure::TwoNormSvd)
    } else {
        (f64::INFINITY, ConditionMeasure::RankDeficient)
    };
    JacobianRank {
        rank: independent.len(),
        condition,
        condition_measure,
        kept_condition: (kept, ConditionMeasure::TwoNormSvd),
        redundant,
        weakest: weakest.map(|(row, dist)| (row, dist / unit)),
    }
}

/// σ_max / σ_min of `g` (`p` = min(rows, cols) singular values).
pub(super) fn condition(g: &DMatrix<f64>, p: usize) -> f64 {
    if p == 0 {
        return 1.0;
    }
    let s = g.clone().svd(false, false).singular_values;
    let (hi, lo) = (s.max(), s.min());
    if lo > 0.0 { hi / lo } else { f64::INFINITY }
}

/// The least-squares combination of the `independent` rows that reproduces row `row`.
fn redundancy(
    g: &DMatrix<f64>,
    row: usize,
    independent: &[usize],
    names: &[String],
    unit: f64,
) -> Redundancy {
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("row {i}"));
    let target: DVector<f64> = g.row(row).transpose();
    if independent.is_empty() {
        // Every row vanishes: the row is its own (zero) dependency.
        return Redundancy {
            row: DependentRow {
                row,
                name: name(row),
                distance: target.norm() / unit,
            },
            combination: Vec::new(),
        };
    }
    let basis = g.select_rows(independent);
    let gram = &basis * basis.transpose();
    let rhs = &basis * &target;
    let coef = gram
        .lu()
        .solve(&rhs)
        .unwrap_or_else(|| DVector::zeros(independent.len()));
    let residual = (basis.transpose() * &coef - &target).norm();
    let big = coef.iter().fold(0.0_f64, |s, c| s.max(c.abs()));
    let combination = independent
        .iter()
        .zip(coef.iter())
        .filter(|(_, c)| c.abs() > RANK_TOLERANCE * big)
        .map(|(&i, &c)| (i, name(i), c))
        .collect();
    Redundancy {
        row: DependentRow {
            row,
            name: name(row),
            distance: residual / unit,
        },
        combination,
    }
}
