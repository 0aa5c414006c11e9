//! The choice between the dense and the banded factorization of the KKT matrix, made once per
//! workspace from the model's structural patterns, and the assembly of [W Gᵀ; G 0] into the
//! chosen storage.
//!
//! On the sparse path (`crate::sparse`, models with the sparse kernel forms) the assembly
//! scatters M's and G's nonzeros straight into the band storage through slots computed once
//! here, with the same values in the same places as the dense gather, so the factors are the
//! same bit for bit.
//!
//! The patterns are M's ([`ConstrainedSystem::mass_sparsity`], dense when the model does not
//! state it), Φ_q's and A's. A pattern is a promise about every evaluation; the first
//! factorization checks it against the matrices at hand and falls back to the dense path if an
//! entry outside it is nonzero, so a wrong hand-written pattern costs speed, never accuracy.

use nalgebra::DMatrix;

use crate::banded::{BandedLu, bandwidth, reverse_cuthill_mckee};
use crate::kkt::Metric;
use crate::kkt_compact::{Compact, Kept};
use crate::lu::{DenseLu, largest_magnitude};
use crate::redundancy::RowSelection;
use crate::sparse::{SparseKkt, jacobian_pattern};
use crate::system::{ConstrainedSystem, Dims};

/// Which factorization the KKT solve uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KktSolver {
    /// Banded when the operation count under the RCM ordering is at most a quarter of the dense
    /// one and the system has at least [`KktSolver::MIN_BANDED_ORDER`] unknowns; else dense.
    #[default]
    Auto,
    /// Always the dense LU with partial pivoting.
    Dense,
    /// Always the banded LU under the RCM ordering (whatever its bandwidth).
    Banded,
}

impl KktSolver {
    /// Below this order (n + m + k) the dense LU is used under `Auto`: at 40 unknowns a dense
    /// factorization is ~20 k flops, a few µs, and the banded path's gathers cost as much.
    pub const MIN_BANDED_ORDER: usize = 40;
    /// `Auto` picks the banded path when it needs at most this fraction of the dense flops.
    pub const BANDED_GAIN: f64 = 4.0;
}

/// The factorization a workspace uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KktLayout {
    /// Dense LU.
    Dense {
        /// Order n + m + k of the augmented matrix.
        order: usize,
    },
    /// Banded LU under the RCM ordering.
    Banded {
        /// Order n + m + k of the augmented matrix.
        order: usize,
        /// Half-bandwidth of the ordered matrix (before the fill of row interchanges).
        bandwidth: usize,
    },
}

impl KktLayout {
    /// The layout `solver` picks for an augmented matrix of order `order` whose half-bandwidth
    /// under RCM is `bandwidth`. Flop counts: dense LU ⅔N³, banded LU with partial pivoting
    /// ≈ 2N·b·(2b + 1) (b multipliers per column, each updating ≤ 2b + 1 columns).
    pub fn choose(solver: KktSolver, order: usize, bandwidth: usize) -> KktLayout {
        let n = order as f64;
        let b = bandwidth as f64;
        let dense_flops = 2.0 / 3.0 * n * n * n;
        let banded_flops = 2.0 * n * b * (2.0 * b + 1.0);
        let banded = match solver {
            KktSolver::Dense => false,
            KktSolver::Banded => true,
            KktSolver::Auto => {
                order >= KktSolver::MIN_BANDED_ORDER
                    && KktSolver::BANDED_GAIN * banded_flops <= dense_flops
            }
        };
        if banded {
            KktLayout::Banded { order, bandwidth }
        } else {
            KktLayout::Dense { order }
        }
    }
}

/// The factors of one workspace: those of the whole system [W Gᵀ; G 0], and, while rows are
/// left out as redundant, those of the system over the kept rows alone ([`Compact`]: its own
/// pattern, RCM ordering and band, built when the selection changes).
#[derive(Clone, Debug)]
pub(crate) struct Factors {
    /// The whole system's factorization (used while no row is left out).
    full: Kkt,
    /// The policy the layouts were chosen by (the compacted system's choice too).
    solver: KktSolver,
    /// The kept rows' factorization, for the selection it was built for.
    compact: Option<Box<Compact>>,
    /// Whether the last factorization was the compacted one.
    compacted: bool,
}

/// A structural pattern as (row, column) pairs.
pub(crate) type Pattern = Vec<(usize, usize)>;

/// One factorization of a KKT matrix: dense or banded.
#[derive(Clone, Debug)]
pub(crate) enum Kkt {
    Dense(DenseLu),
    Banded(Box<BandedKkt>),
}

/// The banded path: the ordering, the patterns to gather and the band storage.
#[derive(Clone, Debug)]
pub(crate) struct BandedKkt {
    n: usize,
    /// The banded LU under the RCM ordering.
    band: OrderedBand,
    /// M's structural nonzeros (with the whole diagonal).
    mass: Vec<(usize, usize)>,
    /// The factored rows' structural nonzeros of G as (row of G, column, row of the factored
    /// block: the same index for the whole system, the kept row's rank for a compacted one).
    jac: Vec<(usize, usize, usize)>,
    /// Whether the patterns have been checked against evaluated matrices (on the sparse path
    /// there is nothing outside them to check; a compacted system's are the whole one's).
    checked: bool,
    /// The sparse path's band slots ([`Slots`]).
    slots: Option<Slots>,
}

/// Where the sparse path's nonzeros go in the band storage: M's value p at `mass[p]`; for each
/// factored nonzero of G, (its value's index p, its slot, the slot of its mirror in Gᵀ); the
/// identity metric's ones at `diagonal`.
#[derive(Clone, Debug)]
struct Slots {
    mass: Vec<usize>,
    jac: Vec<(usize, usize, usize)>,
    diagonal: Vec<usize>,
}

impl Factors {
    /// The factorization `solver` picks for `sys`.
    pub(crate) fn for_system<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        dims: Dims,
        solver: KktSolver,
        sparse: Option<&SparseKkt>,
    ) -> Factors {
        let order = dims.n + dims.constraint_rows();
        let small = order < KktSolver::MIN_BANDED_ORDER;
        let full = if solver == KktSolver::Dense || (solver == KktSolver::Auto && small) {
            Kkt::Dense(DenseLu::new(order))
        } else {
            let mass = mass_pattern(sys, dims.n);
            let rows = dims.constraint_rows();
            let mut jac = jacobian_pattern(sys, sys.dims());
            jac.retain(|&(r, _)| r < rows);
            Kkt::layout_for((dims.n, order), mass, &jac, None, solver, sparse)
        };
        Factors {
            full,
            solver,
            compact: None,
            compacted: false,
        }
    }

    /// Assemble [W Gᵀ; G 0] (W = M or I) from the nonzeros of `sparse` over the rows not in
    /// `left_out` (see [`crate::redundancy`]) and factor it; `Err` when singular. The same
    /// matrix, entry for entry, as [`Factors::factor`] assembles from dense copies.
    pub(crate) fn factor_sparse(
        &mut self,
        metric: Metric,
        sparse: &SparseKkt,
        left_out: &RowSelection,
    ) -> Result<(), ()> {
        self.compacted = !left_out.is_empty();
        if !self.compacted {
            return self.full.factor_sparse(metric, sparse, None);
        }
        let (solver, full) = (self.solver, &self.full);
        let r = sparse.jac.rows();
        let compact = compact_for(&mut self.compact, left_out.left_out(), true, || {
            Compact::new(full, r, left_out.left_out(), solver, Some(sparse))
        });
        compact.factor_sparse(metric, sparse)
    }

    /// The layout of the whole system's factors (a compacted system's, while rows are left
    /// out, is that of the same mechanism with those rows deleted).
    pub(crate) fn layout(&self) -> KktLayout {
        self.full.layout()
    }

    /// The layout of the kept rows' factors while rows are left out.
    pub(crate) fn compact_layout(&self) -> Option<KktLayout> {
        match (self.compacted, &self.compact) {
            (true, Some(c)) => Some(c.layout()),
            _ => None,
        }
    }

    /// Assemble [W Gᵀ; G 0] (W = `mass` or I) over the rows not in `left_out` (see
    /// [`crate::redundancy`]) and factor it; `Err` when singular.
    pub(crate) fn factor(
        &mut self,
        metric: Metric,
        mass: &DMatrix<f64>,
        jac: &DMatrix<f64>,
        left_out: &RowSelection,
    ) -> Result<(), ()> {
        if let Kkt::Banded(b) = &mut self.full {
            if !b.checked {
                b.checked = true;
                if !b.covers(metric, mass, jac) {
                    self.full = Kkt::Dense(DenseLu::new(b.band.dim()));
                    self.compact = None;
                }
            }
        }
        self.compacted = !left_out.is_empty();
        if !self.compacted {
            return self.full.factor(metric, mass, jac, None);
        }
        let (solver, full) = (self.solver, &self.full);
        let r = jac.nrows();
        let compact = compact_for(&mut self.compact, left_out.left_out(), false, || {
            Compact::new(full, r, left_out.left_out(), solver, None)
        });
        compact.factor(metric, mass, jac)
    }

    /// The pivot spread max|u_jj| / min|u_jj| of the current factors.
    pub(crate) fn pivot_spread(&self) -> f64 {
        match (self.compacted, &self.compact) {
            (true, Some(c)) => c.pivot_spread(),
            _ => self.full.pivot_spread(),
        }
    }

    /// Solve in place with the current factors (`rhs` over all rows; with rows left out, their
    /// multipliers come back 0).
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        match (self.compacted, &mut self.compact) {
            (true, Some(c)) => c.solve_in_place(rhs),
            _ => self.full.solve_in_place(rhs),
        }
    }

    /// Solve for two right sides, each bit for bit as [`Factors::solve_in_place`] would.
    pub(crate) fn solve_pair_in_place(&mut self, first: &mut [f64], second: &mut [f64]) {
        match (self.compacted, &mut self.compact) {
            (true, Some(c)) => c.solve_pair_in_place(first, second),
            _ => self.full.solve_pair_in_place(first, second),
        }
    }
}

/// The compacted factors for `left_out`, built by `build` (a cold path: it allocates) unless
/// those at hand were built for the same rows (and for the sparse path when `sparse`).
fn compact_for<'c>(
    slot: &'c mut Option<Box<Compact>>,
    left_out: &[usize],
    sparse: bool,
    build: impl FnOnce() -> Compact,
) -> &'c mut Compact {
    if !slot.as_ref().is_some_and(|c| c.serves(left_out, sparse)) {
        *slot = Some(Box::new(build()));
    }
    slot.as_mut().expect("just built")
}

impl Kkt {
    /// The factorization `solver` picks for the system over W's pattern `mass` and the rows of
    /// G's pattern `jac` that `kept` keeps (all without it): banded under the RCM ordering of
    /// that pattern, or dense; `order` = n + the number of factored rows.
    pub(crate) fn layout_for(
        (n, order): (usize, usize),
        mass: Vec<(usize, usize)>,
        jac: &[(usize, usize)],
        kept: Option<&Kept>,
        solver: KktSolver,
        sparse: Option<&SparseKkt>,
    ) -> Kkt {
        let factored = |r: usize| kept.map_or(Some(r), |k| k.rank(r));
        let jac: Vec<(usize, usize, usize)> = (jac.iter())
            .filter_map(|&(r, c)| factored(r).map(|f| (r, c, f)))
            .collect();
        let edges = kkt_edges(n, &mass, &jac);
        let (position, b) = rcm_position(order, &edges);
        match KktLayout::choose(solver, order, b) {
            KktLayout::Dense { .. } => Kkt::Dense(DenseLu::new(order)),
            KktLayout::Banded { .. } => {
                let band = OrderedBand::new(position, b);
                let slots = sparse.map(|sp| Slots::new(&band, n, sp, factored));
                Kkt::Banded(Box::new(BandedKkt {
                    n,
                    band,
                    mass,
                    jac,
                    checked: slots.is_some() || kept.is_some(),
                    slots,
                }))
            }
        }
    }

    /// Order of the factored matrix.
    pub(crate) fn dim(&self) -> usize {
        match self {
            Kkt::Dense(lu) => lu.dim(),
            Kkt::Banded(b) => b.band.dim(),
        }
    }

    /// The banded path's patterns (M's, G's as (row, column)), `None` on the dense path.
    pub(crate) fn patterns(&self) -> Option<(Pattern, Pattern)> {
        match self {
            Kkt::Dense(_) => None,
            Kkt::Banded(b) => Some((b.mass.clone(), b.jac.iter().map(|e| (e.0, e.1)).collect())),
        }
    }

    /// The layout of these factors.
    pub(crate) fn layout(&self) -> KktLayout {
        match self {
            Kkt::Dense(lu) => KktLayout::Dense { order: lu.dim() },
            Kkt::Banded(b) => b.band.layout(),
        }
    }

    /// Assemble from the nonzeros over the rows `kept` keeps (all without it) and factor.
    pub(crate) fn factor_sparse(
        &mut self,
        metric: Metric,
        sparse: &SparseKkt,
        kept: Option<&Kept>,
    ) -> Result<(), ()> {
        match self {
            Kkt::Dense(lu) => factor_dense_sparse(lu, metric, sparse, kept),
            Kkt::Banded(b) => b.factor_sparse(metric, sparse),
        }
    }

    /// Assemble from dense copies over the rows `kept` keeps (all without it) and factor.
    pub(crate) fn factor(
        &mut self,
        metric: Metric,
        mass: &DMatrix<f64>,
        jac: &DMatrix<f64>,
        kept: Option<&Kept>,
    ) -> Result<(), ()> {
        match self {
            Kkt::Dense(lu) => factor_dense(lu, metric, mass, jac, kept),
            Kkt::Banded(b) => b.factor(metric, mass, jac),
        }
    }

    pub(crate) fn pivot_spread(&self) -> f64 {
        match self {
            Kkt::Dense(lu) => lu.pivot_spread(),
            Kkt::Banded(b) => b.band.pivot_spread(),
        }
    }

    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        match self {
            Kkt::Dense(lu) => lu.solve_in_place(rhs),
            Kkt::Banded(b) => b.band.solve_in_place(rhs),
        }
    }

    pub(crate) fn solve_pair_in_place(&mut self, first: &mut [f64], second: &mut [f64]) {
        match self {
            Kkt::Dense(lu) => {
                lu.solve_in_place(first);
                lu.solve_in_place(second);
            }
            Kkt::Banded(b) => b.band.solve_pair_in_place(first, second),
        }
    }
}

fn factor_dense(
    lu: &mut DenseLu,
    metric: Metric,
    mass: &DMatrix<f64>,
    jac: &DMatrix<f64>,
    kept: Option<&Kept>,
) -> Result<(), ()> {
    let n = jac.ncols();
    let a = lu.matrix_mut();
    let r = a.nrows() - n;
    match metric {
        Metric::Mass => a.view_mut((0, 0), (n, n)).copy_from(mass),
        Metric::Identity => a.view_mut((0, 0), (n, n)).fill_with_identity(),
    }
    match kept {
        None => {
            a.view_mut((n, 0), (r, n)).copy_from(jac);
            a.view_mut((0, n), (n, r)).tr_copy_from(jac);
        }
        Some(k) => {
            for (f, &i) in k.rows().iter().enumerate() {
                for c in 0..n {
                    let x = jac[(i, c)];
                    a[(n + f, c)] = x;
                    a[(c, n + f)] = x;
                }
            }
        }
    }
    a.view_mut((n, n), (r, r)).fill(0.0);
    lu.factor().map_err(|_| ())
}

/// The dense LU's matrix from nonzeros: the dense factorization needs its zero fill anyway.
fn factor_dense_sparse(
    lu: &mut DenseLu,
    metric: Metric,
    sparse: &SparseKkt,
    kept: Option<&Kept>,
) -> Result<(), ()> {
    let a = lu.matrix_mut();
    a.fill(0.0);
    let n = sparse.mass.rows();
    match metric {
        Metric::Mass => {
            for (&(i, j), &x) in sparse.mass.entries().iter().zip(&sparse.mass.values) {
                a[(i, j)] = x;
            }
        }
        Metric::Identity => a.view_mut((0, 0), (n, n)).fill_with_identity(),
    }
    for (&(r, c), &x) in sparse.jac.entries().iter().zip(&sparse.jac.values) {
        if let Some(f) = kept.map_or(Some(r), |k| k.rank(r)) {
            a[(n + f, c)] = x;
            a[(c, n + f)] = x;
        }
    }
    lu.factor().map_err(|_| ())
}

impl Slots {
    /// The slots of `sp`'s nonzeros, G's rows numbered in the factored block by `factored`
    /// (`None`: not factored).
    fn new(
        band: &OrderedBand,
        n: usize,
        sp: &SparseKkt,
        factored: impl Fn(usize) -> Option<usize>,
    ) -> Slots {
        let mass = (sp.mass.entries().iter())
            .map(|&(i, j)| band.slot(i, j))
            .collect();
        let jac = (sp.jac.entries().iter().enumerate())
            .filter_map(|(p, &(r, c))| {
                factored(r).map(|f| (p, band.slot(n + f, c), band.slot(c, n + f)))
            })
            .collect();
        let diagonal = (0..n).map(|i| band.slot(i, i)).collect();
        Slots {
            mass,
            jac,
            diagonal,
        }
    }
}

impl BandedKkt {
    /// [`Kkt::factor_sparse`] on the band: clear, scatter through the slots, factor.
    ///
    /// The pivot test's scale max|a_ij| is taken over the scattered values (all of G's for the
    /// whole system, the kept rows' for a compacted one): the band then holds exactly those
    /// values (distinct slots, each written once onto a zero) and zeros, so it is the scan of
    /// the band's number (NaN ignored either way) at a tenth of its reads.
    fn factor_sparse(&mut self, metric: Metric, sp: &SparseKkt) -> Result<(), ()> {
        let slots = self
            .slots
            .as_ref()
            .expect("BandedKkt: sparse factorization without slots");
        self.band.clear();
        let band = self.band.band_mut();
        let mass_values = &sp.mass.values[..slots.mass.len()];
        let w_scale = match metric {
            Metric::Mass => {
                for (&k, &x) in slots.mass.iter().zip(mass_values) {
                    band[k] += x;
                }
                largest_magnitude(mass_values)
            }
            Metric::Identity => {
                for &k in &slots.diagonal {
                    band[k] += 1.0;
                }
                if slots.diagonal.is_empty() { 0.0 } else { 1.0 }
            }
        };
        // The scattered values' largest magnitude on the way (exact; a NaN compares false).
        let mut jac_scale = 0.0_f64;
        for &(p, k, k_mirror) in &slots.jac {
            let x = sp.jac.values[p];
            band[k] += x;
            band[k_mirror] += x;
            if x.abs() > jac_scale {
                jac_scale = x.abs();
            }
        }
        self.band
            .factor_with_scale(w_scale.max(jac_scale))
            .map_err(|_| ())
    }

    fn factor(
        &mut self,
        metric: Metric,
        mass: &DMatrix<f64>,
        jac: &DMatrix<f64>,
    ) -> Result<(), ()> {
        let (n, band) = (self.n, &mut self.band);
        band.clear();
        match metric {
            Metric::Mass => {
                for &(i, j) in &self.mass {
                    band.add(i, j, mass[(i, j)]);
                }
            }
            Metric::Identity => {
                for i in 0..n {
                    band.add(i, i, 1.0);
                }
            }
        }
        for &(r, c, f) in &self.jac {
            let x = jac[(r, c)];
            band.add(n + f, c, x);
            band.add(c, n + f, x);
        }
        band.factor().map_err(|_| ())
    }

    /// Whether every nonzero of the matrices at hand lies in the stated patterns.
    fn covers(&self, metric: Metric, mass: &DMatrix<f64>, jac: &DMatrix<f64>) -> bool {
        let jac_ok = covered(jac, self.jac.iter().map(|e| (e.0, e.1)));
        let mass_ok = metric == Metric::Identity || covered(mass, self.mass.iter().copied());
        jac_ok && mass_ok
    }
}

/// Whether `matrix` is zero outside `pattern`.
fn covered(matrix: &DMatrix<f64>, pattern: impl Iterator<Item = (usize, usize)>) -> bool {
    let mut inside = DMatrix::from_element(matrix.nrows(), matrix.ncols(), false);
    for (i, j) in pattern {
        inside[(i, j)] = true;
    }
    matrix
        .iter()
        .zip(inside.iter())
        .all(|(&x, &ok)| ok || x == 0.0)
}

/// M's stated pattern with the whole diagonal (the identity metric needs it), or all of M.
fn mass_pattern<S: ConstrainedSystem + ?Sized>(sys: &S, n: usize) -> Vec<(usize, usize)> {
    let mut entries = crate::sparse::mass_entries(sys, n);
    entries.extend((0..n).map(|i| (i, i)));
    entries.sort_unstable();
    entries.dedup();
    entries
}

/// The RCM ordering of `order` unknowns whose matrix has the symmetric pattern `edges`:
/// `position[old] = new` and the half-bandwidth under it.
pub(crate) fn rcm_position(order: usize, edges: &[(usize, usize)]) -> (Vec<usize>, usize) {
    let order_rcm = reverse_cuthill_mckee(order, edges);
    let mut position = vec![0; order];
    for (new, &old) in order_rcm.iter().enumerate() {
        position[old] = new;
    }
    let b = bandwidth(edges, &position);
    (position, b)
}

/// A banded LU whose unknowns are renumbered (`position[old] = new`, the RCM ordering): the
/// assembly writes at the band slots of original (row, column) pairs, the solves take and
/// return right sides in the original numbering. The KKT matrix's banded path and the implicit
/// methods' Newton and stage matrices share it.
#[derive(Clone, Debug)]
pub(crate) struct OrderedBand {
    lu: BandedLu,
    position: Vec<usize>,
    scratch: Vec<f64>,
    scratch_pair: Vec<f64>,
}

impl OrderedBand {
    /// Storage for the unknowns renumbered by `position`, half-bandwidth `bandwidth` under it.
    pub(crate) fn new(position: Vec<usize>, bandwidth: usize) -> Self {
        let order = position.len();
        Self {
            lu: BandedLu::new(order, bandwidth, bandwidth),
            position,
            scratch: vec![0.0; order],
            scratch_pair: vec![0.0; order],
        }
    }

    /// Order of the matrix.
    pub(crate) fn dim(&self) -> usize {
        self.lu.dim()
    }

    /// The layout: banded, its order and half-bandwidth.
    pub(crate) fn layout(&self) -> KktLayout {
        KktLayout::Banded {
            order: self.lu.dim(),
            bandwidth: self.lu.bandwidths().0,
        }
    }

    /// The band storage's index of entry (i, j) in the original numbering (`assert!` inside
    /// the band).
    pub(crate) fn slot(&self, i: usize, j: usize) -> usize {
        self.lu.slot(self.position[i], self.position[j])
    }

    /// Add `value` to entry (i, j) in the original numbering.
    pub(crate) fn add(&mut self, i: usize, j: usize, value: f64) {
        self.lu.add(self.position[i], self.position[j], value);
    }

    /// Zero the matrix before it is assembled again.
    pub(crate) fn clear(&mut self) {
        self.lu.clear();
    }

    /// The band storage, written at [`OrderedBand::slot`]s.
    pub(crate) fn band_mut(&mut self) -> &mut [f64] {
        self.lu.band_mut()
    }

    /// Factor in place ([`BandedLu::factor`]).
    pub(crate) fn factor(&mut self) -> Result<(), usize> {
        self.lu.factor()
    }

    /// Factor in place with the caller's max|a_ij| ([`BandedLu::factor_with_scale`]).
    pub(crate) fn factor_with_scale(&mut self, scale: f64) -> Result<(), usize> {
        self.lu.factor_with_scale(scale)
    }

    /// The pivot spread of the last factorization.
    pub(crate) fn pivot_spread(&self) -> f64 {
        self.lu.pivot_spread()
    }

    /// Solve in place, `rhs` in the original numbering.
    pub(crate) fn solve_in_place(&mut self, rhs: &mut [f64]) {
        for (i, &p) in self.position.iter().enumerate() {
            self.scratch[p] = rhs[i];
        }
        self.lu.solve_in_place(&mut self.scratch);
        for (i, &p) in self.position.iter().enumerate() {
            rhs[i] = self.scratch[p];
        }
    }

    /// Solve for two right sides in one sweep ([`BandedLu::solve_pair_in_place`]).
    pub(crate) fn solve_pair_in_place(&mut self, first: &mut [f64], second: &mut [f64]) {
        for (i, &p) in self.position.iter().enumerate() {
            self.scratch[p] = first[i];
            self.scratch_pair[p] = second[i];
        }
        self.lu
            .solve_pair_in_place(&mut self.scratch, &mut self.scratch_pair);
        for (i, &p) in self.position.iter().enumerate() {
            first[i] = self.scratch[p];
            second[i] = self.scratch_pair[p];
        }
    }
}

/// The symmetric pattern of [M Gᵀ; G 0] as edges (i, j) of the unknowns 0..n+r.
fn kkt_edges(
    n: usize,
    mass: &[(usize, usize)],
    jac: &[(usize, usize, usize)],
) -> Vec<(usize, usize)> {
    let mut edges = mass.to_vec();
    edges.extend(jac.iter().map(|&(_, c, f)| (n + f, c)));
    edges
}
