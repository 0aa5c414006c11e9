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
pub mod merge;
mod plan;
mod rows;

use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::json;
use std::io::Write;

use crate::error::AppError;
use crate::simulate::args::SimulateArgs;
use crate::timing::ProcessStopwatch;
use axes::Target;
pub use plan::Plan;

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

/// Run `mbsim sweep`.
pub fn run(args: &SweepArgs) -> Result<(), AppError> {
    let plan = Plan::new(args)?;
    let cfg = plan.config();
    let (shard, shards) = axes::shard(args.shard.as_deref())?;
    let mine = plan.shard_indices(shard, shards);
    let threads = args.threads.unwrap_or_else(rayon::current_num_threads);
    let bar = progress(mine.len());
    let watch = ProcessStopwatch::start();
    let rows = plan.rows(&mine, Some(threads), Some(&bar))?;
    let total = watch.stop();
    let wall = total.wall.as_secs_f64();
    bar.finish_and_clear();
    let mut manifest = manifest(&plan, args, (shard, shards));
    manifest["wall_seconds"] = json!(wall);
    manifest["process_cpu_seconds"] = json!(total.cpu.as_secs_f64());
    write_sweep(&cfg.out, &plan.header(), &rows, &manifest)?;
    let failed = rows.iter().filter(|r| r[1] == "failed").count();
    crate::say!(
        "{} runs ({} failed) of `{}` in {wall:.3} s wall, {:.3} s process CPU, with {} thread(s): \
         {:.1} runs/s\nwrote {}",
        rows.len(),
        failed,
        cfg.model.name,
        total.cpu.as_secs_f64(),
        threads.max(1),
        rows.len() as f64 / wall.max(1e-9),
        cfg.out.join("sweep.csv").display()
    );
    Ok(())
}

/// Write `sweep.csv` (`header`, `rows`) and `sweep.json` (`manifest`) into `dir` (created),
/// each whole or not at all: what `mbsim sweep`, `sweep-merge` and the Python sweeps write.
pub fn write_sweep(
    dir: &std::path::Path,
    header: &[String],
    rows: &[Vec<String>],
    manifest: &serde_json::Value,
) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(|source| AppError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    rows::write_csv(&dir.join("sweep.csv"), header, rows)?;
    let path = dir.join("sweep.json");
    let text = serde_json::to_string_pretty(manifest).unwrap_or_default() + "\n";
    crate::output::write_whole(&path, |out| {
        out.write_all(text.as_bytes())
            .map_err(|source| AppError::Io {
                path: path.clone(),
                source,
            })
    })
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

/// The manifest `sweep.json` of shard (I, N) of `plan` (without the timings): what a
/// scheduler needs to split the same sweep into shards and `sweep-merge` to check that shards
/// belong together.
pub fn manifest(
    plan: &Plan,
    args: &SweepArgs,
    (shard, shards): (usize, usize),
) -> serde_json::Value {
    let cfg = plan.config();
    let names = &plan.layout().names;
    let total = plan.runs_total();
    let axes = plan.axes();
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
        "merge": "concatenate the sweep.csv of every shard (one header) and sort by `run`: `mbsim sweep-merge DIR...`",
        "columns": plan.layout().columns,
        "energy_columns": plan.layout().energy,
    })
}
