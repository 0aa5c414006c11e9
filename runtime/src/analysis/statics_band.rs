//! The banded path of the statics and the diagnostics (issue 27): `check`'s rank test and the
//! local quantities of [`super::equilibrium`] and [`super::settle`] on G's nonzeros, with no
//! dense matrix of the model's order factored.
//!
//! - **Rank and redundant rows**: the threshold-pivoted Gram–Schmidt of
//!   [`crate::redundancy::select_redundant`] on the nonzeros (`redundancy_sparse.rs`), so the
//!   same rows are named; a dependent row's combination of the independent ones is the
//!   least-squares μ of [I G_keptᵀ; G_kept 0][x; μ] = [g_row; 0] (x its residual), the banded
//!   augmented system of [`AugmentedBand`].
//! - **Multipliers at rest**: λ = (G_k G_kᵀ)⁻¹ G_k Q from the same augmented system with the
//!   right side [Q; 0] (0 on the left-out rows), whose top block x = Q − G_kᵀλ is Q projected
//!   onto ker G_k.
//! - **Tangent basis**: Z, an orthonormal basis of ker G_k (d = n − rank columns), as the
//!   projections P ω_j of d fixed vectors (ω_ij = sin(1 + i + √2·j·n), independent of ker's
//!   complement for any G but a measure-zero set), orthonormalized by QR and projected and
//!   orthonormalized once more (the second pass removes what the first solve's round-off
//!   left outside ker G). O(d·n·b + n·d²); taken under `Auto` when d ≤ n/8. Z differs from the dense
//!   path's (eigenvectors of GᵀG) by an orthogonal d × d factor, so everything the reduced
//!   Newton method computes from it — the step Z p, the eigenvalues of Zᵀ H Z, the stability —
//!   is the same to round-off; only the ∞-norm of the reduced gradient Zᵀ V_q depends on the
//!   basis (its 2-norm does not; for d = 1 neither does).

use nalgebra::{DMatrix, DVector};

use super::diagnostics::{JacobianRank, RANK_TOLERANCE, Redundancy, condition};
use super::equilibrium::Local;
use super::kinematics::{ConditionMeasure, KinematicSolver};
use crate::augmented_band::AugmentedBand;
use crate::error::DependentRow;
use crate::error::SimError;
use crate::kernels;
use crate::kkt_layout::KktSolver;
use crate::redundancy::Pick;
use crate::redundancy_sparse::select_redundant_sparse;
use crate::system::ConstrainedSystem;

/// G = [Φ_q; A] at one state as its structural nonzeros.
pub(super) struct SparseJacobian {
    pub(super) rows: usize,
    pub(super) n: usize,
    /// (row, column) of each value, row-major.
    pub(super) entries: Vec<(usize, usize)>,
    pub(super) values: Vec<f64>,
}

impl SparseJacobian {
    /// G at (t, q): the sparse kernel forms' values, or a dense G gathered on the pattern.
    pub(super) fn eval<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        t: f64,
        q: &[f64],
    ) -> Result<Self, SimError> {
        let d = sys.dims();
        let mut store = crate::sparse::JacobianStore::new(d.constraint_rows(), d.n);
        store.prepare(sys);
        store.eval(sys, t, q)?;
        let (entries, values) = match &store.sparse {
            Some(g) => {
                let len = g.entries().len();
                (g.entries().to_vec(), g.values[..len].to_vec())
            }
            None => {
                let entries = crate::sparse::jacobian_pattern(sys, d);
                let values = entries.iter().map(|&(i, j)| store.dense[(i, j)]).collect();
                (entries, values)
            }
        };
        Ok(Self {
            rows: d.constraint_rows(),
            n: d.n,
            entries,
            values,
        })
    }

    /// The rank test of [`crate::redundancy::select_redundant`] on the nonzeros.
    pub(super) fn pick(&self) -> Pick {
        select_redundant_sparse(self.rows, self.n, &self.entries, &self.values)
    }

    /// The banded [I G_keptᵀ; G_kept 0] (the rows in `left_out` not assembled), factored, or
    /// `None` when `solver` keeps the dense layout or it does not factor.
    pub(super) fn augmented(&self, solver: KktSolver, left_out: &[usize]) -> Option<AugmentedBand> {
        let mut band = AugmentedBand::chosen_by(solver, self.rows, self.n, self.entries.clone())?;
        let out = |i: usize| left_out.binary_search(&i).is_ok();
        let values = &self.values;
        let factored = band.factor(
            |k, i| (!out(i)).then_some(values[k]),
            left_out.iter().copied(),
        );
        factored.then_some(band)
    }

    /// Row i into `out` (length n, zero elsewhere).
    fn write_row(&self, i: usize, out: &mut [f64]) {
        out.fill(0.0);
        for (&(r, j), &x) in self.entries.iter().zip(&self.values) {
            if r == i {
                out[j] = x;
            }
        }
    }

    /// The largest row norm (1 for a zero G): the rank test's unit.
    fn largest_row_norm(&self) -> f64 {
        let mut squares = vec![0.0; self.rows];
        for (&(i, _), &x) in self.entries.iter().zip(&self.values) {
            squares[i] += x * x;
        }
        let unit = squares.iter().fold(0.0_f64, |s, &x| s.max(x.sqrt()));
        if unit > 0.0 { unit } else { 1.0 }
    }

    /// G as a dense matrix (the condition's SVD when the Lanczos runs do not converge).
    fn dense(&self) -> DMatrix<f64> {
        let mut g = DMatrix::zeros(self.rows, self.n);
        for (&(i, j), &x) in self.entries.iter().zip(&self.values) {
            g[(i, j)] = x;
        }
        g
    }

    /// Gᵀλ over the nonzeros.
    fn transpose_times(&self, lambda: &[f64]) -> DVector<f64> {
        let mut out = DVector::zeros(self.n);
        for (&(i, j), &x) in self.entries.iter().zip(&self.values) {
            out[j] += x * lambda[i];
        }
        out
    }
}

/// The KKT policy a [`KinematicSolver`] stands for on the banded path (`None`: dense).
pub(super) fn kkt_policy<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    solver: KinematicSolver,
) -> Option<KktSolver> {
    match solver {
        KinematicSolver::Dense => None,
        KinematicSolver::Banded => Some(KktSolver::Banded),
        KinematicSolver::Auto => sys.has_nonzero_forms().then_some(KktSolver::Auto),
    }
}

/// The local quantities of the reduced Newton method at q on the banded path (module docs);
/// `Ok(None)` when the banded path does not apply (dense layout, d > n/8 unless forced, no
/// factorization):
/// the caller takes the dense one.
pub(super) fn local_banded<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    (t, q): (f64, &[f64]),
    policy: KktSolver,
) -> Result<Option<Local>, SimError> {
    let g = SparseJacobian::eval(sys, t, q)?;
    let n = g.n;
    let pick = g.pick();
    let d = n.saturating_sub(pick.independent.len());
    if 8 * d > n && policy != KktSolver::Banded {
        return Ok(None);
    }
    let Some(mut band) = g.augmented(policy, &pick.redundant) else {
        return Ok(None);
    };
    let rest = vec![0.0; n];
    let mut force = vec![0.0; n];
    kernels::force(sys, t, q, &rest, &mut force)?;
    let (_, mu) = band.solve_both(|y, zeta| {
        y.copy_from_slice(&force);
        zeta.fill(0.0);
    });
    let lambda = DVector::from_column_slice(mu);
    let force = DVector::from_vec(force);
    let equation_residual = (g.transpose_times(lambda.as_slice()) - &force).amax();
    let z = tangent_basis(&mut band, n, d);
    let gradient = -(z.transpose() * &force);
    Ok(Some(Local {
        lambda,
        z,
        gradient,
        equation_residual,
    }))
}

/// An orthonormal basis of ker G_k from the factored augmented system (module docs).
fn tangent_basis(band: &mut AugmentedBand, n: usize, d: usize) -> DMatrix<f64> {
    if d == 0 {
        return DMatrix::zeros(n, 0);
    }
    let spread = 2.0_f64.sqrt() * n as f64;
    let mut z = DMatrix::from_fn(n, d, |i, j| (1.0 + i as f64 + spread * j as f64).sin());
    for _ in 0..2 {
        for j in 0..d {
            let (x, _) = band.solve_both(|y, zeta| {
                y.copy_from_slice(z.column(j).as_slice());
                zeta.fill(0.0);
            });
            z.column_mut(j).copy_from_slice(x);
        }
        z = z.qr().q();
    }
    z
}

/// [`super::jacobian_rank`] on the banded path: the same rows named redundant and the same
/// rank; each dependency's coefficients and distance from the banded least squares (module
/// docs); `None` when the augmented system keeps the dense layout or does not factor (the
/// caller ranks the dense G). The condition σ_max/σ_min by the Lanczos runs of
/// `condition_sparse.rs` (the dense SVD if they do not converge); with redundant rows ∞, and
/// the independent rows' condition by the same runs with the factors that leave the
/// redundant rows out.
pub(super) fn jacobian_rank_banded(
    g: &SparseJacobian,
    names: &[String],
    policy: KktSolver,
) -> Option<JacobianRank> {
    let unit = g.largest_row_norm();
    let pick = g.pick();
    if pick.independent.is_empty() {
        return None;
    }
    let mut band = g.augmented(policy, &pick.redundant)?;
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("row {i}"));
    let independent: Vec<usize> = (0..g.rows)
        .filter(|i| pick.redundant.binary_search(i).is_err())
        .collect();
    let mut target = vec![0.0; g.n];
    let redundant = pick
        .redundant
        .iter()
        .map(|&row| {
            g.write_row(row, &mut target);
            let (x, mu) = band.solve_both(|y, zeta| {
                y.copy_from_slice(&target);
                zeta.fill(0.0);
            });
            let residual = x.iter().map(|v| v * v).sum::<f64>().sqrt();
            let big = independent.iter().fold(0.0_f64, |s, &i| s.max(mu[i].abs()));
            let combination = independent
                .iter()
                .filter(|&&i| mu[i].abs() > RANK_TOLERANCE * big)
                .map(|&i| (i, name(i), mu[i]))
                .collect();
            Redundancy {
                row: DependentRow {
                    row,
                    name: name(row),
                    distance: residual / unit,
                },
                combination,
            }
        })
        .collect();
    // The independent rows' condition with the factors that leave the redundant rows out (all
    // rows when none is), the dense SVD of those rows if the Lanczos runs do not converge.
    let kept = match super::condition_sparse::sparse_condition(g, &mut band, &independent) {
        Some(c) => (c.condition(), ConditionMeasure::TwoNormIterative),
        None => {
            let rows = g.dense().select_rows(&independent);
            let singular_values = independent.len().min(g.n);
            (
                condition(&rows, singular_values),
                ConditionMeasure::TwoNormSvd,
            )
        }
    };
    let (condition, condition_measure) = if pick.redundant.is_empty() {
        kept
    } else {
        (f64::INFINITY, ConditionMeasure::RankDeficient)
    };
    Some(JacobianRank {
        rank: independent.len(),
        condition,
        condition_measure,
        kept_condition: kept,
        redundant,
        weakest: pick.weakest.map(|row| (row, pick.weakest_distance)),
    })
}
