//! Redundant constraint rows: the one treatment of a rank-deficient G = [Φ_q; A] that every
//! factorization where G enters shares.
//!
//! An over-constrained mechanism (parallel cranks, a Bricard linkage, any spatial loop written
//! with full joints) has rows of G that are combinations of the others on the constraint
//! manifold, so [M Gᵀ; G 0] is singular. A [`RowSelection`] keeps the set of rows that are
//! *left out* of the solves:
//!
//! - **Selection** ([`select_redundant`]): Gram–Schmidt over the rows with threshold row
//!   pivoting (the next row taken is the first, in the model's order, whose remaining norm is
//!   at least half the largest; so the user's order decides among equally good rows and no
//!   ill-conditioned row is taken while a better one waits) until every remaining row is within
//!   [`RANK_TOLERANCE`] · max‖g_i‖ of the span taken: those are redundant. It is the test of
//!   `mbsim check` ([`crate::analysis::jacobian_rank`] uses this function), so a run leaves out
//!   the rows `check` names.
//! - **When**: a selection is made when a factorization with the current set fails (at t0 for a
//!   model redundant everywhere; at a position where the rank drops for one redundant only
//!   there), made again when the kept rows lose conditioning as the mechanism moves
//!   ([`RowSelection::degraded`], pivot spread grown by [`DEGRADATION`]), and undone row by
//!   row when a left-out row becomes independent again
//!   ([`RowSelection::regained`]: after a factorization with rows left out — every one for
//!   the first few after a selection, then on a cadence that keeps up with a row moving away
//!   from the kept rows' span ([`probe_interval`]) — the pivot s_i
//!   that row i would bring into the factored matrix is computed by one solve; the row comes
//!   back when s_i·ω/‖g_i‖² ≥ √ε, i.e. when its relative distance to the span of the others
//!   has reached ε^¼ ≈ 1.2e-4). The two thresholds (a relative distance of √ε to leave, ε^¼
//!   to return) give hysteresis: a consistently redundant row, whose distance is only the
//!   drift's O(‖Φ‖), never comes back; a row of a singular passage returns once the passage
//!   has conditioned the KKT matrix to κ ≲ 1/√ε again.
//! - **Left out** means: the KKT solve ([`crate::kkt`]) factors the system over the kept rows
//!   alone, with its own pattern, RCM ordering and band (`kkt_compact.rs`, rebuilt when the
//!   set changes), and returns λ_i = 0; the larger systems that keep the model's dimensions
//!   (the implicit methods' Newton matrix, Radau's stage system, S-full's HHᵀ, HPIM's S) do
//!   not assemble the row's entries of G and pin its λ_i to 0 by a diagonal entry
//!   d_i = max_j |g_ij| (the row's own scale, so the pivot spread of the conditioning monitor
//!   is not distorted). The redundant rows stay satisfied because they are
//!   combinations of the kept ones on the manifold; their residuals are part of every drift
//!   measurement (DATOL tests, samples, `Stats::max_drift`) and reported on their own in
//!   `Stats::redundant_drift`.
//! - **Multipliers**: a left-out row's λ is 0, as ADAMS reports redundant reactions; the
//!   kept rows carry the whole constraint force Gᵀλ, which is unique. The individual
//!   reactions of an over-constrained mechanism are statically indeterminate (they depend on
//!   the elasticity the rigid model leaves out); [`minimum_norm_multipliers`] redistributes
//!   Gᵀλ over all rows by least norm, which spreads it equally over identical parallel
//!   members, for users who want that reading; [`minimum_norm_multipliers_sparse`] gives the
//!   same on G's nonzeros without a dense SVD (the left null space from the rows this
//!   selection names redundant; ALI3-P's start on the sparse path).

use nalgebra::DMatrix;

pub use crate::redundancy_sparse::minimum_norm_multipliers_sparse;

use crate::analysis::RANK_TOLERANCE;

/// A change of the set of left-out rows during a run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reselection {
    /// When it was made.
    pub t: f64,
    /// The rows left out from then on (indices into G's rows, increasing).
    pub left_out: Vec<usize>,
    /// Why.
    pub cause: ReselectionCause,
}

/// Why the set of left-out rows changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReselectionCause {
    /// The factorization with the previous set was singular: rows were found redundant.
    RankLoss,
    /// A left-out row became independent of the kept ones again and was taken back.
    RankRegained,
    /// The kept rows' conditioning degraded (pivot spread grown by [`DEGRADATION`]) and a
    /// selection at the current state chose other rows.
    Conditioning,
}

/// Growth of the pivot spread, against the first factorization after a selection, at which
/// the set is chosen again ([`RowSelection::degraded`]): 10³, three decades of κ, i.e. three
/// digits of the solves, before the rows are re-chosen (a cold O(r²n) selection).
pub const DEGRADATION: f64 = 1e3;

impl std::fmt::Display for ReselectionCause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ReselectionCause::RankLoss => "rank loss",
            ReselectionCause::RankRegained => "rank regained",
            ReselectionCause::Conditioning => "kept rows ill-conditioned",
        })
    }
}

/// The rows of G left out of the solves of one factorization workspace (see the module docs).
/// Empty, it costs one branch per factorization.
#[derive(Clone, Debug)]
pub struct RowSelection {
    /// `left_out[i]`: row i is left out (allocated at the first selection).
    left_out: Vec<bool>,
    /// The left-out rows, increasing.
    rows: Vec<usize>,
    /// Every change, in time order.
    events: Vec<Reselection>,
    /// Scratch for the regained test (length of the factored order).
    probe: Vec<f64>,
    /// Scratch for the regained test: the row g_i under test (length n).
    row: Vec<f64>,
    /// The pivot spread of the first factorization with the current set (NaN before it).
    spread_at_selection: f64,
    /// Factorizations revised ([`RowSelection::revise_by_rows`]) since the set was chosen.
    revisions: u32,
    /// The revision at which the regained test is next made ([`probe_interval`]).
    next_probe: u32,
}

impl Default for RowSelection {
    fn default() -> Self {
        Self {
            left_out: Vec::new(),
            rows: Vec::new(),
            events: Vec::new(),
            probe: Vec::new(),
            row: Vec::new(),
            spread_at_selection: f64::NAN,
            revisions: 0,
            next_probe: 0,
        }
    }
}

impl RowSelection {
    /// Whether no row is left out.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The left-out rows, increasing.
    pub fn left_out(&self) -> &[usize] {
        &self.rows
    }

    /// Whether row `i` is left out.
    pub fn contains(&self, i: usize) -> bool {
        self.left_out.get(i).copied().unwrap_or(false)
    }

    /// Every change of the set, in time order.
    pub fn events(&self) -> &[Reselection] {
        &self.events
    }

    /// Select the redundant rows of `g` afresh (cold path: it allocates). When `g` has full
    /// numerical rank but its factorization failed anyway (a pivot between round-off and the
    /// rank tolerance), the weakest row is left out. Returns whether the set changed; a
    /// selection that would leave out every row is refused (rank 0 is a singular
    /// configuration, and the caller's singular-matrix error stands).
    pub fn reselect(&mut self, g: &DMatrix<f64>, t: f64) -> bool {
        let pick = select_redundant(g);
        let mut rows = pick.redundant;
        if rows.is_empty()
            && let Some(w) = pick.weakest
        {
            rows.push(w);
        }
        rows.sort_unstable();
        // Every row dependent (G vanishes, e.g. a pendulum at its pivot): a singular
        // configuration, not redundancy — nothing would be left to constrain.
        if rows == self.rows || rows.len() >= g.nrows() {
            return false;
        }
        self.set(g.nrows(), rows, t, ReselectionCause::RankLoss);
        true
    }

    /// Start from another workspace's selection (cold: it allocates): its left-out rows and
    /// the events that made them, for a method whose first factorization of its own comes
    /// after a solve made elsewhere (the implicit methods' Newton matrix after the start's
    /// KKT solve). The conditioning reference and the regained cadence start afresh, since
    /// they belong to the matrix that will be factored, not to `other`'s.
    pub fn continue_from(&mut self, other: &RowSelection) {
        self.left_out.clone_from(&other.left_out);
        self.rows.clone_from(&other.rows);
        self.events.clone_from(&other.events);
        self.spread_at_selection = f64::NAN;
        (self.revisions, self.next_probe) = (0, 0);
    }

    fn set(&mut self, r: usize, rows: Vec<usize>, t: f64, cause: ReselectionCause) {
        self.spread_at_selection = f64::NAN;
        (self.revisions, self.next_probe) = (0, 0);
        self.left_out.clear();
        self.left_out.resize(r, false);
        for &i in &rows {
            self.left_out[i] = true;
        }
        self.events.push(Reselection {
            t,
            left_out: rows.clone(),
            cause,
        });
        self.rows = rows;
    }

    /// After a successful factorization (pivot spread `spread`; `solve` solves with its factors,
    /// order n + r; `omega` the largest diagonal entry of its (1,1) block): whether the set of
    /// left-out rows changed, so that the caller must factor again — a left-out row regained
    /// independence ([`Self::regained`]), or the kept rows lost conditioning and another choice
    /// serves better ([`Self::degraded`]). Nothing to do, and `false`, when no row is left out.
    /// Every factorization where G enters calls this method or its by-rows form.
    pub fn revise(
        &mut self,
        g: &DMatrix<f64>,
        omega: f64,
        spread: f64,
        t: f64,
        solve: impl FnMut(&mut [f64]),
    ) -> bool {
        self.revise_by_rows(g.shape(), rows_of(g), || g, (|| omega, spread, t), solve)
    }

    /// [`Self::revise`] with G given by rows (`row(i, out)`, see [`Self::regained_by_rows`])
    /// and as a dense matrix only when the kept rows degraded (`dense()`, the cold
    /// re-selection): the sparse path's G without a dense copy per factorization; ω is taken
    /// (`omega()`) only when the left-out rows are probed.
    pub(crate) fn revise_by_rows<'g>(
        &mut self,
        shape: (usize, usize),
        row: impl Fn(usize, &mut [f64]),
        dense: impl FnOnce() -> &'g DMatrix<f64>,
        (omega, spread, t): (impl FnOnce() -> f64, f64, f64),
        solve: impl FnMut(&mut [f64]),
    ) -> bool {
        if self.is_empty() {
            return false;
        }
        self.revisions = self.revisions.saturating_add(1);
        let regained = self.revisions >= self.next_probe && {
            let (back, closest) = self.probe(shape, row, omega(), solve);
            self.next_probe = self.revisions + probe_interval(self.revisions, closest);
            self.take_back(back, shape.0, t)
        };
        regained || (self.degraded(spread) && self.reselect_degraded(dense(), spread, t))
    }

    /// After a successful factorization with rows left out, whose pivot spread is `spread`:
    /// whether the kept rows have lost conditioning since the set was chosen (spread grown by
    /// more than [`DEGRADATION`]), so that another choice may serve better. A kept set can
    /// itself approach a rank loss while the mechanism moves (the triple crank's kept `t2_y`
    /// at the crank's bottom position, where the dependency no longer involves the left-out
    /// `t2_x`); the first spread after a selection is the reference.
    pub fn degraded(&mut self, spread: f64) -> bool {
        if self.spread_at_selection.is_nan() {
            self.spread_at_selection = spread;
            return false;
        }
        spread > DEGRADATION * self.spread_at_selection
    }

    /// Select afresh at a degraded state (see [`Self::degraded`]): returns whether the set
    /// changed; if not, the current spread becomes the reference, so the selection is not
    /// repeated at every factorization of a configuration that is ill-conditioned anyway.
    pub fn reselect_degraded(&mut self, g: &DMatrix<f64>, spread: f64, t: f64) -> bool {
        let mut rows = select_redundant(g).redundant;
        rows.sort_unstable();
        if rows.is_empty() || rows == self.rows || rows.len() >= g.nrows() {
            self.spread_at_selection = spread;
            return false;
        }
        self.set(g.nrows(), rows, t, ReselectionCause::Conditioning);
        true
    }

    /// After a successful factorization with rows left out: take back every left-out row whose
    /// would-be pivot s_i = g_i x, x the top block of the solve of [W G_keptᵀ; G_kept 0] with
    /// right side [g_iᵀ; 0], satisfies s_i ω / ‖g_i‖² ≥ √ε (module docs); `omega` is the
    /// largest diagonal entry of W, `solve` solves in place with the current factors (order
    /// n + r). Returns whether any row came back (then the caller factors again).
    pub fn regained(
        &mut self,
        g: &DMatrix<f64>,
        omega: f64,
        t: f64,
        solve: impl FnMut(&mut [f64]),
    ) -> bool {
        self.regained_by_rows(g.shape(), rows_of(g), omega, t, solve)
    }

    /// [`Self::regained`] with G given by rows: `row(i, out)` writes row i of the `shape`
    /// = (r, n) matrix G into `out` (length n) — the sparse path's G without a dense copy. The
    /// same arithmetic in the same order as on a dense G, so the same rows come back.
    pub(crate) fn regained_by_rows(
        &mut self,
        shape: (usize, usize),
        row: impl Fn(usize, &mut [f64]),
        omega: f64,
        t: f64,
        solve: impl FnMut(&mut [f64]),
    ) -> bool {
        let (back, _) = self.probe(shape, row, omega, solve);
        self.take_back(back, shape.0, t)
    }

    /// The regained test's arithmetic ([`Self::regained_by_rows`]): the rows that come back,
    /// and the largest s_i ω / ‖g_i‖² / √ε over the left-out rows (how close the nearest one
    /// is to coming back: 1 at the threshold).
    fn probe(
        &mut self,
        (r, n): (usize, usize),
        row: impl Fn(usize, &mut [f64]),
        omega: f64,
        mut solve: impl FnMut(&mut [f64]),
    ) -> (Vec<usize>, f64) {
        self.probe.resize(n + r, 0.0);
        self.row.resize(n, 0.0);
        let mut back = Vec::new();
        let mut closest = 0.0_f64;
        for &i in &self.rows {
            row(i, &mut self.row);
            let norm2: f64 = self.row.iter().map(|x| x * x).sum();
            if norm2 == 0.0 {
                continue;
            }
            self.probe.fill(0.0);
            self.probe[..n].copy_from_slice(&self.row);
            solve(&mut self.probe);
            let s: f64 = (0..n).map(|j| self.row[j] * self.probe[j]).sum();
            let ratio = s * omega.max(f64::MIN_POSITIVE) / (f64::EPSILON.sqrt() * norm2);
            closest = closest.max(if ratio.is_nan() { f64::INFINITY } else { ratio });
            if s.is_finite() && s * omega.max(f64::MIN_POSITIVE) >= f64::EPSILON.sqrt() * norm2 {
                back.push(i);
            }
        }
        (back, closest)
    }

    /// Take the rows `back` back into an `r`-row G's kept set (an event at `t`); whether any.
    fn take_back(&mut self, back: Vec<usize>, r: usize, t: f64) -> bool {
        if back.is_empty() {
            return false;
        }
        let rows: Vec<usize> = self
            .rows
            .iter()
            .copied()
            .filter(|i| !back.contains(i))
            .collect();
        self.set(r, rows, t, ReselectionCause::RankRegained);
        true
    }

    /// Leave the selected rows out of an assembled augmented matrix `a` whose constraint rows
    /// and columns start at `offset` (`a` = [W Gᵀ; G 0] with offset n): zero row and column
    /// offset + i and put d_i (module docs) on the diagonal.
    pub fn mask_dense(&self, a: &mut DMatrix<f64>, offset: usize, g: &DMatrix<f64>) {
        self.mask_scaled(a, offset, |i| row_scale(g, i));
    }

    /// [`Self::mask_dense`] with the diagonal d_i = `scale(i)` given (the sparse path's
    /// [`crate::sparse::SparseMatrix::row_scale`], equal to [`row_scale`] of the dense G).
    pub(crate) fn mask_scaled(
        &self,
        a: &mut DMatrix<f64>,
        offset: usize,
        scale: impl Fn(usize) -> f64,
    ) {
        for &i in &self.rows {
            let k = offset + i;
            a.row_mut(k).fill(0.0);
            a.column_mut(k).fill(0.0);
            a[(k, k)] = scale(i);
        }
    }

    /// Leave entries `index(i)` of a matrix `a` (the rows of a left-out row i in a larger
    /// system: S-full's HHᵀ, Radau's stage system) out: zero their rows and columns and put
    /// `d` on the diagonal. `index` maps a left-out row to up to three indices of `a`.
    pub fn mask_mapped(&self, a: &mut DMatrix<f64>, d: f64, index: impl Fn(usize) -> Indices) {
        for k in self.rows.iter().flat_map(|&i| index(i)).flatten() {
            a.row_mut(k).fill(0.0);
            a.column_mut(k).fill(0.0);
            a[(k, k)] = d;
        }
    }

    /// Leave the selected rows out of a multiplier matrix S = G W⁻¹ Gᵀ (HPIM's and NPC's,
    /// whose rows and columns are G's rows): zero row and column i and keep the former S_ii
    /// on the diagonal — the row's own scale in S, as d_i is in the KKT matrix, so the pivot
    /// spread is not distorted (1 for a zero row).
    pub fn mask_schur(&self, s: &mut DMatrix<f64>) {
        for &i in &self.rows {
            let d = s[(i, i)];
            s.row_mut(i).fill(0.0);
            s.column_mut(i).fill(0.0);
            s[(i, i)] = if d > 0.0 && d.is_finite() { d } else { 1.0 };
        }
    }

    /// Zero column i of `a` for every left-out row i, in a matrix whose columns are G's rows
    /// (Gᵀ, W⁻¹Gᵀ): products with it then leave the left-out rows out.
    pub fn zero_columns(&self, a: &mut DMatrix<f64>) {
        for &i in &self.rows {
            a.column_mut(i).fill(0.0);
        }
    }

    /// Zero entries `index(i)` of `x` for every left-out row i (see [`Self::mask_mapped`]).
    pub fn zero_mapped(&self, x: &mut [f64], index: impl Fn(usize) -> Indices) {
        for k in self.rows.iter().flat_map(|&i| index(i)).flatten() {
            x[k] = 0.0;
        }
    }

    /// In a Newton correction `delta` of multipliers `lambda` (λ ← λ − δ), make the left-out
    /// rows' update land on λ_i = 0 (their equation is decoupled, so nothing else changes).
    pub fn pin_corrections(&self, lambda: &[f64], delta: &mut [f64]) {
        for &i in &self.rows {
            delta[i] = lambda[i];
        }
    }

    /// Pin the multipliers of the left-out rows in the constraint part `lambda` of a solution
    /// to 0 (the matrix leaves them decoupled, so nothing else changes).
    pub fn zero_multipliers(&self, lambda: &mut [f64]) {
        for &i in &self.rows {
            lambda[i] = 0.0;
        }
    }

    /// The largest |x_i| over the left-out rows of a residual vector `x` (0 when none).
    pub fn max_abs(&self, x: &[f64]) -> f64 {
        self.rows
            .iter()
            .filter_map(|&i| x.get(i))
            .fold(0.0_f64, |s, v| s.max(v.abs()))
    }
}

/// The cadence of the regained test in [`RowSelection::revise_by_rows`]: at every one of the
/// first [`PROBE_GROWTH`] factorizations after a selection, then every `revisions /
/// PROBE_GROWTH`-th (at most every [`MAX_PROBE_INTERVAL`]-th) while the closest left-out row
/// stays below [`PROBE_GUARD`] of the threshold (`closest`, see [`RowSelection::probe`]), and at
/// every one again once it is above.
///
/// Why it catches a returning row as the test at every factorization does: a row left out at
/// a rank loss (a singular passage, a change point) moves away from the kept rows' span at a
/// distance d growing about linearly with the time since the loss, and s_i ∝ d². The gap
/// between two tests is at most 1/[`PROBE_GROWTH`] of the factorizations since the selection,
/// so d grows by at most ~1/8 between tests (for steps that do not grow several-fold within
/// that eighth); and once s_i is above [`PROBE_GUARD`] of the threshold (d above
/// √0.1 ≈ 0.32 of ε^¼) every factorization tests. A row redundant everywhere stays far below the
/// guard (its distance is the drift's and round-off's: measured ≤ 2.7e-2 of the threshold over
/// the redundancy bench's pendulum and A02 chain, every method) and is tested once per
/// [`MAX_PROBE_INTERVAL`] factorizations: one solve per left-out row that often instead of at
/// every factorization.
fn probe_interval(revisions: u32, closest: f64) -> u32 {
    if closest >= PROBE_GUARD {
        1
    } else {
        (revisions / PROBE_GROWTH).clamp(1, MAX_PROBE_INTERVAL)
    }
}

/// See [`probe_interval`]: the gap between regained tests is at most 1/8 of the factorizations
/// since the selection.
pub const PROBE_GROWTH: u32 = 8;

/// See [`probe_interval`]: at most this many factorizations between regained tests.
pub const MAX_PROBE_INTERVAL: u32 = 32;

/// See [`probe_interval`]: s_i ω/‖g_i‖² at 1/10 of the threshold √ε, i.e. a distance of
/// √0.1 ≈ 0.32 of ε^¼, makes every factorization test again.
pub const PROBE_GUARD: f64 = 0.1;

/// Up to three indices of a larger system that one constraint row maps to.
pub type Indices = [Option<usize>; 3];

/// Row access `row(i, out)` to a dense G (the by-rows forms' argument).
fn rows_of(g: &DMatrix<f64>) -> impl Fn(usize, &mut [f64]) + '_ {
    |i, out| {
        for (o, x) in out.iter_mut().zip(g.row(i).iter()) {
            *o = *x;
        }
    }
}

/// The diagonal entry standing in for left-out row i: max_j |g_ij|, or 1 for a zero row.
pub(crate) fn row_scale(g: &DMatrix<f64>, i: usize) -> f64 {
    stand_in(g.row(i).iter())
}

/// max |x| over a row's entries, or 1 where that is 0 or not finite ([`row_scale`]; the
/// sparse path folds a row's nonzeros, the same value).
pub(crate) fn stand_in<'a>(row: impl Iterator<Item = &'a f64>) -> f64 {
    let s = row.fold(0.0_f64, |s, x| s.max(x.abs()));
    if s > 0.0 && s.is_finite() { s } else { 1.0 }
}

/// The outcome of [`select_redundant`].
#[derive(Clone, Debug, PartialEq)]
pub struct Pick {
    /// Rows within the tolerance of the span of the rows taken (increasing).
    pub redundant: Vec<usize>,
    /// The rows taken, in the order taken.
    pub independent: Vec<usize>,
    /// The row taken last, with the smallest remaining norm when taken (`None` if none taken).
    pub weakest: Option<usize>,
    /// Its remaining norm relative to max‖g_i‖.
    pub weakest_distance: f64,
}

/// The redundant rows of `g` by threshold-pivoted Gram–Schmidt (module docs). Cold path.
pub fn select_redundant(g: &DMatrix<f64>) -> Pick {
    let r = g.nrows();
    let unit = g
        .row_iter()
        .map(|row| row.norm())
        .fold(0.0_f64, |s, x| s.max(x));
    let unit = if unit > 0.0 && unit.is_finite() {
        unit
    } else {
        1.0
    };
    let tol = RANK_TOLERANCE * unit;
    let mut rest: Vec<nalgebra::RowDVector<f64>> = g.row_iter().map(|x| x.into_owned()).collect();
    let mut open: Vec<usize> = (0..r).collect();
    let mut independent = Vec::new();
    let (mut weakest, mut weakest_distance) = (None, f64::INFINITY);
    loop {
        let norm = |i: &usize| {
            let x = rest[*i].norm();
            if x.is_nan() { 0.0 } else { x }
        };
        let largest = open.iter().map(norm).fold(0.0_f64, f64::max);
        if open.is_empty() || largest <= tol {
            break;
        }
        let slot = open
            .iter()
            .position(|i| norm(i) >= 0.5 * largest)
            .expect("the largest remaining row qualifies");
        let row = open.remove(slot);
        let length = norm(&row);
        let b = &rest[row] / length;
        for &i in &open {
            for _ in 0..2 {
                let c = rest[i].dot(&b);
                rest[i] -= &b * c;
            }
        }
        independent.push(row);
        (weakest, weakest_distance) = (Some(row), length / unit);
    }
    Pick {
        redundant: open,
        independent,
        weakest,
        weakest_distance,
    }
}

/// The multipliers of least Euclidean norm that give the same constraint force Gᵀλ as `lambda`
/// (module docs): λ* = argmin ‖μ‖ subject to Gᵀμ = Gᵀλ, by the SVD of Gᵀ with singular values
/// below [`RANK_TOLERANCE`]·σ_max treated as zero. Cold path (it allocates); a dense SVD of
/// Gᵀ, O(n·r²): for a large sparse G, [`minimum_norm_multipliers_sparse`].
pub fn minimum_norm_multipliers(g: &DMatrix<f64>, lambda: &[f64]) -> Vec<f64> {
    let force = g.transpose() * nalgebra::DVector::from_column_slice(lambda);
    let svd = g.transpose().svd(true, true);
    let cutoff = RANK_TOLERANCE * svd.singular_values.max();
    match svd.solve(&force, cutoff) {
        Ok(x) => x.as_slice().to_vec(),
        Err(_) => lambda.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_keeps_the_model_order_and_names_the_later_copy() {
        // Row 2 = row 0 + row 1; row 3 repeats row 1.
        let g = DMatrix::from_row_slice(
            4,
            3,
            &[1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.0],
        );
        let pick = select_redundant(&g);
        assert_eq!(pick.independent, vec![0, 1]);
        assert_eq!(pick.redundant, vec![2, 3]);
    }

    #[test]
    fn selection_skips_a_weak_row_while_a_strong_one_waits() {
        // Rows 0 and 1 nearly parallel (distance 1e-6), row 2 independent: row 2 is taken
        // before row 1, which is then still independent (1e-6 > √ε).
        let g = DMatrix::from_row_slice(3, 3, &[1.0, 0.0, 0.0, 1.0, 1e-6, 0.0, 0.0, 0.0, 1.0]);
        let pick = select_redundant(&g);
        assert_eq!(pick.independent, vec![0, 2, 1]);
        assert!(pick.redundant.is_empty());
        assert_eq!(pick.weakest, Some(1));
        assert!((pick.weakest_distance - 1e-6).abs() < 1e-12);
    }

    #[test]
    fn minimum_norm_multipliers_share_equally_over_identical_rows() {
        // Two identical rows: λ = (2, 0) gives force 2 g; the least-norm split is (1, 1).
        let g = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 1.0, 2.0]);
        let l = minimum_norm_multipliers(&g, &[2.0, 0.0]);
        assert!(
            (l[0] - 1.0).abs() < 1e-12 && (l[1] - 1.0).abs() < 1e-12,
            "{l:?}"
        );
    }

    /// The rank-regained path: a row left out while parallel to another is taken back once its
    /// relative distance passes ε^¼, and kept out while below it (hysteresis).
    #[test]
    fn a_row_that_regains_independence_comes_back() {
        let g_at = |delta: f64| DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, delta]);
        let mut sel = RowSelection::default();
        assert!(sel.reselect(&g_at(0.0), 0.0));
        assert_eq!(sel.left_out(), &[1]);
        let factored = |sel: &RowSelection, g: &DMatrix<f64>| {
            let mut lu = crate::lu::DenseLu::new(4);
            let a = lu.matrix_mut();
            a.fill(0.0);
            a.view_mut((0, 0), (2, 2)).fill_with_identity();
            a.view_mut((2, 0), (2, 2)).copy_from(g);
            a.view_mut((0, 2), (2, 2)).tr_copy_from(g);
            sel.mask_dense(a, 2, g);
            lu.factor().expect("regular with the row left out");
            lu
        };
        // Relative distance 1e-6 < ε^¼ ≈ 1.2e-4: stays out.
        let g = g_at(1e-6);
        let lu = factored(&sel, &g);
        assert!(!sel.regained(&g, 1.0, 0.5, |x| lu.solve_in_place(x)));
        assert_eq!(sel.left_out(), &[1]);
        // Relative distance 1e-2: back, with an event.
        let g = g_at(1e-2);
        let lu = factored(&sel, &g);
        assert!(sel.regained(&g, 1.0, 1.0, |x| lu.solve_in_place(x)));
        assert!(sel.is_empty());
        let last = sel.events().last().expect("event");
        assert_eq!((last.t, last.cause), (1.0, ReselectionCause::RankRegained));
    }

    /// The regained test's cadence ([`probe_interval`]): a row moving away from the kept
    /// row's span linearly in the factorization count comes back within 1/8 of the count at
    /// which the test at every factorization takes it back (here at the same one: the guard
    /// has made every factorization test by then); a row that stays dependent is probed at a
    /// small fraction of the factorizations.
    #[test]
    fn the_regained_cadence_keeps_up_with_a_returning_row() {
        let g_at = |delta: f64| DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 1.0, delta]);
        // Relative distance 1e-7 per factorization: ε^¼ ≈ 1.2e-4 is reached at ~1220.
        let rate = 1e-7;
        let factored = |sel: &RowSelection, g: &DMatrix<f64>| {
            let mut lu = crate::lu::DenseLu::new(3);
            let a = lu.matrix_mut();
            a.fill(0.0);
            a.view_mut((0, 0), (2, 2)).fill_with_identity();
            for c in 0..2 {
                let x = g[(1 - sel.left_out()[0], c)];
                (a[(2, c)], a[(c, 2)]) = (x, x);
            }
            lu.factor().expect("regular with the row left out");
            lu
        };
        // The kept system's solve over all rows (the left-out row's entry 0), as kkt.rs gives.
        let solve_with = |lu: &crate::lu::DenseLu, x: &mut [f64]| {
            let mut y = [x[0], x[1], x[2]];
            lu.solve_in_place(&mut y);
            x[..3].copy_from_slice(&y);
            x[3] = 0.0;
        };
        let mut returns = Vec::new();
        for every in [true, false] {
            let mut sel = RowSelection::default();
            assert!(sel.reselect(&g_at(0.0), 0.0));
            let back = (1..10_000).find(|&k| {
                let g = g_at(k as f64 * rate);
                let lu = factored(&sel, &g);
                let solve = |x: &mut [f64]| solve_with(&lu, x);
                match every {
                    true => sel.regained(&g, 1.0, k as f64, solve),
                    false => sel.revise(&g, 1.0, lu.pivot_spread(), k as f64, solve),
                }
            });
            returns.push(back.expect("the row comes back"));
        }
        let (every, cadence) = (returns[0], returns[1]);
        assert!(
            every <= cadence && cadence <= every + every / PROBE_GROWTH as usize,
            "taken back at {cadence}, every-factorization test at {every}"
        );
        // Dependent throughout: probed at the first eight, then at gaps of 1/8 of the count,
        // at most 32 (~70 probes in 1000 factorizations instead of 1000).
        let mut sel = RowSelection::default();
        let g = g_at(0.0);
        assert!(sel.reselect(&g, 0.0));
        let lu = factored(&sel, &g);
        let mut probes = 0;
        for k in 0..1000 {
            let solve = |x: &mut [f64]| {
                probes += 1;
                solve_with(&lu, x)
            };
            assert!(!sel.revise(&g, 1.0, lu.pivot_spread(), k as f64, solve));
        }
        assert!(probes < 100, "{probes} probes over 1000 factorizations");
    }

    #[test]
    fn masking_decouples_the_left_out_row() {
        let g = DMatrix::from_row_slice(2, 2, &[1.0, 0.0, 2.0, 0.0]);
        let mut sel = RowSelection::default();
        assert!(sel.reselect(&g, 0.0));
        assert_eq!(sel.left_out(), &[1]);
        assert!(!sel.reselect(&g, 0.5), "same set: no event");
        let mut a = DMatrix::<f64>::identity(4, 4);
        a.view_mut((2, 0), (2, 2)).copy_from(&g);
        a.view_mut((0, 2), (2, 2)).tr_copy_from(&g);
        sel.mask_dense(&mut a, 2, &g);
        assert_eq!(
            a.row(3).iter().copied().collect::<Vec<_>>(),
            [0.0, 0.0, 0.0, 2.0]
        );
        assert_eq!(
            a.column(3).iter().copied().collect::<Vec<_>>(),
            [0.0, 0.0, 0.0, 2.0]
        );
        assert_eq!(sel.events().len(), 1);
    }
}
