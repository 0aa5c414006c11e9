//! The singular-passage guard of the drift controls that leave the positions to drift.
//!
//! PStab, GGᵀ, S-full, GCP and the hybrid correct Φ after every step (or when it exceeds a
//! tolerance); no stabilization, Baumgarte, velocity-only and Chin's continuous
//! stabilizations leave a drift Φ = c ≠ 0 in the positions, and S-both leaves one pass's
//! O(h^{p+1}) remainder without the second pass that measures its round-off. On a mechanism
//! whose G loses rank at a position (the IFToMM A02 N-four-bar at its horizontal positions,
//! where every window is a parallelogram at its change point) that drift decides whether a
//! run passes: the index-1 field follows the level set Φ = c, and a parallelogram whose
//! coupler is off by c is no longer a change-point linkage (the Grashof sum s + l ≠ p + q), so
//! near the singular position the level set turns within a region of width ~√|c| that the
//! trajectory cannot cross at any step size: the accelerations there grow like 1/σ_min(G)
//! applied to the inconsistent part of γ. Measured on `four-bar-chain-bodies` at rtol 1e-8:
//! velocity-only and Baumgarte stopped at t = 1.2440, none at 1.2457 (the first passage;
//! condition of [M Gᵀ; G 0] 1.9e15 and 4.1e14 at the last accepted states), the continuous
//! stabilizations at the first to fourth passage, S-both with a step-size underflow at 5.175.
//!
//! The guard: every right-hand side of an attempt reports the pivot spread of its KKT
//! factorization ([`crate::kkt::Conditioning`]); when an attempt's largest spread has grown
//! more than [`PASSAGE_GROWTH`] times the first one of the run, the next attempt starts from
//! the accepted state projected onto Φ = 0, G v + [Φ_t; b] = 0 with PStab's two passes (the
//! caller evaluates f there again, so the FSAL slope is that of the projected state). The
//! projection is of the accepted state, not of the attempt's end point, so it is no part of
//! the local error estimate (the drift removed is the whole run's, not this step's). A run
//! that never comes near a rank loss is never touched: the counter
//! `passage_projections` in [`crate::Stats::extra`] appears only when it fired.
//!
//! S-both's own correction of an attempt whose right-hand sides crossed that growth takes
//! PStab's second pass as well: one pass near a rank loss leaves a remainder the error test
//! reads as error at every step size, and no measure of its round-off for the floor
//! (`Stabilizer::floored_scale`); measured: S-both with the projection of the accepted state
//! alone still underflowed at t = 5.1897 (h = 8.5e-15) on `four-bar-chain-bodies`.

use super::{Stabilization, Stabilizer, projection};
use crate::error::SimError;
use crate::system::ConstrainedSystem;

/// Growth of the KKT pivot spread over the run's first one at which the guard projects:
/// 10⁴, four decades of the condition (the spread is a lower bound of κ's growth). A swing of
/// the A02 chain stays within 14 of its start, a passage that a step happens to land near
/// reaches 2.7e2 … 1.9e7; the failing runs' last states had κ ≈ 1e14 … 1e15.
pub const PASSAGE_GROWTH: f64 = 1e4;

/// The guard's state (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(super) struct PassageGuard {
    /// The first pivot spread of the run (NaN before it).
    reference: f64,
    /// The largest spread since the last test.
    peak: f64,
    /// Projections made.
    pub(super) projections: u64,
}

impl Default for PassageGuard {
    fn default() -> Self {
        Self {
            reference: f64::NAN,
            peak: 0.0,
            projections: 0,
        }
    }
}

impl Stabilization {
    /// Whether the drift control leaves the positions to drift between steps (or, S-both,
    /// without a measure of its round-off), so that the singular-passage guard applies.
    pub(super) fn guards_passages(&self) -> bool {
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

    /// Whether the current attempt's pivot spread so far has grown past [`PASSAGE_GROWTH`]
    /// times the run's first one.
    pub(super) fn near_passage(&self) -> bool {
        let guard = &self.passage;
        guard.peak > PASSAGE_GROWTH * guard.reference
    }

    /// Before an attempt from the accepted state (t, q, v): project it onto the constraint
    /// manifold with PStab's two passes if the guard is due (module docs). Returns whether it
    /// did (then the caller evaluates the field at the projected state again). `h` labels
    /// errors.
    pub fn guard_passage<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<bool, SimError> {
        let due = self.near_passage();
        self.passage.peak = 0.0;
        if !due || !self.kind.guards_passages() || self.dims.constraint_rows() == 0 {
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
