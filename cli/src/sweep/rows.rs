//! One run of a sweep and its row: parameters set, initial values overridden, made
//! consistent, integrated through the event loop, timed on the thread that runs it; then the
//! cells of its `sweep.csv` row (a failed run is a row too, with `error_kind` and
//! `error_message`). The same cells go into the CLI's file and, through
//! [`Plan::rows`](super::Plan::rows), to the Python package's local and distributed sweeps.

use mbsim::runtime::{CommonOptions, Problem};

use super::axes::{Axis, Target};
use super::columns::{self, Column, Reducer};
use crate::error::AppError;
use crate::method::Chosen;
use crate::simulate::args::SimConfig;
use crate::timing::{Stopwatch, Timing};

/// The outcome of one run.
pub(super) struct Outcome {
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

/// One run with the swept `values`, timed on the thread that runs it.
pub(super) fn one(
    cfg: &SimConfig,
    (axes, columns): (&[Axis], &[Column]),
    values: &[f64],
) -> Outcome {
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
            Target::Position(j) => {
                guess.q[j] = x;
                guess.keep_q.push(j);
            }
            Target::Velocity(j) => {
                guess.v[j] = x;
                guess.keep_v.push(j);
            }
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
pub(super) struct Layout {
    pub(super) axes: Vec<String>,
    pub(super) names: Vec<String>,
    pub(super) energy: bool,
    pub(super) columns: Vec<String>,
}

impl Layout {
    /// The header of `sweep.csv`.
    pub(super) fn header(&self) -> Vec<String> {
        let mut header: Vec<String> = vec!["run".into(), "status".into()];
        header.extend(self.axes.iter().cloned());
        header.push("t_end".into());
        header.extend(self.names.iter().cloned());
        header.extend(self.names.iter().map(|c| format!("{c}_dot")));
        header.push("max_drift_position".into());
        header.push("max_drift_velocity".into());
        if self.energy {
            header.push("energy_0".into());
            header.push("energy_error".into());
        }
        header.extend(self.columns.iter().cloned());
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

    /// The cells of run `run`'s row, in the header's order.
    pub(super) fn cells(&self, run: usize, o: &Outcome) -> Vec<String> {
        let mut row = vec![run.to_string()];
        row.push(if o.result.is_ok() { "ok" } else { "failed" }.into());
        row.extend(o.values.iter().map(|x| format!("{x:e}")));
        row.extend(self.results(o.result.as_ref().ok()));
        row.push(format!("{:e}", o.timing.cpu.as_secs_f64()));
        row.push(format!("{:e}", o.timing.wall.as_secs_f64()));
        match &o.result {
            Ok(_) => row.extend([String::new(), String::new()]),
            Err(e) => {
                row.push(kind(e));
                row.push(e.to_string());
            }
        }
        row
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

/// Write `header` and `rows` as a CSV file, whole or not at all.
pub(crate) fn write_csv(
    path: &std::path::Path,
    header: &[String],
    rows: &[Vec<String>],
) -> Result<(), AppError> {
    write_csv_with(path, header, |write| {
        for row in rows {
            write(&csv::StringRecord::from(row.clone()))?;
        }
        Ok(())
    })
}

/// Write `header`, then the rows `fill` passes to its writer, as a CSV file, whole or not at
/// all (an error from `fill` leaves no file).
pub(crate) fn write_csv_with(
    path: &std::path::Path,
    header: &[String],
    fill: impl FnOnce(
        &mut dyn FnMut(&csv::StringRecord) -> Result<(), AppError>,
    ) -> Result<(), AppError>,
) -> Result<(), AppError> {
    crate::output::write_whole(path, |out| {
        let io = |e: csv::Error| AppError::Io {
            path: path.to_path_buf(),
            source: std::io::Error::other(e),
        };
        let mut w = csv::Writer::from_writer(out);
        w.write_record(header).map_err(io)?;
        fill(&mut |row| w.write_record(row).map_err(io))?;
        w.flush().map_err(|source| AppError::Io {
            path: path.to_path_buf(),
            source,
        })
    })
}
