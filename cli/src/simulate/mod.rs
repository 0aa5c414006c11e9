//! One simulation run: build the model, apply the parameters, make the initial state
//! consistent, integrate with RKSTAB (`mbsim::runtime::Rkstab`) and collect the samples on the output
//! grid, the maximum drift over the accepted steps, the counters and the time taken (wall and
//! thread CPU, [`crate::timing`]). `--repeat N` integrates N times from the same consistent
//! state (the results are identical; the timings are kept); `--output final` records the state
//! at t_end only (no step points, no grid).

use mbsim::runtime::{
    CommonOptions, ConstrainedSystem, Drift, InitOptions, InitReport, Observer, Problem, Recorder,
    Sample, SampleContent, Stats, StepInfo,
};

pub mod args;
pub mod columns;

use crate::error::AppError;
use crate::method::Chosen;
use crate::progress::Progress;
use crate::timing::{Stopwatch, Timing};
use args::{OutputMode, SimConfig, SimulateArgs};

/// The result of a run.
pub struct RunResult {
    /// Samples on the output grid (t = 0, dt, 2 dt, …, and exactly t_end).
    pub rec: Recorder,
    /// Counters.
    pub stats: Stats,
    /// Maximum drift over the accepted (stabilized) step points and t0.
    pub max_drift_steps: Drift,
    /// Maximum drift over the output grid (dense output between steps).
    pub max_drift_output: Drift,
    /// Wall and thread CPU time of the (first) integration.
    pub timing: Timing,
    /// Every integration's timing with `--repeat N` (one entry without).
    pub repeats: Vec<Timing>,
    /// The consistent initialization.
    pub init: InitReport,
    /// Parameter names and values used.
    pub params: Vec<(&'static str, f64)>,
    /// Coordinate names.
    pub coordinates: &'static [&'static str],
    /// Number of constraint rows m + k.
    pub constraint_rows: usize,
    /// Names of the constraint rows (multipliers are indexed like them).
    pub constraint_names: Vec<String>,
    /// What the consistent initialization did (printed before the report).
    pub init_text: String,
    /// Kinetic and potential energy at each sample, when the model states them.
    pub energy: Option<Vec<(f64, f64)>>,
    /// The accepted step points (t), in time order: the step sizes are their differences.
    pub step_times: Vec<f64>,
    /// Every event, in time order; `None` for a model without `events`.
    pub events: Option<Vec<mbsim::runtime::events::EventRecord>>,
}

/// The output grid 0, dt, 2 dt, … (< t_end) and exactly t_end.
pub fn output_times(t_end: f64, dt: f64) -> Vec<f64> {
    let mut times: Vec<f64> = (0..)
        .map(|i| i as f64 * dt)
        .take_while(|&t| t < t_end * (1.0 - 1e-12))
        .collect();
    times.push(t_end);
    times
}

/// An observer keeping the samples on the grid, the maximum drift elsewhere and the progress.
struct Collector<'a> {
    grid: &'a [f64],
    next: usize,
    rec: Recorder,
    steps: Drift,
    output: Drift,
    step_drift: Vec<(f64, Drift)>,
    progress: Option<Progress>,
}

/// What [`integrate`] returns.
pub struct Integrated {
    /// Samples on the output grid.
    pub rec: Recorder,
    /// Counters.
    pub stats: Stats,
    /// Maximum drift over the stabilized step points (and t0, t_end).
    pub max_drift_steps: Drift,
    /// Maximum drift over the output grid.
    pub max_drift_output: Drift,
    /// The drift at every step point, in time order.
    pub step_drift: Vec<(f64, Drift)>,
    /// Wall and thread CPU time of the integration.
    pub timing: Timing,
    /// Every event, in time order (models with `events`).
    pub events: Vec<mbsim::runtime::events::EventRecord>,
}

fn max_drift(a: Drift, b: Drift) -> Drift {
    Drift {
        position: a.position.max(b.position),
        velocity: a.velocity.max(b.velocity),
    }
}

impl Observer for Collector<'_> {
    fn output(&mut self, s: &Sample<'_>) {
        let on_grid = self.next < self.grid.len() && s.t == self.grid[self.next];
        if on_grid {
            self.next += 1;
            self.rec.output(s);
            self.output = max_drift(self.output, s.drift);
        }
        // With `output_steps`, every accepted step point is a sample; a grid time that is also
        // a step point (t0, t_end) arrives once. The first and last grid points are step points.
        if !on_grid || s.t == self.grid[0] || self.next == self.grid.len() {
            self.steps = max_drift(self.steps, s.drift);
            self.step_drift.push((s.t, s.drift));
        }
    }

    fn step(&mut self, info: &StepInfo) {
        if let (Some(p), true) = (&mut self.progress, info.accepted) {
            p.update(info.t + info.h);
        }
    }
}

/// Integrate `sys` from the consistent (q0, v0) at t = 0 to `t_end` with `method`, sampling on
/// `grid`; `progress` shows a bar on runs longer than a second. With `steps`, every accepted
/// step point is a sample too (the drift of each step point, plotted over time); without,
/// only the grid is recorded and the maximum drift over the steps is the layer's own.
pub fn integrate(
    sys: &dyn ConstrainedSystem,
    init: &InitReport,
    method: Chosen,
    t_end: f64,
    grid: &[f64],
    (progress, steps): (bool, bool),
) -> Result<Integrated, AppError> {
    let mut method = method;
    method.common_mut().output_steps = steps;
    let mut collector = Collector {
        grid,
        next: 0,
        rec: Recorder::default(),
        steps: Drift::default(),
        output: Drift::default(),
        step_drift: Vec::new(),
        progress: progress.then(|| Progress::new(t_end)),
    };
    let problem = Problem::new(0.0, t_end, &init.q, &init.v).with_times(grid);
    let watch = Stopwatch::start();
    // Through the event loop: a model without events is one plain run.
    let options = mbsim::runtime::events::EventOptions::default();
    let result =
        mbsim::runtime::events::simulate(sys, &method, &problem, &options, None, &mut collector);
    let timing = watch.stop();
    if let Some(p) = &collector.progress {
        p.finish();
    }
    let result = result?;
    let (stats, events) = (result.solution.stats, result.events);
    let max_drift_steps = if steps {
        collector.steps
    } else {
        stats.max_drift
    };
    Ok(Integrated {
        rec: collector.rec,
        stats,
        max_drift_steps,
        max_drift_output: collector.output,
        step_drift: collector.step_drift,
        timing,
        events,
    })
}

/// The model of `cfg` with its parameters.
pub fn build(cfg: &SimConfig) -> Result<Box<dyn ConstrainedSystem>, AppError> {
    let mut sys = (cfg.model.build)();
    for (name, value) in &cfg.params {
        sys.set_parameter(name, *value)?;
    }
    Ok(sys)
}

/// Build the model of `cfg` with its parameters and make its initial guess (with the
/// requested overrides) consistent; the text says what moved.
pub fn prepare(
    cfg: &SimConfig,
) -> Result<(Box<dyn ConstrainedSystem>, InitReport, String), AppError> {
    let sys = build(cfg)?;
    let guess = cfg
        .state
        .apply(sys.as_ref(), (cfg.model.initial)(sys.as_ref()))?;
    let init = consistent(sys.as_ref(), &guess, cfg.atol)?;
    let text = super::state::moved_text(sys.coordinate_names(), &init, &guess);
    Ok((sys, init, text))
}

/// The consistent state nearest to `guess`: to a tenth of atol (the integrator's own check
/// of the initial state uses the smallest atol), and at least to the default 1e-12; the
/// runtime raises a tolerance below round-off to it (`InitOptions::tol`), so a tiny atol
/// stops at round-off instead of failing.
pub fn consistent(
    sys: &dyn ConstrainedSystem,
    guess: &super::state::Guess,
    atol: f64,
) -> Result<InitReport, AppError> {
    let opts = InitOptions {
        tol: (0.1 * atol).min(InitOptions::default().tol),
        locked: guess.locked.clone(),
        keep_q: guess.keep_q.clone(),
        keep_v: guess.keep_v.clone(),
        ..InitOptions::default()
    };
    Ok(mbsim::runtime::initialize(
        sys, 0.0, &guess.q, &guess.v, &opts,
    )?)
}

/// Kinetic and potential energy at every sample of `rec`, when the model states them.
fn energies(sys: &dyn ConstrainedSystem, rec: &Recorder) -> Option<Vec<(f64, f64)>> {
    let energy = sys.as_energy()?;
    let at = |i: usize| {
        let (mut kinetic, mut potential) = ([0.0], [0.0]);
        energy.kinetic_energy_into(rec.t[i], &rec.q[i], &rec.v[i], &mut kinetic);
        energy.potential_energy_into(rec.t[i], &rec.q[i], &mut potential);
        (kinetic[0], potential[0])
    };
    Some((0..rec.t.len()).map(at).collect())
}

/// Run the simulation `cfg` describes.
pub fn run(cfg: &SimConfig, progress: bool) -> Result<RunResult, AppError> {
    let (sys, init, init_text) = prepare(cfg)?;
    // v̇ and λ only when written (a KKT solve per sample); the step points only give their
    // drift, the one the run loop measures anyway.
    let content = match cfg.write.needs_dynamics() {
        true => SampleContent::Dynamics,
        false => SampleContent::State,
    };
    let common = CommonOptions {
        stabilization: cfg.stabilization,
        datol: cfg.datol,
        samples: cfg.samples,
        max_steps: cfg.max_steps,
        sample_content: content,
        step_content: SampleContent::State,
        ..CommonOptions::default()
    };
    let method = Chosen::build(&cfg.request, common)?;
    let (grid, steps) = match cfg.output {
        OutputMode::Grid => (output_times(cfg.t_end, cfg.dt_out), true),
        OutputMode::Final => (vec![cfg.t_end], false),
    };
    let mode = (progress && cfg.repeat == 1, steps);
    let run = integrate(sys.as_ref(), &init, method.clone(), cfg.t_end, &grid, mode)?;
    let mut repeats = vec![run.timing];
    for _ in 1..cfg.repeat {
        let again = integrate(sys.as_ref(), &init, method.clone(), cfg.t_end, &grid, mode)?;
        repeats.push(again.timing);
    }
    let params = sys
        .parameter_names()
        .iter()
        .map(|&n| (n, sys.parameter(n).unwrap_or(f64::NAN)))
        .collect();
    let energy = energies(sys.as_ref(), &run.rec);
    let events = sys.as_events().map(|_| run.events);
    Ok(RunResult {
        events,
        energy,
        step_times: run.step_drift.iter().map(|(t, _)| *t).collect(),
        constraint_names: sys.constraint_names(),
        init_text,
        rec: run.rec,
        stats: run.stats,
        max_drift_steps: run.max_drift_steps,
        max_drift_output: run.max_drift_output,
        timing: run.timing,
        repeats,
        init,
        params,
        coordinates: sys.coordinate_names(),
        constraint_rows: sys.dims().constraint_rows(),
    })
}

/// `simulate`: validate, run, write the files, print the report.
pub fn command(args: &SimulateArgs) -> Result<(), AppError> {
    let cfg = args.config()?;
    let run = run(&cfg, true)?;
    crate::say!("{}", run.init_text);
    crate::output::write_all(&cfg, &run)?;
    crate::say!("{}", crate::output::report(&cfg, &run));
    Ok(())
}
