//! `mbsim sweep`: one model run over a grid (`--grid NAME=FROM:TO:COUNT`, the product of every
//! axis; `NAME=FROM:TO:COUNT:log` spaced in log10) or random samples (`--random NAME=FROM:TO
//! --draws N --seed S`, uniform or `:log` log-uniform, from a small self-contained seeded
//! generator; [`axes`]) of parameters and initial values, in parallel (rayon,
//! `--threads`), with a progress bar on stderr (indicatif). A NAME is a runtime parameter, a
//! coordinate (its initial value, before the consistent initialization) or `<coordinate>_dot`
//! (its initial velocity). Every other option is `simulate`'s (`--config` too).
//!
//! Files in `--out`, written once every run is done, each whole or not at all
//! (`output::write_whole`):
//! - `sweep.csv`: one row per run, in run order: `run`, `status` (`ok`/`failed`), the swept
//!   values, `t_end`, the final q and v by name, `max_drift_position`, `max_drift_velocity`
//!   (over the accepted steps), with energy kernels `energy_0` and `energy_error` (E(t_end) −
//!   E(0)), the user's `--column`s ([`columns`]), `nfcn`, `nstep`, `nrejct`, `events` (how many the event loop handled), `cpu_seconds`
//!   (the run's thread CPU time), `wall_seconds`, `error_kind` and `error_message` (a failed
//!   run is recorded, the sweep goes on);
//! - `sweep.json`: the manifest (model, options, axes, seed, shard, columns, the total number
//!   of runs) — what a scheduler needs to split the same sweep into shards (`--shard I/N` runs
//!   the runs whose index is I mod N) and to merge them (concatenate, sort by `run`).
//!
//! The command prints the throughput: runs, wall time and process CPU time (every thread),
//! threads, runs per second; `sweep.json` records both times.

mod axes;
mod columns;

use std::path::Path;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mbsim::runtime::{CommonOptions, Problem};
use rayon::prelude::*;
use serde_json::json;

use crate::error::AppError;
use crate::method::Chosen;
use crate::simulate::args::{SimConfig, SimulateArgs};
use crate::timing::{ProcessStopwatch, Stopwatch, Timing};
use axes::{Axis, Target};
use columns::{Column, Reducer};

/// Arguments of `mbsim sweep`.
#[derive(Debug, Args)]
pub struct SweepArgs {
    /// The run (every option of `simulate`).
    #[command(flatten)]
    pub sim: SimulateArgs,
    /// A grid axis NAME=FROM:TO:COUNT (repeatable; the sweep is the product of the axes).
    #[arg(
        long = "grid",
        value_name = "NAME=FROM:TO:COUNT",
        allow_hyphen_values = true
    )]
    pub grid: Vec<String>,
    /// A random axis NAME=FROM:TO, uniform (repeatable; with --draws).
    #[arg(
        long = "random",
        value_name = "NAME=FROM:TO",
        allow_hyphen_values = true
    )]
    pub random: Vec<String>,
    /// Number of random draws (runs) of the random axes.
    #[arg(long, default_value_t = 0)]
    pub draws: usize,
    /// Seed of the random samples.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Worker threads (default: rayon's, one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Run only shard I of N (the runs whose index is I mod N), e.g. --shard 0/4.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// An output column: QUANTITY or REDUCTION(QUANTITY), e.g. maxabs(qf3), final(lambda_rod),
    /// max(energy_error) (repeatable; quantities: coordinates, <q>_dot, <q>_ddot,
    /// lambda_<row>, phi_norm, phidot_norm, energy, energy_error; reductions: final, max, min,
    /// maxabs over the accepted step points).
    #[arg(long = "column", value_name = "SPEC")]
    pub columns: Vec<String>,
}

/// The outcome of one run.
struct Outcome {
    values: Vec<f64>,
    result: Result<Finished, AppError>,
    timing: Timing,
}

struct Finished {
    end: mbsim::runtime::Solution,
    /// `energy_0` and `energy_error`, for a model with energy kernels.
    energy: Option<(f64, f64)>,
    /// The `--column` values.
    columns: Vec<f64>,
}

/// Run `mbsim sweep`.
pub fn run(args: &SweepArgs) -> Result<(), AppError> {
    args.sim.only_for_simulate(
        "an option of `simulate` only (a sweep records every run's final state and CPU time)",
    )?;
    let cfg = args.sim.config()?;
    let probe = crate::simulate::build(&cfg)?;
    let axes = axes::axes(args, probe.as_ref())?;
    let columns = columns::parse_all(probe.as_ref(), &args.columns)?;
    let runs = axes::plan(args, &axes)?;
    let (shard, shards) = axes::shard(args.shard.as_deref())?;
    let mine: Vec<(usize, &Vec<f64>)> = runs
        .iter()
        .enumerate()
        .filter(|(i, _)| i % shards == shard)
        .collect();
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| AppError::ModelFile(format!("cannot start {threads} threads: {e}")))?;
    let bar = progress(mine.len());
    let watch = ProcessStopwatch::start();
    let outcomes: Vec<(usize, Outcome)> = pool.install(|| {
        mine.par_iter()
            .map(|&(i, values)| {
                let outcome = one(&cfg, (&axes, &columns), values);
                bar.inc(1);
                (i, outcome)
            })
            .collect()
    });
    let total = watch.stop();
    let wall = total.wall.as_secs_f64();
    bar.finish_and_clear();
    std::fs::create_dir_all(&cfg.out).map_err(|source| AppError::Io {
        path: cfg.out.clone(),
        source,
    })?;
    let names = probe.coordinate_names();
    let energy = probe.as_energy().is_some();
    let layout = Layout {
        axes: &axes,
        names,
        energy,
        columns: &columns,
    };
    write_csv(&cfg.out.join("sweep.csv"), &layout, &outcomes)?;
    let mut manifest = manifest(&cfg, args, &axes, runs.len(), (shard, shards), names);
    manifest["wall_seconds"] = json!(wall);
    manifest["process_cpu_seconds"] = json!(total.cpu.as_secs_f64());
    manifest["columns"] = json!(columns.iter().map(|c| c.header.clone()).collect::<Vec<_>>());
    manifest["energy_columns"] = json!(energy);
    let path = cfg.out.join("sweep.json");
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    crate::output::write_whole(&path, |out| {
        out.write_all(text.as_bytes())
            .map_err(|source| AppError::Io {
                path: path.clone(),
                source,
            })
    })?;
    let failed = outcomes.iter().filter(|(_, o)| o.result.is_err()).count();
    crate::say!(
        "{} runs ({} failed) of `{}` in {wall:.3} s wall, {:.3} s process CPU, with {} thread(s): \
         {:.1} runs/s\nwrote {}",
        outcomes.len(),
        failed,
        cfg.model.name,
        total.cpu.as_secs_f64(),
        threads.max(1),
        outcomes.len() as f64 / wall.max(1e-9),
        cfg.out.join("sweep.csv").display()
    );
    Ok(())
}

fn progress(len: usize) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr());
    if let Ok(style) =
        ProgressStyle::with_template("{bar:40} {pos}/{len} runs [{elapsed}, eta {eta}]")
    {
        bar.set_style(style);
    }
    bar
}

/// One run: parameters set, initial values overridden, made consistent, integrated; timed on
/// the thread that runs it.
fn one(cfg: &SimConfig, (axes, columns): (&[Axis], &[Column]), values: &[f64]) -> Outcome {
    let watch = Stopwatch::start();
    let result = attempt(cfg, (axes, columns), values);
    Outcome {
        values: values.to_vec(),
        result,
        timing: watch.stop(),
    }
}

fn attempt(
    cfg: &SimConfig,
    (axes, columns): (&[Axis], &[Column]),
    values: &[f64],
) -> Result<Finished, AppError> {
    let mut sys = crate::simulate::build(cfg)?;
    for (a, &x) in axes.iter().zip(values) {
        if a.target == Target::Parameter {
            sys.set_parameter(&a.name, x)?;
        }
    }
    let mut guess = cfg
        .state
        .apply(sys.as_ref(), (cfg.model.initial)(sys.as_ref()))?;
    for (a, &x) in axes.iter().zip(values) {
        match a.target {
            Target::Parameter => {}
            Target::Position(j) => guess.q[j] = x,
            Target::Velocity(j) => guess.v[j] = x,
        }
    }
    let init = crate::simulate::consistent(sys.as_ref(), &guess, cfg.atol)?;
    let common = CommonOptions {
        stabilization: cfg.stabilization,
        datol: cfg.datol,
        samples: cfg.samples,
        max_steps: cfg.max_steps,
        output_steps: !columns.is_empty(),
        ..CommonOptions::default()
    };
    let method = Chosen::build(&cfg.request, common)?;
    let problem = Problem::new(0.0, cfg.t_end, &init.q, &init.v);
    let start = (0.0, init.q.as_slice(), init.v.as_slice());
    // Through the event loop, as `simulate` (a model without events is one plain run).
    let options = mbsim::runtime::events::EventOptions::default();
    let run = |problem: &Problem, observer: &mut dyn mbsim::runtime::Observer| {
        mbsim::runtime::events::simulate(sys.as_ref(), &method, problem, &options, None, observer)
            .map(|r| r.solution)
    };
    let (end, columns) = if columns.is_empty() {
        (run(&problem, &mut ())?, Vec::new())
    } else {
        // Samples at t0 and t_end besides every accepted step point.
        let problem = problem.with_times(&[0.0, cfg.t_end]);
        let mut reducer = Reducer::new(sys.as_ref(), columns, start);
        let end = run(&problem, &mut reducer)?;
        (end, reducer.values)
    };
    let energy = columns::energy_error(sys.as_ref(), start, (end.t, &end.q, &end.v));
    Ok(Finished {
        end,
        energy,
        columns,
    })
}

/// The error's kind: the variant name (of the simulation error, when it is one).
fn kind(e: &AppError) -> String {
    let debug = match e {
        AppError::Sim(s) => format!("{s:?}"),
        other => format!("{other:?}"),
    };
    debug
        .split(|c: char| !c.is_alphanumeric() && c != '_')
        .next()
        .unwrap_or("")
        .to_string()
}

/// The columns of `sweep.csv` besides the fixed ones.
struct Layout<'a> {
    axes: &'a [Axis],
    names: &'a [&'a str],
    energy: bool,
    columns: &'a [Column],
}

impl Layout<'_> {
    fn header(&self) -> Vec<String> {
        let mut header: Vec<String> = vec!["run".into(), "status".into()];
        header.extend(self.axes.iter().map(|a| a.name.clone()));
        header.push("t_end".into());
        header.extend(self.names.iter().map(|c| c.to_string()));
        header.extend(self.names.iter().map(|c| format!("{c}_dot")));
        header.push("max_drift_position".into());
        header.push("max_drift_velocity".into());
        if self.energy {
            header.push("energy_0".into());
            header.push("energy_error".into());
        }
        header.extend(self.columns.iter().map(|c| c.header.clone()));
        for h in [
            "nfcn",
            "nstep",
            "nrejct",
            "events",
            "cpu_seconds",
            "wall_seconds",
            "error_kind",
            "error_message",
        ] {
            header.push(h.into());
        }
        header
    }

    /// The values between the swept ones and the timings: empty for a failed run.
    fn results(&self, f: Option<&Finished>) -> Vec<String> {
        let e = |x: &f64| format!("{x:e}");
        let Some(f) = f else {
            let width = 3 + 2 * self.names.len() + 2 * usize::from(self.energy);
            return vec![String::new(); width + self.columns.len() + 4];
        };
        let s = &f.end.stats;
        let mut row = vec![e(&f.end.t)];
        row.extend(f.end.q.iter().chain(&f.end.v).map(e));
        row.push(e(&s.max_drift.position));
        row.push(e(&s.max_drift.velocity));
        if self.energy {
            let (e0, de) = f.energy.unwrap_or((f64::NAN, f64::NAN));
            row.extend([e(&e0), e(&de)]);
        }
        row.extend(f.columns.iter().map(e));
        row.extend([s.nfcn, s.nstep, s.nrejct, s.events].map(|c| c.to_string()));
        row
    }
}

fn write_csv(
    path: &Path,
    layout: &Layout<'_>,
    outcomes: &[(usize, Outcome)],
) -> Result<(), AppError> {
    crate::output::write_whole(path, |out| write_rows(out, path, layout, outcomes))
}

fn write_rows(
    out: &mut dyn std::io::Write,
    path: &Path,
    layout: &Layout<'_>,
    outcomes: &[(usize, Outcome)],
) -> Result<(), AppError> {
    let io = |e: csv::Error| AppError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let mut w = csv::Writer::from_writer(out);
    w.write_record(layout.header()).map_err(io)?;
    for (i, o) in outcomes {
        let mut row = vec![i.to_string()];
        row.push(if o.result.is_ok() { "ok" } else { "failed" }.into());
        row.extend(o.values.iter().map(|x| format!("{x:e}")));
        row.extend(layout.results(o.result.as_ref().ok()));
        row.push(format!("{:e}", o.timing.cpu.as_secs_f64()));
        row.push(format!("{:e}", o.timing.wall.as_secs_f64()));
        match &o.result {
            Ok(_) => row.extend([String::new(), String::new()]),
            Err(e) => {
                row.push(kind(e));
                row.push(e.to_string());
            }
        }
        w.write_record(&row).map_err(io)?;
    }
    w.flush().map_err(|source| AppError::Io {
        path: path.to_path_buf(),
        source,
    })
}

fn manifest(
    cfg: &SimConfig,
    args: &SweepArgs,
    axes: &[Axis],
    total: usize,
    (shard, shards): (usize, usize),
    names: &[&str],
) -> serde_json::Value {
    json!({
        "model": cfg.model.name,
        "method": cfg.request.method.cli_name(),
        "stabilization": cfg.stabilization.name(),
        "rtol": cfg.rtol,
        "atol": cfg.atol,
        "t_end": cfg.t_end,
        "parameters": cfg.params.iter().map(|(n, v)| (n.clone(), json!(v))).collect::<serde_json::Map<_, _>>(),
        "axes": axes.iter().map(|a| json!({
            "name": a.name,
            "sets": match a.target {
                Target::Parameter => "parameter".to_string(),
                Target::Position(j) => format!("q0 of {}", names[j]),
                Target::Velocity(j) => format!("v0 of {}", names[j]),
            },
            "from": a.from, "to": a.to,
            "kind": if a.count == 0 { "random" } else { "grid" },
            "spacing": if a.log { "log" } else { "linear" },
            "count": a.count,
        })).collect::<Vec<_>>(),
        "draws": args.draws,
        "seed": args.seed,
        "runs_total": total,
        "shard": shard,
        "shards": shards,
        "unit_of_work": "one run: the row index `run` determines its values (grid order, or the seeded sequence)",
        "merge": "concatenate the sweep.csv of every shard (one header) and sort by `run`",
    })
}
