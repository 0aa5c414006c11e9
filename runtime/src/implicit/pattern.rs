//! The pattern of the tangent blocks K = ∂(M a + Gᵀλ − Q)/∂q and C = −∂Q/∂v on the sparse path
//! of the implicit methods, and K, C held as values on it.
//!
//! Most models have no tangent kernels (their tangents are central differences), and the dense
//! ones write n × n matrices; a sparse model's `tangent_nonzeros_into` states its pattern,
//! which its first evaluation adds (`tangents.rs`). The pattern starts from
//! what the model's structure implies: Φ_r depends only on the coordinates of its row's
//! nonzeros, so ∂(Φ_qᵀλ)/∂q couples only coordinates that share a row of Φ_q; and M's row i
//! is taken to depend on the coordinates of that row (a body's own block in body
//! coordinates). So P = the diagonal ∪ the cliques of the columns of every row of Φ_q and of
//! every row of M (with its diagonal index). The applied force Q is the unknown part (a spring
//! between two bodies that share no joint couples them outside P): P is a hypothesis that the
//! evaluations check, never an assumption that could lose an entry:
//! - the exact kernels' dense output is scanned for nonzeros outside P on every evaluation;
//! - central differences difference every column on their first evaluation and on the first
//!   after a failed Newton iteration; the others (compressed: one pair of residuals per group
//!   of columns no row shares, Curtis–Powell–Reid) test every residual row that changed
//!   against the rows the group's columns cover (a nonzero outside P in a row the group covers
//!   is added to that row's entry instead: it costs Newton's convergence rate, and a failure
//!   makes the next evaluation a full one);
//!
//! and a nonzero found outside P grows it (with its mirror, P stays symmetric): the
//! evaluation is redone with the grown pattern and every layout built on the old one is rebuilt
//! (its `generation` changed). A wrong guess costs time, never an entry of K or C. Nonholonomic
//! rows are not covered (A's entries may depend on coordinates outside its row's nonzeros):
//! models with k > 0 keep the dense path.

use nalgebra::DMatrix;

/// A symmetric n × n pattern with its whole diagonal, and its columns grouped for compressed
/// differences.
#[derive(Clone, Debug)]
pub(crate) struct TangentPattern {
    n: usize,
    /// The entries, sorted by row then column.
    entries: Vec<(usize, usize)>,
    /// Row i's entries are `entries[row_start[i]..row_start[i + 1]]`.
    row_start: Vec<usize>,
    /// `transpose[p]`: the index of entry (j, i) for entry p = (i, j).
    transpose: Vec<usize>,
    /// Groups of columns no two of which have an entry in the same row.
    groups: Vec<Vec<usize>>,
}

impl TangentPattern {
    /// The structural guess (module docs) from M's pattern and G's.
    pub(crate) fn structural(
        n: usize,
        mass: &[(usize, usize)],
        jac: &[(usize, usize)],
    ) -> TangentPattern {
        let mut entries = Vec::new();
        // M's row i couples its columns and i itself; a row of G its columns.
        for (rows, with_row_index) in [(mass, true), (jac, false)] {
            let mut start = 0;
            while start < rows.len() {
                let row = rows[start].0;
                let end = start + rows[start..].iter().take_while(|e| e.0 == row).count();
                let mut columns: Vec<usize> = rows[start..end].iter().map(|e| e.1).collect();
                if with_row_index {
                    columns.push(row);
                }
                for &i in &columns {
                    entries.extend(columns.iter().map(|&j| (i, j)));
                }
                start = end;
            }
        }
        TangentPattern::from_entries(n, entries)
    }

    /// The pattern of `entries` made symmetric, with the whole diagonal.
    pub(crate) fn from_entries(n: usize, mut entries: Vec<(usize, usize)>) -> TangentPattern {
        let mirrored: Vec<(usize, usize)> = entries.iter().map(|&(i, j)| (j, i)).collect();
        entries.extend(mirrored);
        entries.extend((0..n).map(|i| (i, i)));
        entries.sort_unstable();
        entries.dedup();
        let mut row_start = vec![0; n + 1];
        for &(i, _) in &entries {
            row_start[i + 1] += 1;
        }
        for i in 0..n {
            row_start[i + 1] += row_start[i];
        }
        let mut pattern = TangentPattern {
            n,
            transpose: Vec::new(),
            entries,
            row_start,
            groups: Vec::new(),
        };
        pattern.transpose = (0..pattern.entries.len())
            .map(|p| {
                let (i, j) = pattern.entries[p];
                pattern.index(j, i).expect("the pattern is symmetric")
            })
            .collect();
        pattern.groups = pattern.column_groups();
        pattern
    }

    /// Order n of the blocks.
    pub(crate) fn n(&self) -> usize {
        self.n
    }

    /// The entries, sorted by row then column.
    pub(crate) fn entries(&self) -> &[(usize, usize)] {
        &self.entries
    }

    /// The groups of structurally orthogonal columns.
    pub(crate) fn groups(&self) -> &[Vec<usize>] {
        &self.groups
    }

    /// The index range of row i's entries.
    pub(crate) fn row(&self, i: usize) -> std::ops::Range<usize> {
        self.row_start[i]..self.row_start[i + 1]
    }

    /// The index of entry (j, i) for entry p = (i, j).
    pub(crate) fn transposed(&self, p: usize) -> usize {
        self.transpose[p]
    }

    /// The index of the diagonal entry (i, i).
    pub(crate) fn diagonal(&self, i: usize) -> usize {
        self.index(i, i).expect("the pattern holds the diagonal")
    }

    /// The index of entry (i, j), if it is in the pattern.
    pub(crate) fn index(&self, i: usize, j: usize) -> Option<usize> {
        let range = self.row(i);
        let start = range.start;
        self.entries[range]
            .binary_search_by_key(&j, |e| e.1)
            .ok()
            .map(|k| start + k)
    }

    /// Greedy grouping: each column joins the first group none of whose columns shares a row
    /// with it (for a symmetric pattern: no column within distance 2 in its graph).
    fn column_groups(&self) -> Vec<Vec<usize>> {
        let mut group_of = vec![usize::MAX; self.n];
        let mut groups: Vec<Vec<usize>> = Vec::new();
        let mut taken = Vec::new();
        for j in 0..self.n {
            taken.clear();
            taken.resize(groups.len(), false);
            for &(_, i) in &self.entries[self.row(j)] {
                for &(_, other) in &self.entries[self.row(i)] {
                    if group_of[other] != usize::MAX {
                        taken[group_of[other]] = true;
                    }
                }
            }
            let g = taken.iter().position(|&t| !t).unwrap_or(groups.len());
            if g == groups.len() {
                groups.push(Vec::new());
            }
            groups[g].push(j);
            group_of[j] = g;
        }
        groups
    }

    /// The entries of `dense` (n × n) outside the pattern that are not zero.
    fn outside(&self, dense: &DMatrix<f64>) -> Vec<(usize, usize)> {
        let mut found = Vec::new();
        for i in 0..self.n {
            let mut inside = self.entries[self.row(i)].iter().map(|e| e.1).peekable();
            for j in 0..self.n {
                if inside.peek() == Some(&j) {
                    inside.next();
                } else if dense[(i, j)] != 0.0 {
                    found.push((i, j));
                }
            }
        }
        found
    }
}

/// K and C as values on a [`TangentPattern`] that grows when an evaluation finds a nonzero
/// outside it (module docs).
#[derive(Clone, Debug)]
pub(crate) struct SparseTangents {
    pub(crate) pattern: TangentPattern,
    /// K's values in the pattern's order.
    pub(crate) k: Vec<f64>,
    /// C's values in the pattern's order.
    pub(crate) c: Vec<f64>,
    /// Incremented whenever the pattern grows: a layout built for another generation is stale.
    pub(crate) generation: usize,
    /// Whether a full evaluation has checked the pattern (finite differences: every column
    /// differenced once).
    pub(crate) verified: bool,
    /// K and C dense: the exact kernels' output, and the full differences' (allocated on the
    /// first use).
    dense: Option<Box<(DMatrix<f64>, DMatrix<f64>)>>,
}

impl SparseTangents {
    pub(crate) fn new(pattern: TangentPattern) -> Self {
        let len = pattern.entries().len();
        Self {
            pattern,
            k: vec![0.0; len],
            c: vec![0.0; len],
            generation: 0,
            verified: false,
            dense: None,
        }
    }

    /// Dense K and C storage for a full evaluation (zeroed before the first use only: every
    /// full evaluation writes all of it).
    pub(crate) fn dense_mut(&mut self) -> (&mut DMatrix<f64>, &mut DMatrix<f64>) {
        let n = self.pattern.n();
        let dense = self
            .dense
            .get_or_insert_with(|| Box::new((DMatrix::zeros(n, n), DMatrix::zeros(n, n))));
        (&mut dense.0, &mut dense.1)
    }

    /// Take K and C from the dense storage of a full evaluation: the pattern grows by every
    /// nonzero outside it (cold: allocates), then the values are gathered.
    pub(crate) fn absorb_dense(&mut self) {
        let Some(dense) = self.dense.take() else {
            return;
        };
        let (k, c) = (&dense.0, &dense.1);
        let mut outside = self.pattern.outside(k);
        outside.extend(self.pattern.outside(c));
        if !outside.is_empty() {
            self.grow(outside);
        }
        for (p, &(i, j)) in self.pattern.entries().iter().enumerate() {
            self.k[p] = k[(i, j)];
            self.c[p] = c[(i, j)];
        }
        self.dense = Some(dense);
    }

    /// K and C as dense matrices (copies; cold paths only).
    pub(crate) fn dense_copies(&self) -> (DMatrix<f64>, DMatrix<f64>) {
        let n = self.pattern.n();
        let (mut k, mut c) = (DMatrix::zeros(n, n), DMatrix::zeros(n, n));
        for (p, &(i, j)) in self.pattern.entries().iter().enumerate() {
            (k[(i, j)], c[(i, j)]) = (self.k[p], self.c[p]);
        }
        (k, c)
    }

    /// Add `entries` (and their mirrors) to the pattern.
    pub(crate) fn grow(&mut self, entries: Vec<(usize, usize)>) {
        let mut all = self.pattern.entries().to_vec();
        all.extend(entries);
        self.pattern = TangentPattern::from_entries(self.pattern.n(), all);
        let len = self.pattern.entries().len();
        self.k.resize(len, 0.0);
        self.c.resize(len, 0.0);
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain of four coordinates: M diagonal, rows of G coupling (0, 1), (1, 2), (2, 3).
    fn chain() -> TangentPattern {
        let mass = [(0, 0), (1, 1), (2, 2), (3, 3)];
        let jac = [(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 3)];
        TangentPattern::structural(4, &mass, &jac)
    }

    #[test]
    fn the_structural_pattern_is_the_row_cliques() {
        let p = chain();
        let tridiagonal: Vec<(usize, usize)> = (0..4)
            .flat_map(|i: usize| (i.saturating_sub(1)..(i + 2).min(4)).map(move |j| (i, j)))
            .collect();
        assert_eq!(p.entries(), tridiagonal.as_slice());
        for (q, &(i, j)) in p.entries().iter().enumerate() {
            assert_eq!(p.entries()[p.transposed(q)], (j, i));
        }
    }

    #[test]
    fn groups_never_share_a_row() {
        let p = chain();
        // Columns within distance 2 conflict: a tridiagonal pattern needs 3 groups.
        assert_eq!(p.groups().len(), 3);
        for group in p.groups() {
            for i in 0..4 {
                let hits = group
                    .iter()
                    .filter(|&&j| p.entries()[p.row(i)].iter().any(|e| e.1 == j))
                    .count();
                assert!(hits <= 1, "row {i} shared in group {group:?}");
            }
        }
    }

    #[test]
    fn a_nonzero_outside_the_pattern_grows_it() {
        let mut t = SparseTangents::new(chain());
        let (k, c) = t.dense_mut();
        k[(0, 3)] = 2.0;
        c[(1, 1)] = -1.0;
        t.absorb_dense();
        assert_eq!(t.generation, 1);
        let at = |i, j| t.pattern.index(i, j).expect("grown");
        assert_eq!(t.k[at(0, 3)], 2.0);
        assert_eq!(t.k[at(3, 0)], 0.0);
        assert_eq!(t.c[at(1, 1)], -1.0);
    }
}
