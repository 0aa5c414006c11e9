//! The integrator layer: one [`Problem`], one [`Integrator`] trait with one signature for every
//! method, and the machinery the methods share (the run loop with its controller, failure
//! retry, output scheduling, counters and drift monitoring in `driver.rs`).
//!
//! A method is a value holding its options ([`crate::Rkstab`], [`crate::FixedStep`], …);
//! `integrate_into` allocates the workspace once and steps without allocating. What a method
//! writes itself is its step (`driver::Stepper`: attempt, accept, interpolate) and, for
//! an adaptive method, its first step size. Everything else — validation of the problem and of
//! the common options, the consistency check of the initial state, samples, limits and
//! statistics — happens here, the same way for every method.
//!
//! Adding a method: one file implementing `Stepper` and [`Integrator`] (see `fixed_step.rs`
//! for the smallest), one line in the conformance suite (`runtime/tests/suite/conformance.rs`).

pub(crate) mod common;
pub(crate) mod controller;
pub(crate) mod driver;
mod problem;
pub(crate) mod sampler;

pub use common::{CommonOptions, ConsistencyCheck, SampleContent, SampleKind};
pub use problem::{OutputGrid, Problem};

use crate::drift::Drift;
use crate::drift::DriftMeter;
use crate::error::{SimError, ViolatedRow};
use crate::output::{Observer, Recorder, Stats};
use crate::system::ConstrainedSystem;

use crate::events::monitor::Monitor;
use driver::Run;
use sampler::Sampler;

/// The end of a successful run.
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The final time (t_end).
    pub t: f64,
    /// q(t_end).
    pub q: Vec<f64>,
    /// v(t_end).
    pub v: Vec<f64>,
    /// Counters.
    pub stats: Stats,
    /// The event the run stopped at, if the system has events ([`crate::events`]): `t`, `q`
    /// and `v` are then the time and state there (before any action), not t_end's.
    pub event: Option<crate::events::EventHit>,
}

/// A method that integrates a [`ConstrainedSystem`] over a [`Problem`].
pub trait Integrator {
    /// A short name for reports and snapshots (e.g. `rkstab`, `rk4`).
    fn name(&self) -> String;

    /// The options every method shares.
    fn common(&self) -> &CommonOptions;

    /// Integrate `problem`, handing every sample and step attempt to `observer`.
    ///
    /// Fails with a typed [`SimError`]: invalid options or problem before any kernel call, an
    /// inconsistent initial state before the first step, numerical failures with t and h.
    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError>;
}

/// Integrate and record every sample: the allocating convenience form of
/// [`Integrator::integrate_into`].
pub fn integrate<S: ConstrainedSystem + ?Sized, I: Integrator + ?Sized>(
    sys: &S,
    method: &I,
    problem: &Problem,
) -> Result<(Recorder, Solution), SimError> {
    let mut rec = Recorder::default();
    let solution = method.integrate_into(sys, problem, &mut rec)?;
    Ok((rec, solution))
}

/// The shared prologue of a run: validate, check the initial state (with `auto_tolerance`
/// standing for [`ConsistencyCheck::Auto`]), set up samples and the drift meter.
pub(crate) fn prepare<'a, S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
    sys: &'a S,
    common: &'a CommonOptions,
    problem: &Problem,
    auto_tolerance: Option<f64>,
    observer: &'a mut O,
) -> Result<(Run<'a, S, O>, Stats), SimError> {
    let dims = sys.dims();
    common.validate()?;
    problem.validate(dims)?;
    let mut meter = DriftMeter::new(dims);
    let initial_drift = meter.measure(sys, problem.t0, &problem.q0, &problem.v0)?;
    let tolerance = match common.consistency {
        ConsistencyCheck::Off => f64::INFINITY,
        ConsistencyCheck::Tolerance(tol) => tol,
        ConsistencyCheck::Auto => {
            let scale = problem.q0.iter().fold(1.0_f64, |s, x| s.max(1.0 + x.abs()));
            match auto_tolerance {
                // Never below what evaluating Φ can resolve (1e3 ε of the coordinates' scale).
                Some(tol) => tol.max(1e3 * f64::EPSILON * scale),
                None => f64::EPSILON.sqrt() * scale,
            }
        }
    };
    if initial_drift.max() > tolerance {
        return Err(inconsistent(
            &meter,
            problem.t0,
            initial_drift,
            tolerance,
            &sys.constraint_names(),
        ));
    }
    let dir = problem.direction();
    let times = problem.output_times();
    let sampler = Sampler::new(dims, common, times, dir);
    let monitor = match sys.as_events() {
        Some(events) if common.event_subsamples != usize::MAX => {
            let z0: Vec<f64> = problem.q0.iter().chain(&problem.v0).copied().collect();
            let m = Monitor::start(events, common.event_subsamples, problem.t0, &z0)?;
            Some(m)
        }
        _ => None,
    };
    let run = Run {
        sys,
        common,
        t0: problem.t0,
        t_end: problem.t_end,
        dir,
        sampler,
        meter,
        observer,
        monitor,
    };
    let stats = Stats {
        initial_drift,
        ..Stats::default()
    };
    Ok((run, stats))
}

/// The [`SimError::InconsistentInitialState`] for the residuals left in `meter`, rows named
/// after `names` (the model's constraint names).
fn inconsistent(
    meter: &DriftMeter,
    t: f64,
    drift: Drift,
    tolerance: f64,
    names: &[String],
) -> SimError {
    SimError::InconsistentInitialState {
        t,
        drift,
        tolerance,
        position_rows: ViolatedRow::collect(&meter.phi, tolerance, names),
        velocity_rows: ViolatedRow::collect(&meter.vel_res, tolerance, names),
    }
}
