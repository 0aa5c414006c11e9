//! `simulate`: the CLI's own run (`mbsim_cli::simulate::run`) with
//! the GIL released while Rust integrates, results handed back as NumPy arrays (one row per
//! output time) and the CLI's `summary.json` as a dict.

use mbsim_cli::AppError;
use mbsim_cli::simulate::RunResult;
use mbsim_cli::simulate::args::SimConfig;
use numpy::ndarray::Array2;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::options::simulate_args;

/// Rows of equal length as a 2-D array (`rows × width`; width given for zero rows).
fn matrix<'py>(py: Python<'py>, rows: &[Vec<f64>], width: usize) -> PyResult<Bound<'py, PyAny>> {
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let array = Array2::from_shape_vec((rows.len(), width), flat)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    Ok(array.into_pyarray(py).into_any())
}

/// A JSON value as Python objects (through `json.loads`, the exact float round trip).
pub fn json<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(value)
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
    py.import("json")?.call_method1("loads", (text,))
}

/// The validated run of `model` with `options`, or the Python exception.
pub fn config(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<SimConfig> {
    let args = simulate_args(py, model, options)?;
    args.config().map_err(|e| to_py(py, e))
}

/// One run of the CLI's `simulate`, without the GIL.
pub fn run_detached(py: Python<'_>, cfg: &SimConfig) -> PyResult<RunResult> {
    let result: Result<RunResult, AppError> = py.detach(|| mbsim_cli::simulate::run(cfg, false));
    result.map_err(|e| to_py(py, e))
}

/// The result dict of a run.
pub fn result_dict<'py>(
    py: Python<'py>,
    cfg: &SimConfig,
    run: &RunResult,
) -> PyResult<Bound<'py, PyDict>> {
    let rec = &run.rec;
    let n = run.coordinates.len();
    let rows = run.constraint_rows;
    let out = PyDict::new(py);
    out.set_item("model", cfg.model.name)?;
    out.set_item("t", PyArray1::from_slice(py, &rec.t))?;
    out.set_item("q", matrix(py, &rec.q, n)?)?;
    out.set_item("v", matrix(py, &rec.v, n)?)?;
    // v̇ and λ are recorded when the trajectory holds multipliers or accelerations (`write`
    // of a config file); otherwise their matrices have no columns.
    let recorded = |m: &[Vec<f64>], width: usize| m.first().map_or(width, Vec::len);
    out.set_item("vdot", matrix(py, &rec.vdot, recorded(&rec.vdot, n))?)?;
    out.set_item(
        "lambda",
        matrix(py, &rec.lambda, recorded(&rec.lambda, rows))?,
    )?;
    let position: Vec<f64> = rec.drift.iter().map(|d| d.position).collect();
    let velocity: Vec<f64> = rec.drift.iter().map(|d| d.velocity).collect();
    out.set_item("drift_position", PyArray1::from_vec(py, position))?;
    out.set_item("drift_velocity", PyArray1::from_vec(py, velocity))?;
    out.set_item("coordinates", run.coordinates.to_vec())?;
    out.set_item("constraints", run.constraint_names.clone())?;
    out.set_item("step_times", PyArray1::from_slice(py, &run.step_times))?;
    let energy = run.energy.as_ref().map(|e| {
        let rows: Vec<Vec<f64>> = e.iter().map(|&(k, p)| vec![k, p]).collect();
        rows
    });
    match energy {
        Some(rows) => out.set_item("energy", matrix(py, &rows, 2)?)?,
        None => out.set_item("energy", py.None())?,
    }
    out.set_item("initialization", &run.init_text)?;
    out.set_item("summary", json(py, &mbsim_cli::output::summary(cfg, run))?)?;
    Ok(out)
}

/// `simulate(model, options)`.
pub fn simulate<'py>(
    py: Python<'py>,
    model: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    let cfg = config(py, model, options)?;
    let run = run_detached(py, &cfg)?;
    result_dict(py, &cfg, &run)
}

/// Wall-clock seconds of each of `repeats` runs of `simulate` in Rust alone (the same
/// `mbsim_cli::simulate::run` the binding calls, after the same validation), for the overhead
/// benchmark (`python/bench/overhead.py`).
pub fn rust_seconds(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
    repeats: usize,
) -> PyResult<Vec<f64>> {
    let cfg = config(py, model, options)?;
    let times: Result<Vec<f64>, AppError> = py.detach(|| {
        (0..repeats)
            .map(|_| {
                let start = std::time::Instant::now();
                let run = mbsim_cli::simulate::run(&cfg, false)?;
                std::hint::black_box(&run);
                Ok(start.elapsed().as_secs_f64())
            })
            .collect()
    });
    times.map_err(|e| to_py(py, e))
}
