//! The minimum-norm correction x = Hᵀ(HHᵀ)⁻¹ζ of a sparse H (rows × cols) on the banded path,
//! shared by S-full's sparse path (`stabilize/sfull_sparse.rs`, H = ∂(Φ; Φ_q v)/∂(q, v)) and the
//! continuous two-step stabilization's (`continuous_sparse.rs`, H₂ = [J₂, G]).
//!
//! x is the top block of the augmented system [I Hᵀ; H 0][x; μ] = [0; ζ] (x = −Hᵀμ,
//! H x = ζ), of order cols + rows, factored under the RCM ordering of its pattern by the banded
//! LU ([`OrderedBand`]) instead of forming the rows × rows Gram matrix HHᵀ by products and
//! factoring it densely. A row of H left out (a redundant constraint row, [`crate::redundancy`])
//! is not assembled: its multiplier gets a unit stand-in on the diagonal and a zero right side,
//! so its μ is 0, as a masked HHᵀ with a zeroed ζ gives.
//!
//! It is built only where the augmented matrix takes the banded layout ([`KktLayout::Banded`]
//! under [`KktSolver::Auto`], the KKT solve's rule); elsewhere the callers keep their dense
//! Gram matrices.

use nalgebra::DMatrix;

use crate::kkt::KktLayout;
use crate::kkt_layout::{KktSolver, OrderedBand, rcm_position};
use crate::system::ConstrainedSystem;

/// The banded [I Hᵀ; H 0] for a fixed pattern of H, and its right side / solution.
#[derive(Clone, Debug)]
pub(crate) struct AugmentedBand {
    /// Columns of H: the length of x.
    cols: usize,
    /// H's structural nonzeros (row, column), in the order the values are given.
    entries: Vec<(usize, usize)>,
    band: OrderedBand,
    /// [0; ζ] in, [x; μ] out (order cols + rows).
    rhs: Vec<f64>,
}

impl AugmentedBand {
    /// The solver for H of `rows × cols` with the structural nonzeros `entries`, if the
    /// augmented matrix takes the banded layout (else `None`).
    pub(crate) fn banded(rows: usize, cols: usize, entries: Vec<(usize, usize)>) -> Option<Self> {
        Self::chosen_by(KktSolver::Auto, rows, cols, entries)
    }

    /// [`Self::banded`] under the policy `solver` (`KktSolver::Banded`: whatever the size).
    pub(crate) fn chosen_by(
        solver: KktSolver,
        rows: usize,
        cols: usize,
        entries: Vec<(usize, usize)>,
    ) -> Option<Self> {
        let order = cols + rows;
        let edges: Vec<(usize, usize)> = entries.iter().map(|&(i, j)| (cols + i, j)).collect();
        let (position, bandwidth) = rcm_position(order, &edges);
        if !matches!(
            KktLayout::choose(solver, order, bandwidth),
            KktLayout::Banded { .. }
        ) {
            return None;
        }
        Some(Self {
            cols,
            entries,
            band: OrderedBand::new(position, bandwidth),
            rhs: vec![0.0; order],
        })
    }

    /// Assemble [I Hᵀ; H 0] with `value(k, i)` the value of entry k, in row i of H (`None`: the
    /// row is left out),
    /// and a unit diagonal on the `left_out` rows of H, and factor it. Whether it factored.
    pub(crate) fn factor(
        &mut self,
        mut value: impl FnMut(usize, usize) -> Option<f64>,
        left_out: impl Iterator<Item = usize>,
    ) -> bool {
        let c = self.cols;
        self.band.clear();
        for j in 0..c {
            self.band.add(j, j, 1.0);
        }
        for (k, &(i, j)) in self.entries.iter().enumerate() {
            if let Some(a) = value(k, i) {
                self.band.add(c + i, j, a);
                self.band.add(j, c + i, a);
            }
        }
        for i in left_out {
            self.band.add(c + i, c + i, 1.0);
        }
        self.band.factor().is_ok()
    }

    /// x = Hᵀ(HHᵀ)⁻¹ζ from the last factorization, with `fill` writing ζ (zero on the left-out
    /// rows) into the slice it is given (length rows).
    pub(crate) fn solve(&mut self, fill: impl FnOnce(&mut [f64])) -> &[f64] {
        self.solve_both(|x, zeta| {
            x.fill(0.0);
            fill(zeta);
        })
        .0
    }

    /// The solution (x, μ) of [I Hᵀ; H 0][x; μ] = [y; ζ] from the last factorization, with
    /// `fill(y, ζ)` writing the right side (ζ zero on the left-out rows): for ζ = 0,
    /// μ = (HHᵀ)⁻¹H y (least squares) and x = y − Hᵀμ (y projected onto ker H).
    pub(crate) fn solve_both(
        &mut self,
        fill: impl FnOnce(&mut [f64], &mut [f64]),
    ) -> (&[f64], &[f64]) {
        let (y, zeta) = self.rhs.split_at_mut(self.cols);
        fill(y, zeta);
        self.band.solve_in_place(&mut self.rhs);
        self.rhs.split_at(self.cols)
    }
}

/// Whether L's stated pattern (`l_sparsity`) holds every nonzero of `l` (L at one point): the
/// check both sparse users of L make once before trusting the pattern.
pub(crate) fn l_covered<S: ConstrainedSystem + ?Sized>(sys: &S, l: &DMatrix<f64>) -> bool {
    let mut inside = DMatrix::from_element(l.nrows(), l.ncols(), false);
    for &(i, j) in sys.l_sparsity().nonzeros {
        inside[(i, j)] = true;
    }
    l.iter().zip(inside.iter()).all(|(&x, &ok)| ok || x == 0.0)
}
