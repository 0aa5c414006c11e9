//! The one run loop every one-step method uses: limits, step-size schedule, failure retry,
//! output scheduling, drift monitoring and counters. A method supplies only its step
//! ([`Stepper`]): attempt a step, accept it, interpolate inside it.
//!
//! Per attempt: the step-attempt limit, the step-size underflow test (adaptive), clipping of
//! the last step onto t_end; then [`Stepper::attempt`]. An attempt that fails with a singular
//! KKT matrix or a non-finite kernel value is retried with a quarter step (adaptive schedule;
//! up to [`super::CommonOptions::max_failed_attempts`] in a row, then that failure is returned,
//! also instead of a step-size underflow it caused). A completed attempt is judged by the
//! controller; an accepted one is committed, the output times it covers are sampled, and its
//! end point's drift is measured.

use crate::analysis::singular::name_singularity;
use crate::drift::DriftMeter;
use crate::error::SimError;
use crate::output::{Observer, Stats, StepInfo};
use crate::system::ConstrainedSystem;

use super::common::CommonOptions;
use super::controller::{Adaptive, Uniform, Verdict};
use super::sampler::Sampler;

/// Outcome of one completed step attempt.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Attempt {
    /// Scaled error norm (≤ 1 accepts); 0 for constant-step methods.
    pub(crate) error: f64,
    /// Whether a post-stabilization was applied.
    pub(crate) stabilized: bool,
    /// The verdict, when the method selects its own steps (the variable-order Adams method);
    /// `None` lets the schedule's controller judge `error`. After failed attempts the
    /// controller shortens the step either way.
    pub(crate) verdict: Option<Verdict>,
}

/// Counters a stepper keeps itself.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StepperCounters {
    pub(crate) nfcn: usize,
    pub(crate) nstab: usize,
    pub(crate) stabilization_time: std::time::Duration,
    /// Extra KKT solves made for interpolation (counted as output solves).
    pub(crate) output_solves: usize,
    /// The worst pivot spread of the right-hand side's KKT factorizations.
    pub(crate) conditioning: Option<crate::kkt::Conditioning>,
}

/// One step of a one-step method on z = (q, v), with its workspace.
pub(crate) trait Stepper<S: ConstrainedSystem + ?Sized> {
    /// The accepted state z_n.
    fn state(&self) -> &[f64];
    /// Attempt a step of signed size `h` from (t, z_n); the result is kept until
    /// [`Stepper::accept`] or the next attempt.
    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError>;
    /// Make the last attempt's result the state and prepare interpolation over [t, t + h].
    fn accept(&mut self, t: f64, h: f64);
    /// The state at `t` inside the last accepted step, into `out`.
    fn interpolate(&mut self, sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError>;
    /// Counters so far.
    fn counters(&self) -> StepperCounters;
    /// The method's own proposal for the next step after the last attempt, which the
    /// controller adopts in place of its own when that attempt is accepted (the implicit
    /// methods' centred rule); `None` leaves the choice to the controller.
    fn proposal(&self) -> Option<f64> {
        None
    }

    /// The stabilizer, if the method has one (its partition record goes into the statistics,
    /// [`crate::Stabilizer::report_into`]).
    fn stabilizer(&self) -> Option<&crate::stabilize::Stabilizer> {
        None
    }
    /// The rows of G the method's dynamics (or iteration) matrix leaves out as redundant
    /// ([`crate::redundancy`]), if it keeps such a selection; its events go into
    /// [`Stats::redundancy`].
    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        None
    }
    /// The drift of the accepted state if the method measured it there already (a DATOL test
    /// that left the state alone, [`crate::Stabilizer::unchanged_drift`]): the step point's
    /// drift is then not evaluated again.
    fn known_drift(&self) -> Option<crate::drift::Drift> {
        None
    }
    /// The method's own accelerations and multipliers at `t` (at t0 before the first step,
    /// else inside or at the end of the last accepted step) into `vdot` and `lambda`, if it
    /// computes them itself (ALI3-P's projected q̈ and augmented-Lagrangian λ*,
    /// [`crate::Ali3p`]): samples then report these instead of the KKT solve's (whose
    /// left-out rows carry λ = 0). Returns whether it wrote them.
    fn own_outputs_at(&self, _t: f64, _vdot: &mut [f64], _lambda: &mut [f64]) -> bool {
        false
    }
}

/// How step sizes are chosen.
pub(crate) enum Schedule {
    /// Error-controlled, starting with magnitude `h0`.
    Adaptive { control: Adaptive, h0: f64 },
    /// Constant steps.
    Uniform(Uniform),
}

/// The fixed parts of a run.
pub(crate) struct Run<'a, S: ConstrainedSystem + ?Sized, O: Observer + ?Sized> {
    pub(crate) sys: &'a S,
    pub(crate) common: &'a CommonOptions,
    pub(crate) t0: f64,
    pub(crate) t_end: f64,
    pub(crate) dir: f64,
    pub(crate) sampler: Sampler,
    pub(crate) meter: DriftMeter,
    pub(crate) observer: &'a mut O,
    /// The event monitor, when the system has events ([`crate::events`]).
    pub(crate) monitor: Option<crate::events::monitor::Monitor>,
}

impl<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized> Run<'_, S, O> {
    /// Integrate with `stepper` (holding z0) under `schedule`; returns the time reached, which
    /// is t_end on success. `stats` is filled in on success and failure alike.
    pub(crate) fn drive<St: Stepper<S>>(
        &mut self,
        stepper: &mut St,
        schedule: Schedule,
        stats: &mut Stats,
    ) -> Result<(), SimError> {
        // The start's q, for naming an underflow where the conditioning grew (cold: once).
        let q0 = stepper.state()[..self.sys.dims().n].to_vec();
        let result = self.start(stepper).and_then(|()| match schedule {
            Schedule::Adaptive { control, h0 } => self.adaptive(stepper, control, h0, stats),
            Schedule::Uniform(u) => self.uniform(stepper, u, stats),
        });
        // A failure at a singular configuration is named (t, dependent rows, condition).
        let start = (self.t0, Some(&q0[..]));
        let result = result.map_err(|e| name_singularity(self.sys, start, stepper.state(), e));
        let c = stepper.counters();
        stats.nfcn = c.nfcn;
        stats.nstab = c.nstab;
        stats.stabilization_time = c.stabilization_time;
        stats.output_solves = self.sampler.solves + c.output_solves;
        stats.conditioning = c.conditioning;
        if let Some(stab) = stepper.stabilizer() {
            stab.report_into(stats);
        }
        if let Some(rows) = stepper.row_selection() {
            stats.redundancy = rows.events().to_vec();
        }
        result
    }

    /// Samples at t0.
    fn start<St: Stepper<S>>(&mut self, stepper: &mut St) -> Result<(), SimError> {
        while self.sampler.due(self.t0, 0.0).is_some() {
            self.sampler.own = stepper.own_outputs_at(
                self.t0,
                &mut self.sampler.vdot_own,
                &mut self.sampler.lambda_own,
            );
            self.sampler
                .emit(self.sys, self.t0, stepper.state(), self.observer)?;
        }
        Ok(())
    }

    fn adaptive<St: Stepper<S>>(
        &mut self,
        stepper: &mut St,
        mut control: Adaptive,
        mut h: f64,
        stats: &mut Stats,
    ) -> Result<(), SimError> {
        if self.t_end == self.t0 {
            return Ok(());
        }
        let (mut t, mut last) = (self.t0, false);
        // The failure of the last attempt(s), if they failed, and how many in a row.
        let (mut failure, mut failures): (Option<SimError>, usize) = (None, 0);
        // The first and the last attempt rejected at the current t: (h, error) each.
        let mut rejections: Option<((f64, f64), (f64, f64))> = None;
        let mut crawl = CrawlWatch::new(self.t0, self.t_end, self.common.max_steps);
        loop {
            self.check_limit(t, stats)?;
            crawl.check(t, h, stats.nstep + stats.failed)?;
            if 0.1 * h.abs() <= t.abs() * f64::EPSILON || h < f64::MIN_POSITIVE {
                // If the step shrank because attempts kept failing, that failure is the cause.
                let cause = crate::error::UnderflowCause::from_rejections(rejections);
                return Err(failure.unwrap_or(SimError::StepSizeUnderflow { t, h, cause }));
            }
            if self.dir * (t + self.dir * 1.01 * h - self.t_end) > 0.0 {
                h = self.dir * (self.t_end - t);
                last = true;
            }
            let attempt = match stepper.attempt(self.sys, t, self.dir * h) {
                Ok(a) => a,
                Err(e) if e.is_retryable() => {
                    stats.failed += 1;
                    failures += 1;
                    if failures > self.common.max_failed_attempts {
                        return Err(e);
                    }
                    failure = Some(e);
                    self.observer.step(&StepInfo {
                        t,
                        h: self.dir * h,
                        accepted: false,
                        error: f64::INFINITY,
                        stabilized: false,
                    });
                    h = control.after_failure(h);
                    last = false;
                    continue;
                }
                Err(e) => return Err(e),
            };
            (failure, failures) = (None, 0);
            stats.nstep += 1;
            let verdict = attempt
                .verdict
                .unwrap_or_else(|| control.judge(attempt.error, h, stepper.proposal()));
            let error = attempt.error;
            self.report(t, h, attempt, matches!(verdict, Verdict::Accept(_)));
            match verdict {
                Verdict::Accept(h_new) => {
                    let t_new = if last { self.t_end } else { t + self.dir * h };
                    if self.commit(stepper, t, h, t_new, 0.0, stats)? {
                        return Ok(());
                    }
                    t = t_new;
                    rejections = None;
                    if last {
                        return Ok(());
                    }
                    h = h_new;
                }
                Verdict::Reject(h_new) => {
                    let this = (h, error);
                    rejections = Some((rejections.map_or(this, |(first, _)| first), this));
                    if stats.naccpt >= 1 {
                        stats.nrejct += 1;
                    }
                    last = false;
                    h = h_new;
                }
            }
        }
    }

    fn uniform<St: Stepper<S>>(
        &mut self,
        stepper: &mut St,
        u: Uniform,
        stats: &mut Stats,
    ) -> Result<(), SimError> {
        for step in 0..u.steps {
            let t = u.t0 + step as f64 * u.h;
            self.check_limit(t, stats)?;
            let attempt = stepper.attempt(self.sys, t, u.h)?;
            stats.nstep += 1;
            self.report(t, u.h.abs(), attempt, true);
            // The step ends at t + h (t_end up to round-off on the last step); a grid time
            // within 1e-9 h of a step point is sampled at the step point, under its own time.
            if self.commit(stepper, t, u.h.abs(), t + u.h, 1e-9 * u.h.abs(), stats)? {
                return Ok(());
            }
        }
        if u.last != 0.0 {
            // The span is not a whole number of steps: one shorter step onto t_end.
            let t = u.t0 + u.steps as f64 * u.h;
            self.check_limit(t, stats)?;
            let attempt = stepper.attempt(self.sys, t, u.last)?;
            stats.nstep += 1;
            self.report(t, u.last.abs(), attempt, true);
            let snap = 1e-9 * u.last.abs();
            self.commit(stepper, t, u.last.abs(), self.t_end, snap, stats)?;
        }
        Ok(())
    }

    fn check_limit(&self, t: f64, stats: &Stats) -> Result<(), SimError> {
        if stats.nstep + stats.failed >= self.common.max_steps {
            return Err(SimError::TooManySteps {
                t,
                max_steps: self.common.max_steps,
            });
        }
        Ok(())
    }

    fn report(&mut self, t: f64, h: f64, attempt: Attempt, accepted: bool) {
        self.observer.step(&StepInfo {
            t,
            h: self.dir * h,
            accepted,
            error: attempt.error,
            stabilized: attempt.stabilized,
        });
    }

    /// Accept the step [t, t_new] of magnitude `h`: events, samples, step-point output, drift.
    /// Returns true when the run stops at an event inside the step.
    fn commit<St: Stepper<S>>(
        &mut self,
        stepper: &mut St,
        t: f64,
        h: f64,
        t_new: f64,
        snap: f64,
        stats: &mut Stats,
    ) -> Result<bool, SimError> {
        stats.naccpt += 1;
        stats.note_accepted(h);
        stepper.accept(t, self.dir * h);
        // The monitor exists only for a system with events: no view lookup per step otherwise.
        if let Some(monitor) = &mut self.monitor
            && let Some(events) = self.sys.as_events()
            && monitor.scan(self.sys, events, stepper, t, t_new)?
        {
            self.stop_at_event(stepper, stats)?;
            return Ok(true);
        }
        // The step point's drift, measured once for the statistics and a step-point sample.
        let drift = match (self.common.track_drift, stepper.known_drift()) {
            (false, _) => None,
            (true, Some(known)) => Some(known),
            (true, None) => {
                let (q, v) = stepper.state().split_at(stepper.state().len() / 2);
                Some(self.meter.measure(self.sys, t_new, q, v)?)
            }
        };
        let mut at_step_point = false;
        while let Some(t_out) = self.sampler.due(t_new, snap) {
            let t_own = if (t_out - t_new).abs() <= snap {
                t_new
            } else {
                t_out
            };
            self.sampler.own = stepper.own_outputs_at(
                t_own,
                &mut self.sampler.vdot_own,
                &mut self.sampler.lambda_own,
            );
            if (t_out - t_new).abs() <= snap {
                at_step_point = true;
                self.sampler
                    .emit(self.sys, t_out, stepper.state(), self.observer)?;
            } else {
                stepper.interpolate(self.sys, t_out, &mut self.sampler.z)?;
                self.sampler
                    .emit_interpolated(self.sys, t_out, self.observer)?;
            }
        }
        if self.common.output_steps && !at_step_point {
            self.sampler.own = stepper.own_outputs_at(
                t_new,
                &mut self.sampler.vdot_own,
                &mut self.sampler.lambda_own,
            );
            let state = stepper.state();
            self.sampler
                .emit_step(self.sys, t_new, state, drift, self.observer)?;
        }
        if let Some(drift) = drift {
            stats.max_drift = stats.max_drift.worst(drift);
            if let Some(rows) = stepper.row_selection().filter(|r| !r.is_empty()) {
                // Φ has the m holonomic rows only: a left-out nonholonomic row has no position.
                let redundant = crate::drift::Drift {
                    position: rows.max_abs(&self.meter.phi),
                    velocity: rows.max_abs(&self.meter.vel_res),
                };
                stats.redundant_drift = stats.redundant_drift.worst(redundant);
            }
        }
        Ok(false)
    }

    /// The run ends at the located event: the samples due before it, one at it (pre-action
    /// state) when samples are asked for, and its drift.
    fn stop_at_event<St: Stepper<S>>(
        &mut self,
        stepper: &mut St,
        stats: &mut Stats,
    ) -> Result<(), SimError> {
        let Some((hit, z)) = self.monitor.as_ref().and_then(|m| m.hit.clone()) else {
            return Ok(());
        };
        while let Some(t_out) = self.sampler.due(hit.t, 0.0) {
            if t_out == hit.t {
                break;
            }
            stepper.interpolate(self.sys, t_out, &mut self.sampler.z)?;
            self.sampler
                .emit_interpolated(self.sys, t_out, self.observer)?;
        }
        if self.sampler.has_times() || self.common.output_steps {
            self.sampler.emit(self.sys, hit.t, &z, self.observer)?;
        }
        if self.common.track_drift {
            let (q, v) = z.split_at(z.len() / 2);
            let drift = self.meter.measure(self.sys, hit.t, q, v)?;
            stats.max_drift = stats.max_drift.worst(drift);
        }
        Ok(())
    }

    /// The run's result: `solution` (state at t_end), or the state and time of the event the
    /// run stopped at.
    pub(crate) fn finish(&self, mut solution: super::Solution) -> super::Solution {
        if let Some(monitor) = &self.monitor {
            solution.stats.event_evaluations = monitor.evaluations;
            if let Some((hit, z)) = &monitor.hit {
                let n = z.len() / 2;
                solution.t = hit.t;
                solution.q.copy_from_slice(&z[..n]);
                solution.v.copy_from_slice(&z[n..]);
                solution.event = Some(hit.clone());
            }
        }
        solution
    }
}

/// Attempts over which an adaptive run's pace is measured ([`CrawlWatch`]).
pub(crate) const CRAWL_WINDOW: usize = 100_000;

/// A run whose last window's pace would need more than this many times `max_steps` attempts
/// to finish crawls ([`CrawlWatch`]).
pub(crate) const CRAWL_PACE: f64 = 1e4;

/// A run that crawls: steps accepted but so short that at the pace of the last
/// [`CRAWL_WINDOW`] attempts it would need more than [`CRAWL_PACE`] × `max_steps` attempts to
/// finish (default 10¹¹: less than 1e-6 of the span per window), while not short enough for
/// the underflow test (0.1 h ≤ ε |t|). Such a run never finishes within `max_steps`: it would
/// end as [`SimError::TooManySteps`] after up to 10⁷ attempts. Measured: RKSTAB with the hybrid
/// on the IFToMM A02 crank form at rtol 1e-11 took 1.55 million attempts over its last
/// 1.1e-5 s toward the singular position at t = 6.6183866 (steps of 2e-10 with estimates
/// ~0.3 proportional to h, then of 1.6e-13 with 0.44, at which the controller's factor is 1),
/// 2.5 minutes of CPU, before it stopped there. With the watch it stopped as a step-size
/// underflow with [`crate::UnderflowCause::Crawl`] after one window inside the crawl (which
/// the run loop then names as a singular configuration when G is rank deficient there),
/// after 18 s; that run now passes (`rkstab_passage.rs`, "a jump"), the watch stays for the
/// next run that crawls.
struct CrawlWatch {
    span: f64,
    fraction: f64,
    mark: (f64, usize),
}

impl CrawlWatch {
    fn new(t0: f64, t_end: f64, max_steps: usize) -> Self {
        Self {
            span: (t_end - t0).abs(),
            fraction: CRAWL_WINDOW as f64 / (CRAWL_PACE * max_steps as f64),
            mark: (t0, 0),
        }
    }

    /// At `attempts` attempts so far, at t with the next step h: an error if the last window
    /// advanced less than its share of the span.
    fn check(&mut self, t: f64, h: f64, attempts: usize) -> Result<(), SimError> {
        if attempts < self.mark.1 + CRAWL_WINDOW {
            return Ok(());
        }
        let advanced = (t - self.mark.0).abs();
        if advanced < self.fraction * self.span {
            let cause = crate::error::UnderflowCause::Crawl {
                attempts: (attempts - self.mark.1) as u64,
                advanced,
            };
            return Err(SimError::StepSizeUnderflow { t, h, cause });
        }
        self.mark = (t, attempts);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Attempts of `step` each from t0 = 6.6 over a 20 s span, at the default `max_steps`:
    /// whether the watch stops the run within two windows.
    fn stops(step: f64) -> bool {
        let mut watch = CrawlWatch::new(6.6, 26.6, 10_000_000);
        (0..2 * CRAWL_WINDOW + 1).any(|i| watch.check(6.6 + i as f64 * step, step, i).is_err())
    }

    #[test]
    fn a_crawl_stops_and_a_slow_run_does_not() {
        // The hybrid's crawl on the A02 crank form: ~2e-10 s per attempt, then 1.6e-13.
        assert!(stops(1.9e-10));
        assert!(stops(1.6e-13));
        // 2e-10 s per attempt is 2e-5 s per window, 1e-6 of the span: the pace at which the
        // run would need 10¹¹ attempts; a little faster passes.
        assert!(!stops(2.1e-10));
        // An ordinary run (1e-4 s per attempt).
        assert!(!stops(1e-4));
    }

    #[test]
    fn a_crawl_is_a_step_size_underflow_with_its_window() {
        // A run (segment) from t0 = 6.6 over 20 s.
        let mut watch = CrawlWatch::new(6.6, 26.6, 10_000_000);
        let err = (0..=CRAWL_WINDOW)
            .find_map(|i| watch.check(6.6 + i as f64 * 1e-13, 1e-13, i).err())
            .expect("stops");
        match err {
            SimError::StepSizeUnderflow {
                cause: crate::UnderflowCause::Crawl { attempts, advanced },
                ..
            } => {
                assert_eq!(attempts, CRAWL_WINDOW as u64);
                assert!((advanced - 1e-8).abs() < 1e-12, "{advanced}");
            }
            e => panic!("expected a crawl, got {e:?}"),
        }
    }
}
