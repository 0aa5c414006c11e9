//! The banded LU of a square constraint Jacobian Φ_q (a fully driven model: k = 0, m = n), the
//! factorization kinematic analysis runs on when the model is large and sparse (issue 27).
//!
//! Ordering: Φ_q is unsymmetric, so its rows and columns are ordered apart. Reverse
//! Cuthill–McKee ([`reverse_cuthill_mckee`]) runs on the bipartite graph of the pattern (a node
//! per column, a node per row, an edge per nonzero); the rows, and the columns, are then taken
//! in the order they appear in it. A chain of bodies comes out as alternating layers of joint
//! rows and body coordinates, so the permuted matrix has a few sub- and super-diagonals
//! (`kl`, `ku`) whatever the chain's length, and [`BandedLu`] (partial pivoting in the band)
//! factors it in O(n·kl·(kl + ku)).
//!
//! What the factors give besides solves:
//! - det Φ_q = sign(row order)·sign(column order)·(−1)^(row interchanges)·∏ u_jj (the product
//!   of the pivots, as the dense determinant is);
//! - a condition estimate κ̂₁ = ‖Φ_q‖₁ · est‖Φ_q⁻¹‖₁, with est‖Φ_q⁻¹‖₁ from Hager's method as
//!   Higham refined it (LAPACK `dlacon`: at most five pairs of solves with Φ_q and Φ_qᵀ, then
//!   the alternating-sign vector): O(n·kl·(kl + ku)) like the factorization. Every estimate
//!   is ‖Φ_q⁻¹ x‖₁ for some ‖x‖₁ = 1, so κ̂₁ ≤ κ₁ always; it is rarely below κ₁/3 (Higham,
//!   *Accuracy and Stability of Numerical Algorithms*, §15.3). It is the 1-norm condition,
//!   not the 2-norm one the dense path's SVD gives: κ₂/n ≤ κ₁ ≤ n·κ₂.

use crate::banded::{BandedLu, reverse_cuthill_mckee};

/// The banded LU of a square Φ_q on a fixed pattern (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct SquareBand {
    /// `row_order[r]`: the model's row at band row r.
    row_order: Vec<usize>,
    /// `col_order[c]`: the model's column (coordinate) at band column c.
    col_order: Vec<usize>,
    /// Band storage slot of each pattern entry, in the pattern's order.
    slots: Vec<usize>,
    /// The model's column of each pattern entry (for ‖Φ_q‖₁).
    columns: Vec<usize>,
    lu: BandedLu,
    /// sign(row order) · sign(column order).
    order_sign: f64,
    /// ‖Φ_q‖₁ at the last factorization.
    norm1: f64,
}

impl SquareBand {
    /// The ordering and band storage for an `n × n` Φ_q with nonzeros `pattern`.
    pub(crate) fn new(n: usize, pattern: &[(usize, usize)]) -> Self {
        let edges: Vec<(usize, usize)> = pattern.iter().map(|&(i, j)| (j, n + i)).collect();
        let order = reverse_cuthill_mckee(2 * n, &edges);
        let row_order: Vec<usize> = order.iter().filter(|&&v| v >= n).map(|v| v - n).collect();
        let col_order: Vec<usize> = order.iter().copied().filter(|&v| v < n).collect();
        let (row_pos, col_pos) = (position(&row_order), position(&col_order));
        let (mut kl, mut ku) = (0, 0);
        for &(i, j) in pattern {
            let (r, c) = (row_pos[i], col_pos[j]);
            kl = kl.max(r.saturating_sub(c));
            ku = ku.max(c.saturating_sub(r));
        }
        let lu = BandedLu::new(n, kl, ku);
        let slots = pattern
            .iter()
            .map(|&(i, j)| lu.slot(row_pos[i], col_pos[j]))
            .collect();
        Self {
            order_sign: parity(&row_order) * parity(&col_order),
            row_order,
            col_order,
            slots,
            columns: pattern.iter().map(|&(_, j)| j).collect(),
            lu,
            norm1: 0.0,
        }
    }

    /// The lower and upper bandwidths of the ordered Φ_q.
    pub(crate) fn bandwidths(&self) -> (usize, usize) {
        self.lu.bandwidths()
    }

    /// Whether the banded LU costs at most a quarter of the dense one (the KKT solve's
    /// criterion, `KktSolver::BANDED_GAIN`): n·(kl + 1)·(kl + ku + 1) ≤ n³/12.
    pub(crate) fn pays(&self) -> bool {
        let n = self.lu.dim() as f64;
        let (kl, ku) = self.bandwidths();
        n * (kl as f64 + 1.0) * ((kl + ku) as f64 + 1.0) <= n * n * n / 12.0
    }

    /// Factor Φ_q from its `values` in the pattern's order. `Err(column)`: the model's
    /// coordinate whose pivot was negligible (Φ_q numerically singular).
    pub(crate) fn factor(&mut self, values: &[f64]) -> Result<(), usize> {
        self.lu.clear();
        let band = self.lu.band_mut();
        for (&slot, &x) in self.slots.iter().zip(values) {
            band[slot] += x;
        }
        let mut sums = vec![0.0; self.lu.dim()];
        for (&j, &x) in self.columns.iter().zip(values) {
            sums[j] += x.abs();
        }
        self.norm1 = sums.iter().fold(0.0_f64, |s, &x| s.max(x));
        let scale = crate::lu::largest_magnitude(&values[..self.slots.len()]);
        (self.lu.factor_with_scale(scale)).map_err(|c| self.col_order[c])
    }

    /// Solve Φ_q x = b in place (b in the model's row order in, x in its coordinate order
    /// out): Φ_q = Pᵀ A Qᵀ with A the ordered matrix, so x = Q A⁻¹ P b.
    pub(crate) fn solve(&self, b: &mut [f64]) {
        let mut y: Vec<f64> = self.row_order.iter().map(|&i| b[i]).collect();
        self.lu.solve_in_place(&mut y);
        for (&j, &x) in self.col_order.iter().zip(&y) {
            b[j] = x;
        }
    }

    /// det Φ_q of the last factorization.
    pub(crate) fn determinant(&self) -> f64 {
        let pivots = self.lu.pivots();
        (0..pivots.len()).fold(self.order_sign, |det, j| {
            let swap = if pivots[j] == j { 1.0 } else { -1.0 };
            det * swap * self.lu.pivot(j)
        })
    }

    /// κ̂₁ = ‖Φ_q‖₁ · est‖Φ_q⁻¹‖₁ of the last factorization (module docs).
    pub(crate) fn condition_estimate(&self) -> f64 {
        self.norm1 * inverse_norm1_estimate(&self.lu)
    }
}

/// `position[old] = new` of `order[new] = old`.
fn position(order: &[usize]) -> Vec<usize> {
    let mut position = vec![0; order.len()];
    for (new, &old) in order.iter().enumerate() {
        position[old] = new;
    }
    position
}

/// The sign of the permutation `order`: (−1)^(n − number of cycles).
fn parity(order: &[usize]) -> f64 {
    let mut seen = vec![false; order.len()];
    let mut transpositions = 0;
    for start in 0..order.len() {
        let mut i = start;
        let mut length = 0_usize;
        while !seen[i] {
            seen[i] = true;
            i = order[i];
            length += 1;
        }
        transpositions += length.saturating_sub(1);
    }
    if transpositions % 2 == 0 { 1.0 } else { -1.0 }
}

/// A lower bound on ‖A⁻¹‖₁ from the factors of A, usually within a factor 3 (Hager's method
/// with Higham's safeguards, LAPACK `dlacon`): x = (1/n, …, 1/n); then up to five times
/// y = A⁻¹x, ξ = sign(y), z = A⁻ᵀξ and x = e_j at the largest |z_j|, until the estimate ‖y‖₁
/// stops growing, ξ repeats, or max|z| ≤ zᵀx (a local maximum of ‖A⁻¹x‖₁ on the unit ball);
/// finally the alternating vector x_i = (−1)^i (1 + i/(n − 1)) catches what the iteration misses.
fn inverse_norm1_estimate(lu: &BandedLu) -> f64 {
    let n = lu.dim();
    if n == 0 {
        return 0.0;
    }
    let norm1 = |y: &[f64]| y.iter().map(|x| x.abs()).sum::<f64>();
    let sign = |x: f64| if x >= 0.0 { 1.0 } else { -1.0 };
    let mut x = vec![1.0 / n as f64; n];
    let (mut estimate, mut xi_before) = (0.0_f64, Vec::new());
    for iteration in 0..5 {
        let mut y = x.clone();
        lu.solve_in_place(&mut y);
        let grown = norm1(&y);
        if iteration > 0 && grown <= estimate {
            break;
        }
        estimate = grown;
        let xi: Vec<f64> = y.iter().map(|&v| sign(v)).collect();
        if xi == xi_before {
            break;
        }
        let mut z = xi.clone();
        lu.solve_transpose_in_place(&mut z);
        let (j, largest) = z
            .iter()
            .enumerate()
            .map(|(j, v)| (j, v.abs()))
            .fold((0, -1.0), |best, c| if c.1 > best.1 { c } else { best });
        let along: f64 = z.iter().zip(&x).map(|(a, b)| a * b).sum();
        if iteration > 0 && largest <= along {
            break;
        }
        x.fill(0.0);
        x[j] = 1.0;
        xi_before = xi;
    }
    let step = if n > 1 { 1.0 / (n - 1) as f64 } else { 0.0 };
    let mut alternating: Vec<f64> = (0..n)
        .map(|i| {
            let size = 1.0 + i as f64 * step;
            if i % 2 == 0 { size } else { -size }
        })
        .collect();
    lu.solve_in_place(&mut alternating);
    estimate.max(2.0 * norm1(&alternating) / (3.0 * n as f64))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::DMatrix;

    /// A square pattern with a band only after separate row and column orders: the rows of a
    /// path-like matrix, shuffled, and a zero-free diagonal nowhere.
    fn shuffled(n: usize) -> (Vec<(usize, usize)>, Vec<f64>) {
        let rows: Vec<usize> = (0..n).map(|i| (i * 7 + 3) % n).collect();
        let cols: Vec<usize> = (0..n).map(|j| (j * 5 + 1) % n).collect();
        let mut entries = Vec::new();
        for i in 0..n {
            entries.push(((rows[i], cols[i]), 2.0 + 0.1 * i as f64));
            if i + 1 < n {
                entries.push(((rows[i], cols[i + 1]), -1.0 + 0.03 * i as f64));
                entries.push(((rows[i + 1], cols[i]), 0.5));
            }
        }
        entries.sort_by_key(|e| e.0);
        entries.into_iter().unzip()
    }

    fn dense(n: usize, pattern: &[(usize, usize)], values: &[f64]) -> DMatrix<f64> {
        let mut a = DMatrix::zeros(n, n);
        for (&(i, j), &x) in pattern.iter().zip(values) {
            a[(i, j)] = x;
        }
        a
    }

    #[test]
    fn solve_determinant_and_condition_match_the_dense_matrix() {
        let n = 12; // coprime with 5 and 7: the shuffles are permutations
        let (pattern, values) = shuffled(n);
        let mut band = SquareBand::new(n, &pattern);
        assert!(
            band.bandwidths().0 + band.bandwidths().1 <= 4,
            "{:?}",
            band.bandwidths()
        );
        band.factor(&values).expect("regular");
        let a = dense(n, &pattern, &values);
        let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        let mut x = b.clone();
        band.solve(&mut x);
        let back = &a * nalgebra::DVector::from_vec(x);
        for i in 0..n {
            // cond ~10: the residual is round-off.
            assert!((back[i] - b[i]).abs() <= 1e-13, "row {i}");
        }
        let det = a.clone().determinant();
        assert!(
            (band.determinant() - det).abs() <= 1e-12 * det.abs(),
            "det {det}"
        );
        let inverse = a.clone().try_inverse().expect("regular");
        let norm1 = |m: &DMatrix<f64>| {
            (0..n)
                .map(|j| m.column(j).iter().map(|x| x.abs()).sum::<f64>())
                .fold(0.0, f64::max)
        };
        let kappa1 = norm1(&a) * norm1(&inverse);
        let estimate = band.condition_estimate();
        // A lower bound by construction (up to round-off), and Hager's usual factor 3.
        assert!(
            estimate <= kappa1 * (1.0 + 1e-12),
            "{estimate} > κ₁ {kappa1}"
        );
        assert!(estimate >= kappa1 / 3.0, "{estimate} ≪ κ₁ {kappa1}");
    }

    #[test]
    fn a_singular_matrix_names_a_column_and_parity_counts_transpositions() {
        let pattern = vec![(0, 0), (0, 1), (1, 0), (1, 1)];
        let mut band = SquareBand::new(2, &pattern);
        assert!(band.factor(&[1.0, 2.0, 2.0, 4.0]).is_err());
        assert_eq!(parity(&[1, 0, 2]), -1.0);
        assert_eq!(parity(&[1, 2, 0]), 1.0);
    }
}
