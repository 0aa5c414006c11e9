//! GCP's and the hybrid algorithm's sparse path (`partition.rs`; issue 27 item 2): on a large
//! model with the sparse kernel forms, G = [Φ_q; A] stays as its nonzeros
//! ([`JacobianStore`]) and the block of the dependent columns (Φ_u, or G_dep with nonholonomic
//! rows) is factored by a banded LU with partial pivoting under the RCM ordering of its own
//! pattern ([`BandedBlock`]), in every Newton iteration and velocity solve, instead of the dense
//! complete-pivoting LU of order m. The dense path factored a 242 × 242 Φ_u per iteration on
//! the A02 chain in body coordinates.
//!
//! **The pairing.** The block's rows and columns are paired in the pivot order of the choosing
//! LU (row `rows[k]` with column `dependent[k]`, whose entry was pivot k, so nonzero), and the
//! band's ordering is RCM of that square pattern symmetrized. A chain's joint rows touch the
//! coordinates of two neighbouring bodies, so a pairing by pivots stays local and the band
//! narrow; where it does not pay ([`KktLayout::choose`] under [`KktSolver::Auto`], the KKT
//! solve's rule) the dense block is kept for that partition.
//!
//! **The conditioning estimate on this path.** The re-partition test compares ρ = (smallest
//! pivot of the block) / max|G's rows| with its value when the partition was chosen. The
//! dense path's pivots are complete pivoting's (and ρ₀ the choosing LU's pivot ratio, which
//! equals the block's own ρ at that point); here they are partial pivoting's, so ρ₀ is re-based
//! to the banded block's ρ at the choice (`partition.rs`, `choose`): the test keeps its
//! meaning, "the block's ρ fell below `repartition_ratio` times its value when the partition
//! was chosen". As Φ_u approaches singularity its determinant ∏ u_jj goes to 0 while partial
//! pivoting bounds every multiplier by 1, so the smallest pivot goes to 0 on either path; away
//! from it the two estimates differ by a bounded factor that the re-basing removes. The
//! choice itself (the complete-pivoting LU of Φ_q or G) stays on a dense copy, at the first
//! step and at each re-partition only, with the pivot search over cached column maxima
//! (`FullPivLu::factor_with_floor_sparse`: the dense path's factors bit for bit, so both
//! paths choose the same partitions from the same G).
//!
//! Small models (fewer than [`KktSolver::MIN_BANDED_ORDER`] constraint rows) and models
//! without the sparse forms keep the dense path bit for bit; on the sparse path the corrections
//! agree with the dense path's to round-off (different factorizations, the same Newton tests).

use crate::kkt::KktLayout;
use crate::kkt_layout::{KktSolver, OrderedBand, rcm_position};
use crate::sparse::{JacobianStore, SparseMatrix};
use crate::system::{ConstrainedSystem, Dims};

/// Whether GCP takes the sparse path on `sys`: the sparse forms and at least
/// [`KktSolver::MIN_BANDED_ORDER`] constraint rows (below that a dense block is as fast).
pub(super) fn takes_sparse_path<S: ConstrainedSystem + ?Sized>(sys: &S, dims: Dims) -> bool {
    sys.has_nonzero_forms() && dims.constraint_rows() >= KktSolver::MIN_BANDED_ORDER
}

/// The largest |entry| of the first `rows` rows of G (1 if they are empty or zero), on either
/// storage: the same fold as the dense path's `rows_max`, over the nonzeros.
pub(super) fn jac_rows_max(jac: &JacobianStore, rows: usize) -> f64 {
    let big = match &jac.sparse {
        None => jac
            .dense
            .rows(0, rows)
            .iter()
            .fold(0.0_f64, |s, x| s.max(x.abs())),
        Some(g) => (g.entries().iter().zip(&g.values))
            .filter(|((i, _), _)| *i < rows)
            .fold(0.0_f64, |s, (_, x)| s.max(x.abs())),
    };
    if big > 0.0 { big } else { 1.0 }
}

/// The block of G's rows `rows` and columns `dependent` (paired in pivot order) as a banded
/// matrix under RCM, assembled from G's nonzeros.
#[derive(Clone, Debug)]
pub(super) struct BandedBlock {
    /// (index into G's values, band slot) of each nonzero of G inside the block.
    gather: Vec<(usize, usize)>,
    /// The band slot of each diagonal entry (block index k: row `rows[k]`, column
    /// `dependent[k]`): where the factorization leaves the pivots.
    diagonal: Vec<usize>,
    band: OrderedBand,
    /// The smallest |pivot| of the last factorization (0 when it failed).
    smallest: f64,
    /// Whether the last factorization had full rank.
    regular: bool,
}

impl BandedBlock {
    /// The block for a partition, or `None` when its band does not pay (the dense block is
    /// kept). Cold path: it allocates (at each choice of partition).
    pub(super) fn for_choice(
        g: &SparseMatrix,
        n: usize,
        rows: &[usize],
        dependent: &[usize],
    ) -> Option<Self> {
        let order = rows.len();
        if order < KktSolver::MIN_BANDED_ORDER {
            return None;
        }
        let mut row_of = vec![usize::MAX; g.rows()];
        for (k, &r) in rows.iter().enumerate() {
            row_of[r] = k;
        }
        let mut col_of = vec![usize::MAX; n];
        for (k, &c) in dependent.iter().enumerate() {
            col_of[c] = k;
        }
        let inside: Vec<(usize, (usize, usize))> = (g.entries().iter().enumerate())
            .filter(|(_, (i, j))| row_of[*i] != usize::MAX && col_of[*j] != usize::MAX)
            .map(|(p, &(i, j))| (p, (row_of[i], col_of[j])))
            .collect();
        let mut edges: Vec<(usize, usize)> = inside.iter().map(|e| e.1).collect();
        edges.extend((0..order).map(|k| (k, k)));
        let (position, bandwidth) = rcm_position(order, &edges);
        if !matches!(
            KktLayout::choose(KktSolver::Auto, order, bandwidth),
            KktLayout::Banded { .. }
        ) {
            return None;
        }
        let band = OrderedBand::new(position, bandwidth);
        Some(Self {
            gather: inside
                .iter()
                .map(|&(p, (i, j))| (p, band.slot(i, j)))
                .collect(),
            diagonal: (0..order).map(|k| band.slot(k, k)).collect(),
            band,
            smallest: 0.0,
            regular: false,
        })
    }

    /// Assemble the block from G's values and factor it; whether it has full rank: no pivot
    /// at or below order · ε · max(max|block|, `floor`), the dense path's rank test
    /// (`FullPivLu::factor_with_floor`, whose first pivot is max|block|).
    pub(super) fn factor(&mut self, g: &SparseMatrix, floor: f64) -> bool {
        self.band.clear();
        let mut largest = 0.0_f64;
        let band = self.band.band_mut();
        for &(p, slot) in &self.gather {
            band[slot] = g.values[p];
            largest = largest.max(g.values[p].abs());
        }
        let factored = self.band.factor().is_ok();
        let band = self.band.band_mut();
        let smallest = (self.diagonal.iter()).fold(f64::INFINITY, |s, &d| s.min(band[d].abs()));
        let tiny = self.diagonal.len() as f64 * f64::EPSILON * largest.max(floor);
        self.regular = factored && smallest > tiny;
        self.smallest = if self.regular { smallest } else { 0.0 };
        self.regular
    }

    /// The smallest |pivot| of the last factorization (0 if it was rank-deficient).
    pub(super) fn smallest_pivot(&self) -> f64 {
        self.smallest
    }

    /// Whether the last factorization had full rank.
    pub(super) fn regular(&self) -> bool {
        self.regular
    }

    /// Solve block · x = b in place: `b` indexed by block row in, x by block column out.
    pub(super) fn solve_in_place(&mut self, b: &mut [f64]) {
        self.band.solve_in_place(b);
    }
}
