//! RKSTAB's attempts across a singular passage under the projection-complete drift controls
//! (S-full, GCP, the hybrid), S-both and GGᵀ, and with the guard the drift-only ones: PStab
//! instead of the chosen correction once the rejections show the passage's noise signature
//! (`stabilize/signature.rs`).
//!
//! On the A02 chain at rtol 1e-10 these controls stopped at a passage where PStab crosses in
//! one regular step (README, "Singular passages under RKSTAB's drift controls"): the steps
//! approached t* geometrically, every attempt that crossed it rejected with an estimate that
//! grew as h shrank (body form, GCP: 1.3 … 31 from 1.8e-3 before t* = 0.72158, 393 … 1927
//! from 3.9e-4), from the one crank GCP keeps independent, which its correction leaves alone;
//! S-full's second correction stagnated at 38 atol in v, the noise its estimate contains, and
//! nearer t* its KKT matrix [[G, 0], [L, G]] turned singular at every h. So:
//! - an attempt whose estimate shows the signature, or whose correction fails (a retryable
//!   error) inside the approach, keeps its stages and has its end projected again by PStab
//!   from the unstabilized result z~, with k_7 at that end and the stabilized estimate in
//!   PStab's weights (all 2n components, its own round-off floor);
//! - before the first such attempt from a t, the accepted state itself is projected by PStab
//!   (and its stages evaluated again): the chosen control leaves a round-off residual there
//!   that PStab would otherwise correct in every attempt as if it were error (measured: a
//!   constant 1.6 at every h from 7e-4 down to 7e-8, S-full, t = 2.6846);
//! - every attempt from the passage's zone is made so: the union of the rejected spans since
//!   the steps last passed them all (the approach), extended as far again beyond its end,
//!   since the estimates blow up before the steps reach t* (the spans of the rejections ended
//!   short of it; with the approach's span alone S-full 1e-10 stopped at 2.6867, with only
//!   the last rejection's at 1.2435).
//!
//! - a creep is taken as the signature too: on the crank form with GCP at rtol 1e-11 every
//!   step toward the passage at t* = 10.54959 was rejected once (estimates 1.0 … 800) and
//!   accepted 0.5 … 0.6 times shorter (0.02 … 0.6), so each next attempt began inside the last
//!   rejected span and ended just past it, never inside it, and the signature's spanning test
//!   never applied; the steps shrank from 1.1e-2 to 1.5e-7 over 80 such pairs until the run
//!   stopped (singular KKT at 10.5496). So under GCP and the hybrid the approach also counts
//!   its rejections: the fourth, with a step 10 times shorter than the first's and an estimate
//!   that fell by less than (h / h_1)² from the first's (here 20 against 25 at h 13 times
//!   shorter), marks the signature; with the eighth instead the steps were already 6e-5 from
//!   t* and the PStab attempts stalled at estimates 1 … 2.6. The cause is GCP's: its estimate
//!   measures the independent crank, which its correction leaves alone (above). Under S-full
//!   the same rule fired at passages only, but made the body form at 1e-10 less accurate
//!   (2.7e-8 → 2.4e-6, with the estimate condition 1.1e-4), so S-full keeps the rules above.
//! - a jump is taken as the signature too, under GCP and the hybrid: a rejection whose
//!   estimate exceeds [`JUMP_ESTIMATE`] (100). Measured on the crank form with the hybrid at
//!   rtol 1e-11: the step from 6.6075 of 1.06e-2 across the passage at t* = 6.6183866 was
//!   rejected with 263 (the accepted steps before it had 0.3), where RKSTAB/PStab crosses with
//!   one step of 1.1e-2 and estimate 0.14. The creep rule marked the signature only at the
//!   fifth rejection, 1.8e-4 before t*, and from there every PStab attempt that crossed t* was
//!   rejected, the steps shrank ∝ t* − t, and the estimates turned to noise proportional to
//!   h (1.55 million attempts; the run stopped at t*). Taken at the first such rejection, the
//!   PStab attempts begin 1.1e-2 before t* and cross it as a PStab run does. Over the 20 s
//!   (`passages -- stabilizations gcp hybrid`, 1e-4 … 1e-12, both forms): the hybrid's crank
//!   form at 1e-11 / 1e-12 passes with 6.2e-8 / 4.0e-9 (stopped at 6.618 / 0.7216), GCP's and
//!   the hybrid's body form at 1e-12 with 1.8e-8 / 6.2e-8 (1.1e-4 / 5.4e-3), the body form at
//!   1e-11 GCP 1.9e-7 → 4.9e-8, the hybrid 1.1e-6 → 7.6e-8; five more cells moved by ≤ 30 %
//!   (crank GCP 1e-11 3.94e-8 → 4.00e-8, 1e-12 4.4e-9 → 3.5e-9, hybrid 1e-10 3.93e-7 →
//!   3.97e-7; body hybrid 1e-7 8.02e-4 → 7.85e-4, 1e-10 6.52e-7 → 6.79e-7), the 25 others are
//!   unchanged; so are the 32 reproduction tables and the conformance snapshot (no rejection
//!   there reaches 100 under GCP or the hybrid).
//!
//! S-both and GGᵀ take these rules too, bounded by the rank loss they are for: the spanning
//! signature, the creep and the jump count only while the largest KKT pivot spread since the
//! last accepted step exceeds [`RANK_LOSS_GROWTH`] (10) times the run's first. Unbounded, the
//! spanning signature fired on Andrews under GGᵀ at rtol 1e-5 (5 passage attempts, from
//! rejections of steps not yet in the asymptotic regime) though the spread there never grew
//! over the run's first (0.003 … 1.0 of it at every rejection). On the A02 chain the spread
//! grows ~ 1/d² at distance d from a horizontal position (body form 4.4 at t0, 3.4e4 … 8.6e5
//! at the passages its steps land near); a bound of 10² missed the body form's approach at
//! rtol 1e-12, whose estimates had stalled at spread growth 16 already. There, and wherever
//! the estimate does not fall at all, a stall counts as well, without the spread: the
//! [`CREEP_REJECTIONS`]th rejection in one approach with a step [`STALL_SHRINK`] (100) times
//! shorter than the first's and an estimate that fell by less than h / h_1 (truncation would
//! have fallen by 10¹⁰) — a run stalled so underflows anyway (S-both, body form, 1e-12: 20 … 42
//! rejections, estimates 1.0 … 2.3 at h / h_1 ≈ 0.009). Measured over the 20 s, 1e-4 … 1e-12,
//! both forms (`passages -- stabilizations s-both ggt`), before → after:
//! - S-both, crank form, 1e-11 / 1e-12: step-size underflows at the first passage (t =
//!   1.2433 / 1.2419, its one pass's remainder met again by every attempt) → 4.05e-8 / 5.2e-9;
//! - S-both, body form, 1e-8 … 1e-12: underflows at t = 5.175, 4.652, 0.7207, 0.7127, 0.6950
//!   → 2.2e-6, 2.6e-7, 1.75e-8, 4.5e-8, 6.9e-9;
//! - GGᵀ, crank form, 1e-12: 6.8e-4 → 4.3e-9 (1e-11: 3.69e-8 → 4.06e-8);
//! - GGᵀ, body form, 1e-10 / 1e-11 / 1e-12: 1.25e-7 → 1.04e-8, 2.7e-7 → 4.4e-8, 2.2e-8 →
//!   1.2e-7 (worse, still within 10⁵ rtol; with the rules off but the stall on it measured
//!   1.2e-6: the phase at this tolerance moves with every change of the passage steps);
//! - S-both crank 1e-10: the same error, NFCN 9 218 → 9 364; the 23 other cells are
//!   unchanged, and so are the 32 reproduction tables, the conformance snapshot and Andrews'
//!   statistics snapshot.
//!
//! The drift-only controls (none, Baumgarte, velocity-only, the continuous ones) take the
//! bounded rules only with the singular-passage guard, which is opt-in
//! ([`crate::Rkstab::passage_guard`], `stabilize/passage.rs`). By default they do not: there
//! the unbounded rules fired in Chin's reproductions of the unstabilized drift (Table P5
//! stopped at t = 0.124 and failed its checks; P5-Baumgarte, 4.1, 4.7, P8, P10, P11 changed).
//! With the guard, over the 20 s, 1e-4 … 1e-12 (`passages -- stabilizations guard`), before →
//! after:
//! - crank form: 27 of the 54 cells stopped (singular configurations and underflows at the
//!   passages, 1e-8 and tighter for most; velocity-only at 1e-4 … 1e-7 too), now 3 do (1e-12:
//!   velocity-only and none at 0.7215, two-step at 6.6184); from 1e-6 on every other cell is
//!   at most twice PStab's error (6.05e-3 at 1e-6 … 4.3e-9 at 1e-12), except
//!   Baumgarte at 1e-12 (2.7e-2);
//! - body form: every cell passed and passes; 38 of the 54 moved by at most a factor 2.4.
//!   Better: velocity-only 1e-11 / 1e-12 5.4e-4 / 1.7e-3 → 1.5e-7 / 1.9e-8, two-step 1e-12
//!   1.3e-5 → 2.7e-9, none 1e-4 / 1e-10 / 1e-12 67 / 2.5e-5 / 3.8e-5 → 0.50 / 1.5e-7 /
//!   1.9e-6, continuous-identity 1e-10 3.2e-4 → 5.5e-5. Worse: continuous-identity 1e-7 /
//!   1e-8 / 1e-9 / 1e-11 / 1e-12 2.6e-6 / 2.0e-7 / 1.2e-8 / 8.5e-9 / 5.5e-9 → 1.7e-5 /
//!   1.0e-6 / 7.2e-6 / 6.3e-7 / 2.9e-8, two-step 1e-10 / 1e-11 2.6e-7 / 1.0e-7 → 1.6e-5 /
//!   1.2e-6, none 1e-11 2.1e-9 → 6.8e-7, Baumgarte 1e-11 1.5e-8 → 2.3e-7, continuous-GGᵀ
//!   1e-11 / 1e-12 2.3e-7 / 1.5e-7 → 1.0e-6 / 4.0e-6. The tight cells of these controls
//!   scatter with every change of the steps near a passage (their drift is what the
//!   projections remove there).
//! - Measured, not adopted: skipping the guard's projection of the accepted state before an
//!   attempt across a passage (PStab projects those). On the crank form it carried Baumgarte,
//!   velocity-only, none and two-step at 1e-12 (4.0e-9 … 4.2e-9) but stopped none at 1e-11
//!   and continuous-identity at 1e-12, and moved continuous-GGᵀ at 1e-12 to 1.9e-5; on the
//!   body form continuous-identity at 1e-9 / 1e-10 ended 1.4e-3 / 1.7e-3 off, Baumgarte at
//!   1e-12 6.5e-5. Where the crank form's guarded cells stop, the PStab attempts crawl up to
//!   the passage: velocity-only at 1e-12 from 6e-5 before t* = 0.72158, with estimates
//!   alternating between 1e-2 and 4e2 at every h from 2e-5 to 1e-8 (with the guard's
//!   projection before each attempt; without it this cell passes); without that projection none at 1e-11 from 1.4e-5 before t* =
//!   6.61839, at estimates 0.3 … 1 (noise) at every h down to 1e-9. Skipping instead only
//!   the guard's projections of states whose drift is at round-off (16 ε (1 + ‖q‖∞) and
//!   64 ε max(‖v‖∞, 1)) left one crank cell stopped (Baumgarte 1e-12) but none at 1e-12
//!   2.7e-5 off, and on the body form none at 1e-11 1.3e-3, velocity-only at 1e-12 1.7e-4:
//!   at these tolerances the cells move with every change of the steps near a passage.
//! - Measured, not adopted (2026-11-30): PStab for every attempt while the guard's spread test
//!   is due (the accepted state projected once on entering, then each attempt's end projected
//!   by PStab with PStab's estimate, as a PStab run does). Crank form at 1e-12 none 3.99e-9,
//!   two-step 1.55e-4, Baumgarte 2.7e-2 → 6.8e-7, but velocity-only still stopped and
//!   continuous-GGᵀ and continuous-identity (1e-12) and none (1e-10) now stopped; on the body
//!   form continuous-identity at 1e-9 / 1e-11 / 1e-12 ended 2.6e-4 / 1.3e-3 / 1.9e-3 off.
//!   Why velocity-only at 1e-12 stops where PStab crosses: from t = 0.715208, 6.4e-3 before
//!   t* = 0.72158, PStab's step of 6.28e-3 crosses with estimate 0.39; from the same t and h
//!   the velocity-only attempt measured 254 and its PStab re-projection 59, their estimate
//!   h Σ E_j k_j made of the cranks' relative velocities, −2.0e-9 on one group of cranks and
//!   +1.56e-9 on the other (weights 4.9e-12). PStab keeps the 41 crank angles bit-identical
//!   up to the passage (`passage_probe`: angle spread 0, velocity spread ≤ 4.4e-16 at the
//!   samples of [0, 0.72]), so the relative modes, whose field grows like 1/(t − t*), stay
//!   at zero there; under velocity-only they do not (the estimate above), and near t* the
//!   stages amplify them.
//!
//! The chosen control resumes after the zone, from a state that satisfies Φ = 0 and Φ_q v = 0
//! to round-off. Runs whose rejections all shrink like truncation errors and whose
//! corrections never fail are bit-identical. The attempts and steps are reported in
//! `Stats::extra` (`passage_attempts`, `passage_steps`).

use crate::stabilize::{NoiseSignature, SpreadGrowth, Stabilization, Stabilizer};
use crate::system::Dims;

/// The signature order of DOPRI5's estimate (order 5): an estimate that fell by less than
/// (h / h_r)², well short of the h⁵ of truncation, does not measure it.
const SIGNATURE_ORDER: i32 = 2;

/// Rejections in one approach that make a creep (module docs), with the step shrunk
/// [`CREEP_SHRINK`]-fold and the estimate not falling like truncation.
const CREEP_REJECTIONS: usize = 4;

/// An estimate this large on a rejection under GCP or the hybrid marks the signature at once
/// (module docs, "a jump"). The controller chooses each step for an estimate of about 0.6
/// (its safety factor 0.9 to the fifth power), so an estimate above 100 means its error model
/// was off more than 150-fold: a passage (the A02 chain's first crossings measured 263 …
/// 1.6e8), a discontinuity in the forces or a poor first step. In every case the attempts from
/// there projected by PStab are a valid stabilization, and the chosen control resumes after
/// the zone. With the rule the conformance snapshot and the 32 reproduction tables did not
/// change.
const JUMP_ESTIMATE: f64 = 100.0;

/// The growth of the KKT pivot spread over the run's first that the signature, creep and jump
/// rules need under S-both, GGᵀ and the guarded drift-only controls (module docs): one decade,
/// where Andrews' rejections stayed at ≤ 1.0 and the A02 chain's stalled approach at rtol
/// 1e-12 had reached 16.
const RANK_LOSS_GROWTH: f64 = 1e1;

/// The shrink of the step over an approach that, with [`CREEP_REJECTIONS`] and an estimate
/// that does not fall even like h, makes a stall (the bounded controls: S-both, GGᵀ, the
/// guarded drift-only ones).
const STALL_SHRINK: f64 = 1e2;

/// The shrink of the step over an approach that, with [`CREEP_REJECTIONS`], makes a creep.
const CREEP_SHRINK: f64 = 10.0;

/// PStab for the attempts across a passage, and the record the signature is read from.
#[derive(Clone, Debug)]
pub(crate) struct PassageProjection {
    pub(crate) pstab: Stabilizer,
    pub(crate) signature: NoiseSignature,
    /// Whether the current attempt was projected by PStab.
    pub(crate) pending: bool,
    /// Attempts projected by PStab, and of those accepted.
    pub(crate) counts: (usize, usize),
    /// The union of the spans of the rejected attempts since the accepted steps last passed
    /// them all (the approach to a passage).
    approach: Option<(f64, f64)>,
    /// The rejections in the approach, and the step size and estimate of its first one.
    approach_rejections: (usize, f64, f64),
    /// Whether a creep shows the signature (GCP and the hybrid, module docs).
    creep: bool,
    /// The approach's span when the signature showed: attempts from inside it are projected
    /// by PStab too.
    zone: Option<(f64, f64)>,
    /// The t whose accepted state PStab projected before the first passage attempt from it.
    pub(crate) start_projected: Option<f64>,
    /// The KKT pivot spread's growth, its peak since the last accepted step.
    spread: SpreadGrowth,
    /// The spread growth over the run's first that the signature, creep and jump rules need
    /// (S-both, GGᵀ and the guarded drift-only controls, module docs); `None` where they need
    /// none.
    rank_loss_growth: Option<f64>,
}

impl PassageProjection {
    /// For the controls that take it (S-full, GCP, the hybrid, S-both, GGᵀ, and with the
    /// `guard` the drift-only ones), else `None`.
    pub(crate) fn for_control(
        kind: Stabilization,
        dims: Dims,
        pstab: Stabilizer,
        guard: bool,
    ) -> Option<Self> {
        let bounded = match kind {
            Stabilization::SFull | Stabilization::Partitioned(_) | Stabilization::Hybrid(_) => {
                Some(false)
            }
            Stabilization::SBoth | Stabilization::GGt => Some(true),
            Stabilization::None
            | Stabilization::Baumgarte(_)
            | Stabilization::VelocityOnly
            | Stabilization::Continuous(_) => guard.then_some(true),
            Stabilization::PStab => None,
        };
        let bounded = bounded.filter(|_| dims.constraint_rows() > 0)?;
        Some(Self {
            pstab,
            signature: NoiseSignature::new(SIGNATURE_ORDER),
            pending: false,
            counts: (0, 0),
            approach: None,
            approach_rejections: (0, 0.0, 0.0),
            creep: !matches!(kind, Stabilization::SFull),
            zone: None,
            start_projected: None,
            spread: SpreadGrowth::default(),
            rank_loss_growth: bounded.then_some(RANK_LOSS_GROWTH),
        })
    }

    /// Note the KKT pivot spread of a right-hand side's factorization.
    pub(crate) fn note_spread(&mut self, spread: f64) {
        self.spread.note(spread);
    }

    /// Whether G is losing rank as far as the signature, creep and jump rules need: the largest
    /// spread since the last accepted step grew [`RANK_LOSS_GROWTH`]-fold over the run's first
    /// (S-both, GGᵀ, the guarded drift-only controls); always under S-full, GCP and the hybrid.
    fn rank_loss_shown(&self) -> bool {
        self.rank_loss_growth
            .is_none_or(|growth| self.spread.grown(growth))
    }

    /// Whether the attempt (t, h), before its projection, goes to PStab: an attempt from t
    /// showed the signature, or t lies in the zone of a passage that showed it.
    pub(crate) fn projects_from(&mut self, t: f64, h: f64) -> bool {
        if let Some(zone) = self.zone {
            if within(zone, t, h) {
                return true;
            }
            self.zone = None;
        }
        self.signature.shown_at(t)
    }

    /// Whether the attempt (t, h) with estimate `error` of the chosen control shows the
    /// signature; if so its zone is the approach's span.
    pub(crate) fn shows_signature(&mut self, t: f64, h: f64, error: f64) -> bool {
        let shows = self.rank_loss_shown() && self.signature.test(t, h, error);
        if shows {
            self.zone = self.approach.or(Some((t, t + h))).map(beyond);
        } else if error > 1.0 || error.is_nan() {
            self.signature.note_rejected(t, h, error);
            let dir = h.signum();
            self.approach = match self.approach {
                Some((start, end)) if (t - end) * dir < 0.0 => {
                    self.approach_rejections.0 += 1;
                    Some((
                        start,
                        if (t + h - end) * dir > 0.0 {
                            t + h
                        } else {
                            end
                        },
                    ))
                }
                _ => {
                    self.approach_rejections = (1, h.abs(), error);
                    Some((t, t + h))
                }
            };
            let rule = self.creeps(h, error) || (self.creep && error > JUMP_ESTIMATE);
            if (rule && self.rank_loss_shown()) || self.stalls(h, error) {
                self.signature.mark(t);
                self.zone = self.approach.map(beyond);
                return true;
            }
        }
        shows
    }

    /// A stall (the bounded controls, module docs; without the spread bound):
    /// [`CREEP_REJECTIONS`] rejections in one approach, the latest with a step
    /// [`STALL_SHRINK`] times shorter than the first's and an estimate that fell by less than
    /// h / h_1.
    fn stalls(&self, h: f64, error: f64) -> bool {
        let (count, first_h, first_error) = self.approach_rejections;
        let ratio = h.abs() / first_h;
        self.rank_loss_growth.is_some()
            && count >= CREEP_REJECTIONS
            && ratio * STALL_SHRINK <= 1.0
            && error > first_error * ratio
    }

    /// The creep of a passage (module docs): [`CREEP_REJECTIONS`] rejections in one approach,
    /// the latest (estimate `error`) with a step [`CREEP_SHRINK`] times shorter than the
    /// first's and an estimate that fell by less than the signature's (h / h_1)².
    fn creeps(&self, h: f64, error: f64) -> bool {
        let (count, first_h, first_error) = self.approach_rejections;
        let ratio = h.abs() / first_h;
        self.creep
            && count >= CREEP_REJECTIONS
            && ratio * CREEP_SHRINK <= 1.0
            && error > first_error * ratio.powi(SIGNATURE_ORDER)
    }

    /// The chosen control's correction of the attempt (t, h) failed (a retryable error):
    /// taken as the signature when the attempt lies in the approach to a passage (a rejection
    /// ahead of the accepted steps spans it), so that PStab projects it and the attempts from t.
    pub(crate) fn after_failed_correction(&mut self, t: f64, h: f64) -> bool {
        let approaching = self.approach.is_some_and(|approach| within(approach, t, h));
        if approaching {
            self.signature.mark(t);
            self.zone = self.approach.map(beyond);
        }
        approaching
    }

    /// The step was accepted.
    pub(crate) fn note_accepted(&mut self) {
        self.signature.note_accepted();
        self.spread.clear_peak();
        if self.pending {
            self.pstab.note_accepted();
            self.counts.1 += 1;
        }
        self.pending = false;
    }

    /// Its attempts and steps in [`crate::Stats::extra`], when there were any.
    pub(crate) fn report(&self, stats: &mut crate::Stats) {
        let (attempts, accepted) = self.counts;
        if attempts > 0 {
            stats.extra.set("passage_attempts", attempts as u64);
            stats.extra.set("passage_steps", accepted as u64);
        }
    }
}

/// The zone of a passage from its approach [start, end]: as far again beyond its end (the
/// estimates blow up before the steps reach the passage, so the rejected spans end short of
/// it).
fn beyond((start, end): (f64, f64)) -> (f64, f64) {
    (start, end + (end - start))
}

/// Whether t lies in [start, end) in the direction of the step h.
fn within((start, end): (f64, f64), t: f64, h: f64) -> bool {
    let dir = h.signum();
    (t - start) * dir >= 0.0 && (end - t) * dir > 0.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn projection(kind: Stabilization, guard: bool) -> Option<PassageProjection> {
        let dims = Dims { n: 2, m: 1, k: 0 };
        let pstab = Stabilizer::new(Stabilization::PStab, dims);
        PassageProjection::for_control(kind, dims, pstab, guard)
    }

    #[test]
    fn which_controls_take_the_rules_and_which_are_bounded() {
        let bounded = |kind, guard| projection(kind, guard).map(|p| p.rank_loss_growth.is_some());
        assert_eq!(bounded(Stabilization::PStab, true), None);
        assert_eq!(bounded(Stabilization::SFull, false), Some(false));
        assert_eq!(bounded(Stabilization::SBoth, false), Some(true));
        assert_eq!(bounded(Stabilization::GGt, false), Some(true));
        assert_eq!(bounded(Stabilization::VelocityOnly, false), None);
        assert_eq!(bounded(Stabilization::VelocityOnly, true), Some(true));
        assert_eq!(bounded(Stabilization::None, true), Some(true));
    }

    /// Under S-both a rejection with estimate 263 (a jump) does not mark the signature while
    /// the spread since the last accepted step is 10 times the run's first; at 10.25 times the
    /// next rejection inside it does (the spanning signature).
    #[test]
    fn the_rules_need_the_spread_to_grow_tenfold_under_s_both() {
        let mut p = projection(Stabilization::SBoth, false).expect("S-both takes the rules");
        p.note_spread(4.0);
        p.note_spread(40.0);
        assert!(!p.shows_signature(1.0, 1e-2, 263.0), "growth 10: not yet");
        p.note_spread(41.0);
        assert!(p.shows_signature(1.0, 5e-3, 263.0), "growth 10.25");
        assert!(p.projects_from(1.0, 5e-3));
        let mut gcp = projection(Stabilization::Partitioned(Default::default()), false)
            .expect("GCP takes the rules");
        gcp.note_spread(4.0);
        assert!(gcp.shows_signature(1.0, 1e-2, 263.0), "GCP: unbounded");
    }

    /// A stall marks the signature without any growth of the spread: the fourth rejection in
    /// one approach at h / h_1 ≤ 1/100 whose estimate fell by less than h / h_1.
    #[test]
    fn a_stall_counts_without_the_spread() {
        let mut p = projection(Stabilization::GGt, false).expect("GGt takes the rules");
        p.note_spread(4.0);
        let t = 2.0;
        for (h, error) in [(1e-2, 2.0), (2e-3, 1.9), (4e-4, 1.8)] {
            assert!(!p.shows_signature(t, h, error), "h = {h:e}: too early");
        }
        assert!(!p.shows_signature(t, 2e-4, 1.8), "h / h_1 = 1/50: not yet");
        assert!(
            p.shows_signature(t, 1e-4, 1.7),
            "h / h_1 = 1/100, estimate flat"
        );
        // From a first estimate of 500, an estimate of 3 at h / h_1 = 1/100 fell faster than h.
        let mut q = projection(Stabilization::GGt, false).expect("GGt takes the rules");
        q.note_spread(4.0);
        for (h, error) in [(1e-2, 500.0), (2e-3, 90.0), (4e-4, 20.0), (2e-4, 8.0)] {
            assert!(!q.shows_signature(t, h, error), "h = {h:e}: no stall");
        }
        assert!(!q.shows_signature(t, 1e-4, 3.0), "fell like h: no stall");
        assert!(
            q.shows_signature(t, 5e-5, 4.0),
            "h / h_1 = 1/200, 4 > 500 / 200"
        );
    }
}
