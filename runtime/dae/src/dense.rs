//! Small dense solves in place (Gaussian elimination with partial pivoting): the ny × ny
//! systems GB, GGᵀ, H₂H₂ᵀ and the Newton matrix of the implicit step. No allocation.

use nalgebra::DMatrix;

/// Solve `a x = b` in place for every column of `b` (x overwrites b; a is destroyed).
/// Returns the smallest pivot magnitude relative to the largest entry of `a` when it is
/// ≤ `singular`, as `Err(pivot)`.
pub(crate) fn solve_in_place(
    a: &mut DMatrix<f64>,
    b: &mut DMatrix<f64>,
    singular: f64,
) -> Result<(), f64> {
    let n = a.nrows();
    assert!(
        a.ncols() == n && b.nrows() == n,
        "solve_in_place: square a and matching b"
    );
    let scale = a.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    if n > 0 && !(scale > 0.0 && scale.is_finite()) {
        return Err(scale);
    }
    for col in 0..n {
        let (piv, piv_abs) = (col..n)
            .map(|r| (r, a[(r, col)].abs()))
            .fold((col, -1.0), |best, c| if c.1 > best.1 { c } else { best });
        if piv_abs <= singular * scale {
            return Err(piv_abs / scale);
        }
        if piv != col {
            a.swap_rows(piv, col);
            b.swap_rows(piv, col);
        }
        let d = a[(col, col)];
        for r in col + 1..n {
            let f = a[(r, col)] / d;
            if f == 0.0 {
                continue;
            }
            for c in col..n {
                a[(r, c)] -= f * a[(col, c)];
            }
            for c in 0..b.ncols() {
                b[(r, c)] -= f * b[(col, c)];
            }
        }
    }
    for c in 0..b.ncols() {
        for r in (0..n).rev() {
            let mut s = b[(r, c)];
            for k in r + 1..n {
                s -= a[(r, k)] * b[(k, c)];
            }
            b[(r, c)] = s / a[(r, r)];
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solves_a_pivoting_system() {
        let mut a = DMatrix::from_row_slice(3, 3, &[0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0, 0.0, 1.0]);
        let x = [1.0, -2.0, 0.5];
        let ax = &a * nalgebra::DVector::from_column_slice(&x);
        let mut b = DMatrix::from_column_slice(3, 1, ax.as_slice());
        solve_in_place(&mut a, &mut b, 1e-14).expect("nonsingular");
        for i in 0..3 {
            mbsim_testkit::assert_entry("x", i, b[(i, 0)], x[i], 1e-15);
        }
    }

    #[test]
    fn reports_a_singular_matrix() {
        let mut a = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 4.0]);
        let mut b = DMatrix::zeros(2, 1);
        assert!(solve_in_place(&mut a, &mut b, 1e-14).is_err());
    }
}
