//! S-full's sparse path (\[CHIN\] Algorithm 3.2 for a large model with the sparse kernel forms):
//! Hᵀ(HHᵀ)⁻¹ζ is the top block x of the augmented system [I Hᵀ; H 0][x; μ] = [0; ζ]
//! (x = −Hᵀμ, H x = ζ), of order 2n + 2m + k, factored on the banded path
//! ([`AugmentedBand`]: RCM ordering, banded LU) from the nonzeros of H = [[Φ_q, 0], [L, Φ_q],
//! [0, A]]: G's stated pattern and L's (`l_sparsity`). The dense path formed the
//! (2m + k)² matrix HHᵀ by products and factored it densely.
//!
//! The path is taken only where the augmented matrix gets the banded layout
//! (`KktLayout::Banded` under `KktSolver::Auto`), so every model that factored densely
//! before still does, bit for bit; on the sparse path the correction agrees with the dense
//! path's to round-off. A row of G left out as redundant ([`crate::redundancy`]) takes its rows
//! of H (`h_rows`) out: their entries are not assembled, their multipliers get a unit stand-in
//! on the diagonal and a zero right side, so μ there is 0, as the dense path's masked HHᵀ and
//! zeroed ζ give.

use crate::augmented_band::{AugmentedBand, l_covered};
use crate::redundancy::RowSelection;
use crate::sparse::{SparseMatrix, jacobian_pattern};
use crate::system::{ConstrainedSystem, Dims};
use nalgebra::DMatrix;

/// Where an entry of H takes its value from.
#[derive(Clone, Copy, Debug)]
enum Source {
    /// G's k-th nonzero (the order of [`jacobian_pattern`]).
    G(usize),
    /// L's entry (i, j).
    L(usize, usize),
}

/// The sparse path's workspace: H's pattern with each entry's source, and the banded
/// augmented matrix ([`AugmentedBand`]).
#[derive(Clone, Debug)]
pub(super) struct SparseSFull {
    dims: Dims,
    sources: Vec<Source>,
    band: AugmentedBand,
}

impl SparseSFull {
    /// The workspace for `sys`, if it has the sparse forms and the augmented matrix takes the
    /// banded layout (else `None`: the dense path). `l` is L at the first point: a stated L
    /// pattern that misses one of its nonzeros keeps the dense path (the check the KKT
    /// solve's banded path makes; it cannot catch an entry that happens to vanish there).
    pub(super) fn for_system<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        dims: Dims,
        l: &DMatrix<f64>,
    ) -> Option<Self> {
        if !sys.has_nonzero_forms() || dims.constraint_rows() == 0 || !l_covered(sys, l) {
            return None;
        }
        let (entries, sources) = h_entries(sys, dims);
        let band = AugmentedBand::banded(2 * dims.m + dims.k, 2 * dims.n, entries)?;
        Some(Self {
            dims,
            sources,
            band,
        })
    }

    /// Assemble [I Hᵀ; H 0] from G's nonzeros `g` and L (`l`, dense m × n) without the rows of
    /// H that `rows` leaves out, and factor it. Whether it factored.
    pub(super) fn factor(
        &mut self,
        g: &SparseMatrix,
        l: &DMatrix<f64>,
        rows: &RowSelection,
    ) -> bool {
        let m = self.dims.m;
        let sources = &self.sources;
        let value = |k: usize, row: usize| {
            (!rows.contains(g_row(m, row))).then(|| match sources[k] {
                Source::G(p) => g.values[p],
                Source::L(i, j) => l[(i, j)],
            })
        };
        let left_out = (rows.left_out().iter())
            .flat_map(|&i| super::sfull::h_rows(m, i).into_iter().flatten());
        self.band.factor(value, left_out)
    }

    /// q −= x_q, v −= x_v with x = Hᵀ(HHᵀ)⁻¹ζ from the last factorization; ζ's entries on
    /// left-out rows are not read.
    pub(super) fn correct(
        &mut self,
        zeta: &[f64],
        rows: &RowSelection,
        q: &mut [f64],
        v: &mut [f64],
    ) {
        let (n, m) = (self.dims.n, self.dims.m);
        let x = self.band.solve(|mu| {
            mu.copy_from_slice(zeta);
            rows.zero_mapped(mu, |i| super::sfull::h_rows(m, i));
        });
        let (xq, xv) = x.split_at(n);
        for (qj, d) in q.iter_mut().zip(xq) {
            *qj -= d;
        }
        for (vj, d) in v.iter_mut().zip(xv) {
            *vj -= d;
        }
    }
}

/// The row of G that row `r` of H comes from (the inverse of `h_rows`).
fn g_row(m: usize, r: usize) -> usize {
    if r < m { r } else { r - m }
}

/// H's structural nonzeros and their sources: Φ_q at rows 0..m (columns of q), L at rows
/// m..2m (columns of q), G = [Φ_q; A] at rows m..2m + k (columns of v).
fn h_entries<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    dims: Dims,
) -> (Vec<(usize, usize)>, Vec<Source>) {
    let (n, m) = (dims.n, dims.m);
    let (mut entries, mut sources) = (Vec::new(), Vec::new());
    for (k, (i, j)) in jacobian_pattern(sys, dims).into_iter().enumerate() {
        if i < m {
            entries.push((i, j));
            sources.push(Source::G(k));
        }
        entries.push((m + i, n + j));
        sources.push(Source::G(k));
    }
    for &(i, j) in sys.l_sparsity().nonzeros {
        entries.push((m + i, j));
        sources.push(Source::L(i, j));
    }
    (entries, sources)
}
