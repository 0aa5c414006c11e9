//! The keyword arguments of `simulate` (and `sweep`) as the CLI's own [`SimulateArgs`]: one
//! name per flag (`--hht-alpha` is `hht_alpha`), values checked by the same code as on the
//! command line (`SimulateArgs::config`), so a run from Python is exactly `mbsim simulate`'s
//! run. Unknown keys are errors that list the known ones.

use std::path::PathBuf;

use clap::ValueEnum;
use mbsim_cli::method::{Method, Stabilize, Start};
use mbsim_cli::simulate::args::{Samples, SimulateArgs};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::input;

/// Every key `simulate` accepts, in the order the stub lists them.
pub const KEYS: [&str; 29] = [
    "method",
    "stabilization",
    "rtol",
    "atol",
    "datol",
    "h",
    "order",
    "start",
    "hht_alpha",
    "rho_inf",
    "modified_newton",
    "passage_guard",
    "newton_tol",
    "max_newton",
    "hybrid_tol",
    "alpha",
    "beta",
    "gamma",
    "t_end",
    "dt_out",
    "samples",
    "max_steps",
    "params",
    "q0",
    "v0",
    "q",
    "v",
    "lock",
    "config",
];

/// A clap value enum from its command-line name, or an error listing the names.
fn choice<T: ValueEnum>(py: Python<'_>, key: &str, text: &str) -> PyResult<T> {
    T::from_str(text, true).map_err(|_| {
        let known: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        input(
            py,
            format!("{key} = {text:?} is not one of {}", known.join(", ")),
        )
    })
}

/// `NAME=VALUE` strings of a `{name: value}` dict (the CLI's repeated flags); values printed
/// with `{:e}`, which round-trips every f64 (NaN and ±inf print as words the CLI rejects).
fn pairs(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    let dict = value.cast::<PyDict>()?;
    let mut out = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let name: String = k.extract()?;
        let x: f64 = v.extract()?;
        out.push(format!("{name}={x:e}"));
    }
    Ok(out)
}

/// `simulate`'s arguments for `model` from the keyword dict `options`.
pub fn simulate_args(
    py: Python<'_>,
    model: &str,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<SimulateArgs> {
    // clap builds its whole command tree for a parse (~0.1 ms): parse the defaults once.
    static DEFAULTS: std::sync::OnceLock<SimulateArgs> = std::sync::OnceLock::new();
    let mut a = DEFAULTS.get_or_init(|| SimulateArgs::for_model("")).clone();
    a.model = model.to_string();
    // Never written: the bindings return arrays (the CLI requires a directory).
    a.out = Some(PathBuf::from("."));
    a.no_plots = true;
    let Some(options) = options else {
        return Ok(a);
    };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        if value.is_none() {
            continue;
        }
        let text = || value.extract::<String>();
        let float = || value.extract::<f64>().map(Some);
        let count = || value.extract::<usize>().map(Some);
        match key.as_str() {
            "method" => a.method = Some(choice::<Method>(py, "method", &text()?)?),
            "stabilization" => {
                a.stabilization = Some(choice::<Stabilize>(py, "stabilization", &text()?)?)
            }
            "samples" => a.samples = Some(choice::<Samples>(py, "samples", &text()?)?),
            "start" => a.start = Some(choice::<Start>(py, "start", &text()?)?),
            "rtol" => a.rtol = float()?,
            "atol" => a.atol = float()?,
            "datol" => a.datol = float()?,
            "h" => a.h = float()?,
            "hht_alpha" => a.hht_alpha = float()?,
            "rho_inf" => a.rho_inf = float()?,
            "newton_tol" => a.newton_tol = float()?,
            "hybrid_tol" => a.hybrid_tol = float()?,
            "alpha" => a.alpha = float()?,
            "beta" => a.beta = float()?,
            "gamma" => a.gamma = float()?,
            "t_end" => a.t_end = float()?,
            "dt_out" => a.dt_out = float()?,
            "order" => a.order = count()?,
            "max_newton" => a.max_newton = count()?,
            "max_steps" => a.max_steps = count()?,
            "modified_newton" => a.modified_newton = value.extract()?,
            "passage_guard" => a.passage_guard = value.extract()?,
            "params" => a.params = pairs(&value)?,
            "q" => a.q = pairs(&value)?,
            "v" => a.v = pairs(&value)?,
            "q0" => a.q0 = Some(value.extract()?),
            "v0" => a.v0 = Some(value.extract()?),
            "lock" => a.lock = value.extract()?,
            "config" => a.config = Some(value.extract()?),
            other => {
                return Err(input(
                    py,
                    format!("unknown option `{other}` (options: {})", KEYS.join(", ")),
                ));
            }
        }
    }
    Ok(a)
}
