//! [`crate::redundancy::select_redundant`] on G's structural nonzeros: the same threshold-
//! pivoted Gram–Schmidt over the rows, the same choices, without a dense copy of G.
//!
//! Each remaining row is kept as its nonzeros (sorted by column). Taking a row b updates only
//! the open rows whose support meets b's (found through a column → open rows index, pruned of
//! taken rows as it is read), twice as the dense loop does (c = r·b, r ← r − c b). On a chain
//! in body coordinates the rows touched by a step are the few of the current frontier, so a
//! selection costs O(r·f·s) (f the frontier's rows, s the supports' length) instead of the
//! dense O(r²·n). Rows the steps never reach keep their original nonzeros.
//!
//! The arithmetic is the dense loop's up to the order of summation of dot products and norms
//! (the dense one sums in nalgebra's unrolled order, this one by ascending column), so the
//! remaining norms agree to round-off and the choices — the first open row, in the model's
//! order, whose norm is ≥ ½ the largest; a row redundant below `RANK_TOLERANCE · max‖g_i‖` —
//! are the same except for a norm within round-off of a threshold. The tests compare both on
//! every over-constrained model of the catalog and on the A02 chains.

use crate::analysis::RANK_TOLERANCE;
use crate::redundancy::Pick;

/// A sparse row: (column, value) sorted by column.
type Row = Vec<(usize, f64)>;

/// The redundant rows of the `rows × n` matrix with nonzeros `entries` (row, column; any
/// order) of values `values`, as [`crate::redundancy::select_redundant`] finds them.
pub(crate) fn select_redundant_sparse(
    rows: usize,
    n: usize,
    entries: &[(usize, usize)],
    values: &[f64],
) -> Pick {
    let mut rest: Vec<Row> = vec![Vec::new(); rows];
    for (&(i, j), &x) in entries.iter().zip(values) {
        rest[i].push((j, x));
    }
    let mut touch: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, row) in rest.iter_mut().enumerate() {
        row.sort_by_key(|e| e.0);
        for &(j, _) in row.iter() {
            touch[j].push(i);
        }
    }
    let mut norms: Vec<f64> = rest.iter().map(norm).collect();
    let unit = norms.iter().fold(0.0_f64, |s, &x| s.max(x));
    let unit = if unit > 0.0 && unit.is_finite() {
        unit
    } else {
        1.0
    };
    let tol = RANK_TOLERANCE * unit;
    let (mut open, mut is_open) = ((0..rows).collect::<Vec<_>>(), vec![true; rows]);
    let (mut independent, mut stamp) = (Vec::new(), vec![usize::MAX; rows]);
    let (mut weakest, mut weakest_distance) = (None, f64::INFINITY);
    loop {
        let largest = open.iter().map(|&i| norms[i]).fold(0.0_f64, f64::max);
        if open.is_empty() || largest <= tol {
            break;
        }
        let slot = open
            .iter()
            .position(|&i| norms[i] >= 0.5 * largest)
            .expect("the largest remaining row qualifies");
        let row = open.remove(slot);
        is_open[row] = false;
        let length = norms[row];
        let b: Row = rest[row].iter().map(|&(j, x)| (j, x / length)).collect();
        let mut touched = Vec::new();
        for &(j, _) in &b {
            touch[j].retain(|&i| is_open[i]);
            for &i in &touch[j] {
                if stamp[i] != row {
                    stamp[i] = row;
                    touched.push(i);
                }
            }
        }
        for i in touched {
            let before = rest[i].len();
            for _ in 0..2 {
                let c = dot(&rest[i], &b);
                if c != 0.0 {
                    rest[i] = subtract_scaled(&rest[i], c, &b);
                }
            }
            if rest[i].len() > before {
                register_fill(&mut touch, i, &rest[i], &b);
            }
            norms[i] = norm(&rest[i]);
        }
        independent.push(row);
        (weakest, weakest_distance) = (Some(row), length / unit);
    }
    Pick {
        redundant: open,
        independent,
        weakest,
        weakest_distance,
    }
}

/// Row `i` now holds (some of) b's columns it did not have: list it under them. A column it
/// had already lists it (a duplicate would only cost a skipped visit, but none arises: the
/// test is b's columns absent from the row before, i.e. present in b and listed nowhere yet).
fn register_fill(touch: &mut [Vec<usize>], i: usize, row: &Row, b: &Row) {
    for &(j, _) in b {
        if row.binary_search_by_key(&j, |e| e.0).is_ok() && !touch[j].contains(&i) {
            touch[j].push(i);
        }
    }
}

/// ‖r‖₂ (0 if not a number, as the dense selection treats NaN).
fn norm(r: &Row) -> f64 {
    let x = r.iter().map(|&(_, v)| v * v).sum::<f64>().sqrt();
    if x.is_nan() { 0.0 } else { x }
}

/// Σ a_j b_j over the common columns.
fn dot(a: &Row, b: &Row) -> f64 {
    let (mut i, mut k, mut sum) = (0, 0, 0.0);
    while i < a.len() && k < b.len() {
        match a[i].0.cmp(&b[k].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => k += 1,
            std::cmp::Ordering::Equal => {
                sum += a[i].1 * b[k].1;
                (i, k) = (i + 1, k + 1);
            }
        }
    }
    sum
}

/// a − c·b on the union of the supports (entry by entry a_j − b_j·c, as the dense update).
fn subtract_scaled(a: &Row, c: f64, b: &Row) -> Row {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut k) = (0, 0);
    while i < a.len() || k < b.len() {
        let column = |r: &Row, at: usize| r.get(at).map_or(usize::MAX, |e| e.0);
        let (ja, jb) = (column(a, i), column(b, k));
        if ja < jb {
            out.push(a[i]);
            i += 1;
        } else if jb < ja {
            out.push((jb, 0.0 - b[k].1 * c));
            k += 1;
        } else {
            out.push((ja, a[i].1 - b[k].1 * c));
            (i, k) = (i + 1, k + 1);
        }
    }
    out
}

/// [`crate::redundancy::minimum_norm_multipliers`] on G's nonzeros (`rows × n`, `entries`
/// (row, column) in any order with `values`), with no dense SVD of the model's order.
///
/// The minimum-norm μ with Gᵀμ = Gᵀλ is λ minus its projection onto null(Gᵀ) (the left null
/// space of G, of dimension d = the number of redundant rows). A basis of it comes from the
/// rank test's choice ([`select_redundant_sparse`]): for each redundant row i, its
/// combination c of the independent rows (least squares, the banded augmented system
/// [I G_keptᵀ; G_kept 0][x; c] = [g_iᵀ; 0] of [`AugmentedBand`], as `check` finds it) gives
/// the null vector e_i − c (Gᵀ(e_i − c) = x, the residual, at round-off on the constraint
/// manifold). The d vectors, independent by their unit entries, are orthonormalised (a thin QR
/// of r × d) into N, and μ = λ − N(Nᵀλ). Cost: the selection, one banded factorization of
/// order n + r and d solves, O(r·d²) for the QR.
///
/// It agrees with the SVD's least-norm solution to the round-off of the two null spaces: both
/// are backward stable, so each space is off the exact one by an angle ≲ (c·ε·‖G‖ + σ_cut)/δ
/// (Wedin's theorem; δ the smallest singular value kept, σ_cut the largest cut, c a modest
/// multiple of the order), and μ by ‖λ‖ times that (the test in
/// `models/tests/suite/ali3p_redundant.rs`). A redundancy the two decide differently — a
/// singular value within round-off of the rank tolerance, which the SVD measures on σ and the
/// selection on the remaining row norms — is a borderline configuration where the two may
/// differ by more. No redundant row: λ itself (the solution is unique). If the augmented
/// system does not factor, the dense SVD decides.
pub fn minimum_norm_multipliers_sparse(
    rows: usize,
    n: usize,
    entries: &[(usize, usize)],
    values: &[f64],
    lambda: &[f64],
) -> Vec<f64> {
    let pick = select_redundant_sparse(rows, n, entries, values);
    if pick.redundant.is_empty() {
        return lambda.to_vec();
    }
    if pick.independent.is_empty() {
        return vec![0.0; rows];
    }
    let null = match left_null_basis(rows, n, (entries, values), &pick.redundant) {
        Some(null) => null,
        None => {
            let mut g = nalgebra::DMatrix::zeros(rows, n);
            for (&(i, j), &x) in entries.iter().zip(values) {
                g[(i, j)] = x;
            }
            return crate::redundancy::minimum_norm_multipliers(&g, lambda);
        }
    };
    let l = nalgebra::DVector::from_column_slice(lambda);
    let coefficients = null.tr_mul(&l);
    (l - null * coefficients).as_slice().to_vec()
}

/// An orthonormal basis (r × d) of null(Gᵀ) from the `redundant` rows' combinations of the
/// others (see [`minimum_norm_multipliers_sparse`]); `None` when the augmented system of the
/// kept rows does not factor.
fn left_null_basis(
    rows: usize,
    n: usize,
    (entries, values): (&[(usize, usize)], &[f64]),
    redundant: &[usize],
) -> Option<nalgebra::DMatrix<f64>> {
    use crate::augmented_band::AugmentedBand;
    use crate::kkt_layout::KktSolver;
    let out = |i: usize| redundant.binary_search(&i).is_ok();
    let mut band = AugmentedBand::chosen_by(KktSolver::Banded, rows, n, entries.to_vec())?;
    let kept = |k: usize, i: usize| (!out(i)).then_some(values[k]);
    if !band.factor(kept, redundant.iter().copied()) {
        return None;
    }
    let mut basis = nalgebra::DMatrix::zeros(rows, redundant.len());
    let mut target = vec![0.0; n];
    for (column, &row) in redundant.iter().enumerate() {
        target.fill(0.0);
        for (&(i, j), &x) in entries.iter().zip(values) {
            if i == row {
                target[j] = x;
            }
        }
        let (_, c) = band.solve_both(|y, zeta| {
            y.copy_from_slice(&target);
            zeta.fill(0.0);
        });
        let mut v = basis.column_mut(column);
        for (i, &ci) in c.iter().enumerate() {
            v[i] = if out(i) { 0.0 } else { -ci };
        }
        v[row] = 1.0;
    }
    basis.iter().all(|x| x.is_finite()).then(|| basis.qr().q())
}
