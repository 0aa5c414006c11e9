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
