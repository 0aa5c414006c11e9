//! Results: streamed samples ([`Observer`]), the collecting [`Recorder`], and the counters
//! ([`Stats`]).
//!
//! The integrators never store the trajectory themselves: at each requested output time they
//! hand an [`Observer`] a borrowed [`Sample`] (state from dense output, accelerations and
//! multipliers from a KKT solve at that state, and the drift there), and after each step
//! attempt a [`StepInfo`]. [`Recorder`] is the observer that keeps everything.

use std::time::Duration;

use crate::drift::Drift;

/// The solution at one output time.
#[derive(Debug)]
pub struct Sample<'a> {
    /// Time.
    pub t: f64,
    /// Coordinates q(t).
    pub q: &'a [f64],
    /// Velocities v(t).
    pub v: &'a [f64],
    /// Accelerations v̇(t) from the KKT solve at (t, q, v) (with γ̂ under Baumgarte); empty
    /// for a sample of [`crate::SampleContent::State`].
    pub vdot: &'a [f64],
    /// Multipliers λ(t) (length m + k), from the same solve; empty like `vdot`.
    pub lambda: &'a [f64],
    /// ‖Φ‖∞ and ‖Φ_q v + Φ_t‖∞ (with the nonholonomic rows A v + b) at this state.
    pub drift: Drift,
}

/// What happened in one step attempt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepInfo {
    /// Time at the start of the step.
    pub t: f64,
    /// Step size attempted.
    pub h: f64,
    /// Whether the step was accepted.
    pub accepted: bool,
    /// Scaled error norm (≤ 1 accepts); 0 for fixed-step methods.
    pub error: f64,
    /// Whether a post-stabilization was applied in this attempt.
    pub stabilized: bool,
}

/// Streaming consumer of results. Both methods have defaults, so implement what you need.
pub trait Observer {
    /// Called at every requested output time, in increasing order.
    fn output(&mut self, sample: &Sample<'_>) {
        let _ = sample;
    }
    /// Called after every step attempt (accepted or rejected).
    fn step(&mut self, info: &StepInfo) {
        let _ = info;
    }
}

/// An observer that ignores everything.
impl Observer for () {}

/// Method-specific counters beside the common ones in [`Stats`]: a small fixed map from a
/// counter's name (e.g. `"newton_iterations"`) to its value, so every method reports through
/// the same type without allocating. Names are printed in insertion order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Extra {
    entries: [Option<(&'static str, u64)>; Extra::CAPACITY],
}

impl Extra {
    /// How many method-specific counters a method may report.
    pub const CAPACITY: usize = 8;

    /// Set counter `name` to `value` (inserting it if new).
    ///
    /// # Panics
    /// If more than [`Extra::CAPACITY`] distinct names are set (a programming error).
    pub fn set(&mut self, name: &'static str, value: u64) {
        let slot = self
            .entries
            .iter()
            .position(|e| e.is_none_or(|(n, _)| n == name))
            .unwrap_or_else(|| panic!("Extra: more than {} counters", Self::CAPACITY));
        self.entries[slot] = Some((name, value));
    }

    /// Add `by` to counter `name` (starting from 0).
    pub fn add(&mut self, name: &'static str, by: u64) {
        let value = self.get(name).unwrap_or(0) + by;
        self.set(name, value);
    }

    /// The value of counter `name`, if the method reported it.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.iter().find(|(n, _)| *n == name).map(|(_, v)| v)
    }

    /// Every reported counter, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.entries.iter().flatten().copied()
    }
}

/// Counters of a run (the thesis' names in brackets); the same for every method, with the
/// method's own counters in [`Stats::extra`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// Right-hand-side evaluations = KKT solves of the integration proper `NFCN`. For the
    /// adaptive method `nfcn = 6 nstep + 2` when no attempt failed (`failed == 0`) and the
    /// initial step was selected automatically.
    pub nfcn: usize,
    /// Step attempts, accepted and rejected `NSTEP` (failed attempts are counted in `failed`).
    pub nstep: usize,
    /// Accepted steps `NACCP`.
    pub naccpt: usize,
    /// Rejected steps after the first accepted one, as in Hairer's DOPRI5 `NREJCT`.
    pub nrejct: usize,
    /// Post-stabilizations applied `NSTAB`.
    pub nstab: usize,
    /// Step attempts abandoned because a kernel was non-finite or the KKT matrix singular.
    pub failed: usize,
    /// Extra KKT solves for output samples (λ and v̇ at output times, projections of
    /// samples, interpolation slopes); not in `nfcn`.
    pub output_solves: usize,
    /// Time spent in post-stabilization (including DATOL tests) `STAB-CPU`.
    pub stabilization_time: Duration,
    /// The drift of the initial state.
    pub initial_drift: Drift,
    /// The largest drift over the accepted step points (t0 excluded; see `initial_drift`),
    /// when [`crate::CommonOptions::track_drift`] is set (the thesis' "maximum drift").
    pub max_drift: Drift,
    /// The smallest and the largest accepted step magnitude (0 before the first step).
    pub h_range: (f64, f64),
    /// The worst pivot spread over the run and its time ([`crate::kkt::Conditioning`]) of the
    /// matrix each method factors where G enters: the dynamics' KKT matrix [M Gᵀ; G 0] (the
    /// explicit methods), the Newton iteration matrix [M̂ Gᵀ; G 0] (the implicit methods; M̂
    /// carries the 1/(βh²) scaling, so compare along runs of one step size; Radau: its stage
    /// system), S = E M⁻¹ Eᵀ of the multiplier solve (HPIM, NPC). `None` only for a run that
    /// factored nothing.
    pub conditioning: Option<crate::kkt::Conditioning>,
    /// Method-specific counters.
    pub extra: Extra,
    /// Every choice of independent coordinates made by a partitioned stabilization
    /// ([`crate::Stabilization::Partitioned`], [`crate::Stabilization::Hybrid`]): time, old
    /// and new independent set, reason; empty for the other stabilizations. (This field is
    /// why `Stats` is `Clone` but not `Copy`.)
    pub partitions: Vec<crate::stabilize::Repartition>,
    /// Every change of the set of constraint rows left out of the solves as redundant
    /// ([`crate::redundancy`]): time, the rows left out from then on, cause. Empty when G kept
    /// full rank. The rows are those of the method's dynamics (or iteration) matrix.
    pub redundancy: Vec<crate::redundancy::Reselection>,
    /// The largest residual of the left-out rows alone over the accepted step points (when
    /// [`crate::CommonOptions::track_drift`] is set): how well the redundant rows stay
    /// satisfied through the kept ones. Zero when no row was left out.
    pub redundant_drift: Drift,
    /// Evaluations of the model's event functions (location included); 0 without events.
    pub event_evaluations: usize,
    /// Events that happened ([`crate::events::simulate`] counts them over its segments; a
    /// single run stops at its first).
    pub events: usize,
}

impl Stats {
    pub(crate) fn note_accepted(&mut self, h: f64) {
        let (lo, hi) = self.h_range;
        self.h_range = if self.naccpt == 1 {
            (h, h)
        } else {
            (lo.min(h), hi.max(h))
        };
    }
}

impl std::fmt::Display for Stats {
    /// The deterministic counters only (no times, no drift): what the statistics snapshots
    /// compare.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nfcn={} nstep={} naccpt={} nrejct={} nstab={} failed={}",
            self.nfcn, self.nstep, self.naccpt, self.nrejct, self.nstab, self.failed
        )?;
        for (name, value) in self.extra.iter() {
            write!(f, " {name}={value}")?;
        }
        if let Some(last) = self.redundancy.last() {
            write!(
                f,
                " redundant={:?} reselections={}",
                last.left_out,
                self.redundancy.len()
            )?;
        }
        Ok(())
    }
}

/// An observer that records every sample (and, optionally, every step attempt).
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    /// Output times.
    pub t: Vec<f64>,
    /// q at each output time.
    pub q: Vec<Vec<f64>>,
    /// v at each output time.
    pub v: Vec<Vec<f64>>,
    /// v̇ at each output time.
    pub vdot: Vec<Vec<f64>>,
    /// λ at each output time.
    pub lambda: Vec<Vec<f64>>,
    /// Drift at each output time.
    pub drift: Vec<Drift>,
    /// Every step attempt, when `record_steps` is set.
    pub steps: Vec<StepInfo>,
    /// Whether to record step attempts.
    pub record_steps: bool,
}

impl Observer for Recorder {
    fn output(&mut self, s: &Sample<'_>) {
        self.t.push(s.t);
        self.q.push(s.q.to_vec());
        self.v.push(s.v.to_vec());
        self.vdot.push(s.vdot.to_vec());
        self.lambda.push(s.lambda.to_vec());
        self.drift.push(s.drift);
    }

    fn step(&mut self, info: &StepInfo) {
        if self.record_steps {
            self.steps.push(*info);
        }
    }
}

impl Recorder {
    /// The multiplier of constraint row `row` (index into λ, holonomic rows first) at every
    /// sample.
    pub fn multiplier(&self, row: usize) -> Vec<f64> {
        self.lambda.iter().map(|l| l[row]).collect()
    }

    /// The multiplier of the constraint named `name` (its label in the model, or `phi_i` /
    /// `nh_i`, see [`crate::ConstrainedSystem::constraint_names`]) at every sample; `None` if
    /// `sys` has no constraint of that name.
    pub fn multiplier_named<S: crate::ConstrainedSystem + ?Sized>(
        &self,
        sys: &S,
        name: &str,
    ) -> Option<Vec<f64>> {
        sys.constraint_index(name).map(|row| self.multiplier(row))
    }

    /// The largest drift over all samples.
    pub fn max_drift(&self) -> Drift {
        self.drift.iter().fold(Drift::default(), |a, d| Drift {
            position: a.position.max(d.position),
            velocity: a.velocity.max(d.velocity),
        })
    }
}
