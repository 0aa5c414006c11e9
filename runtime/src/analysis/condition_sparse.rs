//! The 2-norm condition σ_max/σ_min of a sparse G (rows ≤ n, full row rank), or of its
//! independent rows when some are redundant, without a dense SVD of the model's order
//! (issue 27): `check`'s condition on the banded path.
//!
//! The singular values of G are the square roots of the eigenvalues of A = GGᵀ (rows × rows).
//! - **σ_max²** = λ_max(A) by Lanczos on A, two sparse mat-vecs a step (w ← G(Gᵀw)).
//! - **σ_min²** = 1/λ_max(A⁻¹) by Lanczos on A⁻¹ with the factored banded augmented system
//!   [I Gᵀ; G 0] the rank test already built (`statics_band.rs`): with the right side [0; w]
//!   its solution has μ = −(GGᵀ)⁻¹w, so a step costs one banded solve (inverse iteration
//!   accelerated by the Krylov space).
//!
//! Plain power/inverse iteration does not do on a chain: the A02 chain's extreme eigenvalues
//! come in clusters (40 near-identical loops), and power iteration's residual stalls at ~5e-4
//! after 400 steps. Lanczos (with full reorthogonalization: at most [`MAX_STEPS`] vectors of
//! length rows) converges with the square root of the gap ratio. After every
//! [`RITZ_EVERY`]-th step the largest eigenvalue θ of the tridiagonal T_k and its eigenvector s
//! give the Ritz residual ‖A y − θ y‖ = β_k |s_k| (y = Q_k s, unit), and A has an eigenvalue
//! within that of θ (the residual bound, Parlett, *The Symmetric Eigenvalue Problem*,
//! Thm 4.5.1). Converged when β_k |s_k| ≤ [`EIGEN_TOLERANCE`]·θ: an eigenvalue within 1e-6
//! relative, so a singular value within 5e-7 and the condition within ~1e-6 relative. θ is a
//! Rayleigh quotient, so it lies inside the spectrum: σ_max is never over- and σ_min never
//! underestimated, and the estimate never exceeds the true condition; the eigenvalue θ is
//! near is the extreme one unless the start vector ω_i = 1 + sin(1 + i)/2 is (numerically)
//! orthogonal to its eigenvector (the tests compare with the dense SVD). No convergence within
//! [`MAX_STEPS`] (or a breakdown) returns `None`, and the caller keeps the dense SVD (exact).
//! Cost per estimate: O(k·nnz(G)) and k banded solves, plus O(k²·rows) reorthogonalization
//! and the small eigenproblems of T (k ≤ 120).

use nalgebra::{DMatrix, SymmetricEigen};

use super::statics_band::SparseJacobian;
use crate::augmented_band::AugmentedBand;

/// Relative Ritz residual β_k |s_k| / θ at which an eigenvalue estimate is accepted.
pub const EIGEN_TOLERANCE: f64 = 1e-6;

/// Largest Krylov dimension of either Lanczos run before the dense SVD is taken.
pub const MAX_STEPS: usize = 120;

/// Steps between two looks at the Ritz values (the k × k eigenproblem); beyond [`MAX_STEPS`]
/// (a longer run, `condition_augmented.rs`) every fourth such step, so the O(k³) looks stay
/// below the run's O(k²·rows) reorthogonalization.
const RITZ_EVERY: usize = 5;

/// σ_max, σ_min and the Lanczos steps each took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct SparseCondition {
    pub(super) sigma_max: f64,
    pub(super) sigma_min: f64,
    pub(super) steps: (usize, usize),
}

impl SparseCondition {
    /// σ_max / σ_min (∞ for σ_min = 0).
    pub(super) fn condition(&self) -> f64 {
        if self.sigma_min > 0.0 {
            self.sigma_max / self.sigma_min
        } else {
            f64::INFINITY
        }
    }
}

/// The extreme singular values of the rows `kept` of `g` (ascending), with `band` =
/// [I G_Kᵀ; G_K 0] factored with those rows and a unit diagonal on the others (module docs;
/// the others' μ is then 0); `None` if the rows outnumber the columns or either run does not
/// converge.
pub(super) fn sparse_condition(
    g: &SparseJacobian,
    band: &mut AugmentedBand,
    kept: &[usize],
) -> Option<SparseCondition> {
    let rows = kept.len();
    if rows == 0 || rows > g.n {
        return None;
    }
    // Row i of G is component slot[i] of the Lanczos vectors (usize::MAX: left out).
    let mut slot = vec![usize::MAX; g.rows];
    kept.iter().enumerate().for_each(|(s, &i)| slot[i] = s);
    let mut scratch = vec![0.0; g.n];
    let (top, up) = lanczos_max(rows, (false, MAX_STEPS), |w, out| {
        gram_times(g, &slot, w, &mut scratch, out)
    })?;
    let (inverse_top, down) = lanczos_max(rows, (false, MAX_STEPS), |w, out| {
        let (_, mu) = band.solve_both(|y, zeta| {
            y.fill(0.0);
            zeta.fill(0.0);
            kept.iter().zip(w).for_each(|(&i, x)| zeta[i] = *x);
        });
        kept.iter()
            .zip(out.iter_mut())
            .for_each(|(&i, o)| *o = -mu[i]);
    })?;
    (top > 0.0 && inverse_top > 0.0).then(|| SparseCondition {
        sigma_max: top.sqrt(),
        sigma_min: (1.0 / inverse_top).sqrt(),
        steps: (up, down),
    })
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A w = G_K(G_Kᵀw) over the nonzeros of the kept rows (row i at component `slot[i]`,
/// `usize::MAX` for a row left out) into `out` (`scratch`: length n).
fn gram_times(g: &SparseJacobian, slot: &[usize], w: &[f64], scratch: &mut [f64], out: &mut [f64]) {
    let kept = || {
        (g.entries.iter().zip(&g.values))
            .filter_map(|(&(i, j), &x)| (slot[i] != usize::MAX).then_some((slot[i], j, x)))
    };
    scratch.fill(0.0);
    for (s, j, x) in kept() {
        scratch[j] += x * w[s];
    }
    out.fill(0.0);
    for (s, j, x) in kept() {
        out[s] += x * scratch[j];
    }
}

/// λ_max of the symmetric positive semidefinite operator `apply` (order `rows`) by Lanczos
/// with full reorthogonalization (module docs), and the steps taken; with `modulus`, the
/// largest |λ| of a symmetric indefinite operator (the Ritz value of largest modulus, whose
/// residual bound holds as well), returned as that modulus.
pub(super) fn lanczos_max(
    rows: usize,
    (modulus, max_steps): (bool, usize),
    mut apply: impl FnMut(&[f64], &mut [f64]),
) -> Option<(f64, usize)> {
    let mut q: Vec<f64> = (0..rows)
        .map(|i| 1.0 + 0.5 * (1.0 + i as f64).sin())
        .collect();
    let length = dot(&q, &q).sqrt();
    q.iter_mut().for_each(|x| *x /= length);
    let (mut basis, mut alpha, mut beta) = (vec![q], Vec::new(), Vec::new());
    let mut w = vec![0.0; rows];
    for k in 1..=max_steps.min(rows) {
        apply(&basis[k - 1], &mut w);
        if w.iter().any(|x| !x.is_finite()) {
            return None;
        }
        alpha.push(dot(&basis[k - 1], &w));
        for _ in 0..2 {
            for v in &basis {
                let c = dot(v, &w);
                w.iter_mut().zip(v).for_each(|(x, y)| *x -= c * y);
            }
        }
        let b = dot(&w, &w).sqrt();
        let exhausted = k == rows || b <= f64::EPSILON * alpha[0].abs().max(1.0);
        let look = k % RITZ_EVERY == 0 && (k <= MAX_STEPS || k % (4 * RITZ_EVERY) == 0);
        if exhausted || look || k == max_steps {
            let (theta, last) = largest_ritz(&alpha, &beta, modulus);
            if exhausted || b * last.abs() <= EIGEN_TOLERANCE * theta {
                return Some((theta, k));
            }
        }
        beta.push(b);
        basis.push(w.iter().map(|x| x / b).collect());
    }
    None
}

/// The largest eigenvalue of the tridiagonal T (diagonal `alpha`, off-diagonal `beta`), or with
/// `modulus` the largest |eigenvalue|, and the last component of its unit eigenvector.
fn largest_ritz(alpha: &[f64], beta: &[f64], modulus: bool) -> (f64, f64) {
    let k = alpha.len();
    let t = DMatrix::from_fn(k, k, |i, j| match i.abs_diff(j) {
        0 => alpha[i],
        1 => beta[i.min(j)],
        _ => 0.0,
    });
    let eigen = SymmetricEigen::new(t);
    let top = if modulus {
        eigen.eigenvalues.iamax()
    } else {
        eigen.eigenvalues.imax()
    };
    let value = eigen.eigenvalues[top];
    let value = if modulus { value.abs() } else { value };
    (value, eigen.eigenvectors[(k - 1, top)])
}
