//! `mbsim sweep`: one model run over a grid (`--grid NAME=FROM:TO:COUNT`, the product of every
//! axis) or random samples (`--random NAME=FROM:TO --draws N --seed S`, uniform, from a small
//! self-contained seeded generator) of parameters and initial values, in parallel (rayon,
//! `--threads`), with a progress bar on stderr (indicatif). A NAME is a runtime parameter, a
//! coordinate (its initial value, before the consistent initialization) or `<coordinate>_dot`
//! (its initial velocity). Every other option is `simulate`'s (`--config` too).
//!
//! Files in `--out`, written once every run is done (nothing half-way):
//! - `sweep.csv`: one row per run, in run order: `run`, `status` (`ok`/`failed`), the swept
//!   values, `t_end`, the final q and v by name, `max_drift_position`, `max_drift_velocity`
//!   (over the accepted steps), `nfcn`, `nstep`, `nrejct`, `cpu_seconds`, `error_kind` and
//!   `error_message` (a failed run is recorded, the sweep goes on);
//! - `sweep.json`: the manifest (model, options, axes, seed, shard, columns, the total number
//!   of runs) — what a scheduler needs to split the same sweep into shards (`--shard I/N` runs
//!   the runs whose index is I mod N) and to merge them (concatenate, sort by `run`).
//!
//! The command prints the throughput: runs, wall time, threads, runs per second.

use std::path::Path;
use std::time::Instant;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use mbsim::runtime::{CommonOptions, ConstrainedSystem, Integrator, Problem};
use rayon::prelude::*;
use serde_json::json;

use super::AppError;
use super::cli::{SimConfig, SimulateArgs};
use super::method::Chosen;

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
}

/// What a swept name sets.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    Parameter,
    Position(usize),
    Velocity(usize),
}

/// One axis of the sweep.
#[derive(Clone, Debug)]
struct Axis {
    name: String,
    target: Target,
    from: f64,
    to: f64,
    /// Grid points (0 for a random axis).
    count: usize,
}

/// The outcome of one run.
struct Outcome {
    values: Vec<f64>,
    result: Result<Finished, AppError>,
    cpu: f64,
}

struct Finished {
    end: mbsim::runtime::Solution,
}

/// Run `mbsim sweep`.
pub fn run(args: &SweepArgs) -> Result<(), AppError> {
    let cfg = args.sim.config()?;
    let probe = super::simulate::build(&cfg)?;
    let axes = axes(args, probe.as_ref())?;
    let runs = plan(args, &axes)?;
    let (shard, shards) = shard(args.shard.as_deref())?;
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
    let start = Instant::now();
    let outcomes: Vec<(usize, Outcome)> = pool.install(|| {
        mine.par_iter()
            .map(|&(i, values)| {
                let outcome = one(&cfg, &axes, values);
                bar.inc(1);
                (i, outcome)
            })
            .collect()
    });
    let wall = start.elapsed().as_secs_f64();
    bar.finish_and_clear();
    std::fs::create_dir_all(&cfg.out).map_err(|source| AppError::Io {
        path: cfg.out.clone(),
        source,
    })?;
    let names = probe.coordinate_names();
    write_csv(&cfg.out.join("sweep.csv"), &axes, names, &outcomes)?;
    let manifest = manifest(&cfg, args, &axes, runs.len(), (shard, shards), names);
    let path = cfg.out.join("sweep.json");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n",
    )
    .map_err(|source| AppError::Io { path, source })?;
    let failed = outcomes.iter().filter(|(_, o)| o.result.is_err()).count();
    crate::say!(
        "{} runs ({} failed) of `{}` in {wall:.3} s with {} thread(s): {:.1} runs/s\nwrote {}",
        outcomes.len(),
        failed,
        cfg.model.name,
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

/// The axes of `args`, each name resolved against the model.
fn axes(args: &SweepArgs, sys: &dyn ConstrainedSystem) -> Result<Vec<Axis>, AppError> {
    if !args.grid.is_empty() && !args.random.is_empty() {
        return Err(AppError::BadValue {
            what: "--grid/--random",
            value: String::new(),
            why: "give grid axes or random axes, not both",
        });
    }
    let mut out = Vec::new();
    for text in &args.grid {
        out.push(axis(sys, "--grid", text, true)?);
    }
    for text in &args.random {
        out.push(axis(sys, "--random", text, false)?);
    }
    if out.is_empty() {
        return Err(AppError::BadValue {
            what: "--grid/--random",
            value: String::new(),
            why: "give at least one axis (e.g. --grid mom=0.03:0.04:5)",
        });
    }
    Ok(out)
}

fn axis(
    sys: &dyn ConstrainedSystem,
    what: &'static str,
    text: &str,
    grid: bool,
) -> Result<Axis, AppError> {
    let bad = |why| AppError::BadValue {
        what,
        value: text.to_string(),
        why,
    };
    let (name, range) = text.split_once('=').ok_or_else(|| {
        bad(if grid {
            "expected NAME=FROM:TO:COUNT"
        } else {
            "expected NAME=FROM:TO"
        })
    })?;
    let name = name.trim();
    let parts: Vec<&str> = range.split(':').collect();
    if parts.len() != if grid { 3 } else { 2 } {
        return Err(bad(if grid {
            "expected NAME=FROM:TO:COUNT"
        } else {
            "expected NAME=FROM:TO"
        }));
    }
    let number = |s: &str| -> Result<f64, AppError> {
        let x: f64 = s
            .trim()
            .parse()
            .map_err(|_| bad("FROM and TO must be numbers"))?;
        super::state::finite(&format!("{what} {name}"), x)
    };
    let (from, to) = (number(parts[0])?, number(parts[1])?);
    let count = if grid {
        let c: usize = parts[2]
            .trim()
            .parse()
            .map_err(|_| bad("COUNT must be a whole number"))?;
        if c == 0 || c > 1_000_000 {
            return Err(bad("COUNT must be 1 to 1 000 000"));
        }
        c
    } else {
        0
    };
    Ok(Axis {
        name: name.to_string(),
        target: target(sys, what, name)?,
        from,
        to,
        count,
    })
}

/// A parameter, a coordinate or `<coordinate>_dot`; else an error listing all three.
fn target(sys: &dyn ConstrainedSystem, what: &str, name: &str) -> Result<Target, AppError> {
    if sys.parameter_names().contains(&name) {
        return Ok(Target::Parameter);
    }
    let coords = sys.coordinate_names();
    if let Some(j) = coords.iter().position(|c| *c == name) {
        return Ok(Target::Position(j));
    }
    if let Some(j) = name
        .strip_suffix("_dot")
        .and_then(|c| coords.iter().position(|x| *x == c))
    {
        return Ok(Target::Velocity(j));
    }
    Err(AppError::UnknownCoordinate {
        what: format!("{what} (a parameter, a coordinate or <coordinate>_dot)"),
        name: name.to_string(),
        model: sys.name().to_string(),
        known: format!(
            "{}; parameters: {}",
            coords.join(", "),
            sys.parameter_names().join(", ")
        ),
    })
}

/// The values of every run, in run order.
fn plan(args: &SweepArgs, axes: &[Axis]) -> Result<Vec<Vec<f64>>, AppError> {
    if axes[0].count == 0 {
        if args.draws == 0 || args.draws > 10_000_000 {
            return Err(AppError::BadValue {
                what: "--draws",
                value: args.draws.to_string(),
                why: "random axes need --draws N, 1 to 10 000 000",
            });
        }
        let mut rng = SplitMix64(args.seed);
        return Ok((0..args.draws)
            .map(|_| {
                axes.iter()
                    .map(|a| a.from + (a.to - a.from) * rng.unit())
                    .collect()
            })
            .collect());
    }
    let total: usize = axes.iter().map(|a| a.count).product();
    if total > 10_000_000 {
        return Err(AppError::BadValue {
            what: "--grid",
            value: total.to_string(),
            why: "more than 10 000 000 runs",
        });
    }
    Ok((0..total)
        .map(|mut i| {
            // Last axis fastest, like nested loops written in order.
            let mut values = vec![0.0; axes.len()];
            for (k, a) in axes.iter().enumerate().rev() {
                let j = i % a.count;
                i /= a.count;
                values[k] = if a.count == 1 {
                    a.from
                } else {
                    a.from + (a.to - a.from) * j as f64 / (a.count - 1) as f64
                };
            }
            values
        })
        .collect())
}

fn shard(text: Option<&str>) -> Result<(usize, usize), AppError> {
    let Some(text) = text else { return Ok((0, 1)) };
    let bad = || AppError::BadValue {
        what: "--shard",
        value: text.to_string(),
        why: "expected I/N with 0 <= I < N",
    };
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let (i, n): (usize, usize) = (
        i.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if n == 0 || i >= n {
        return Err(bad());
    }
    Ok((i, n))
}

/// One run: parameters set, initial values overridden, made consistent, integrated.
fn one(cfg: &SimConfig, axes: &[Axis], values: &[f64]) -> Outcome {
    let start = Instant::now();
    let result = attempt(cfg, axes, values);
    Outcome {
        values: values.to_vec(),
        result,
        cpu: start.elapsed().as_secs_f64(),
    }
}

fn attempt(cfg: &SimConfig, axes: &[Axis], values: &[f64]) -> Result<Finished, AppError> {
    {
        let mut sys = super::simulate::build(cfg)?;
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
        let init = super::simulate::consistent(sys.as_ref(), &guess, cfg.atol)?;
        let common = CommonOptions {
            stabilization: cfg.stabilization,
            datol: cfg.datol,
            samples: cfg.samples,
            max_steps: cfg.max_steps,
            ..CommonOptions::default()
        };
        let method = Chosen::build(&cfg.request, common)?;
        let problem = Problem::new(0.0, cfg.t_end, &init.q, &init.v);
        let end = method.integrate_into(sys.as_ref(), &problem, &mut ())?;
        Ok(Finished { end })
    }
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

fn write_csv(
    path: &Path,
    axes: &[Axis],
    names: &[&str],
    outcomes: &[(usize, Outcome)],
) -> Result<(), AppError> {
    let io = |e: csv::Error| AppError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    };
    let mut w = csv::Writer::from_path(path).map_err(io)?;
    let mut header: Vec<String> = vec!["run".into(), "status".into()];
    header.extend(axes.iter().map(|a| a.name.clone()));
    header.push("t_end".into());
    header.extend(names.iter().map(|c| c.to_string()));
    header.extend(names.iter().map(|c| format!("{c}_dot")));
    for h in [
        "max_drift_position",
        "max_drift_velocity",
        "nfcn",
        "nstep",
        "nrejct",
        "cpu_seconds",
        "error_kind",
        "error_message",
    ] {
        header.push(h.into());
    }
    w.write_record(&header).map_err(io)?;
    let n = names.len();
    for (i, o) in outcomes {
        let mut row = vec![i.to_string()];
        row.push(if o.result.is_ok() { "ok" } else { "failed" }.into());
        row.extend(o.values.iter().map(|x| format!("{x:e}")));
        match &o.result {
            Ok(f) => {
                let s = &f.end.stats;
                row.push(format!("{:e}", f.end.t));
                row.extend(f.end.q.iter().chain(&f.end.v).map(|x| format!("{x:e}")));
                row.push(format!("{:e}", s.max_drift.position));
                row.push(format!("{:e}", s.max_drift.velocity));
                row.extend([s.nfcn, s.nstep, s.nrejct].map(|c| c.to_string()));
                row.push(format!("{:e}", o.cpu));
                row.extend([String::new(), String::new()]);
            }
            Err(e) => {
                row.extend(std::iter::repeat_n(String::new(), 1 + 2 * n + 5));
                row.push(format!("{:e}", o.cpu));
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

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny seeded generator, reproducible across
/// platforms; enough for uniform samples of a sweep.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}
