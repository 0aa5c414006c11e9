//! The sparse path of the implicit methods' linear algebra: the choice of it, and the iteration
//! matrix [M + cq K + cv C, Gᵀ; G, 0] (Newmark/HHT/generalized-α's Newton matrix, Radau's
//! error-estimate matrix) as a banded LU assembled from nonzeros.
//!
//! A model goes on the sparse path when it has the sparse kernel forms
//! ([`ConstrainedSystem::has_nonzero_forms`]), no nonholonomic rows (their tangent block N has
//! no stated pattern, `pattern.rs`), and the KKT policy ([`KktSolver`], `common.kkt`) picks
//! the banded layout for the method's largest system by the KKT's own rule
//! ([`KktLayout::choose`]: at most a quarter of the dense flops, at least 40 unknowns): the
//! order N = n + m matrix [W Gᵀ; G 0] under the RCM ordering of its pattern (W's = the tangent
//! pattern, which holds M's), or Radau's stage system of order 3N with its stages interleaved
//! per unknown (half-bandwidth 3b + 2, `radau/stages.rs`). Every other model keeps the dense
//! path, bit for bit as before.
//!
//! The assembly scatters M's, G's and the tangents' values through slots computed once; a
//! grown tangent pattern (a nonzero found outside it) makes a new ordering and new slots
//! ([`BandedIteration::is_current`]). Rows of G left out as redundant ([`crate::redundancy`])
//! are not assembled. A matrix built for the whole G ([`BandedIteration::new`], Radau's
//! estimate) pins their multipliers by the row's scale on the diagonal, as the dense path does;
//! one built for a selection ([`BandedIteration::for_selection`], the Newton matrix of
//! Newmark/HHT/generalized-α while rows are left out) is the matrix of the kept rows alone, with
//! its own RCM ordering and band (those of the mechanism with the left-out rows deleted), as the
//! KKT solve's compacted system (`kkt_compact.rs`): its solves compact the kept rows' entries
//! in place and scatter back with the left-out rows' multipliers 0. It is built when the
//! selection changes (a cold path, like the selection itself).

use crate::kkt_compact::{Kept, gather_in_place, scatter_in_place};
use crate::kkt_layout::{KktLayout, KktSolver, OrderedBand, rcm_position};
use crate::redundancy::RowSelection;
use crate::sparse::{SparseMatrix, jacobian_pattern, mass_entries};
use crate::system::ConstrainedSystem;

use super::matrices::PointMatrices;
use super::pattern::{SparseTangents, TangentPattern};
use super::tangents::TangentStore;

/// M's and G's nonzeros and the tangents' values of the sparse path (`None` on the dense one).
pub(crate) fn sparse_parts<'a>(
    point: &'a PointMatrices,
    tangents: &'a TangentStore,
) -> Option<((&'a SparseMatrix, &'a SparseMatrix), &'a SparseTangents)> {
    match (point.nonzeros(), tangents) {
        (Some(nonzeros), TangentStore::Sparse(t)) => Some((nonzeros, t)),
        _ => None,
    }
}

/// The tangent storage of the sparse path when `sys` goes on it (module docs) for a method
/// whose largest system holds `stages` copies of [W Gᵀ; G 0] interleaved; `None` keeps the
/// dense path.
pub(crate) fn sparse_plan<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    solver: KktSolver,
    stages: usize,
) -> Option<SparseTangents> {
    let (layout, pattern) = plan(sys, solver, stages);
    match layout {
        KktLayout::Banded { .. } => pattern.map(SparseTangents::new),
        KktLayout::Dense { .. } => None,
    }
}

/// The layout of the largest system of a method with `stages` stages on `sys` under `solver`
/// (what a run starts with: a grown tangent pattern widens the band), and the tangent
/// pattern when the model may go on the sparse path at all.
fn plan<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    solver: KktSolver,
    stages: usize,
) -> (KktLayout, Option<TangentPattern>) {
    let dims = sys.dims();
    let order = stages * (dims.n + dims.constraint_rows());
    if !sys.has_nonzero_forms() || dims.k > 0 || solver == KktSolver::Dense {
        return (KktLayout::Dense { order }, None);
    }
    let jac = jacobian_pattern(sys, dims);
    let pattern = TangentPattern::structural(dims.n, &mass_entries(sys, dims.n), &jac);
    let (_, b) = ordering(&pattern, &jac, dims.constraint_rows());
    let layout = KktLayout::choose(solver, order, stages * b + stages - 1);
    (layout, Some(pattern))
}

/// The layout [`crate::Implicit`] (`stages` = 1: the Newton matrix of order n + m + k) or
/// [`crate::Radau`] (`stages` = 3: the stage system) starts a run on `sys` with under the
/// policy `solver` (module docs).
pub(crate) fn layout<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    solver: KktSolver,
    stages: usize,
) -> KktLayout {
    plan(sys, solver, stages).0
}

/// The RCM ordering of [W Gᵀ; G 0] for W's pattern `pattern` (n × n, with M's) and the pattern
/// `jac` of G's `rows` rows: `position[old] = new` over the n + r unknowns, and the
/// half-bandwidth under it.
pub(crate) fn ordering(
    pattern: &TangentPattern,
    jac: &[(usize, usize)],
    rows: usize,
) -> (Vec<usize>, usize) {
    let n = pattern.n();
    let mut edges = pattern.entries().to_vec();
    edges.extend(jac.iter().map(|&(r, c)| (n + r, c)));
    rcm_position(n + rows, &edges)
}

/// [M + cq K + cv C, Gᵀ; G, 0] as a banded LU under the RCM ordering (module docs).
#[derive(Clone, Debug)]
pub(crate) struct BandedIteration {
    band: OrderedBand,
    /// The tangent pattern's generation the slots were computed for.
    generation: usize,
    mass_slots: Vec<usize>,
    tangent_slots: Vec<usize>,
    /// Each nonzero of G: its slot in the constraint rows and its mirror in Gᵀ ([`LEFT_OUT`]
    /// for a row the matrix was built without).
    jac_slots: Vec<(usize, usize)>,
    /// The diagonal slot of each constraint row (a left-out row's pin; empty when built for a
    /// selection).
    pin_slots: Vec<usize>,
    /// Built for a selection: the rows it holds (module docs).
    kept: Option<KeptRows>,
}

/// The slot of a nonzero of G in a row that a matrix built for a selection does not hold.
const LEFT_OUT: usize = usize::MAX;

/// The kept rows of a [`BandedIteration`] built for a selection.
#[derive(Clone, Debug)]
struct KeptRows {
    /// The left-out rows it was built without, increasing.
    left_out: Vec<usize>,
    kept: Kept,
    /// Coordinates (the rows of W).
    n: usize,
}

impl BandedIteration {
    /// The layout for M's pattern of `mass`, G's of `jac` and the tangents' pattern.
    pub(crate) fn new(mass: &SparseMatrix, jac: &SparseMatrix, t: &SparseTangents) -> Self {
        Self::for_selection(mass, jac, t, &[])
    }

    /// The layout of the matrix over the rows of G other than `left_out` (increasing; module
    /// docs): with none left out, [`BandedIteration::new`]'s. Cold path (it allocates).
    pub(crate) fn for_selection(
        mass: &SparseMatrix,
        jac: &SparseMatrix,
        t: &SparseTangents,
        left_out: &[usize],
    ) -> Self {
        let n = t.pattern.n();
        let kept = (!left_out.is_empty()).then(|| Kept::new(jac.rows(), left_out));
        // G's nonzeros of the rows held, numbered by their rank among them.
        let rank = |r: usize| kept.as_ref().map_or(Some(r), |k| k.rank(r));
        let held: Vec<(usize, usize)> = (jac.entries().iter())
            .filter_map(|&(r, c)| rank(r).map(|f| (f, c)))
            .collect();
        let rows = kept.as_ref().map_or(jac.rows(), Kept::len);
        let (position, b) = ordering(&t.pattern, &held, rows);
        let band = OrderedBand::new(position, b);
        let slot = |&(i, j): &(usize, usize)| band.slot(i, j);
        let jac_slot = |&(r, c): &(usize, usize)| match rank(r) {
            Some(f) => (band.slot(n + f, c), band.slot(c, n + f)),
            None => (LEFT_OUT, LEFT_OUT),
        };
        Self {
            generation: t.generation,
            mass_slots: mass.entries().iter().map(slot).collect(),
            tangent_slots: t.pattern.entries().iter().map(slot).collect(),
            jac_slots: jac.entries().iter().map(jac_slot).collect(),
            pin_slots: match kept {
                None => (0..jac.rows()).map(|r| band.slot(n + r, n + r)).collect(),
                Some(_) => Vec::new(),
            },
            kept: kept.map(|kept| KeptRows {
                left_out: left_out.to_vec(),
                n,
                kept,
            }),
            band,
        }
    }

    /// Whether the slots fit the tangents' current pattern.
    pub(crate) fn is_current(&self, t: &SparseTangents) -> bool {
        self.generation == t.generation
    }

    /// Whether the slots fit the tangents' current pattern and the matrix was built for the
    /// selection `left_out` ([`BandedIteration::for_selection`]).
    pub(crate) fn serves(&self, t: &SparseTangents, left_out: &[usize]) -> bool {
        let built_for = self.kept.as_ref().map_or(&[][..], |k| &k.left_out[..]);
        self.is_current(t) && built_for == left_out
    }

    /// Assemble the matrix for coefficients (cq, cv) with the rows of `left_out` left out, and
    /// factor it; `Err` when singular. A matrix built for a selection holds only its kept rows
    /// (then `left_out` must be that selection: [`BandedIteration::serves`]).
    pub(crate) fn factor(
        &mut self,
        (mass, jac): (&SparseMatrix, &SparseMatrix),
        t: &SparseTangents,
        (cq, cv): (f64, f64),
        left_out: &RowSelection,
    ) -> Result<(), ()> {
        self.assemble((mass, jac), t, (cq, cv), left_out);
        if self.kept.is_none() {
            let band = self.band.band_mut();
            for &i in left_out.left_out() {
                band[self.pin_slots[i]] += jac.row_scale(i);
            }
        }
        self.band.factor().map_err(|_| ())
    }

    /// Assemble [M + cq K + cv C, Gᵀ; G, −I/s] over every row of G and factor it; `Err` when
    /// singular. Its solve of [r; 0] gives x = (M + cq K + cv C + s GᵀG)⁻¹ r (the second block
    /// row is y = s G x), ALI3-P's leading matrix without forming GᵀG, whose band would be
    /// twice G's (`ali3p/linear.rs`). Built by [`BandedIteration::new`] (no selection).
    pub(crate) fn factor_penalized(
        &mut self,
        (mass, jac): (&SparseMatrix, &SparseMatrix),
        t: &SparseTangents,
        (cq, cv): (f64, f64),
        s: f64,
    ) -> Result<(), ()> {
        debug_assert!(self.kept.is_none(), "built for a selection");
        self.assemble((mass, jac), t, (cq, cv), &RowSelection::default());
        let band = self.band.band_mut();
        for &slot in &self.pin_slots {
            band[slot] -= 1.0 / s;
        }
        self.band.factor().map_err(|_| ())
    }

    /// Zero the band and scatter M + cq K + cv C and G, Gᵀ over the rows not in `left_out`.
    fn assemble(
        &mut self,
        (mass, jac): (&SparseMatrix, &SparseMatrix),
        t: &SparseTangents,
        (cq, cv): (f64, f64),
        left_out: &RowSelection,
    ) {
        self.band.clear();
        let band = self.band.band_mut();
        for (&s, &m) in self.mass_slots.iter().zip(&mass.values) {
            band[s] += m;
        }
        for (&s, (&k, &c)) in self.tangent_slots.iter().zip(t.k.iter().zip(&t.c)) {
            band[s] += cq * k + cv * c;
        }
        for (p, (&(s, mirror), &g)) in self.jac_slots.iter().zip(&jac.values).enumerate() {
            if s != LEFT_OUT && (left_out.is_empty() || !left_out.contains(jac.entries()[p].0)) {
                band[s] += g;
                band[mirror] += g;
            }
        }
    }

    /// Solve in place with the current factors, `rhs` over all rows (n + r; a matrix built for
    /// a selection returns the left-out rows' multipliers 0).
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        match &mut self.kept {
            None => self.band.solve_in_place(rhs),
            Some(k) => {
                let order = gather_in_place(k.n, &k.kept, rhs);
                self.band.solve_in_place(&mut rhs[..order]);
                scatter_in_place(k.n, &k.kept, rhs);
            }
        }
    }

    /// The layout of the factors (order and half-bandwidth of the rows held).
    #[cfg(test)]
    pub(crate) fn layout(&self) -> KktLayout {
        self.band.layout()
    }

    /// The pivot spread of the current factors.
    pub(crate) fn pivot_spread(&self) -> f64 {
        self.band.pivot_spread()
    }
}

/// A small chain for the banded matrices' unit tests: five bodies of three coordinates
/// (n = 15), two rows joining each pair of neighbours (r = 8), M with 3 × 3 body blocks, K and
/// C with arbitrary values on the structural tangent pattern; optionally the last row a copy
/// of the one before (a redundant row).
#[cfg(test)]
pub(crate) mod fixture {
    use nalgebra::DMatrix;

    use super::super::pattern::{SparseTangents, TangentPattern};
    use crate::sparse::SparseMatrix;

    pub(crate) const N: usize = 15;
    pub(crate) const R: usize = 8;

    /// A deterministic value in [−1, 1] for entry (i, j) of matrix `seed` (a frequency in j
    /// that depends on i: rows of distinct i are independent).
    fn value(seed: usize, i: usize, j: usize) -> f64 {
        (0.37 * (seed * 131 + i * 17 + j * 7) as f64 + 0.61 * (i * j) as f64).sin()
    }

    /// M (body blocks, dominant diagonal), G and the tangents.
    pub(crate) fn system(redundant: bool) -> (SparseMatrix, SparseMatrix, SparseTangents) {
        let mass: Vec<(usize, usize)> = (0..N)
            .flat_map(|i| (3 * (i / 3)..3 * (i / 3) + 3).map(move |j| (i, j)))
            .collect();
        let jac: Vec<(usize, usize)> = (0..R)
            .flat_map(|row| (3 * (row / 2)..3 * (row / 2) + 6).map(move |c| (row, c)))
            .collect();
        let (mut m, mut g) = (
            SparseMatrix::new(N, N, mass.clone(), mass.len()),
            SparseMatrix::new(R, N, jac.clone(), jac.len()),
        );
        for (p, &(i, j)) in mass.iter().enumerate() {
            m.values[p] = if i == j {
                4.0
            } else {
                0.3 * value(1, i.min(j), i.max(j))
            };
        }
        for (p, &(i, j)) in jac.iter().enumerate() {
            let row = if redundant && i == R - 1 { R - 2 } else { i };
            g.values[p] = value(2, row, j);
        }
        let mut t = SparseTangents::new(TangentPattern::structural(N, &mass, &jac));
        for (p, &(i, j)) in t.pattern.entries().iter().enumerate() {
            (t.k[p], t.c[p]) = (value(3, i, j), 0.5 * value(4, i, j));
        }
        (m, g, t)
    }

    /// A sparse matrix as a dense one.
    pub(crate) fn dense(a: &SparseMatrix, cols: usize) -> DMatrix<f64> {
        let mut d = DMatrix::zeros(a.rows(), cols);
        a.write_dense(&mut d);
        d
    }

    /// A right side of length `len`.
    pub(crate) fn rhs(len: usize) -> Vec<f64> {
        (0..len).map(|i| value(5, i, 0)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{self, N, R};
    use super::*;
    use crate::lu::DenseLu;
    use crate::sparse::SparseMatrix;

    /// Built for a selection, the matrix holds the kept rows alone: its order and band are
    /// those of the system with the left-out row deleted (here the last of the chain's rows, a
    /// copy of the one before), its solve is that system's bit for bit (same pattern, same
    /// ordering, same assembly order), with the left-out row's multiplier 0; and it solves as
    /// the pinned matrix of the whole G does up to the rounding of another pivot order.
    #[test]
    fn the_kept_rows_matrix_is_the_reduced_systems() {
        let (m, g, t) = fixture::system(true);
        let (cq, cv) = (0.01, 0.1);
        let mut rows = RowSelection::default();
        assert!(rows.reselect(&fixture::dense(&g, N), 0.0));
        assert_eq!(rows.left_out(), &[R - 1]);
        let mut kept = BandedIteration::for_selection(&m, &g, &t, rows.left_out());
        assert!(kept.serves(&t, rows.left_out()) && !kept.serves(&t, &[]));
        kept.factor((&m, &g), &t, (cq, cv), &rows).expect("regular");
        // G without its last row, as a model with that row deleted would give it.
        let entries: Vec<(usize, usize)> = (g.entries().iter().copied())
            .filter(|&(r, _)| r < R - 1)
            .collect();
        let mut reduced = SparseMatrix::new(R - 1, N, entries.clone(), entries.len());
        reduced.values.copy_from_slice(&g.values[..entries.len()]);
        let mut reduced_t =
            SparseTangents::new(TangentPattern::structural(N, m.entries(), &entries));
        reduced_t.k.copy_from_slice(&t.k);
        reduced_t.c.copy_from_slice(&t.c);
        assert_eq!(reduced_t.pattern.entries(), t.pattern.entries());
        let mut twin = BandedIteration::new(&m, &reduced, &reduced_t);
        twin.factor(
            (&m, &reduced),
            &reduced_t,
            (cq, cv),
            &RowSelection::default(),
        )
        .expect("regular");
        assert_eq!(kept.layout(), twin.layout());
        let mut x = fixture::rhs(N + R);
        let mut y = x[..N + R - 1].to_vec();
        kept.solve_in_place(&mut x);
        twin.solve_in_place(&mut y);
        assert_eq!(&x[..N + R - 1], &y[..]);
        assert_eq!(x[N + R - 1], 0.0);
        let mut pinned = BandedIteration::new(&m, &g, &t);
        pinned
            .factor((&m, &g), &t, (cq, cv), &rows)
            .expect("regular");
        let mut z = fixture::rhs(N + R);
        pinned.solve_in_place(&mut z);
        for i in 0..N + R - 1 {
            // Two pivoting orders on a matrix of condition ~1e2: a few hundred ε.
            assert!((x[i] - z[i]).abs() <= 1e-12 * (1.0 + z[i].abs()), "{i}");
        }
    }

    /// The banded matrix solves as the dense [M + cq K + cv C, Gᵀ; G, 0] does, with and
    /// without a redundant row left out.
    #[test]
    fn banded_iteration_matrix_agrees_with_the_dense_one() {
        for redundant in [false, true] {
            let (m, g, t) = fixture::system(redundant);
            let (cq, cv) = (0.01, 0.1);
            let mut rows = RowSelection::default();
            if redundant {
                assert!(
                    rows.reselect(&fixture::dense(&g, N), 0.0),
                    "the last row is a copy"
                );
            }
            let mut banded = BandedIteration::new(&m, &g, &t);
            banded
                .factor((&m, &g), &t, (cq, cv), &rows)
                .expect("regular");
            let (k, c) = t.dense_copies();
            let gd = fixture::dense(&g, N);
            let mut lu = DenseLu::new(N + R);
            let a = lu.matrix_mut();
            a.view_mut((0, 0), (N, N))
                .copy_from(&(fixture::dense(&m, N) + k * cq + c * cv));
            a.view_mut((N, 0), (R, N)).copy_from(&gd);
            a.view_mut((0, N), (N, R)).tr_copy_from(&gd);
            rows.mask_dense(a, N, &gd);
            lu.factor().expect("regular");
            let (mut xb, mut xd) = (fixture::rhs(N + R), fixture::rhs(N + R));
            banded.solve_in_place(&mut xb);
            lu.solve_in_place(&mut xd);
            for i in 0..N + R {
                // Two pivoting orders on a matrix of condition ~1e2: a few hundred ε.
                assert!((xb[i] - xd[i]).abs() <= 1e-12 * (1.0 + xd[i].abs()), "{i}");
            }
        }
    }
}
