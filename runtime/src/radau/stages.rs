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
//! ⅔·1455³ ≈ 2·10⁹. The values are scattered through slots computed once (rebuilt with the estimate's when the
//! tangent pattern grows); rows of G left out as redundant are not assembled and their
//! multipliers pinned by d on the diagonal in every stage, as `mask_mapped` does on the dense
//! matrix. Holonomic rows only: models with nonholonomic rows keep the dense path.

use crate::implicit::iteration::ordering;
use crate::implicit::pattern::SparseTangents;
use crate::kkt_layout::OrderedBand;
use crate::redundancy::RowSelection;
use crate::sparse::SparseMatrix;

use super::tableau::RadauTableau;

/// The stage matrix as a banded LU (module docs).
#[derive(Clone, Debug)]
pub(crate) struct BandedStages {
    band: OrderedBand,
    /// Stage s's M block: `mass[s][p]` for M's nonzero p.
    mass: [Vec<usize>; 3],
    /// Block (si, sj) of the dynamic rows: `tangent[3 si + sj][p]` for the tangent entry p.
    tangent: Vec<Vec<usize>>,
    /// Block (si, sj) of the constraint rows: `jac[3 si + sj][p]` for G's nonzero p.
    jac: Vec<Vec<usize>>,
    /// Stage s's Gᵀ block: `jac_t[s][p]`.
    jac_t: [Vec<usize>; 3],
    /// Stage s's diagonal of constraint row i: `pin[s][i]`.
    pin: [Vec<usize>; 3],
}

impl BandedStages {
    /// The layout for M's pattern of `mass`, G's of `jac` and the tangents' pattern.
    pub(crate) fn new(mass: &SparseMatrix, jac: &SparseMatrix, t: &SparseTangents) -> Self {
        let (n, r) = (t.pattern.n(), jac.rows());
        let (position, b) = ordering(&t.pattern, jac.entries(), r);
        // Stage-major unknowns (stage s's accelerations at s n.., its multipliers at
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
        let (mut tangent, mut jac_blocks) = (Vec::with_capacity(9), Vec::with_capacity(9));
        for si in 0..3 {
            for sj in 0..3 {
                let entries = t.pattern.entries();
                tangent.push(slots(&band, entries, dynamic(si), dynamic(sj)));
                jac_blocks.push(slots(&band, jac.entries(), constraint(si), dynamic(sj)));
            }
        }
        let transposed: Vec<(usize, usize)> = jac.entries().iter().map(|&(i, u)| (u, i)).collect();
        Self {
            mass: std::array::from_fn(|s| slots(&band, mass.entries(), dynamic(s), dynamic(s))),
            tangent,
            jac: jac_blocks,
            jac_t: std::array::from_fn(|s| slots(&band, &transposed, dynamic(s), constraint(s))),
            pin: std::array::from_fn(|s| {
                (0..r)
                    .map(|i| band.slot(constraint(s)(i), constraint(s)(i)))
                    .collect()
            }),
            band,
        }
    }

    /// Assemble J for step `h` from M and the tangents at the step start and each stage's G,
    /// with the rows of `left_out` pinned by `d`, and factor it; `Err` when singular.
    pub(crate) fn factor(
        &mut self,
        (tab, h): (&RadauTableau, f64),
        (mass, t): (&SparseMatrix, &SparseTangents),
        g_stage: [&SparseMatrix; 3],
        (left_out, d): (&RowSelection, f64),
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
                let slots = &self.jac[3 * si + sj];
                for (p, (&s, &x)) in slots.iter().zip(&g.values).enumerate() {
                    if left_out.is_empty() || !left_out.contains(g.entries()[p].0) {
                        band[s] += a2 * x;
                    }
                }
            }
            for (p, (&s, &x)) in self.jac_t[si].iter().zip(&g.values).enumerate() {
                if left_out.is_empty() || !left_out.contains(g.entries()[p].0) {
                    band[s] += x;
                }
            }
            for &i in left_out.left_out() {
                band[self.pin[si][i]] += d;
            }
        }
        self.band.factor().map_err(|_| ())
    }

    /// Solve in place (stage-major numbering) with the current factors.
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        self.band.solve_in_place(rhs);
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
    use crate::lu::DenseLu;
    use crate::radau::assembly::DenseBlocks;
    use nalgebra::DMatrix;

    /// The interleaved banded stage matrix solves as the dense one (`assembly.rs`) does, with
    /// G per stage and a redundant row left out.
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
            let d = g.values.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
            let mut banded = BandedStages::new(&m, &g, &t);
            let g_refs = stage_g.each_ref();
            banded
                .factor((&tab, h), (&m, &t), g_refs, (&rows, d))
                .expect("regular");
            let (k, c) = t.dense_copies();
            let (m0, g0) = (fixture::dense(&m, N), fixture::dense(&g, N));
            let gd: [DMatrix<f64>; 3] = std::array::from_fn(|s| fixture::dense(&stage_g[s], N));
            let blocks = DenseBlocks {
                tab: &tab,
                m0: &m0,
                k0: &k,
                c0: &c,
                nh0: &DMatrix::zeros(0, N),
                g0: &g0,
                g_stage: gd.each_ref(),
                m: R,
            };
            let mut lu = DenseLu::new(3 * (N + R));
            blocks.stage_matrix(lu.matrix_mut(), h, &rows);
            lu.factor().expect("regular");
            let (mut xb, mut xd) = (fixture::rhs(3 * (N + R)), fixture::rhs(3 * (N + R)));
            banded.solve_in_place(&mut xb);
            lu.solve_in_place(&mut xd);
            for i in 0..3 * (N + R) {
                // Two pivoting orders; the constraint rows' small scale (𝒜² ≈ 0.01) makes the
                // matrix's condition ~1e4: agreement to 1e-10 relative.
                assert!((xb[i] - xd[i]).abs() <= 1e-10 * (1.0 + xd[i].abs()), "{i}");
            }
        }
    }
}
