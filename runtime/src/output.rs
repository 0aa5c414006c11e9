//! Results: streamed samples ([`Observer`]), the collecting [`Recorder`], and the counters
//! ([`Stats`]).
//!
//! The integrators never store the trajectory themselves: at each requested output time they
//! hand an [`Observer`] a borrowed [`Sample`] (state from dense output, accelerations and
//! multipliers from a KKT solve at that state, and the drift there), and after each step
//! attempt a [`StepInfo`]. [`Recorder`] is the observer that keeps everything.

use std::time::Duration;

use crate::stabilize::Drift;

/// The solution at one output time.
#[derive(Debug)]
pub struct Sample<'a> {
    /// Time.
    pub t: f64,
    /// Coordinates q(t).
    pub q: &'a [f64],
    /// Velocities v(t).
    pub v: &'a [f64],
    /// Accelerations v̇(t) from the KKT solve at (t, q, v) (with γ̂ under Baumgarte).
    pub vdot: &'a [f64],
    /// Multipliers λ(t) (length m + k), from the same solve.
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

/// Counters of a run (the thesis' names in brackets).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
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
    /// Extra KKT solves for output samples (λ and v̇ at output times); not in `nfcn`.
    pub output_solves: usize,
    /// Time spent in post-stabilization (including DATOL tests) `STAB-CPU`.
    pub stabilization_time: Duration,
}

impl std::fmt::Display for Stats {
    /// The deterministic counters only (no times): what the statistics snapshots compare.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "nfcn={} nstep={} naccpt={} nrejct={} nstab={} failed={}",
            self.nfcn, self.nstep, self.naccpt, self.nrejct, self.nstab, self.failed
        )
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
    /// The largest drift over all samples.
    pub fn max_drift(&self) -> Drift {
        self.drift.iter().fold(Drift::default(), |a, d| Drift {
            position: a.position.max(d.position),
            velocity: a.velocity.max(d.velocity),
        })
    }
}
