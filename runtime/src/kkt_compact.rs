//! The KKT system over the kept rows alone, while rows of G are left out as redundant
//! ([`crate::redundancy`]).
//!
//! Leaving a row out of the whole system's factorization (a unit stand-in on its diagonal)
//! keeps the order n + m + k and, on the banded path, the RCM ordering of the whole pattern:
//! for the A02 chain with an extra crank the left-out row's couplings widen the band from 5
//! to 8 and the banded LU costs ~2.5× that of the same mechanism with the row deleted. Here
//! the system is the one of the kept rows: its own pattern, RCM ordering, band (or dense LU,
//! as [`crate::kkt::KktSolver`] picks for its order), built when the selection changes (a
//! cold path, like the selection itself) and reused for every factorization until the next
//! change. The solves take and return right sides over all rows: the kept rows' entries are
//! gathered into the compacted order in place and scattered back, the left-out rows' multipliers
//! set to 0 (the ADAMS convention of the module docs of [`crate::redundancy`]).
//!
//! On the dense path the compacted matrix is the masked one with the stand-in's row and
//! column deleted: partial pivoting never picks the decoupled stand-in (zero below and beside
//! its diagonal), so the factors of the other entries are the same numbers.

use nalgebra::DMatrix;

use crate::kkt::Metric;
use crate::kkt_layout::{Kkt, KktLayout, KktSolver};
use crate::lu::DenseLu;
use crate::sparse::SparseKkt;

/// The rows of G a compacted system keeps, and each one's rank among them.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    /// The kept rows, increasing: row f of the factored block is G's row `rows[f]`.
    rows: Vec<usize>,
    /// `rank[i]`: the factored block's row of G's row i, [`Kept::OUT`] when left out.
    rank: Vec<usize>,
}

impl Kept {
    const OUT: usize = usize::MAX;

    /// The rows of an `r`-row G other than `left_out` (increasing).
    pub(crate) fn new(r: usize, left_out: &[usize]) -> Kept {
        let mut rank = vec![0; r];
        for &i in left_out {
            rank[i] = Self::OUT;
        }
        let rows: Vec<usize> = (0..r).filter(|&i| rank[i] != Self::OUT).collect();
        for (f, &i) in rows.iter().enumerate() {
            rank[i] = f;
        }
        Kept { rows, rank }
    }

    /// The kept rows, increasing.
    pub(crate) fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// How many rows are kept.
    pub(crate) fn len(&self) -> usize {
        self.rows.len()
    }

    /// The factored block's row of G's row `i` (`None` when left out).
    pub(crate) fn rank(&self, i: usize) -> Option<usize> {
        Some(self.rank[i]).filter(|&f| f != Self::OUT)
    }
}

/// G's nonzeros `entries` of the rows `kept` holds (every row of an `r`-row G when `None`),
/// each numbered by its row's rank among them, and how many rows are held: the constraint
/// part of a kept-rows pattern, for its RCM ordering.
pub(crate) fn held_entries(
    kept: Option<&Kept>,
    entries: &[(usize, usize)],
    r: usize,
) -> (Vec<(usize, usize)>, usize) {
    let rank = |i: usize| kept.map_or(Some(i), |k| k.rank(i));
    let held = (entries.iter())
        .filter_map(|&(i, c)| rank(i).map(|f| (f, c)))
        .collect();
    (held, kept.map_or(r, Kept::len))
}

/// The factors of the system over the kept rows.
#[derive(Clone, Debug)]
pub(crate) struct Compact {
    /// The left-out rows it was built for.
    left_out: Vec<usize>,
    /// Whether it has the sparse path's slots.
    sparse: bool,
    kept: Kept,
    n: usize,
    factors: Kkt,
}

impl Compact {
    /// The compacted system of `full` (the whole system's factors, of an `r`-row G) without
    /// the rows `left_out`: dense if `full` is, else banded or dense as `solver` picks for the
    /// kept rows' pattern under its own RCM ordering. Cold path (it allocates).
    pub(crate) fn new(
        full: &Kkt,
        r: usize,
        left_out: &[usize],
        solver: KktSolver,
        sparse: Option<&SparseKkt>,
    ) -> Compact {
        let n = full.dim() - r;
        let kept = Kept::new(r, left_out);
        let order = n + kept.len();
        let factors = match full.patterns() {
            None => Kkt::Dense(DenseLu::new(order)),
            Some((mass, jac)) => {
                Kkt::layout_for((n, order), mass, &jac, Some(&kept), solver, sparse)
            }
        };
        Compact {
            left_out: left_out.to_vec(),
            sparse: sparse.is_some(),
            kept,
            n,
            factors,
        }
    }

    /// Whether these factors serve the selection `left_out` (on the sparse path if `sparse`).
    pub(crate) fn serves(&self, left_out: &[usize], sparse: bool) -> bool {
        self.left_out == left_out && (self.sparse || !sparse)
    }

    /// The compacted system's layout.
    pub(crate) fn layout(&self) -> KktLayout {
        self.factors.layout()
    }

    /// Assemble from the nonzeros over the kept rows and factor.
    pub(crate) fn factor_sparse(&mut self, metric: Metric, sparse: &SparseKkt) -> Result<(), ()> {
        self.factors.factor_sparse(metric, sparse, Some(&self.kept))
    }

    /// Assemble from dense copies over the kept rows and factor.
    pub(crate) fn factor(
        &mut self,
        metric: Metric,
        mass: &DMatrix<f64>,
        jac: &DMatrix<f64>,
    ) -> Result<(), ()> {
        self.factors.factor(metric, mass, jac, Some(&self.kept))
    }

    pub(crate) fn pivot_spread(&self) -> f64 {
        self.factors.pivot_spread()
    }

    /// Solve in place, `rhs` over all rows (module docs).
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        let order = gather_in_place(self.n, &self.kept, rhs);
        self.factors.solve_in_place(&mut rhs[..order]);
        scatter_in_place(self.n, &self.kept, rhs);
    }

    /// Solve for two right sides, each bit for bit as [`Compact::solve_in_place`] would.
    pub(crate) fn solve_pair_in_place(&mut self, first: &mut [f64], second: &mut [f64]) {
        let order = gather_in_place(self.n, &self.kept, first);
        gather_in_place(self.n, &self.kept, second);
        (self.factors).solve_pair_in_place(&mut first[..order], &mut second[..order]);
        scatter_in_place(self.n, &self.kept, first);
        scatter_in_place(self.n, &self.kept, second);
    }
}

/// Compact `v` (n entries, then one per row of G) in place to the kept rows' order: its first
/// n + kept entries become the compacted vector, the rest is left stale. Each kept row moves to
/// its rank, which is at most its index, so walking the rows upward never overwrites a row not
/// yet moved. No copy of the n leading entries (for a 3-coordinate model the gather's and the
/// scatter's copies cost as much as the solve between them).
pub(crate) fn gather_in_place(n: usize, kept: &Kept, v: &mut [f64]) -> usize {
    for (f, &i) in kept.rows().iter().enumerate() {
        v[n + f] = v[n + i];
    }
    n + kept.len()
}

/// The inverse of [`gather_in_place`]: the compacted solution back over all rows, the left-out
/// rows' multipliers 0. Walking the rows downward, row i reads its rank's entry (≤ i), which no
/// earlier step wrote.
pub(crate) fn scatter_in_place(n: usize, kept: &Kept, v: &mut [f64]) {
    for i in (0..kept.rank.len()).rev() {
        v[n + i] = match kept.rank[i] {
            Kept::OUT => 0.0,
            f => v[n + f],
        };
    }
}

/// The kept rows' entries of `full` (`n` entries, then `blocks` blocks of G's rows: Radau's
/// stage-major unknowns, the stages' accelerations, then each stage's multipliers) into
/// `compact`.
pub(crate) fn gather_blocks(
    n: usize,
    kept: &Kept,
    blocks: usize,
    full: &[f64],
    compact: &mut [f64],
) {
    let (r, f) = (kept.rank.len(), kept.len());
    compact[..n].copy_from_slice(&full[..n]);
    for b in 0..blocks {
        let out = &mut compact[n + b * f..n + (b + 1) * f];
        for (x, &i) in out.iter_mut().zip(kept.rows()) {
            *x = full[n + b * r + i];
        }
    }
}

/// The inverse of [`gather_blocks`], the left-out rows' multipliers 0.
pub(crate) fn scatter_blocks(
    n: usize,
    kept: &Kept,
    blocks: usize,
    compact: &[f64],
    full: &mut [f64],
) {
    let (r, f) = (kept.rank.len(), kept.len());
    full[..n].copy_from_slice(&compact[..n]);
    full[n..].fill(0.0);
    for b in 0..blocks {
        let held = &compact[n + b * f..n + (b + 1) * f];
        for (&x, &i) in held.iter().zip(kept.rows()) {
            full[n + b * r + i] = x;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redundancy::RowSelection;

    /// The in-place compaction and its inverse give what the copying block forms give, for
    /// left-out rows first, inside and last.
    #[test]
    fn in_place_compaction_matches_the_copying_one() {
        let (n, r) = (3, 6);
        for left_out in [vec![0], vec![1, 4], vec![5], vec![0, 2, 3]] {
            let kept = Kept::new(r, &left_out);
            let full: Vec<f64> = (0..n + r).map(|i| 1.0 + i as f64).collect();
            let order = n + kept.len();
            let mut copied = vec![0.0; order];
            gather_blocks(n, &kept, 1, &full, &mut copied);
            let mut in_place = full.clone();
            assert_eq!(gather_in_place(n, &kept, &mut in_place), order);
            assert_eq!(in_place[..order], copied[..], "{left_out:?}");
            let solved: Vec<f64> = copied.iter().map(|x| -2.0 * x).collect();
            let mut back = vec![7.0; n + r];
            scatter_blocks(n, &kept, 1, &solved, &mut back);
            in_place[..order].copy_from_slice(&solved);
            scatter_in_place(n, &kept, &mut in_place);
            assert_eq!(in_place, back, "{left_out:?}");
        }
    }

    /// A 3-coordinate system with G's third row twice its first: the compacted dense solve
    /// equals the solve of the hand-reduced system bit for bit, with λ = 0 on the copy.
    #[test]
    fn the_compacted_solve_is_the_reduced_systems() {
        let mass = DMatrix::from_row_slice(3, 3, &[2.0, 0.1, 0.0, 0.1, 3.0, 0.2, 0.0, 0.2, 1.5]);
        let g = DMatrix::from_row_slice(3, 3, &[1.0, 0.5, 0.0, 0.0, 1.0, -1.0, 2.0, 1.0, 0.0]);
        let mut sel = RowSelection::default();
        assert!(sel.reselect(&g, 0.0));
        assert_eq!(sel.left_out(), &[2]);
        let mut full = Kkt::Dense(DenseLu::new(6));
        let mut compact = Compact::new(&full, 3, sel.left_out(), KktSolver::Auto, None);
        assert_eq!(compact.layout(), KktLayout::Dense { order: 5 });
        compact.factor(Metric::Mass, &mass, &g).expect("regular");
        let reduced = g.rows(0, 2).into_owned();
        full = Kkt::Dense(DenseLu::new(5));
        full.factor(Metric::Mass, &mass, &reduced, None)
            .expect("regular");
        let rhs = [0.3, -1.0, 0.7, 0.2, -0.4, 0.4];
        let mut x = rhs.to_vec();
        compact.solve_in_place(&mut x);
        let mut y = rhs[..5].to_vec();
        full.solve_in_place(&mut y);
        assert_eq!(&x[..5], &y[..]);
        assert_eq!(x[5], 0.0);
        assert_eq!(compact.pivot_spread(), full.pivot_spread());
    }
}
