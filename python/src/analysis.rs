//! The analysis modes (`check`, kinematics, inverse dynamics, equilibrium) through the CLI
//! library's own model set-up (`mbsim_cli::analysis`) and the runtime's analyses; results as
//! dicts of NumPy arrays (one row per grid point) and plain values, with the GIL released
//! while Rust computes.

use mbsim::runtime::analysis::{self, InverseDynamics, KinematicOptions, SettlingOptions};
use mbsim_cli::AppError;
use mbsim_cli::analysis::AnalysisArgs;
use mbsim_cli::check::CheckArgs;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::to_py;
use crate::run::json;

/// `{name: value}` as the CLI's `NAME=VALUE` strings.
fn params(values: Option<Vec<(String, f64)>>) -> Vec<String> {
    values
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| format!("{k}={v:e}"))
        .collect()
}

fn rows<'py>(py: Python<'py>, rows: Vec<Vec<f64>>, width: usize) -> PyResult<Bound<'py, PyAny>> {
    use numpy::IntoPyArray;
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    numpy::ndarray::Array2::from_shape_vec((rows.len(), width), flat)
        .map(|a| a.into_pyarray(py).into_any())
        .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))
}

/// `mbsim check`: the diagnosis as a dict (the JSON of `--json`, plus `text`).
pub fn check<'py>(
    py: Python<'py>,
    model: &str,
    t: f64,
    values: Option<Vec<(String, f64)>>,
) -> PyResult<Bound<'py, PyAny>> {
    let args = CheckArgs {
        model: model.to_string(),
        t,
        q: Vec::new(),
        at: None,
        from: None,
        params: params(values),
        json: true,
    };
    let value = py
        .detach(|| mbsim_cli::analysis::check_value(&args))
        .map_err(|e| to_py(py, e))?;
    json(py, &value)
}

/// `mbsim kinematics` / `mbsim inverse`: arrays over the grid.
pub fn kinematic<'py>(
    py: Python<'py>,
    model: &str,
    t_end: Option<f64>,
    dt_out: Option<f64>,
    values: Option<Vec<(String, f64)>>,
    inverse: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let args = AnalysisArgs {
        model: model.to_string(),
        t_end,
        dt_out,
        params: params(values),
        out: ".".into(),
        no_plots: true,
    };
    let computed = py.detach(|| -> Result<_, AppError> {
        let (sys, q0) = mbsim_cli::analysis::model_and_guess(&args.model, &args.params)?;
        let times = mbsim_cli::analysis::time_grid(&args)?;
        let opts = KinematicOptions::default();
        let result = if inverse {
            analysis::inverse_dynamics(sys.as_ref(), &times, &q0, &opts)?
        } else {
            InverseDynamics {
                kinematics: analysis::kinematics(sys.as_ref(), &times, &q0, &opts)?,
                reactions: Vec::new(),
            }
        };
        let coords: Vec<String> = sys
            .coordinate_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        Ok((result, coords))
    });
    let (result, coords) = computed.map_err(|e| to_py(py, e))?;
    let points = &result.kinematics.points;
    let n = coords.len();
    let out = PyDict::new(py);
    let column = |f: &dyn Fn(&analysis::KinematicPoint) -> f64| -> Vec<f64> {
        points.iter().map(f).collect()
    };
    out.set_item("t", PyArray1::from_vec(py, column(&|p| p.t)))?;
    out.set_item(
        "q",
        rows(py, points.iter().map(|p| p.q.clone()).collect(), n)?,
    )?;
    out.set_item(
        "v",
        rows(py, points.iter().map(|p| p.v.clone()).collect(), n)?,
    )?;
    out.set_item(
        "a",
        rows(py, points.iter().map(|p| p.a.clone()).collect(), n)?,
    )?;
    out.set_item("phi_norm", PyArray1::from_vec(py, column(&|p| p.residual)))?;
    out.set_item(
        "phidot_norm",
        PyArray1::from_vec(py, column(&|p| p.velocity_residual)),
    )?;
    out.set_item(
        "condition",
        PyArray1::from_vec(py, column(&|p| p.condition)),
    )?;
    out.set_item(
        "determinant",
        PyArray1::from_vec(py, column(&|p| p.determinant)),
    )?;
    out.set_item(
        "condition_measure",
        result.kinematics.condition_measure.label(),
    )?;
    out.set_item(
        "newton_iterations",
        points.iter().map(|p| p.iterations).collect::<Vec<_>>(),
    )?;
    out.set_item("coordinates", coords)?;
    out.set_item("constraints", result.kinematics.names.clone())?;
    out.set_item("singular_passages", result.kinematics.singular_passages())?;
    if inverse {
        let names = &result.kinematics.names;
        let lambda = PyDict::new(py);
        let reaction = PyDict::new(py);
        for (row, name) in names.iter().enumerate() {
            let at = |r: &Vec<analysis::Reaction>| r.iter().find(|x| x.row == row).cloned();
            let picked: Vec<Option<analysis::Reaction>> = result.reactions.iter().map(at).collect();
            let lam: Vec<f64> = picked
                .iter()
                .map(|r| r.as_ref().map_or(f64::NAN, |r| r.lambda))
                .collect();
            let generalized: Vec<Vec<f64>> = picked
                .iter()
                .map(|r| r.as_ref().map_or(vec![f64::NAN; n], |r| r.dense(n)))
                .collect();
            lambda.set_item(name, PyArray1::from_vec(py, lam))?;
            reaction.set_item(name, rows(py, generalized, n)?)?;
        }
        out.set_item("lambda", lambda)?;
        out.set_item("reactions", reaction)?;
    }
    Ok(out)
}

/// `mbsim equilibrium`: reduced Newton (`"newton"`), settling (`"settle"`) or both.
pub fn equilibrium<'py>(
    py: Python<'py>,
    model: &str,
    method: &str,
    damping: f64,
    values: Option<Vec<(String, f64)>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (newton, settle) = match method {
        "newton" => (true, false),
        "settle" => (false, true),
        "both" => (true, true),
        other => {
            return Err(crate::errors::input(
                py,
                format!("method = {other:?} is not one of newton, settle, both"),
            ));
        }
    };
    let args = params(values);
    let computed = py.detach(|| -> Result<_, AppError> {
        let (sys, q0) = mbsim_cli::analysis::model_and_guess(model, &args)?;
        let reduced = if newton {
            mbsim_cli::analysis::reduced_newton(sys.as_ref(), &q0)?
        } else {
            None
        };
        if newton && !settle && reduced.is_none() {
            return Err(AppError::BadValue {
                what: "method",
                value: "newton".into(),
                why: "needs a Lagrangian model with tangent kernels (spring-bar); use settle",
            });
        }
        let settled = if settle {
            let opts = SettlingOptions {
                damping,
                ..SettlingOptions::default()
            };
            Some(analysis::settle(sys.as_ref(), &q0, &opts)?)
        } else {
            None
        };
        let coords: Vec<String> = sys
            .coordinate_names()
            .iter()
            .map(|s| s.to_string())
            .collect();
        Ok((reduced, settled, coords, sys.constraint_names()))
    });
    let (reduced, settled, coords, names) = computed.map_err(|e| to_py(py, e))?;
    let named = |values: &[f64]| -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (n, v) in names.iter().zip(values) {
            d.set_item(n, v)?;
        }
        Ok(d)
    };
    let out = PyDict::new(py);
    out.set_item("coordinates", coords)?;
    if let Some(eq) = reduced {
        let d = PyDict::new(py);
        d.set_item("q", PyArray1::from_vec(py, eq.q.clone()))?;
        d.set_item("lambda", named(&eq.lambda)?)?;
        d.set_item("iterations", eq.iterations)?;
        d.set_item("halvings", eq.halvings)?;
        d.set_item("reduced_gradient", eq.residual)?;
        d.set_item("equation_residual", eq.equation_residual)?;
        d.set_item("phi_norm", eq.constraint_residual)?;
        d.set_item("potential", eq.potential)?;
        d.set_item("stability", format!("{:?}", eq.stability).to_lowercase())?;
        d.set_item("hessian_eigenvalues", eq.hessian_eigenvalues.clone())?;
        out.set_item("newton", d)?;
    }
    if let Some(s) = settled {
        let d = PyDict::new(py);
        d.set_item("q", PyArray1::from_vec(py, s.q.clone()))?;
        d.set_item("lambda", named(&s.lambda)?)?;
        d.set_item("time", s.time)?;
        d.set_item("steps", s.steps)?;
        d.set_item("speed", s.speed)?;
        d.set_item("reduced_gradient", s.residual)?;
        d.set_item("damping", damping)?;
        out.set_item("settle", d)?;
    }
    Ok(out)
}
