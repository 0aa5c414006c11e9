//! Dense LU with partial pivoting on preallocated storage, and the rank diagnosis of G.
//!
//! nalgebra's `LU::new` consumes its matrix, which would force an allocation per factorization.
//! [`DenseLu`] factors in place into storage allocated once, so the integrators' hot path
//! allocates nothing. Pivots below `n ε max|a_ij|` mark the matrix as singular; the cold path
//! [`diagnose_singular`] then says which block (G or M on ker G) and which constraint rows are
//! to blame. [`FullPivLu`] (complete pivoting) picks the dependent columns of a coordinate
//! partition and estimates the conditioning of the chosen block.

use nalgebra::DMatrix;

/// An in-place LU factorization P A = L U with partial (row) pivoting.
#[derive(Clone, Debug)]
pub struct DenseLu {
    a: DMatrix<f64>,
    piv: Vec<usize>,
}

impl DenseLu {
    /// Storage for an `n × n` factorization.
    pub fn new(n: usize) -> Self {
        Self {
            a: DMatrix::zeros(n, n),
            piv: vec![0; n],
        }
    }

    /// Order of the matrix.
    pub fn dim(&self) -> usize {
        self.piv.len()
    }

    /// The matrix to be factored: fill it, then call [`DenseLu::factor`].
    pub fn matrix_mut(&mut self) -> &mut DMatrix<f64> {
        &mut self.a
    }

    /// Factor the matrix in place. On a pivot below `n ε max|a_ij|` returns `Err(column)` with
    /// the first column whose pivot is negligible; the factors are then unusable.
    pub fn factor(&mut self) -> Result<(), usize> {
        let n = self.dim();
        let scale = largest_magnitude(self.a.as_slice());
        let tiny = (n.max(1) as f64) * f64::EPSILON * scale;
        if n > 0 && (scale.is_nan() || scale == 0.0) {
            return Err(0);
        }
        // Column-major storage walked by column slices: no bounds check per entry, the same
        // operations in the same order as `a(r, j) -= a(r, c) · a(c, j)` entry by entry.
        let a = self.a.as_mut_slice();
        for c in 0..n {
            let (p, best) = largest_from(&a[c * n..(c + 1) * n], c);
            self.piv[c] = p;
            if best.is_nan() || best <= tiny {
                return Err(c);
            }
            if p != c {
                for column in a.chunks_exact_mut(n) {
                    column.swap(p, c);
                }
            }
            let (done, rest) = a.split_at_mut((c + 1) * n);
            let pivot_column = &mut done[c * n + c..];
            let d = 1.0 / pivot_column[0];
            for x in &mut pivot_column[1..] {
                *x *= d;
            }
            let multipliers = &pivot_column[1..];
            for column in rest.chunks_exact_mut(n) {
                let (upper, lower) = column.split_at_mut(c + 1);
                let u = upper[c];
                if u != 0.0 {
                    for (x, &l) in lower.iter_mut().zip(multipliers) {
                        *x -= l * u;
                    }
                }
            }
        }
        Ok(())
    }

    /// max|u_jj| / min|u_jj| of the last successful [`DenseLu::factor`]: the KKT solve's
    /// O(n) conditioning indicator (see [`crate::kkt::Conditioning`]).
    pub fn pivot_spread(&self) -> f64 {
        // The diagonal of the column-major storage: every (n + 1)-th entry.
        let (n, a) = (self.dim(), self.a.as_slice());
        spread((0..n).map(|j| a[j * (n + 1)]))
    }

    /// Solve A x = b in place (`b` becomes `x`) with the factors of the last successful
    /// [`DenseLu::factor`].
    pub fn solve_in_place(&self, b: &mut [f64]) {
        let n = self.dim();
        assert_eq!(
            b.len(),
            n,
            "DenseLu::solve_in_place: right side has the wrong length"
        );
        for c in 0..n {
            b.swap(c, self.piv[c]);
        }
        // Column slices of the factors (column-major storage); the same operations in the same
        // order as entry by entry.
        let a = self.a.as_slice();
        let column = |c: usize| &a[c * n..(c + 1) * n];
        for c in 0..n {
            let column = column(c);
            let (head, tail) = b.split_at_mut(c + 1);
            let x = head[c];
            if x != 0.0 {
                for (y, &l) in tail.iter_mut().zip(&column[c + 1..]) {
                    *y -= l * x;
                }
            }
        }
        for c in (0..n).rev() {
            let column = column(c);
            let (head, tail) = b.split_at_mut(c);
            tail[0] /= column[c];
            let x = tail[0];
            for (y, &u) in head.iter_mut().zip(&column[..c]) {
                *y -= u * x;
            }
        }
    }
}

/// The row (from `from` on) of the largest magnitude in `column` and that magnitude: the first
/// of equal ones, and `column[from]` unless a later entry is strictly larger (so a NaN pivot
/// candidate stays, to be caught by the caller).
fn largest_from(column: &[f64], from: usize) -> (usize, f64) {
    let mut p = from;
    let mut best = column[from].abs();
    for (r, x) in column.iter().enumerate().skip(from + 1) {
        let x = x.abs();
        if x > best {
            best = x;
            p = r;
        }
    }
    (p, best)
}

/// max(0, max|x_i|) over the non-NaN entries of `xs`: exactly `xs.iter().fold(0.0, |s, x|
/// s.max(x.abs()))` (the maximum is exact and `f64::max` skips NaN, so the order does not
/// matter), in four independent lanes of a plain comparison that compile to packed maxima.
pub(crate) fn largest_magnitude(xs: &[f64]) -> f64 {
    let mut lanes = [0.0_f64; 4];
    let chunks = xs.chunks_exact(4);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (s, x) in lanes.iter_mut().zip(chunk) {
            let x = x.abs();
            *s = if x > *s { x } else { *s };
        }
    }
    let mut s = rest.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    for lane in lanes {
        s = s.max(lane);
    }
    s
}

/// max|x| / min|x| over the pivots `diagonal` (1 for an empty matrix).
///
/// Plain comparisons, which skip a NaN pivot as `f64::min`/`f64::max` do (the bounds start
/// finite, and a comparison with NaN is false), without their NaN bookkeeping per entry: the
/// spread is taken after every KKT factorization, where for a small model it cost as much as a
/// tenth of the factorization.
pub(crate) fn spread(diagonal: impl Iterator<Item = f64>) -> f64 {
    let (mut lo, mut hi) = (f64::INFINITY, 0.0_f64);
    for u in diagonal {
        let u = u.abs();
        if u < lo {
            lo = u;
        }
        if u > hi {
            hi = u;
        }
    }
    if hi == 0.0 { 1.0 } else { hi / lo }
}

/// An in-place LU factorization P A Q = L U with complete (row and column) pivoting of an
/// `r × c` matrix (`r ≤ c`, a constraint Jacobian or a square block of one), on storage
/// allocated once.
///
/// Pivot k is the entry of largest magnitude in the remaining `(r − k) × (c − k)` block, so the
/// pivot magnitudes |u_kk| do not increase. The first [`FullPivLu::rank`] pivot columns are
/// the columns a coordinate partitioning makes dependent (\[HAUG\] §7.2, Gaussian elimination
/// with pivoting on Φ_q); the others are independent. A pivot counts as zero when it is at
/// most `max(r, c) ε |u_11|` (the usual numerical-rank threshold: a pivot at the round-off of
/// the largest entry carries no information).
///
/// The cheap conditioning estimate [`FullPivLu::pivot_ratio`] = |u_rr| / |u_11| is the
/// smallest over the largest pivot. For a square A it bounds the condition number from below,
/// 1/ratio ≤ κ₂(A): |u_11| = max|a_ij| ≤ ‖A‖₂, and 1/u_rr is an entry of A⁻¹ (the (r, r)
/// entry of U⁻¹L⁻¹), so 1/|u_rr| ≤ ‖A⁻¹‖₂. Complete pivoting keeps the bound close in practice
/// (small growth), so a ratio that falls by a decade marks a condition number grown by about
/// a decade.
#[derive(Clone, Debug)]
pub struct FullPivLu {
    a: DMatrix<f64>,
    /// `rows[k]`: the original row of pivot row k.
    rows: Vec<usize>,
    /// `cols[k]`: the original column of pivot column k.
    cols: Vec<usize>,
    rank: usize,
    /// Scratch for [`FullPivLu::solve_in_place`].
    y: Vec<f64>,
}

impl FullPivLu {
    /// Storage for an `r × c` factorization (`r ≤ c`).
    pub fn new(r: usize, c: usize) -> Self {
        assert!(r <= c, "FullPivLu: more rows ({r}) than columns ({c})");
        Self {
            a: DMatrix::zeros(r, c),
            rows: (0..r).collect(),
            cols: (0..c).collect(),
            rank: 0,
            y: vec![0.0; r],
        }
    }

    /// The matrix to be factored: fill it, then call [`FullPivLu::factor`].
    pub fn matrix_mut(&mut self) -> &mut DMatrix<f64> {
        &mut self.a
    }

    /// Factor in place; returns the numerical rank (see the type docs). NaN entries give rank 0.
    pub fn factor(&mut self) -> usize {
        self.factor_with_floor(0.0)
    }

    /// [`FullPivLu::factor`] with pivots at most `max(r, c) ε max(|u_11|, floor)` counted as
    /// zero: `floor` is the scale the entries have where the matrix does not vanish, so that a
    /// matrix that is zero up to round-off (|u_11| itself at round-off) has rank 0.
    pub fn factor_with_floor(&mut self, floor: f64) -> usize {
        self.factor_pivoting(floor, false)
    }

    /// [`FullPivLu::factor_with_floor`] for a sparse matrix, the same factors bit for bit: the
    /// search for the largest remaining entry reads cached column maxima (a column's is
    /// recomputed only when the pivot row has a nonzero in it, i.e. when elimination changed
    /// the column or the removed pivot row may have held its maximum) instead of scanning the
    /// whole remaining block, and the pivot is the first column with the largest maximum and
    /// the first row attaining it there: the dense scan's column-major first maximum. For the
    /// r × n Φ_q of a body-coordinate chain the scans were O(r³); the eliminations, the same
    /// operations in the same order, are the rest. Allocates the column maxima (a cold path:
    /// GCP's choice of partition).
    pub fn factor_with_floor_sparse(&mut self, floor: f64) -> usize {
        self.factor_pivoting(floor, true)
    }

    /// The complete-pivoting elimination of both forms: the pivot from a scan of the remaining
    /// block, or (`cached`) from the column maxima, which the elimination keeps current.
    fn factor_pivoting(&mut self, floor: f64, cached: bool) -> usize {
        let (r, c) = self.a.shape();
        for (k, x) in self.rows.iter_mut().enumerate() {
            *x = k;
        }
        for (k, x) in self.cols.iter_mut().enumerate() {
            *x = k;
        }
        self.rank = 0;
        let mut column_max: Vec<f64> = match cached {
            true => (0..c).map(|j| self.column_max(j, 0)).collect(),
            false => Vec::new(),
        };
        let mut tiny = f64::NAN;
        for k in 0..r {
            let (pr, pc, best) = match cached {
                true => self.largest_cached(k, &column_max),
                false => self.largest_remaining(k),
            };
            if k == 0 {
                tiny = (r.max(c) as f64) * f64::EPSILON * best.max(floor);
            }
            if best.is_nan() || best <= tiny || best == 0.0 {
                return self.rank;
            }
            self.a.swap_rows(k, pr);
            self.rows.swap(k, pr);
            self.a.swap_columns(k, pc);
            self.cols.swap(k, pc);
            self.eliminate(k);
            self.rank = k + 1;
            if cached {
                column_max.swap(k, pc);
                for (j, m) in column_max.iter_mut().enumerate().skip(k + 1) {
                    if self.a[(k, j)] != 0.0 {
                        *m = self.column_max(j, k + 1);
                    }
                }
            }
        }
        self.rank
    }

    /// max |a_ij| over rows `from..` of column j (NaN if one is NaN).
    fn column_max(&self, j: usize, from: usize) -> f64 {
        let mut best = 0.0_f64;
        for x in self.a.column(j).iter().skip(from) {
            if x.is_nan() {
                return f64::NAN;
            }
            best = best.max(x.abs());
        }
        best
    }

    /// [`FullPivLu::largest_remaining`] from the column maxima of rows k.. (a NaN anywhere
    /// gives NaN, as the scan's first NaN does).
    fn largest_cached(&self, k: usize, column_max: &[f64]) -> (usize, usize, f64) {
        let (mut pc, mut best) = (k, -1.0_f64);
        for (j, &m) in column_max.iter().enumerate().skip(k) {
            if m.is_nan() {
                return (k, j, f64::NAN);
            }
            if m > best {
                (pc, best) = (j, m);
            }
        }
        let column = self.a.column(pc);
        let pr = (k..self.a.nrows())
            .find(|&i| column[i].abs() == best)
            .unwrap_or(k);
        (pr, pc, best)
    }

    /// Position and magnitude of the largest entry of the block from (k, k) on.
    fn largest_remaining(&self, k: usize) -> (usize, usize, f64) {
        let (r, c) = self.a.shape();
        let (mut pr, mut pc, mut best) = (k, k, -1.0_f64);
        for j in k..c {
            for i in k..r {
                let x = self.a[(i, j)].abs();
                if x.is_nan() {
                    return (i, j, f64::NAN);
                }
                if x > best {
                    (pr, pc, best) = (i, j, x);
                }
            }
        }
        (pr, pc, best)
    }

    /// Eliminate below pivot (k, k): multipliers into column k, Schur complement updated.
    fn eliminate(&mut self, k: usize) {
        let (r, c) = self.a.shape();
        let d = 1.0 / self.a[(k, k)];
        for i in k + 1..r {
            self.a[(i, k)] *= d;
        }
        for j in k + 1..c {
            let u = self.a[(k, j)];
            if u != 0.0 {
                for i in k + 1..r {
                    let l = self.a[(i, k)];
                    self.a[(i, j)] -= l * u;
                }
            }
        }
    }

    /// The numerical rank found by the last [`FullPivLu::factor`].
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// `pivot_columns()[k]`: the original column of pivot k. The first [`FullPivLu::rank`]
    /// are the dependent columns of a partition, in pivot order; the rest are independent.
    pub fn pivot_columns(&self) -> &[usize] {
        &self.cols
    }

    /// `pivot_rows()[k]`: the original row of pivot k; rows from [`FullPivLu::rank`] on are
    /// (numerically) combinations of the pivot rows.
    pub fn pivot_rows(&self) -> &[usize] {
        &self.rows
    }

    /// |u_kk|, the magnitude of pivot k (k < rank).
    pub fn pivot(&self, k: usize) -> f64 {
        self.a[(k, k)].abs()
    }

    /// The largest magnitude left in row k (k ≥ rank) of the unfinished elimination: how far
    /// that original row is from the span of the pivot rows, in the matrix's units.
    pub fn remainder(&self, k: usize) -> f64 {
        let c = self.a.ncols();
        (self.rank..c).fold(0.0_f64, |s, j| s.max(self.a[(k, j)].abs()))
    }

    /// |u_rr| / |u_11| over the `r` rows (0 when rank-deficient, 1 for `r = 0`): the
    /// conditioning estimate of the type docs.
    pub fn pivot_ratio(&self) -> f64 {
        let r = self.a.nrows();
        if r == 0 {
            return 1.0;
        }
        if self.rank < r {
            return 0.0;
        }
        self.pivot(r - 1) / self.pivot(0)
    }

    /// |u_rr|, the smallest pivot over the `r` rows (0 when rank-deficient, ∞ for `r = 0`).
    pub fn smallest_pivot(&self) -> f64 {
        let r = self.a.nrows();
        match (r, self.rank < r) {
            (0, _) => f64::INFINITY,
            (_, true) => 0.0,
            (_, false) => self.pivot(r - 1),
        }
    }

    /// Solve A x = b in place for a square A of full rank (`b` becomes `x`).
    pub fn solve_in_place(&mut self, b: &mut [f64]) {
        let n = self.a.nrows();
        assert!(
            b.len() == n && self.a.ncols() == n && self.rank == n,
            "FullPivLu::solve_in_place: needs a square factorization of full rank"
        );
        for k in 0..n {
            self.y[k] = b[self.rows[k]];
        }
        for k in 0..n {
            let x = self.y[k];
            for i in k + 1..n {
                self.y[i] -= self.a[(i, k)] * x;
            }
        }
        for k in (0..n).rev() {
            self.y[k] /= self.a[(k, k)];
            let x = self.y[k];
            for i in 0..k {
                self.y[i] -= self.a[(i, k)] * x;
            }
        }
        for k in 0..n {
            b[self.cols[k]] = self.y[k];
        }
    }
}

/// Rows of `g` whose distance to the span of the earlier independent rows is at most `tol`
/// (modified Gram–Schmidt in row order, each row orthogonalized twice against the accepted
/// basis), and the smallest distance among the independent rows (`∞` if there are none).
/// Cold path: it allocates.
pub fn dependent_rows(g: &DMatrix<f64>, tol: f64) -> (Vec<usize>, Option<(usize, f64)>) {
    let mut basis: Vec<nalgebra::RowDVector<f64>> = Vec::new();
    let mut dependent = Vec::new();
    let mut weakest: Option<(usize, f64)> = None;
    for (i, row) in g.row_iter().enumerate() {
        let mut w = row.into_owned();
        for _ in 0..2 {
            for b in &basis {
                let c = w.dot(b);
                w -= b * c;
            }
        }
        let norm = w.norm();
        if norm.is_nan() || norm <= tol {
            dependent.push(i);
        } else {
            if weakest.is_none_or(|(_, d)| norm < d) {
                weakest = Some((i, norm));
            }
            basis.push(w / norm);
        }
    }
    (dependent, weakest)
}

/// Which block of the singular augmented matrix [W Gᵀ; G 0] is to blame (`w = None` means
/// W = I), and for the Jacobian the rows to blame. Cold path (it allocates): called only after
/// [`DenseLu::factor`] failed.
///
/// With N = n + r the order of the augmented matrix, K = max(max|W|, max|G|) its largest entry
/// and ω = max|W|, the LU fails when a pivot falls below N ε K. A row of G at distance ρ from
/// the span of the others produces a Schur-complement pivot of about ρ²/ω, so
///
/// 1. rows with ρ ≤ τ_G = √(N ε K ω) (distance to the earlier independent rows, see
///    [`dependent_rows`]) are dependent → [`SingularBlock::Jacobian`](crate::SingularBlock::Jacobian);
/// 2. otherwise, with Z an orthonormal basis of ker G, W is tested on it: if the smallest
///    eigenvalue of Zᵀ W Z is ≤ τ_W = N ε K → [`SingularBlock::MassOnKernel`](crate::SingularBlock::MassOnKernel),
///    naming the coordinates its eigenvector Z y moves (the motion without inertia; names from
///    `coordinate_names`);
/// 3. if neither threshold is crossed (the LU failed in between), the block with the smaller
///    margin ρ_min/τ_G vs λ_min/τ_W is named; for the Jacobian, the row with the smallest ρ.
pub fn diagnose_singular(
    g: &DMatrix<f64>,
    w: Option<&DMatrix<f64>>,
    coordinate_names: &[&str],
) -> (crate::error::SingularBlock, Vec<usize>) {
    use crate::error::SingularBlock;
    let (r, n) = g.shape();
    let amax = |m: &DMatrix<f64>| m.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
    let omega = w.map_or(1.0, amax);
    let big = omega.max(amax(g));
    let eps_n = (n + r) as f64 * f64::EPSILON;
    let tau_g = (eps_n * big * omega).sqrt();
    let (dependent, weakest) = dependent_rows(g, tau_g);
    if !dependent.is_empty() {
        return (SingularBlock::Jacobian, dependent);
    }
    // Orthonormal basis of the row space (columns of `q`), completed to ℝⁿ by the unit vectors
    // e_j, in order, whose component outside the basis so far exceeds 1/(2√n); the completion
    // spans ker G. It always completes: the squared outside components of all e_j sum to
    // n − (basis size) ≥ 1, which skipped vectors (≤ 1/(4n) each) cannot reach.
    let q = if r == 0 {
        DMatrix::zeros(n, 0)
    } else {
        g.transpose().qr().q() // n × min(n, r), orthonormal columns
    };
    let mut basis: Vec<nalgebra::DVector<f64>> = q.column_iter().map(|c| c.into_owned()).collect();
    let mut kernel: Vec<nalgebra::DVector<f64>> = Vec::new();
    for j in 0..n {
        if basis.len() == n {
            break;
        }
        let mut e = nalgebra::DVector::zeros(n);
        e[j] = 1.0;
        for _ in 0..2 {
            for b in &basis {
                let c = e.dot(b);
                e -= b * c;
            }
        }
        let norm = e.norm();
        if norm > 0.5 / (n as f64).sqrt() {
            let e = e / norm;
            basis.push(e.clone());
            kernel.push(e);
        }
    }
    let (lambda_min, direction) = smallest_on_kernel(&kernel, w);
    let massless = || SingularBlock::MassOnKernel {
        coordinates: crate::naming::moving_coordinates(direction.as_slice(), coordinate_names),
    };
    let tau_w = eps_n * big;
    if lambda_min.is_nan() || lambda_min <= tau_w {
        return (massless(), Vec::new());
    }
    match weakest {
        Some((row, rho)) if tau_g > 0.0 && rho / tau_g <= lambda_min / tau_w => {
            (SingularBlock::Jacobian, vec![row])
        }
        _ => (massless(), Vec::new()),
    }
}

/// The smallest eigenvalue of Zᵀ W Z (W = I for `None`) over the orthonormal `kernel` basis Z,
/// and its eigenvector mapped back to coordinates, Z y (∞ and an empty vector for an empty
/// kernel; NaN where W holds one).
fn smallest_on_kernel(
    kernel: &[nalgebra::DVector<f64>],
    w: Option<&DMatrix<f64>>,
) -> (f64, nalgebra::DVector<f64>) {
    if kernel.is_empty() {
        return (f64::INFINITY, nalgebra::DVector::zeros(0));
    }
    let z = DMatrix::from_columns(kernel);
    let s = match w {
        Some(w) => z.transpose() * w * &z,
        None => z.transpose() * &z,
    };
    let s = (&s + s.transpose()) * 0.5;
    if s.iter().any(|x| !x.is_finite()) {
        return (f64::NAN, nalgebra::DVector::zeros(0));
    }
    let eigen = s.symmetric_eigen();
    let smallest = eigen.eigenvalues.argmin().0;
    let direction = &z * eigen.eigenvectors.column(smallest);
    (eigen.eigenvalues[smallest], direction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sparse_complete_pivoting_gives_the_dense_factors_bit_for_bit() {
        // A chain-like sparse pattern with many equal magnitudes (ties decide pivots by scan
        // order), once of full rank and once with a repeated row (rank-deficient).
        let (r, c) = (30, 33);
        let mut a = DMatrix::zeros(r, c);
        for i in 0..r {
            for (d, x) in [
                (0, 1.0),
                (1, -1.0),
                (2, 0.5),
                (3, ((i * 7) % 5) as f64 - 2.0),
            ] {
                a[(i, (i + d) % c)] = x;
            }
        }
        let mut deficient = a.clone();
        let row = deficient.row(4).into_owned();
        deficient.set_row(9, &row);
        for (matrix, rank) in [(a, r), (deficient, r - 1)] {
            let (mut dense, mut sparse) = (FullPivLu::new(r, c), FullPivLu::new(r, c));
            dense.matrix_mut().copy_from(&matrix);
            sparse.matrix_mut().copy_from(&matrix);
            assert_eq!(dense.factor_with_floor(1.0), rank);
            assert_eq!(sparse.factor_with_floor_sparse(1.0), rank);
            assert_eq!(dense.pivot_rows(), sparse.pivot_rows());
            assert_eq!(dense.pivot_columns(), sparse.pivot_columns());
            let bits = |lu: &mut FullPivLu| -> Vec<u64> {
                lu.matrix_mut().iter().map(|x| x.to_bits()).collect()
            };
            assert_eq!(bits(&mut dense), bits(&mut sparse));
        }
    }

    #[test]
    fn solves_a_system_needing_pivoting() {
        // A has a zero (1,1) entry, so it cannot be factored without pivoting.
        let a = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0]);
        let x_true = [1.0, -2.0, 0.5];
        let mut b: Vec<f64> = (a.clone() * nalgebra::DVector::from_column_slice(&x_true))
            .as_slice()
            .to_vec();
        let mut lu = DenseLu::new(3);
        lu.matrix_mut().copy_from(&a);
        lu.factor().unwrap();
        lu.solve_in_place(&mut b);
        // Entries of A and x are O(1): a backward-stable solve is accurate to a few ε.
        for i in 0..3 {
            assert!(
                (b[i] - x_true[i]).abs() <= 8.0 * f64::EPSILON,
                "x[{i}] = {} vs {}",
                b[i],
                x_true[i]
            );
        }
    }

    #[test]
    fn full_pivoting_picks_the_largest_entries_and_solves() {
        // Φ_q of Haug's pendulum with l = 2 at φ = 0.3: [[1, 0, 2 sin φ], [0, 1, −2 cos φ]].
        // The largest entry is −2 cos φ (row 1, column 2), then row 0 over columns 0, 1.
        let (s, c) = (0.3_f64.sin(), 0.3_f64.cos());
        let g = DMatrix::from_row_slice(2, 3, &[1.0, 0.0, 2.0 * s, 0.0, 1.0, -2.0 * c]);
        let mut lu = FullPivLu::new(2, 3);
        lu.matrix_mut().copy_from(&g);
        assert_eq!(lu.factor(), 2);
        assert_eq!(&lu.pivot_columns()[..2], &[2, 0]);
        assert_eq!(lu.pivot_rows(), &[1, 0]);
        // Pivots 2 cos φ and det/(2 cos φ) = 1 (the Schur complement 1 − 0·… of column 0).
        assert!((lu.pivot(0) - 2.0 * c).abs() <= 4.0 * f64::EPSILON);
        assert!((lu.pivot_ratio() - 1.0 / (2.0 * c)).abs() <= 4.0 * f64::EPSILON);
        // Square solve on a matrix needing both pivotings, A x = b with a known x.
        let a = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 5.0]);
        let x_true = [1.0, -2.0, 0.5];
        let mut b = (a.clone() * nalgebra::DVector::from_column_slice(&x_true))
            .as_slice()
            .to_vec();
        let mut lu = FullPivLu::new(3, 3);
        lu.matrix_mut().copy_from(&a);
        assert_eq!(lu.factor(), 3);
        lu.solve_in_place(&mut b);
        // O(1) entries: a backward-stable solve is accurate to a few ε.
        for i in 0..3 {
            assert!(
                (b[i] - x_true[i]).abs() <= 8.0 * f64::EPSILON,
                "x[{i}] = {}",
                b[i]
            );
        }
    }

    #[test]
    fn full_pivoting_reports_rank_and_dependent_rows() {
        // Row 2 = row 0 + row 1: rank 2, the unpivoted row is a combination with remainder 0.
        let g = DMatrix::from_row_slice(
            3,
            4,
            &[1.0, 2.0, 0.0, 1.0, 0.0, 1.0, 3.0, 0.0, 1.0, 3.0, 3.0, 1.0],
        );
        let mut lu = FullPivLu::new(3, 4);
        lu.matrix_mut().copy_from(&g);
        assert_eq!(lu.factor(), 2);
        assert_eq!(lu.pivot_ratio(), 0.0);
        assert!(lu.remainder(2) <= 16.0 * f64::EPSILON);
        // A NaN entry: rank 0, never a panic.
        let mut lu = FullPivLu::new(1, 2);
        lu.matrix_mut()
            .copy_from(&DMatrix::from_row_slice(1, 2, &[1.0, f64::NAN]));
        assert_eq!(lu.factor(), 0);
    }

    #[test]
    fn flags_singular_and_dependent_rows() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        let mut lu = DenseLu::new(2);
        lu.matrix_mut().copy_from(&a);
        assert_eq!(lu.factor(), Err(1));
        let g = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        assert_eq!(dependent_rows(&g, 0.0).0, vec![1, 2]);
        // A Jacobian that vanishes up to round-off: dependent against a tolerance, not at 0.
        let tiny = DMatrix::from_row_slice(1, 2, &[0.0, 1.2e-16]);
        assert_eq!(dependent_rows(&tiny, 0.0), (vec![], Some((0, 1.2e-16))));
        assert_eq!(dependent_rows(&tiny, 1e-8).0, vec![0]);
    }
}
