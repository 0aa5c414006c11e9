//! The singular-passage guard of the drift controls that leave a drift at the accepted state.
//!
//! PStab, GGᵀ, S-full, GCP and the hybrid correct Φ and G v + [Φ_t; b] after every step (or
//! when they exceed a tolerance) to their round-off. No stabilization, Baumgarte,
//! velocity-only and Chin's continuous stabilizations leave a drift Φ = c ≠ 0 in the
//! positions, and S-both (one pass) a remainder of its pass. On a mechanism whose G loses
//! rank at a position (the IFToMM A02 N-four-bar at its horizontal positions, where every
//! window is a parallelogram at its change point) that drift decides whether a run passes:
//!
//! - a position drift: the index-1 field follows the level set Φ = c, and a parallelogram
//!   whose coupler is off by c is no longer a change-point linkage (its Grashof sum s + l ≠
//!   p + q), so near the singular position the level set turns within a region of width
//!   ~√|c| that the trajectory cannot cross at any step size (the accelerations there are the
//!   inconsistent part of γ amplified by 1/σ_min(G)). Measured on `four-bar-chain-bodies` at
//!   rtol 1e-8: velocity-only and Baumgarte stopped at t = 1.2440, none at 1.2457 (the second
//!   passage; condition of [M Gᵀ; G 0] 1.9e15 and 4.1e14 at the last accepted states), the
//!   continuous stabilizations at 1.24 … 7.14 s; on `four-bar-chain` continuous-GGᵀ at 1.7494
//!   and continuous-identity at 6.0377.
//! - S-both: near a rank loss the remainder of its one pass is amplified like 1/σ_min(G), and
//!   the residual left at the accepted state is corrected again by every attempt from it, at
//!   every step size: its error estimate, which contains the correction, cannot pass.
//!   Measured on `four-bar-chain-bodies` at rtol 1e-8: after the passage at t = 5.175 (KKT
//!   pivot spread 8.6e5 against 4.4 at t0) the velocity residual reached 3.5e-9 (3.5 atol)
//!   and the step size underflowed at t = 5.1964 (h = 7e-15).
//!
//! The guard: every right-hand side reports the pivot spread of its KKT factorization
//! ([`crate::kkt::Conditioning`]); when the largest spread of an attempt has grown
//! [`PASSAGE_GROWTH`]-fold over the run's first (S-both: [`S_BOTH_GROWTH`]-fold), G is losing
//! rank and the next attempt starts from the accepted state projected onto Φ = 0,
//! G v + [Φ_t; b] = 0 with PStab's two passes (the caller evaluates f there again, so the FSAL
//! slope is the projected state's). The projection is of the accepted state, not of the
//! attempt's end point, so it is no part of the local error estimate (the drift it removes is
//! the run's, not the step's). It must come early: a rescue that projected only once the
//! attempts had stalled (h ≤ 10⁻³ of the largest accepted step; first at spread 1.3e7, h =
//! 3.2e-5, 1e-4 s before the passage) did not carry velocity-only or none over the passage at
//! t = 1.2440: the steps crawled into it, projected at every state, and underflowed.
//!
//! It is an option of RKSTAB ([`crate::Rkstab::passage_guard`], `--passage-guard` in
//! `mbsim simulate`), off by default, because it does not carry every cell. Measured over the
//! 20 s at rtol 1e-6 / 1e-8 / 1e-10 (`cargo bench -p mbsim-models --bench passages --
//! stabilizations`): on the body form every guarded control passes at all three tolerances
//! (without it none, Baumgarte, velocity-only and the continuous ones stopped at the second
//! passage or later, S-both at t = 5.196); on the crank-angle form it also carries
//! continuous-GGᵀ and continuous-identity at 1e-6 and 1e-8, velocity-only at 1e-8 and
//! Baumgarte at 1e-6 (which without it end 61 and 74 rad off the reduction: cranks folded at
//! a passage), but stops Baumgarte at 1e-8 (t = 4.653), which passes without it, and
//! velocity-only at 1e-6 (t = 3.209) and none at 1e-8 (t = 8.584), which without it finish
//! 54 and 59 rad off: there the projection, with G ≈ 0 in every row near the horizontal
//! position, moves q by ‖Φ‖/σ_min(G) along the lost directions. Projecting only once, on entering a
//! passage's zone, was worse (the crank form's velocity-only also failed at 1e-8, the body
//! form's at 1e-8). The thesis' reproductions and the conformance snapshot run without it.
//! The counter `passage_projections` in [`crate::Stats::extra`]
//! appears only when the guard fired.
//!
//! Those figures are the guard alone. With the guard RKSTAB now also projects its attempts
//! across a passage by PStab under these controls (`rkstab_passage.rs`, the rules bounded by
//! the spread's growth): on the crank-angle form 3 of the 54 cells 1e-4 … 1e-12 stop (all at
//! 1e-12), against 27 with the guard alone, the cells above included.

use super::{Stabilization, Stabilizer, projection};
use crate::error::SimError;
use crate::system::ConstrainedSystem;

/// Growth of the KKT pivot spread over the run's first one at which the guard projects:
/// 10⁴, four decades of the condition (the spread is a lower bound of κ's growth). The A02
/// chain's body form starts at 4.4 and reaches 3.4e4 … 8.6e5 at the passages its steps land
/// near; the failing runs' last states had conditions of 1e14 … 1e15.
pub const PASSAGE_GROWTH: f64 = 1e4;

/// The same growth for S-both: 10². Its failure comes after the passage, when the spread
/// has fallen again (the guard at 10⁴ alone measured: underflow at t = 5.1964, 0.02 s after
/// the passage); 10² is two decades above the start, where one pass contracts as designed.
pub const S_BOTH_GROWTH: f64 = 1e2;

/// The growth of the KKT pivot spread over a run: its first finite value and the largest
/// since the peak was last cleared. The guard clears it at every test; RKSTAB's passage
/// projection (`rkstab_passage.rs`) at every accepted step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpreadGrowth {
    /// The first pivot spread of the run (NaN before it).
    first: f64,
    /// The largest spread since the peak was last cleared.
    peak: f64,
}

impl Default for SpreadGrowth {
    fn default() -> Self {
        Self {
            first: f64::NAN,
            peak: 0.0,
        }
    }
}

impl SpreadGrowth {
    /// Note the pivot spread of a right-hand side's KKT factorization (non-finite ones are
    /// left out).
    pub(crate) fn note(&mut self, spread: f64) {
        if !spread.is_finite() {
            return;
        }
        if self.first.is_nan() {
            self.first = spread;
        }
        self.peak = self.peak.max(spread);
    }

    /// Whether the peak exceeds `growth` times the first spread.
    pub(crate) fn grown(&self, growth: f64) -> bool {
        self.peak > growth * self.first
    }

    /// Start a new peak.
    pub(crate) fn clear_peak(&mut self) {
        self.peak = 0.0;
    }
}

/// The guard's state (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PassageGuard {
    /// The spread's growth since the last test.
    spread: SpreadGrowth,
    /// Projections made.
    pub(super) projections: u64,
}

impl Stabilization {
    /// The spread growth at which the guard projects, for the drift controls that leave a
    /// drift at the accepted state (module docs); `None` for the others.
    pub(super) fn passage_growth(&self) -> Option<f64> {
        match self {
            Stabilization::None
            | Stabilization::Baumgarte(_)
            | Stabilization::VelocityOnly
            | Stabilization::Continuous(_) => Some(PASSAGE_GROWTH),
            Stabilization::SBoth => Some(S_BOTH_GROWTH),
            Stabilization::PStab
            | Stabilization::SFull
            | Stabilization::GGt
            | Stabilization::Partitioned(_)
            | Stabilization::Hybrid(_) => None,
        }
    }
}

impl Stabilizer {
    /// Note the pivot spread of a right-hand side's KKT factorization (module docs).
    pub fn note_spread(&mut self, spread: f64) {
        self.passage.spread.note(spread);
    }

    /// Before an attempt from the accepted state (t, q, v): project it onto the constraint
    /// manifold with PStab's two passes if the previous attempt's spread says G is losing
    /// rank (module docs). Returns whether it did (then the caller evaluates the field there
    /// again). `h` labels errors.
    pub fn guard_passage<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, h): (f64, f64),
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<bool, SimError> {
        let spread = &mut self.passage.spread;
        let due = self.kind.passage_growth().is_some_and(|g| spread.grown(g));
        spread.clear_peak();
        if !due || self.dims.constraint_rows() == 0 {
            return Ok(false);
        }
        self.passage.projections += 1;
        self.project(sys, t, h, q, v, projection::Variant::PSTAB, None)?;
        Ok(true)
    }

    /// The guard's projections so far.
    pub fn passage_projections(&self) -> u64 {
        self.passage.projections
    }
}
