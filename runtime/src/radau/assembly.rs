//! The factors of Radau's two matrices (`newton.rs`): the stage system J of order 3(n + r) and
//! the error estimate's [M + γh C + (γh)² K, Gᵀ; G, 0] of order n + r (γ = γ₀). Dense for small
//! models, assembled from dense M, G, K and C as below; on the sparse path
//! (`implicit/iteration.rs`) both banded from nonzeros (`stages.rs`, [`BandedIteration`]).

use nalgebra::DMatrix;

use crate::implicit::iteration::BandedIteration;
use crate::lu::DenseLu;
use crate::redundancy::RowSelection;

use super::stages::BandedStages;
use super::tableau::RadauTableau;

/// The factors of the stage system and of the estimate's matrix.
pub(crate) enum StageMatrix {
    Dense {
        stages: DenseLu,
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
    /// J (module docs of `newton.rs`) into `j` (unfactored), the rows of `rows` left out.
    pub(crate) fn stage_matrix(&self, j: &mut DMatrix<f64>, h: f64, rows: &RowSelection) {
        j.fill(0.0);
        for si in 0..3 {
            self.stage_rows(j, h, si);
        }
        if !rows.is_empty() {
            let (r, n) = self.g0.shape();
            let d = self
                .g0
                .iter()
                .fold(0.0_f64, |s, x| s.max(x.abs()))
                .max(f64::MIN_POSITIVE);
            rows.mask_mapped(j, d, |i| [0, 1, 2].map(|s| Some(3 * n + s * r + i)));
        }
    }

    /// Block row `si` of J (dynamic rows of stage si with its Gᵀ block, constraint rows of
    /// stage si) from M, K, C at the step start and stage si's G.
    pub(crate) fn stage_rows(&self, j: &mut DMatrix<f64>, h: f64, si: usize) {
        let (r, n) = self.g0.shape();
        let m = self.m;
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
                for row in 0..m {
                    j[(dyn_rows + si * r + row, sj * n + col)] = a2 * g[(row, col)];
                }
                for row in m..r {
                    j[(dyn_rows + si * r + row, sj * n + col)] =
                        a * g[(row, col)] + h * a2 * self.nh0[(row - m, col)];
                }
            }
        }
        for row in 0..r {
            for col in 0..n {
                j[(si * n + col, dyn_rows + si * r + row)] = g[(row, col)];
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
