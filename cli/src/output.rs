//! The files of `mbsim simulate`: the trajectory (`trajectory.csv` or `trajectory.parquet`,
//! [`crate::trajectory`]: one row per output time, the last exactly at t_end; with `--output
//! final` the t_end row only), `summary.json` (model, parameters,
//! method, tolerances, counters, `cpu_seconds` (thread CPU) and `wall_seconds`, `--repeat`'s
//! minimum and median,
//! maximum drifts, the consistent initialization) and, through [`super::plot_grid`], the plots
//! (PNG, and SVG with `--svg`); plus the one-paragraph report
//! printed on stdout.
//!
//! Columns (by default; `--write` selects, [`crate::simulate::columns`]): `t`, the coordinate
//! names, `<name>_dot`, `lambda_1 … lambda_{m+k}` (1-based, in the order of G = [Φ_q; A];
//! `summary.json`'s `multipliers` names their rows), `phi_norm` = ‖Φ‖∞ and `phidot_norm` =
//! ‖Φ_q v + Φ_t‖∞ (with the nonholonomic rows A v + b).

use std::io::Write;
use std::path::Path;

use serde_json::json;

use mbsim::runtime::events::{EventKind, EventRecord};

use super::simulate::RunResult;
use crate::error::AppError;
use crate::simulate::args::{OutputMode, SimConfig};

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> AppError + '_ {
    move |source| AppError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn csv_err(path: &Path) -> impl FnOnce(csv::Error) -> AppError + '_ {
    move |e| AppError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::other(e),
    }
}

/// Write the file `path` whole or not at all: into `<name>.partial` beside it, flushed to the
/// disk and renamed onto `path` only once every byte is written. A full disk or a vanished
/// directory then leaves no file under the real name (the partial one is removed), and a file
/// of an earlier run is replaced only by a complete one, so no truncated `trajectory.csv` or
/// `sweep.csv` sits next to a `summary.json` as if it were complete. The error names `path`.
pub fn write_whole(
    path: &Path,
    write: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> Result<(), AppError>,
) -> Result<(), AppError> {
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let result = (|| {
        let file = std::fs::File::create(&partial).map_err(io_err(path))?;
        let mut out = std::io::BufWriter::new(file);
        write(&mut out)?;
        let file = out.into_inner().map_err(|e| AppError::Io {
            path: path.to_path_buf(),
            source: e.into_error(),
        })?;
        file.sync_all().map_err(io_err(path))?;
        std::fs::rename(&partial, path).map_err(io_err(path))
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    result
}

/// The summary as JSON.
pub fn summary(cfg: &SimConfig, run: &RunResult) -> serde_json::Value {
    let s = &run.stats;
    let params: serde_json::Map<String, serde_json::Value> = run
        .params
        .iter()
        .map(|(n, v)| (n.to_string(), json!(v)))
        .collect();
    let baumgarte = cfg
        .stabilization
        .baumgarte()
        .map(|b| json!({"alpha": b.alpha, "beta": b.beta}));
    let mut value = json!({
        "model": cfg.model.name,
        "source": cfg.model.source,
        "parameters": params,
        "method": cfg.request.method.cli_name(),
        "stabilization": cfg.stabilization.name(),
        "h": cfg.request.h,
        "order": cfg.request.order,
        "baumgarte": baumgarte,
        "rtol": cfg.rtol,
        "atol": cfg.atol,
        "datol": cfg.datol,
        "t_end": cfg.t_end,
        "dt_out": cfg.dt_out,
        "NFCN": s.nfcn,
        "NSTEP": s.nstep,
        "NACCP": s.naccpt,
        "NREJCT": s.nrejct,
        "NSTAB": s.nstab,
        "failed_attempts": s.failed,
        "output_solves": s.output_solves,
        "max_drift_position": run.max_drift_steps.position,
        "max_drift_velocity": run.max_drift_steps.velocity,
        "max_drift_output_position": run.max_drift_output.position,
        "max_drift_output_velocity": run.max_drift_output.velocity,
        "samples": format!("{:?}", cfg.samples).to_lowercase(),
        "h_min": s.h_range.0,
        "h_max": s.h_range.1,
        "pivot_spread_max": s.conditioning.map(|c| c.spread),
        "pivot_spread_t": s.conditioning.map(|c| c.t),
        "initialization": crate::state::init_json(run.coordinates, &run.init, &cfg.state),
        "rows": run.rec.t.len(),
        "partitions": s.partitions.iter().map(|p| json!({
            "t": p.t,
            "level": format!("{:?}", p.level).to_lowercase(),
            "reason": format!("{:?}", p.reason).to_lowercase(),
            "old_independent": p.old_independent.iter().map(|&i| run.coordinates.get(i).copied().unwrap_or("?")).collect::<Vec<_>>(),
            "new_independent": p.new_independent.iter().map(|&i| run.coordinates.get(i).copied().unwrap_or("?")).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "redundant_rows": redundant_rows(run),
        "redundancy": s.redundancy.iter().map(|r| json!({
            "t": r.t,
            "cause": r.cause.to_string(),
            "left_out": row_names(run, &r.left_out),
        })).collect::<Vec<_>>(),
        "events": run.events.as_ref().map(|events| events.iter().map(|r| event_json(run, r)).collect::<Vec<_>>()),
        "event_count": run.events.as_ref().map(Vec::len),
        "event_evaluations": s.event_evaluations,
        "max_drift_redundant_position": s.redundant_drift.position,
        "max_drift_redundant_velocity": s.redundant_drift.velocity,
        "extra": s.extra.iter().map(|(n, v)| (n.to_string(), json!(v))).collect::<serde_json::Map<_, _>>(),
    });
    // What the trajectory holds: its file and the constraint row of each multiplier column.
    value["trajectory"] = json!(trajectory_name(cfg, run));
    let multiplier = |&i: &usize| (format!("lambda_{}", i + 1), json!(run.constraint_names[i]));
    let multipliers = cfg.write.lambda.iter().map(multiplier);
    value["multipliers"] = json!(multipliers.collect::<serde_json::Map<_, _>>());
    // Timings, each named for its clock (`crate::timing`).
    value["cpu_seconds"] = json!(run.timing.cpu.as_secs_f64());
    value["cpu_clock"] = json!("thread CPU time of the integration (CLOCK_THREAD_CPUTIME_ID)");
    value["wall_seconds"] = json!(run.timing.wall.as_secs_f64());
    value["stabilization_wall_seconds"] = json!(s.stabilization_time.as_secs_f64());
    value["repeat"] = repeat_json(run);
    value["output"] = json!(format!("{:?}", cfg.output).to_lowercase());
    value
}

/// The trajectory's file name.
fn trajectory_name(cfg: &SimConfig, run: &RunResult) -> &'static str {
    let columns = cfg.write.columns(run.coordinates).len();
    cfg.format.resolve(run.rec.t.len(), columns).file_name()
}

/// One event of `summary.json`: time, name, kind, the speeds of an impact, the state after.
fn event_json(run: &RunResult, r: &EventRecord) -> serde_json::Value {
    let mut value = json!({ "t": r.t, "name": r.name, "kind": r.kind.word() });
    match r.kind {
        EventKind::Impact {
            restitution,
            approach_speed,
            separation_speed,
        } => {
            value["restitution"] = json!(restitution);
            value["approach_speed"] = json!(approach_speed);
            value["separation_speed"] = json!(separation_speed);
        }
        EventKind::ContactClosed { approach_speed } => {
            value["approach_speed"] = json!(approach_speed);
        }
        EventKind::Slip { sign } => value["slip_sign"] = json!(sign),
        EventKind::Handler { stopped } => value["stopped"] = json!(stopped),
        EventKind::Stop | EventKind::LiftOff | EventKind::Stick => {}
    }
    let named = |x: &[f64]| -> serde_json::Map<String, serde_json::Value> {
        run.coordinates
            .iter()
            .zip(x)
            .map(|(n, v)| (n.to_string(), json!(v)))
            .collect()
    };
    value["q_after"] = json!(named(&r.q_after));
    value["v_after"] = json!(named(&r.v_after));
    value
}

/// `events.csv`: one row per event — time, name, kind, then q and v before and after.
pub fn write_events(path: &Path, run: &RunResult, events: &[EventRecord]) -> Result<(), AppError> {
    let mut w = csv::Writer::from_path(path).map_err(csv_err(path))?;
    let mut header = vec!["t".to_string(), "name".into(), "kind".into()];
    for side in ["before", "after"] {
        header.extend(run.coordinates.iter().map(|c| format!("{c}_{side}")));
        header.extend(run.coordinates.iter().map(|c| format!("{c}_dot_{side}")));
    }
    w.write_record(&header).map_err(csv_err(path))?;
    for r in events {
        let mut row = vec![
            format!("{:e}", r.t),
            r.name.to_string(),
            r.kind.word().to_string(),
        ];
        for x in r
            .q_before
            .iter()
            .chain(&r.v_before)
            .chain(&r.q_after)
            .chain(&r.v_after)
        {
            row.push(format!("{x:e}"));
        }
        w.write_record(&row).map_err(csv_err(path))?;
    }
    w.flush().map_err(io_err(path))
}

/// The events line of the report: how many of each kind (models with `events`).
fn events_line(run: &RunResult) -> String {
    let Some(events) = &run.events else {
        return String::new();
    };
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for r in events {
        match counts.iter_mut().find(|(k, _)| *k == r.kind.word()) {
            Some(c) => c.1 += 1,
            None => counts.push((r.kind.word(), 1)),
        }
    }
    let parts: Vec<String> = counts.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "
events: {}{} (events.csv)",
        events.len(),
        if parts.is_empty() {
            String::new()
        } else {
            format!(": {}", parts.join(", "))
        }
    )
}

/// `--repeat`: the runs' minimum and median CPU and wall seconds (`null` for one run).
fn repeat_json(run: &RunResult) -> serde_json::Value {
    match crate::timing::repeated(&run.repeats) {
        Some(r) if r.runs > 1 => json!({
            "runs": r.runs,
            "cpu_seconds_min": r.cpu_min.as_secs_f64(),
            "cpu_seconds_median": r.cpu_median.as_secs_f64(),
            "wall_seconds_min": r.wall_min.as_secs_f64(),
            "wall_seconds_median": r.wall_median.as_secs_f64(),
        }),
        _ => serde_json::Value::Null,
    }
}

/// The names of constraint rows `rows`.
fn row_names(run: &RunResult, rows: &[usize]) -> Vec<String> {
    rows.iter()
        .map(|&i| {
            run.constraint_names
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("row {i}"))
        })
        .collect()
}

/// The rows left out as redundant at the end of the run, by name.
fn redundant_rows(run: &RunResult) -> Vec<String> {
    run.stats
        .redundancy
        .last()
        .map_or_else(Vec::new, |r| row_names(run, &r.left_out))
}

/// The redundancy line of the report: a warning naming the rows left out, when there are any.
fn redundancy_line(run: &RunResult) -> String {
    let s = &run.stats;
    let Some(first) = s.redundancy.first() else {
        return String::new();
    };
    let changes = match s.redundancy.len() {
        1 => String::new(),
        k => format!("; the set changed {} more times, see summary.json", k - 1),
    };
    format!(
        "\nwarning: over-constrained: rows {} left out as redundant at t = {:.6} (λ = 0 on them; \
         their residual stayed ≤ {:.2e}){changes}",
        row_names(run, &first.left_out).join(", "),
        first.t,
        s.redundant_drift.max(),
    )
}

/// Write trajectory.csv, summary.json and (if asked) the plots into `cfg.out`.
pub fn write_all(cfg: &SimConfig, run: &RunResult) -> Result<(), AppError> {
    std::fs::create_dir_all(&cfg.out).map_err(io_err(&cfg.out))?;
    let columns = cfg.write.columns(run.coordinates);
    crate::trajectory::write(&cfg.out, cfg.format, &run.rec, &columns)?;
    if let Some(events) = &run.events {
        write_events(&cfg.out.join("events.csv"), run, events)?;
    }
    let path = cfg.out.join("summary.json");
    let text = serde_json::to_string_pretty(&summary(cfg, run)).unwrap_or_default() + "\n";
    write_whole(&path, |out| {
        out.write_all(text.as_bytes()).map_err(io_err(&path))
    })?;
    if cfg.plots && cfg.output == OutputMode::Grid {
        super::plot_grid::write_run(&cfg.out, cfg.model.name, run, &cfg.wrap, cfg.svg)?;
    }
    Ok(())
}

/// A pivot spread above this (≈ 1/√ε: half the digits of a solve at risk) is reported as a
/// near-singular configuration.
const SPREAD_WARNING: f64 = 1e8;

/// The conditioning line of the report: the worst pivot spread of the run's constraint solve
/// (the KKT matrix, the Newton matrix or S = E M⁻¹ Eᵀ, see `Stats::conditioning`), and a
/// warning when it suggests a near-singular configuration.
fn conditioning_line(cfg: &SimConfig, run: &RunResult) -> String {
    match run.stats.conditioning {
        None => String::new(),
        Some(c) if c.spread > SPREAD_WARNING => format!(
            "\nwarning: near-singular configuration at t = {:.6}: pivot spread {:.2e}; \
             diagnose the state there (the dependent rows are the suspects) with\n  \
             {} check {} --at {} --from {}{}",
            c.t,
            c.spread,
            crate::registry::program(),
            cfg.model.name,
            c.t,
            cfg.out.display(),
            if cfg.output == OutputMode::Final {
                " (after a run with --output grid: this one recorded t_end only)"
            } else {
                ""
            }
        ),
        Some(c) => format!(
            "\npivot spread of the constraint solve: worst {:.2e} at t = {:.6}",
            c.spread, c.t
        ),
    }
}

/// The report printed after a run.
pub fn report(cfg: &SimConfig, run: &RunResult) -> String {
    let s = &run.stats;
    let conditioning = conditioning_line(cfg, run) + &redundancy_line(run) + &events_line(run);
    format!(
        "{} on [0, {}] with {} + {}, {}, datol {:e}\n\
         NFCN {} NSTEP {} NACCP {} NREJCT {} NSTAB {}  CPU {:.3} s (thread), wall {:.3} s \
         (stabilization wall {:.3} s){}\n\
         max drift at the steps: position {:.2e}, velocity {:.2e}; at the {:?} samples: {:.2e}, {:.2e}{}\n\
         wrote {} ({}, {} rows)",
        cfg.model.name,
        cfg.t_end,
        cfg.request.method.cli_name(),
        cfg.stabilization.name(),
        match cfg.request.h {
            Some(h) if cfg.request.method.has_order_option() => {
                format!("h {h:e}, order {}", cfg.request.order.unwrap_or(4))
            }
            Some(h) => format!("h {h:e}"),
            None => format!("rtol {:e}, atol {:e}", cfg.rtol, cfg.atol),
        },
        cfg.datol,
        s.nfcn,
        s.nstep,
        s.naccpt,
        s.nrejct,
        s.nstab,
        run.timing.cpu.as_secs_f64(),
        run.timing.wall.as_secs_f64(),
        s.stabilization_time.as_secs_f64(),
        repeat_text(run),
        run.max_drift_steps.position,
        run.max_drift_steps.velocity,
        cfg.samples,
        run.max_drift_output.position,
        run.max_drift_output.velocity,
        conditioning,
        cfg.out.display(),
        trajectory_name(cfg, run),
        run.rec.t.len()
    )
}

/// `--repeat`: one clause with the minimum and median times (empty for one run).
fn repeat_text(run: &RunResult) -> String {
    match crate::timing::repeated(&run.repeats) {
        Some(r) if r.runs > 1 => format!(
            "; {} runs: CPU min {:.3} s, median {:.3} s; wall min {:.3} s, median {:.3} s",
            r.runs,
            r.cpu_min.as_secs_f64(),
            r.cpu_median.as_secs_f64(),
            r.wall_min.as_secs_f64(),
            r.wall_median.as_secs_f64()
        ),
        _ => String::new(),
    }
}
