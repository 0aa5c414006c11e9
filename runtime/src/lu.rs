//! Dense LU with partial pivoting on preallocated storage, and the rank diagnosis of G.
//!
//! nalgebra's `LU::new` consumes its matrix, which would force an allocation per factorization.
//! [`DenseLu`] factors in place into storage allocated once, so the integrators' hot path
//! allocates nothing. Pivots below `n ε max|a_ij|` mark the matrix as singular; the cold path
//! [`dependent_rows`] then says which constraint rows are to blame.

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
        let scale = self.a.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let tiny = (n.max(1) as f64) * f64::EPSILON * scale;
        if n > 0 && (scale.is_nan() || scale == 0.0) {
            return Err(0);
        }
        for c in 0..n {
            let mut p = c;
            let mut best = self.a[(c, c)].abs();
            for r in c + 1..n {
                let x = self.a[(r, c)].abs();
                if x > best {
                    best = x;
                    p = r;
                }
            }
            self.piv[c] = p;
            if best.is_nan() || best <= tiny {
                return Err(c);
            }
            if p != c {
                self.a.swap_rows(p, c);
            }
            let d = 1.0 / self.a[(c, c)];
            for r in c + 1..n {
                self.a[(r, c)] *= d;
            }
            for j in c + 1..n {
                let u = self.a[(c, j)];
                if u != 0.0 {
                    for r in c + 1..n {
                        let l = self.a[(r, c)];
                        self.a[(r, j)] -= l * u;
                    }
                }
            }
        }
        Ok(())
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
        for c in 0..n {
            let x = b[c];
            if x != 0.0 {
                for r in c + 1..n {
                    b[r] -= self.a[(r, c)] * x;
                }
            }
        }
        for c in (0..n).rev() {
            b[c] /= self.a[(c, c)];
            let x = b[c];
            for r in 0..c {
                b[r] -= self.a[(r, c)] * x;
            }
        }
    }
}

/// Rows of `g` (in order) that are linearly dependent on the rows before them, by modified
/// Gram–Schmidt with the threshold `√ε · max(largest row norm, scale)`. `scale` supplies an
/// outside magnitude (the largest mass-matrix entry, say) so that a Jacobian that is zero up to
/// round-off as a whole is still diagnosed. Cold path: it allocates.
pub fn dependent_rows(g: &DMatrix<f64>, scale: f64) -> Vec<usize> {
    let threshold = f64::EPSILON.sqrt() * g.row_iter().map(|r| r.norm()).fold(scale, f64::max);
    let mut basis: Vec<nalgebra::RowDVector<f64>> = Vec::new();
    let mut dependent = Vec::new();
    for (i, row) in g.row_iter().enumerate() {
        let mut w = row.into_owned();
        for b in &basis {
            let c = w.dot(b);
            w -= b * c;
        }
        let norm = w.norm();
        if norm.is_nan() || norm <= threshold {
            dependent.push(i);
        } else {
            basis.push(w / norm);
        }
    }
    dependent
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn flags_singular_and_dependent_rows() {
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        let mut lu = DenseLu::new(2);
        lu.matrix_mut().copy_from(&a);
        assert_eq!(lu.factor(), Err(1));
        let g = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0]);
        assert_eq!(dependent_rows(&g, 0.0), vec![1, 2]);
        // A Jacobian that vanishes up to round-off relative to an outside scale.
        let tiny = DMatrix::from_row_slice(1, 2, &[0.0, 1.2e-16]);
        assert_eq!(dependent_rows(&tiny, 0.0), Vec::<usize>::new());
        assert_eq!(dependent_rows(&tiny, 2.0), vec![0]);
    }
}
