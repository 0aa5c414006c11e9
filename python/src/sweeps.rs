//! Sweeps from Python: the CLI's whole sweep into a directory ([`sweep`], `Model.sweep`), and
//! the pieces the distributed backends of `mbsim.sweep` (Ray, Dask; `mbsim/_distributed.py`)
//! are made of — the plan (number of runs, header, manifest: [`sweep_plan`]), the rows of an
//! explicit list of run indices computed without the GIL ([`sweep_rows`], one task) and the
//! table built from rows ([`table`]), the same conversion the local sweep's CSV goes through,
//! so a distributed table equals the local one cell for cell.

use mbsim_cli::AppError;
use mbsim_cli::sweep::{Plan, SweepArgs};
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::options::simulate_args;

/// What a sweep is: the run options and the axes, as `mbsim sweep` takes them.
pub struct Spec {
    /// `--grid` axes (NAME=FROM:TO:COUNT[:log]).
    pub grid: Vec<String>,
    /// `--random` axes (NAME=FROM:TO[:log]).
    pub random: Vec<String>,
    /// `--draws`.
    pub draws: usize,
    /// `--seed`.
    pub seed: u64,
    /// `--column` specs.
    pub columns: Vec<String>,
}

/// The CLI's arguments of the sweep of `model` with `options` and `spec`.
fn sweep_args(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
    spec: Spec,
    threads: Option<usize>,
    out: Option<std::path::PathBuf>,
) -> PyResult<SweepArgs> {
    let mut sim = simulate_args(py, model, options)?;
    if out.is_some() {
        sim.out = out;
    }
    Ok(SweepArgs {
        sim,
        grid: spec.grid,
        random: spec.random,
        draws: spec.draws,
        seed: spec.seed,
        threads,
        shard: None,
        columns: spec.columns,
    })
}

/// `sweep`: the CLI's sweep into `out` (sweep.csv, sweep.json), then its table as columns.
pub fn sweep<'py>(
    py: Python<'py>,
    model: &str,
    options: Option<&Bound<'py, PyDict>>,
    spec: Spec,
    threads: Option<usize>,
    out: std::path::PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    let args = sweep_args(py, model, options, spec, threads, Some(out.clone()))?;
    let done: Result<(), AppError> = py.detach(|| mbsim_cli::sweep::run(&args));
    done.map_err(|e| to_py(py, e))?;
    let (header, rows) = read_csv(&out.join("sweep.csv")).map_err(|e| to_py(py, e))?;
    table(py, &header, rows)
}

/// The plan of a sweep: `runs_total`, `header` (sweep.csv's) and `manifest` (sweep.json's,
/// shard 0 of 1, without timings); checks every option, axis and column.
pub fn sweep_plan<'py>(
    py: Python<'py>,
    model: &str,
    options: Option<&Bound<'py, PyDict>>,
    spec: Spec,
) -> PyResult<Bound<'py, PyDict>> {
    let args = sweep_args(py, model, options, spec, None, None)?;
    let plan = Plan::new(&args).map_err(|e| to_py(py, e))?;
    let d = PyDict::new(py);
    d.set_item("runs_total", plan.runs_total())?;
    d.set_item("header", plan.header())?;
    let manifest = mbsim_cli::sweep::manifest(&plan, &args, (0, 1));
    d.set_item("manifest", crate::run::json(py, &manifest)?)?;
    Ok(d)
}

/// The rows (sweep.csv's cells) of the runs `indices` of a sweep, in that order, computed in
/// Rust without the GIL on `threads` threads (1: the calling thread only).
pub fn sweep_rows(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
    spec: Spec,
    indices: Vec<usize>,
    threads: Option<usize>,
) -> PyResult<Vec<Vec<String>>> {
    let args = sweep_args(py, model, options, spec, threads, None)?;
    let rows: Result<Vec<Vec<String>>, AppError> = py.detach(|| {
        let plan = Plan::new(&args)?;
        plan.rows(&indices, threads, None)
    });
    rows.map_err(|e| to_py(py, e))
}

/// A CSV file's header and rows.
fn read_csv(path: &std::path::Path) -> Result<(Vec<String>, Vec<Vec<String>>), AppError> {
    let fail = |e: csv::Error| AppError::RunFile {
        path: path.to_path_buf(),
        message: e.to_string(),
    };
    let mut reader = csv::Reader::from_path(path).map_err(fail)?;
    let header: Vec<String> = reader
        .headers()
        .map_err(fail)?
        .iter()
        .map(str::to_string)
        .collect();
    let rows = reader
        .records()
        .map(|r| r.map(|r| r.iter().map(str::to_string).collect()))
        .collect::<Result<Vec<Vec<String>>, _>>()
        .map_err(fail)?;
    Ok((header, rows))
}

/// Rows under `header` as `{column: array or list}`: a column whose every cell parses as a
/// number (empty cells as NaN) and is not all empty becomes a float array, else a list of str.
pub fn table<'py>(
    py: Python<'py>,
    header: &[String],
    rows: Vec<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    let mut columns: Vec<Vec<String>> = vec![Vec::with_capacity(rows.len()); header.len()];
    for (r, row) in rows.into_iter().enumerate() {
        if row.len() != header.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "row {r} has {} cells, the header {}",
                row.len(),
                header.len()
            )));
        }
        for (column, cell) in columns.iter_mut().zip(row) {
            column.push(cell);
        }
    }
    let out = PyDict::new(py);
    for (name, cells) in header.iter().zip(columns) {
        let numbers: Option<Vec<f64>> = cells
            .iter()
            .map(|c| {
                if c.is_empty() {
                    Some(f64::NAN)
                } else {
                    c.parse().ok()
                }
            })
            .collect();
        match numbers {
            Some(values) if !cells.iter().all(String::is_empty) => {
                out.set_item(name, PyArray1::from_vec(py, values))?
            }
            _ => out.set_item(name, cells)?,
        }
    }
    Ok(out)
}

/// Write `sweep.csv` and `sweep.json` into `out` as `mbsim sweep` does (the manifest given
/// as JSON text), each whole or not at all.
pub fn write(
    py: Python<'_>,
    out: std::path::PathBuf,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    manifest: &str,
) -> PyResult<()> {
    let manifest: serde_json::Value = serde_json::from_str(manifest)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    let done: Result<(), AppError> =
        py.detach(|| mbsim_cli::sweep::write_sweep(&out, &header, &rows, &manifest));
    done.map_err(|e| to_py(py, e))
}
