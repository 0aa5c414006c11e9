//! S-full's sparse path (\[CHIN\] Algorithm 3.2 for a large model with the sparse kernel forms):
//! Hᵀ(HHᵀ)⁻¹ζ is the top block x of the augmented system [I Hᵀ; H 0][x; μ] = [0; ζ]
//! (x = −Hᵀμ, H x = ζ), of order 2n + 2m + k, factored on the KKT machinery's banded path
//! (RCM ordering, banded LU, [`OrderedBand`]) from the nonzeros of H = [[Φ_q, 0], [L, Φ_q],
//! [0, A]]: G's stated pattern and L's (`l_sparsity`). The dense path formed the
//! (2m + k)² matrix HHᵀ by products and factored it densely.
//!
//! The path is taken only where the augmented matrix gets the banded layout
//! ([`KktLayout::Banded`] under [`KktSolver::Auto`]), so every model that factored densely
//! before still does, bit for bit; on the sparse path the correction agrees with the dense
//! path's to round-off. A row of G left out as redundant ([`crate::redundancy`]) takes its rows
//! of H (`h_rows`) out: their entries are not assembled, their multipliers get a unit stand-in
//! on the diagonal and a zero right side, so μ there is 0, as the dense path's masked HHᵀ and
//! zeroed ζ give.

use crate::kkt::KktLayout;
use crate::kkt_layout::{KktSolver, OrderedBand, rcm_position};
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

/// One structural nonzero of H: its row, its column and its source.
#[derive(Clone, Copy, Debug)]
struct HEntry {
    row: usize,
    col: usize,
    source: Source,
}

/// The sparse path's workspace: H's pattern and the banded augmented matrix.
#[derive(Clone, Debug)]
pub(super) struct SparseSFull {
    dims: Dims,
    entries: Vec<HEntry>,
    band: OrderedBand,
    /// [0; ζ] in, [x; μ] out (order 2n + 2m + k).
    rhs: Vec<f64>,
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
        let entries = h_entries(sys, dims);
        let (n2, order) = (2 * dims.n, 2 * dims.n + 2 * dims.m + dims.k);
        let edges: Vec<(usize, usize)> = entries.iter().map(|e| (n2 + e.row, e.col)).collect();
        let (position, bandwidth) = rcm_position(order, &edges);
        if !matches!(
            KktLayout::choose(KktSolver::Auto, order, bandwidth),
            KktLayout::Banded { .. }
        ) {
            return None;
        }
        Some(Self {
            dims,
            entries,
            band: OrderedBand::new(position, bandwidth),
            rhs: vec![0.0; order],
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
        let (n2, m) = (2 * self.dims.n, self.dims.m);
        self.band.clear();
        for c in 0..n2 {
            self.band.add(c, c, 1.0);
        }
        for e in &self.entries {
            if rows.contains(g_row(m, e.row)) {
                continue;
            }
            let value = match e.source {
                Source::G(k) => g.values[k],
                Source::L(i, j) => l[(i, j)],
            };
            self.band.add(n2 + e.row, e.col, value);
            self.band.add(e.col, n2 + e.row, value);
        }
        for &i in rows.left_out() {
            for r in super::sfull::h_rows(m, i).into_iter().flatten() {
                self.band.add(n2 + r, n2 + r, 1.0);
            }
        }
        self.band.factor().is_ok()
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
        let (x, mu) = self.rhs.split_at_mut(2 * n);
        x.fill(0.0);
        mu.copy_from_slice(zeta);
        rows.zero_mapped(mu, |i| super::sfull::h_rows(m, i));
        self.band.solve_in_place(&mut self.rhs);
        let (xq, xv) = self.rhs[..2 * n].split_at(n);
        for (qj, d) in q.iter_mut().zip(xq) {
            *qj -= d;
        }
        for (vj, d) in v.iter_mut().zip(xv) {
            *vj -= d;
        }
    }
}

/// Whether L's stated pattern holds every nonzero of `l`.
fn l_covered<S: ConstrainedSystem + ?Sized>(sys: &S, l: &DMatrix<f64>) -> bool {
    let mut inside = DMatrix::from_element(l.nrows(), l.ncols(), false);
    for &(i, j) in sys.l_sparsity().nonzeros {
        inside[(i, j)] = true;
    }
    l.iter().zip(inside.iter()).all(|(&x, &ok)| ok || x == 0.0)
}

/// The row of G that row `r` of H comes from (the inverse of `h_rows`).
fn g_row(m: usize, r: usize) -> usize {
    if r < m { r } else { r - m }
}

/// H's structural nonzeros: Φ_q at rows 0..m (columns of q), L at rows m..2m (columns of q),
/// G = [Φ_q; A] at rows m..2m + k (columns of v).
fn h_entries<S: ConstrainedSystem + ?Sized>(sys: &S, dims: Dims) -> Vec<HEntry> {
    let (n, m) = (dims.n, dims.m);
    let mut entries = Vec::new();
    for (k, (i, j)) in jacobian_pattern(sys, dims).into_iter().enumerate() {
        if i < m {
            entries.push(HEntry {
                row: i,
                col: j,
                source: Source::G(k),
            });
        }
        entries.push(HEntry {
            row: m + i,
            col: n + j,
            source: Source::G(k),
        });
    }
    for &(i, j) in sys.l_sparsity().nonzeros {
        entries.push(HEntry {
            row: m + i,
            col: j,
            source: Source::L(i, j),
        });
    }
    entries
}
