//! The factors of Radau's two matrices (`newton.rs`): the stage system J of order 3(n + r) and
//! the error estimate's [M + γh C + (γh)² K, Gᵀ; G, 0] of order n + r (γ = γ₀). Dense for small
//! models, assembled from dense M, G, K and C as below; on the sparse path
//! (`implicit/iteration.rs`) both banded from nonzeros (`stages.rs`, [`BandedIteration`]).
//!
//! While rows of G are left out as redundant ([`crate::redundancy`]) the stage system is that
//! of the kept rows alone, of order 3(n + kept) (dense: [`DenseStages`]; banded: its own RCM
//! ordering and band, `stages.rs`), as the Newmark family's Newton matrix
//! ([`BandedIteration::for_selection`]) and the KKT solve's compacted system
//! (`kkt_compact.rs`): no stand-in diagonals, solves over all rows with the left-out rows'
//! multipliers 0. Both are built when the selection changes (a cold path). On the dense path
//! the compacted factors are the masked matrix's with the stand-ins' rows and columns deleted
//! (partial pivoting never picks a decoupled stand-in), so the stage values are the same
//! numbers at a third of the stand-ins' share of the cubic cost. The estimate's matrix is the
//! kept rows' on the banded path too; its dense form keeps the masked order n + r (the row
//! revision reads its pivot spread with the stand-ins' scale, `crate::redundancy`).

use nalgebra::DMatrix;

use crate::implicit::iteration::BandedIteration;
use crate::kkt_compact::{Kept, gather_blocks, scatter_blocks};
use crate::lu::DenseLu;
use crate::redundancy::RowSelection;

use super::stages::BandedStages;
use super::tableau::RadauTableau;

/// The factors of the stage system and of the estimate's matrix.
pub(crate) enum StageMatrix {
    Dense {
        stages: Box<DenseStages>,
        estimate: DenseLu,
    },
    Banded {
        stages: Box<BandedStages>,
        estimate: Box<BandedIteration>,
    },
}

impl StageMatrix {
    /// Solve the stage system in place (stage-major numbering).
    pub(crate) fn solve_stages(&mut self, rhs: &mut [f64]) {
        match self {
            StageMatrix::Dense { stages, .. } => stages.solve_in_place(rhs),
            StageMatrix::Banded { stages, .. } => stages.solve_in_place(rhs),
        }
    }

    /// Solve the estimate's system in place.
    pub(crate) fn solve_estimate(&mut self, rhs: &mut [f64]) {
        match self {
            StageMatrix::Dense { estimate, .. } => estimate.solve_in_place(rhs),
            StageMatrix::Banded { estimate, .. } => estimate.solve_in_place(rhs),
        }
    }

    /// The pivot spread of the stage system's factors.
    pub(crate) fn stages_spread(&self) -> f64 {
        match self {
            StageMatrix::Dense { stages, .. } => stages.pivot_spread(),
            StageMatrix::Banded { stages, .. } => stages.pivot_spread(),
        }
    }

    /// The pivot spread of the estimate's factors.
    pub(crate) fn estimate_spread(&self) -> f64 {
        match self {
            StageMatrix::Dense { estimate, .. } => estimate.pivot_spread(),
            StageMatrix::Banded { estimate, .. } => estimate.pivot_spread(),
        }
    }
}

/// The dense blocks the dense assembly reads: M, K, C and N at the step start, each stage's G.
pub(crate) struct DenseBlocks<'a> {
    pub(crate) tab: &'a RadauTableau,
    pub(crate) m0: &'a DMatrix<f64>,
    pub(crate) k0: &'a DMatrix<f64>,
    pub(crate) c0: &'a DMatrix<f64>,
    pub(crate) nh0: &'a DMatrix<f64>,
    /// G at the step start (the redundant rows' scale).
    pub(crate) g0: &'a DMatrix<f64>,
    pub(crate) g_stage: [&'a DMatrix<f64>; 3],
    /// Holonomic rows m.
    pub(crate) m: usize,
}

impl DenseBlocks<'_> {
    /// J (module docs of `newton.rs`) into `j` (unfactored, of order 3(n + |held|)) over G's
    /// rows `held` (increasing).
    pub(crate) fn stage_matrix(&self, j: &mut DMatrix<f64>, h: f64, held: &[usize]) {
        j.fill(0.0);
        for si in 0..3 {
            self.stage_rows(j, h, si, held);
        }
    }

    /// Block row `si` of J (dynamic rows of stage si with its Gᵀ block, constraint rows of
    /// stage si) from M, K, C at the step start and stage si's G, over G's rows `held`.
    pub(crate) fn stage_rows(&self, j: &mut DMatrix<f64>, h: f64, si: usize, held: &[usize]) {
        let n = self.g0.ncols();
        let (r, m) = (held.len(), self.m);
        let dyn_rows = 3 * n;
        let g = self.g_stage[si];
        for sj in 0..3 {
            let (a2, a) = (self.tab.a2[si][sj], self.tab.a[si][sj]);
            let (cq, cv) = (h * h * a2, h * a);
            for col in 0..n {
                for row in 0..n {
                    let mut x = cq * self.k0[(row, col)] + cv * self.c0[(row, col)];
                    if si == sj {
                        x += self.m0[(row, col)];
                    }
                    j[(si * n + row, sj * n + col)] = x;
                }
                for (f, &row) in held.iter().enumerate() {
                    j[(dyn_rows + si * r + f, sj * n + col)] = match row < m {
                        true => a2 * g[(row, col)],
                        false => a * g[(row, col)] + h * a2 * self.nh0[(row - m, col)],
                    };
                }
            }
        }
        for (f, &row) in held.iter().enumerate() {
            for col in 0..n {
                j[(si * n + col, dyn_rows + si * r + f)] = g[(row, col)];
            }
        }
    }

    /// [M + γh C + (γh)² K, Gᵀ; G, 0] (γ = γ₀) into `e` (unfactored), the rows of `rows` left
    /// out.
    pub(crate) fn estimate_matrix(&self, e: &mut DMatrix<f64>, h: f64, rows: &RowSelection) {
        let (r, n) = self.g0.shape();
        let gh = self.tab.gamma0 * h;
        e.fill(0.0);
        for col in 0..n {
            for row in 0..n {
                e[(row, col)] =
                    self.m0[(row, col)] + gh * self.c0[(row, col)] + gh * gh * self.k0[(row, col)];
            }
            for row in 0..r {
                e[(n + row, col)] = self.g0[(row, col)];
                e[(col, n + row)] = self.g0[(row, col)];
            }
        }
        if !rows.is_empty() {
            rows.mask_dense(e, n, self.g0);
        }
    }
}

/// The dense stage system over the rows of G it holds (module docs), with its solves' scratch.
pub(crate) struct DenseStages {
    lu: DenseLu,
    /// G's rows the factors hold, increasing (every row when none is left out).
    held: Vec<usize>,
    /// Built for a selection: the rows it holds, the left-out ones and the gather's scratch.
    kept: Option<(Kept, Vec<usize>, Vec<f64>)>,
    /// Coordinates n.
    n: usize,
}

impl DenseStages {
    /// The stage system of `n` coordinates over the rows of an `r`-row G other than
    /// `left_out` (increasing). Cold path (it allocates).
    pub(crate) fn for_selection(n: usize, r: usize, left_out: &[usize]) -> Self {
        let kept = Kept::new(r, left_out);
        let order = 3 * (n + kept.len());
        Self {
            lu: DenseLu::new(order),
            held: kept.rows().to_vec(),
            kept: (!left_out.is_empty()).then(|| (kept, left_out.to_vec(), vec![0.0; order])),
            n,
        }
    }

    /// Whether the factors were built for the selection `left_out`.
    pub(crate) fn serves(&self, left_out: &[usize]) -> bool {
        self.kept.as_ref().map_or(&[][..], |k| &k.1[..]) == left_out
    }

    /// Assemble J for step `h` from `blocks` over the rows held.
    pub(crate) fn assemble(&mut self, blocks: &DenseBlocks<'_>, h: f64) {
        blocks.stage_matrix(self.lu.matrix_mut(), h, &self.held);
    }

    /// Factor the assembled matrix; `Err` when singular.
    pub(crate) fn factor(&mut self) -> Result<(), usize> {
        self.lu.factor()
    }

    /// Solve in place (stage-major numbering over all rows; the left-out rows' multipliers 0).
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        match &mut self.kept {
            None => self.lu.solve_in_place(rhs),
            Some((kept, _, scratch)) => {
                gather_blocks(3 * self.n, kept, 3, rhs, scratch);
                self.lu.solve_in_place(scratch);
                scatter_blocks(3 * self.n, kept, 3, scratch, rhs);
            }
        }
    }

    /// The pivot spread of the current factors.
    pub(crate) fn pivot_spread(&self) -> f64 {
        self.lu.pivot_spread()
    }
}
