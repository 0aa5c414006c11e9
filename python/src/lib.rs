//! Python bindings (PyO3, abi3 for CPython ≥ 3.11): the functions of the `mbsim._native`
//! module, wrapped by the pure-Python package `mbsim` (`python/python/mbsim/`) into `Model`
//! and `Simulation` objects.
//!
//! Everything a run needs is the CLI library's (`mbsim-cli`): the model registry, the option
//! checks of `mbsim simulate` (keyword arguments become its [`SimulateArgs`]
//! (mbsim_cli::simulate::args::SimulateArgs), [`options`]), the run itself and its summary ([`run`]), the
//! analyses ([`analysis`]) and sweeps. So a Python run is `mbsim simulate`'s run, number for
//! number (the pytest suite compares them). The GIL is released while Rust computes, errors
//! are the exceptions of `mbsim.errors` with the runtime's diagnosis ([`errors`]).
//!
//! The catalog module is this crate's cdylib with the `builtin` feature. A user's crate
//! exposes its own models with one line, as `cli_main!` does for the command set:
//!
//! ```ignore
//! mbsim_python::python_module!(my_models, MY_MODELS); // an extension module `my_models`
//! ```
//!
//! and `mbsim.build("file.rs")` writes and builds such a crate for a model file on demand.

pub mod analysis;
pub mod errors;
pub mod options;
pub mod run;
pub mod sweeps;

pub use pyo3;

use mbsim_cli::registry::{self, ModelEntry};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

/// Every model of this module: name, title, source and run defaults.
#[pyfunction]
fn models(py: Python<'_>) -> PyResult<Bound<'_, PyList>> {
    let list = PyList::empty(py);
    for m in registry::models() {
        let d = PyDict::new(py);
        d.set_item("name", m.name)?;
        d.set_item("title", m.title)?;
        d.set_item("source", m.source)?;
        d.set_item("t_end", m.t_end)?;
        d.set_item("dt_out", m.dt_out)?;
        d.set_item("rtol", m.rtol)?;
        list.append(d)?;
    }
    Ok(list)
}

/// One model's names and defaults: coordinates, parameters (with their default values),
/// constraint rows, dimensions, the initial guess and the run defaults.
#[pyfunction]
fn describe<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    let entry = mbsim_cli::registry::entry(name).map_err(|e| errors::to_py(py, e))?;
    let sys = (entry.build)();
    let d = PyDict::new(py);
    d.set_item("name", entry.name)?;
    d.set_item("title", entry.title)?;
    d.set_item("source", entry.source)?;
    d.set_item("coordinates", sys.coordinate_names().to_vec())?;
    let params = PyDict::new(py);
    for &p in sys.parameter_names() {
        params.set_item(p, sys.parameter(p).unwrap_or(f64::NAN))?;
    }
    d.set_item("parameters", params)?;
    d.set_item("constraints", sys.constraint_names())?;
    let dims = sys.dims();
    d.set_item("n", dims.n)?;
    d.set_item("m", dims.m)?;
    d.set_item("k", dims.k)?;
    let (q0, v0) = (entry.initial)(sys.as_ref());
    d.set_item("q0", q0)?;
    d.set_item("v0", v0)?;
    d.set_item("t_end", entry.t_end)?;
    d.set_item("dt_out", entry.dt_out)?;
    d.set_item("rtol", entry.rtol)?;
    d.set_item("has_energy", sys.as_energy().is_some())?;
    d.set_item("has_tangents", sys.as_tangents().is_some())?;
    Ok(d)
}

/// `mbsim simulate` on `model` with the options dict; arrays and the summary back.
#[pyfunction]
#[pyo3(signature = (model, options=None))]
fn simulate<'py>(
    py: Python<'py>,
    model: &str,
    options: Option<&Bound<'py, PyDict>>,
) -> PyResult<Bound<'py, PyDict>> {
    run::simulate(py, model, options)
}

/// Seconds of `repeats` runs of the same simulation in Rust alone (overhead benchmark).
#[pyfunction]
#[pyo3(signature = (model, options=None, repeats=1))]
fn _rust_seconds(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
    repeats: usize,
) -> PyResult<Vec<f64>> {
    run::rust_seconds(py, model, options, repeats)
}

/// `mbsim sweep` into `out`; the table (sweep.csv) as `{column: array or list}`.
#[pyfunction]
#[pyo3(signature = (model, out, options=None, grid=Vec::new(), random=Vec::new(), draws=0, seed=1, threads=None, columns=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn sweep<'py>(
    py: Python<'py>,
    model: &str,
    out: std::path::PathBuf,
    options: Option<&Bound<'py, PyDict>>,
    grid: Vec<String>,
    random: Vec<String>,
    draws: usize,
    seed: u64,
    threads: Option<usize>,
    columns: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = sweeps::Spec {
        grid,
        random,
        draws,
        seed,
        columns,
    };
    sweeps::sweep(py, model, options, spec, threads, out)
}

/// A sweep's plan: `runs_total`, `header`, `manifest` (nothing runs).
#[pyfunction]
#[pyo3(signature = (model, options=None, grid=Vec::new(), random=Vec::new(), draws=0, seed=1, columns=Vec::new()))]
#[allow(clippy::too_many_arguments)]
fn _sweep_plan<'py>(
    py: Python<'py>,
    model: &str,
    options: Option<&Bound<'py, PyDict>>,
    grid: Vec<String>,
    random: Vec<String>,
    draws: usize,
    seed: u64,
    columns: Vec<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let spec = sweeps::Spec {
        grid,
        random,
        draws,
        seed,
        columns,
    };
    sweeps::sweep_plan(py, model, options, spec)
}

/// The rows of the runs `indices` of a sweep (one task of a distributed sweep), GIL released.
#[pyfunction]
#[pyo3(signature = (model, indices, options=None, grid=Vec::new(), random=Vec::new(), draws=0, seed=1, columns=Vec::new(), threads=None))]
#[allow(clippy::too_many_arguments)]
fn _sweep_rows(
    py: Python<'_>,
    model: &str,
    indices: Vec<usize>,
    options: Option<&Bound<'_, PyDict>>,
    grid: Vec<String>,
    random: Vec<String>,
    draws: usize,
    seed: u64,
    columns: Vec<String>,
    threads: Option<usize>,
) -> PyResult<Vec<Vec<String>>> {
    let spec = sweeps::Spec {
        grid,
        random,
        draws,
        seed,
        columns,
    };
    sweeps::sweep_rows(py, model, options, spec, indices, threads)
}

/// Rows under a header as the sweep's table `{column: array or list}`.
#[pyfunction]
fn _sweep_table<'py>(
    py: Python<'py>,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
) -> PyResult<Bound<'py, PyDict>> {
    sweeps::table(py, &header, rows)
}

/// `mbsim check`.
#[pyfunction]
#[pyo3(signature = (model, t=0.0, params=None))]
fn check<'py>(
    py: Python<'py>,
    model: &str,
    t: f64,
    params: Option<Vec<(String, f64)>>,
) -> PyResult<Bound<'py, PyAny>> {
    analysis::check(py, model, t, params)
}

/// `mbsim kinematics` (`inverse=False`) or `mbsim inverse`.
#[pyfunction]
#[pyo3(signature = (model, t_end=None, dt_out=None, params=None, inverse=false))]
fn kinematics<'py>(
    py: Python<'py>,
    model: &str,
    t_end: Option<f64>,
    dt_out: Option<f64>,
    params: Option<Vec<(String, f64)>>,
    inverse: bool,
) -> PyResult<Bound<'py, PyDict>> {
    analysis::kinematic(py, model, t_end, dt_out, params, inverse)
}

/// `mbsim equilibrium`.
#[pyfunction]
#[pyo3(signature = (model, method="both", damping=2.0, params=None))]
fn equilibrium<'py>(
    py: Python<'py>,
    model: &str,
    method: &str,
    damping: f64,
    params: Option<Vec<(String, f64)>>,
) -> PyResult<Bound<'py, PyDict>> {
    analysis::equilibrium(py, model, method, damping, params)
}

/// The FMU's modelDescription.xml of `name` and its model identifier (the library's name).
#[pyfunction]
fn _fmu_description(py: Python<'_>, name: &str) -> PyResult<(String, String)> {
    let entry = mbsim_cli::registry::entry(name).map_err(|e| errors::to_py(py, e))?;
    Ok((
        mbsim_fmu::description(entry),
        mbsim_fmu::description::identifier(entry),
    ))
}

/// Write sweep.csv and sweep.json into `out` (a distributed sweep's table, as the CLI does).
#[pyfunction]
fn _sweep_write(
    py: Python<'_>,
    out: std::path::PathBuf,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    manifest: &str,
) -> PyResult<()> {
    sweeps::write(py, out, header, rows, manifest)
}

/// Add the functions to `m`, serving `entries` (`None`: the built-in catalog).
pub fn register(m: &Bound<'_, PyModule>, entries: Option<&'static [ModelEntry]>) -> PyResult<()> {
    if let Some(entries) = entries {
        registry::install(entries);
    }
    m.add_function(wrap_pyfunction!(models, m)?)?;
    m.add_function(wrap_pyfunction!(describe, m)?)?;
    m.add_function(wrap_pyfunction!(simulate, m)?)?;
    m.add_function(wrap_pyfunction!(_rust_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(sweep, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_plan, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_rows, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_table, m)?)?;
    m.add_function(wrap_pyfunction!(_sweep_write, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(kinematics, m)?)?;
    m.add_function(wrap_pyfunction!(equilibrium, m)?)?;
    m.add_function(wrap_pyfunction!(_fmu_description, m)?)?;
    m.add("SIMULATE_OPTIONS", options::KEYS.to_vec())?;
    Ok(())
}

/// The catalog module `mbsim._native`.
#[cfg(feature = "builtin")]
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    register(m, None)
}

/// An extension module `$name` serving the model entries `$entries` (a `'static` array or
/// slice of `ModelEntry`), importable next to the `mbsim` package:
/// `mbsim.Library(importlib.import_module("$name")).load("model")`. The crate must be a
/// `cdylib` named `$name`, and the macro invoked at its root (the module's path is
/// `crate::__mbsim_pyo3`).
#[macro_export]
macro_rules! python_module {
    ($name:ident, $entries:expr) => {
        use $crate::pyo3 as __mbsim_pyo3;
        #[__mbsim_pyo3::pymodule]
        #[pyo3(crate = "crate::__mbsim_pyo3")]
        fn $name(
            m: &__mbsim_pyo3::Bound<'_, __mbsim_pyo3::types::PyModule>,
        ) -> __mbsim_pyo3::PyResult<()> {
            $crate::register(m, Some(&$entries))
        }
    };
}
