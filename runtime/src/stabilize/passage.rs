//! The singular-passage rescue of the drift controls that leave a drift at the accepted state.
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
//!   continuous stabilizations at 1.24 … 7.14 s, on `four-bar-chain` continuous-GGᵀ at 1.7494
//!   and continuous-identity at 6.0377.
//! - S-both: near a rank loss the remainder of its one pass is amplified like 1/σ_min(G), and
//!   the residual left at the accepted state is corrected again by every attempt from it, at
//!   every step size: its error estimate, which contains the correction, cannot pass.
//!   Measured on `four-bar-chain-bodies` at rtol 1e-8: after the passage at t = 5.175 (KKT
//!   pivot spread 8.6e5 against 4.4 at t0) the velocity residual reached 3.5e-9 (3.5 atol)
//!   and the step size underflowed at t = 5.1964 (h = 7e-15).
//!
//! The rescue acts only where such a run would stop: when an attempt's step has collapsed to
//! [`PASSAGE_COLLAPSE`] of the last accepted one (several rejections in a row) and the KKT
//! pivot spread of the right-hand sides since the last accepted state has grown
//! [`PASSAGE_GROWTH`]-fold over the run's first ([`crate::kkt::Conditioning`]: G is losing
//! rank), the accepted state is projected onto Φ = 0, G v + [Φ_t; b] = 0 with PStab's two
//! passes, once per accepted state, and the attempt starts from there (the caller evaluates
//! f there again, so the FSAL slope is the projected state's). The projection is of the
//! accepted state, not of the attempt's end point, so it is no part of the local error
//! estimate (the drift it removes is the run's, not the step's). A run that never stalls
//! near a rank loss is not touched, bit for bit (`mbsim repro all` writes the same files); a
//! spread test alone (10⁴-fold) fired in Chin's chapter-5 sweep under Baumgarte and changed
//! it (one start angle then stopped at t = 3.603). The counter `passage_projections` in
//! [`crate::Stats::extra`] appears only when the rescue fired.

use super::{Stabilization, Stabilizer, projection};
use crate::error::SimError;
use crate::system::ConstrainedSystem;

/// Growth of the KKT pivot spread over the run's first one that marks a stalled attempt as
/// one near a rank loss of G: 10². The A02 chain's body form starts at 4.4 and its passages
/// reach 3.4e4 … 8.6e5 where the runs stalled; the spread is a lower bound of κ's growth.
pub const PASSAGE_GROWTH: f64 = 1e2;

/// The step of an attempt, relative to the last accepted one, at or below which the attempt
/// counts as stalled: 10⁻³, at least four rejections in a row under Hairer's controller (it
/// cuts h by at most 5 per rejection), far below the one or two of an ordinary step.
pub const PASSAGE_COLLAPSE: f64 = 1e-3;

/// The rescue's state (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(super) struct PassageGuard {
    /// The first pivot spread of the run (NaN before it).
    reference: f64,
    /// The largest spread since the last accepted state.
    peak: f64,
    /// Whether the accepted state was projected already.
    done: bool,
    /// Projections made.
    pub(super) projections: u64,
}

impl Default for PassageGuard {
    fn default() -> Self {
        Self {
            reference: f64::NAN,
            peak: 0.0,
            done: false,
            projections: 0,
        }
    }
}

impl PassageGuard {
    /// A new accepted state.
    pub(super) fn accepted(&mut self) {
        (self.peak, self.done) = (0.0, false);
    }
}

impl Stabilization {
    /// Whether the drift control leaves a drift at the accepted state that the rescue removes.
    pub(super) fn rescues_passages(&self) -> bool {
        match self {
            Stabilization::None
            | Stabilization::Baumgarte(_)
            | Stabilization::SBoth
            | Stabilization::VelocityOnly
            | Stabilization::Continuous(_) => true,
            Stabilization::PStab
            | Stabilization::SFull
            | Stabilization::GGt
            | Stabilization::Partitioned(_)
            | Stabilization::Hybrid(_) => false,
        }
    }
}

impl Stabilizer {
    /// Note the pivot spread of a right-hand side's KKT factorization (module docs).
    pub fn note_spread(&mut self, spread: f64) {
        let guard = &mut self.passage;
        if !spread.is_finite() {
            return;
        }
        if guard.reference.is_nan() {
            guard.reference = spread;
        }
        guard.peak = guard.peak.max(spread);
    }

    /// Before an attempt of step `h` from the accepted state (t, q), whose own step was
    /// `h_accepted` (NaN before the first): project it onto the constraint manifold with
    /// PStab's two passes if the attempts from it stalled near a rank loss (module docs).
    /// Returns whether it did (then the caller evaluates the field there again).
    pub fn rescue_passage<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        (t, h, h_accepted): (f64, f64, f64),
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<bool, SimError> {
        let guard = &self.passage;
        let stalled = h.abs() <= PASSAGE_COLLAPSE * h_accepted.abs();
        let near = guard.peak > PASSAGE_GROWTH * guard.reference;
        if guard.done || !stalled || !near || !self.kind.rescues_passages() {
            return Ok(false);
        }
        self.passage.done = true;
        self.passage.projections += 1;
        self.project(sys, t, h, q, v, projection::Variant::PSTAB, None)?;
        Ok(true)
    }

    /// The rescue's projections so far.
    pub fn passage_projections(&self) -> u64 {
        self.passage.projections
    }
}
