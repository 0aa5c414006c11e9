//! Radau's stage system on the sparse path: the iteration matrix of `newton.rs`,
//! ```text
//! J = [ I⊗M + h² 𝒜²⊗K + h 𝒜⊗C    diag_i(G_iᵀ) ;   block (i, j): (𝒜²)_ij Φ_q,i    0 ]
//! ```
//! of order 3N (N = n + m), as a banded LU with its stages interleaved per unknown: with
//! `position` the RCM ordering of the N unknowns of [W Gᵀ; G 0] (W's pattern the tangent
//! pattern, `implicit/iteration.rs`) of half-bandwidth b, unknown u of stage s goes to
//! 3 position[u] + s. Every block couples unknowns that [W Gᵀ; G 0] couples, so the band is
//! at most 3b + 2 wide: on the A02 chain in body coordinates (N = 485, b = 8 with the tangent
//! pattern) a factorization costs ~2·1455·26·53 ≈ 4·10⁶ flops instead of the dense
//! ⅔·1455³ ≈ 2·10⁹. The values are scattered through slots computed once (rebuilt when the
//! tangent pattern grows or the selection of rows changes); while rows of G are left out as redundant the matrix is that of the
//! kept rows alone ([`BandedStages::for_selection`]: the RCM ordering and band of the
//! mechanism with those rows deleted, no stand-in diagonals), its solves gathering the kept
//! rows' entries of every stage and scattering back with the left-out rows' multipliers 0.
//! Holonomic rows only: models with nonholonomic rows keep the dense path.

use crate::implicit::iteration::ordering;
use crate::implicit::pattern::SparseTangents;
use crate::kkt_compact::{Kept, gather_blocks, held_entries, scatter_blocks};
use crate::kkt_layout::OrderedBand;
use crate::sparse::SparseMatrix;

use super::tableau::RadauTableau;

/// The stage matrix as a banded LU (module docs).
#[derive(Clone, Debug)]
pub(crate) struct BandedStages {
    band: OrderedBand,
    /// The tangent pattern's generation the slots were computed for.
    generation: usize,
    /// Stage s's M block: `mass[s][p]` for M's nonzero p.
    mass: [Vec<usize>; 3],
    /// Block (si, sj) of the dynamic rows: `tangent[3 si + sj][p]` for the tangent entry p.
    tangent: Vec<Vec<usize>>,
    /// Block (si, sj) of the constraint rows: `jac[3 si + sj][p]` for G's nonzero p
    /// ([`LEFT_OUT`] in a row the matrix was built without).
    jac: Vec<Vec<usize>>,
    /// Stage s's Gᵀ block: `jac_t[s][p]`.
    jac_t: [Vec<usize>; 3],
    /// Built for a selection: the rows it holds (module docs).
    kept: Option<KeptStages>,
}

/// The slot of a nonzero of G in a row that a matrix built for a selection does not hold.
const LEFT_OUT: usize = usize::MAX;

/// The kept rows of a [`BandedStages`] built for a selection, with its solves' scratch.
#[derive(Clone, Debug)]
struct KeptStages {
    /// The left-out rows it was built without, increasing.
    left_out: Vec<usize>,
    kept: Kept,
    /// Coordinates n (the stages' accelerations are the first 3n unknowns).
    n: usize,
    /// Right sides in the kept stage-major order (length 3 (n + kept)).
    scratch: Vec<f64>,
}

impl BandedStages {
    /// The layout of the stage matrix over the rows of G other than `left_out` (increasing;
    /// module docs): the RCM ordering and band of [W Gᵀ; G 0] with those rows deleted, the
    /// stages interleaved per unknown. With none left out, every row. Cold path (it allocates).
    pub(crate) fn for_selection(
        mass: &SparseMatrix,
        jac: &SparseMatrix,
        t: &SparseTangents,
        left_out: &[usize],
    ) -> Self {
        let n = t.pattern.n();
        let kept = (!left_out.is_empty()).then(|| Kept::new(jac.rows(), left_out));
        let (held, r) = held_entries(kept.as_ref(), jac.entries(), jac.rows());
        let (position, b) = ordering(&t.pattern, &held, r);
        let rank = |i: usize| kept.as_ref().map_or(Some(i), |k| k.rank(i));
        // Stage-major unknowns (stage s's accelerations at s n.., its held multipliers at
        // 3n + s r..) to 3 position[u] + s.
        let mut interleaved = vec![0; 3 * (n + r)];
        for s in 0..3 {
            for u in 0..n {
                interleaved[s * n + u] = 3 * position[u] + s;
            }
            for i in 0..r {
                interleaved[3 * n + s * r + i] = 3 * position[n + i] + s;
            }
        }
        let band = OrderedBand::new(interleaved, 3 * b + 2);
        let dynamic = |s: usize| move |u: usize| s * n + u;
        let constraint = |s: usize| move |i: usize| 3 * n + s * r + i;
        // A nonzero (i, u) of G at (constraint row of stage si, column of stage sj), or its
        // mirror (column, row) for Gᵀ.
        let slot = |i: usize, j: usize| band.slot(i, j);
        let jac_slot = |si: usize, sj: usize, mirror: bool| {
            move |&(i, u): &(usize, usize)| match rank(i) {
                Some(f) if mirror => slot(dynamic(sj)(u), constraint(si)(f)),
                Some(f) => slot(constraint(si)(f), dynamic(sj)(u)),
                None => LEFT_OUT,
            }
        };
        let (mut tangent, mut jac_blocks) = (Vec::with_capacity(9), Vec::with_capacity(9));
        for si in 0..3 {
            for sj in 0..3 {
                let entries = t.pattern.entries();
                tangent.push(slots(&band, entries, dynamic(si), dynamic(sj)));
                jac_blocks.push(jac.entries().iter().map(jac_slot(si, sj, false)).collect());
            }
        }
        let jac_t =
            std::array::from_fn(|s| jac.entries().iter().map(jac_slot(s, s, true)).collect());
        Self {
            generation: t.generation,
            mass: std::array::from_fn(|s| slots(&band, mass.entries(), dynamic(s), dynamic(s))),
            tangent,
            jac: jac_blocks,
            jac_t,
            kept: kept.map(|kept| KeptStages {
                left_out: left_out.to_vec(),
                n,
                scratch: vec![0.0; 3 * (n + kept.len())],
                kept,
            }),
            band,
        }
    }

    /// Whether the slots fit the tangents' current pattern and the matrix was built for the
    /// selection `left_out` ([`BandedStages::for_selection`]).
    pub(crate) fn serves(&self, t: &SparseTangents, left_out: &[usize]) -> bool {
        let built_for = self.kept.as_ref().map_or(&[][..], |k| &k.left_out[..]);
        self.generation == t.generation && built_for == left_out
    }

    /// Assemble J for step `h` from M and the tangents at the step start and each stage's G
    /// over the rows the matrix holds ([`BandedStages::serves`] the current selection), and
    /// factor it; `Err` when singular.
    pub(crate) fn factor(
        &mut self,
        (tab, h): (&RadauTableau, f64),
        (mass, t): (&SparseMatrix, &SparseTangents),
        g_stage: [&SparseMatrix; 3],
    ) -> Result<(), ()> {
        self.band.clear();
        let band = self.band.band_mut();
        for si in 0..3 {
            for (&s, &m) in self.mass[si].iter().zip(&mass.values) {
                band[s] += m;
            }
            let g = g_stage[si];
            for sj in 0..3 {
                let (cq, cv) = (h * h * tab.a2[si][sj], h * tab.a[si][sj]);
                let slots = &self.tangent[3 * si + sj];
                for (&s, (&k, &c)) in slots.iter().zip(t.k.iter().zip(&t.c)) {
                    band[s] += cq * k + cv * c;
                }
                let a2 = tab.a2[si][sj];
                for (&s, &x) in self.jac[3 * si + sj].iter().zip(&g.values) {
                    if s != LEFT_OUT {
                        band[s] += a2 * x;
                    }
                }
            }
            for (&s, &x) in self.jac_t[si].iter().zip(&g.values) {
                if s != LEFT_OUT {
                    band[s] += x;
                }
            }
        }
        self.band.factor().map_err(|_| ())
    }

    /// Solve in place (stage-major numbering over all rows; a matrix built for a selection
    /// returns the left-out rows' multipliers 0) with the current factors.
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        match &mut self.kept {
            None => self.band.solve_in_place(rhs),
            Some(k) => {
                gather_blocks(3 * k.n, &k.kept, 3, rhs, &mut k.scratch);
                self.band.solve_in_place(&mut k.scratch);
                scatter_blocks(3 * k.n, &k.kept, 3, &k.scratch, rhs);
            }
        }
    }

    /// The pivot spread of the current factors.
    pub(crate) fn pivot_spread(&self) -> f64 {
        self.band.pivot_spread()
    }
}

/// The band slots of `entries` (i, j) placed at (row(i), col(j)) of the stage-major matrix.
fn slots(
    band: &OrderedBand,
    entries: &[(usize, usize)],
    row: impl Fn(usize) -> usize,
    col: impl Fn(usize) -> usize,
) -> Vec<usize> {
    entries
        .iter()
        .map(|&(i, j)| band.slot(row(i), col(j)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::implicit::iteration::fixture::{self, N, R};
    use crate::radau::assembly::{DenseBlocks, DenseStages};
    use crate::redundancy::RowSelection;
    use nalgebra::DMatrix;

    /// The dense blocks of the fixture's holonomic system (M, K, C, an empty N; G at the
    /// start and per stage).
    fn holonomic_blocks<'a>(
        tab: &'a RadauTableau,
        (m0, k0, c0, nh0): (
            &'a DMatrix<f64>,
            &'a DMatrix<f64>,
            &'a DMatrix<f64>,
            &'a DMatrix<f64>,
        ),
        g0: &'a DMatrix<f64>,
        g_stage: [&'a DMatrix<f64>; 3],
    ) -> DenseBlocks<'a> {
        DenseBlocks {
            tab,
            m0,
            k0,
            c0,
            nh0,
            g0,
            g_stage,
            m: R,
        }
    }

    /// The interleaved banded stage matrix solves as the dense one (`assembly.rs`) does, with
    /// G per stage, with and without a redundant row; with the row left out both hold the kept
    /// rows alone (order 3(N + R − 1)) and return its multipliers 0.
    #[test]
    fn banded_stage_matrix_agrees_with_the_dense_one() {
        let tab = RadauTableau::new();
        let h = 0.05;
        for redundant in [false, true] {
            let (m, g, t) = fixture::system(redundant);
            let mut rows = RowSelection::default();
            if redundant {
                assert!(
                    rows.reselect(&fixture::dense(&g, N), 0.0),
                    "the last row is a copy"
                );
            }
            // Stage Jacobians: G scaled per stage (distinct blocks, same pattern).
            let stage_g: [SparseMatrix; 3] = std::array::from_fn(|s| {
                let mut gs = g.clone();
                gs.values
                    .iter_mut()
                    .for_each(|x| *x *= 1.0 + 0.1 * s as f64);
                gs
            });
            let mut banded = BandedStages::for_selection(&m, &g, &t, rows.left_out());
            assert!(banded.serves(&t, rows.left_out()));
            assert_eq!(banded.serves(&t, &[]), !redundant);
            let kept = R - rows.left_out().len();
            assert_eq!(banded.band.dim(), 3 * (N + kept));
            let g_refs = stage_g.each_ref();
            banded.factor((&tab, h), (&m, &t), g_refs).expect("regular");
            let (k, c) = t.dense_copies();
            let (m0, g0) = (fixture::dense(&m, N), fixture::dense(&g, N));
            let gd: [DMatrix<f64>; 3] = std::array::from_fn(|s| fixture::dense(&stage_g[s], N));
            let nh0 = DMatrix::zeros(0, N);
            let blocks = holonomic_blocks(&tab, (&m0, &k, &c, &nh0), &g0, gd.each_ref());
            let mut dense = DenseStages::for_selection(N, R, rows.left_out());
            assert!(dense.serves(rows.left_out()));
            dense.assemble(&blocks, h);
            dense.factor().expect("regular");
            let (mut xb, mut xd) = (fixture::rhs(3 * (N + R)), fixture::rhs(3 * (N + R)));
            banded.solve_in_place(&mut xb);
            dense.solve_in_place(&mut xd);
            for i in 0..3 * (N + R) {
                // Two pivoting orders; the constraint rows' small scale (𝒜² ≈ 0.01) makes the
                // matrix's condition ~1e4: agreement to 1e-10 relative.
                assert!((xb[i] - xd[i]).abs() <= 1e-10 * (1.0 + xd[i].abs()), "{i}");
            }
            for &i in rows.left_out() {
                for s in 0..3 {
                    assert_eq!((xb[3 * N + s * R + i], xd[3 * N + s * R + i]), (0.0, 0.0));
                }
            }
        }
    }

    /// The dense stage system built for a selection gives the masked matrix's solution (the
    /// stand-in's rows and columns deleted: the same factors, module docs of `assembly.rs`)
    /// bit for bit on the kept unknowns.
    #[test]
    fn the_compacted_dense_stage_system_is_the_masked_ones() {
        let tab = RadauTableau::new();
        let h = 0.05;
        let (m, g, t) = fixture::system(true);
        let mut rows = RowSelection::default();
        assert!(rows.reselect(&fixture::dense(&g, N), 0.0));
        let (k, c) = t.dense_copies();
        let (m0, g0) = (fixture::dense(&m, N), fixture::dense(&g, N));
        let nh0 = DMatrix::zeros(0, N);
        let blocks = holonomic_blocks(&tab, (&m0, &k, &c, &nh0), &g0, [&g0, &g0, &g0]);
        let mut compact = DenseStages::for_selection(N, R, rows.left_out());
        compact.assemble(&blocks, h);
        compact.factor().expect("regular");
        let mut masked = crate::lu::DenseLu::new(3 * (N + R));
        let every_row: Vec<usize> = (0..R).collect();
        blocks.stage_matrix(masked.matrix_mut(), h, &every_row);
        let d = g0.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        rows.mask_mapped(masked.matrix_mut(), d, |i| {
            [0, 1, 2].map(|s| Some(3 * N + s * R + i))
        });
        masked.factor().expect("regular");
        let (mut xc, mut xm) = (fixture::rhs(3 * (N + R)), fixture::rhs(3 * (N + R)));
        compact.solve_in_place(&mut xc);
        masked.solve_in_place(&mut xm);
        for i in 0..3 * (N + R) {
            match i >= 3 * N && rows.contains((i - 3 * N) % R) {
                true => assert_eq!(xc[i], 0.0, "{i}"),
                false => assert_eq!(xc[i], xm[i], "{i}"),
            }
        }
    }
}
