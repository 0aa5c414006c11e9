//! Errors across the boundary: every [`AppError`] becomes a Python exception of the classes in
//! `mbsim/errors.py` (one set of classes, shared by the catalog module and every user module),
//! and a [`SimError`] keeps its diagnosis as attributes: `kind` (the variant), `t`, `h`, `rows`
//! (constraint rows by name), `detail` (the variant's other numbers as a dict) and, where the
//! variant has one, a named cause (`cause` of a step-size underflow). Nothing here panics;
//! PyO3 turns a panic inside a function into `PanicException` in any case.

use mbsim::runtime::{ConstraintRow, SimError, SingularBlock, UnderflowCause};
use mbsim_cli::AppError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// The diagnosis of a runtime failure as plain values.
struct Diagnosis {
    kind: &'static str,
    t: Option<f64>,
    h: Option<f64>,
    rows: Vec<String>,
    detail: Vec<(&'static str, f64)>,
}

/// The fields of `e` (every variant: a new one breaks the build here).
fn diagnose(e: &SimError) -> Diagnosis {
    let by_name = |rows: &[ConstraintRow]| rows.iter().map(|r| r.name.clone()).collect();
    let d = |kind, t, h, rows, detail| Diagnosis {
        kind,
        t,
        h,
        rows,
        detail,
    };
    match e {
        SimError::SingularKkt {
            t,
            h,
            dependent_rows,
            ..
        } => d(
            "SingularKkt",
            Some(*t),
            Some(*h),
            by_name(dependent_rows),
            vec![],
        ),
        SimError::StepSizeUnderflow { t, h, cause } => d(
            "StepSizeUnderflow",
            Some(*t),
            Some(*h),
            vec![],
            underflow(cause).1,
        ),
        SimError::TooManySteps { t, max_steps } => d(
            "TooManySteps",
            Some(*t),
            None,
            vec![],
            vec![("max_steps", *max_steps as f64)],
        ),
        SimError::TooManyEvents { t, events } => d(
            "TooManyEvents",
            Some(*t),
            None,
            vec![],
            vec![("events", *events as f64)],
        ),
        SimError::NonFiniteKernel { t, entry, .. } => d(
            "NonFiniteKernel",
            Some(*t),
            None,
            vec![],
            vec![("entry", *entry as f64)],
        ),
        SimError::InitializationFailed {
            residual,
            iterations,
            violated,
            ..
        } => d(
            "InitializationFailed",
            None,
            None,
            violated.iter().map(|r| r.name.clone()).collect(),
            vec![("residual", *residual), ("iterations", *iterations as f64)],
        ),
        SimError::InvalidOption { .. } => d("InvalidOption", None, None, vec![], vec![]),
        SimError::InvalidProblem { .. } => d("InvalidProblem", None, None, vec![], vec![]),
        SimError::NewtonDiverged {
            t,
            h,
            iterations,
            residual,
            correction,
            ..
        } => d(
            "NewtonDiverged",
            Some(*t),
            Some(*h),
            vec![],
            vec![
                ("iterations", *iterations as f64),
                ("residual", *residual),
                ("correction", *correction),
            ],
        ),
        SimError::SingularIterationMatrix {
            t,
            h,
            dependent_rows,
            ..
        } => d(
            "SingularIterationMatrix",
            Some(*t),
            Some(*h),
            by_name(dependent_rows),
            vec![],
        ),
        SimError::InconsistentInitialState {
            t,
            tolerance,
            position_rows,
            velocity_rows,
            ..
        } => d(
            "InconsistentInitialState",
            Some(*t),
            None,
            position_rows
                .iter()
                .chain(velocity_rows)
                .map(|r| r.name.clone())
                .collect(),
            vec![("tolerance", *tolerance)],
        ),
        SimError::SingularPartition {
            t, h, dependent, ..
        } => d(
            "SingularPartition",
            Some(*t),
            Some(*h),
            dependent.iter().map(|r| r.name.clone()).collect(),
            vec![],
        ),
        SimError::PartitionNewtonFailed {
            t,
            h,
            iterations,
            residual,
            ..
        } => d(
            "PartitionNewtonFailed",
            Some(*t),
            Some(*h),
            vec![],
            vec![("iterations", *iterations as f64), ("residual", *residual)],
        ),
        SimError::SingularConfiguration {
            t,
            h,
            condition,
            rows,
            ..
        } => d(
            "SingularConfiguration",
            Some(*t),
            Some(*h),
            rows.iter().map(|r| r.name.clone()).collect(),
            vec![("condition", *condition)],
        ),
        SimError::NotAnalyzable { rank, .. } => d(
            "NotAnalyzable",
            None,
            None,
            vec![],
            vec![("rank", *rank as f64)],
        ),
        SimError::EquilibriumFailed {
            residual,
            iterations,
            ..
        } => d(
            "EquilibriumFailed",
            None,
            None,
            vec![],
            vec![("residual", *residual), ("iterations", *iterations as f64)],
        ),
    }
}

/// An underflow's cause by name (`unknown`, `unresolved`, `stagnant`, `crawl`) and its first
/// and last rejected attempt at t as `first_h`, `first_error`, `last_h`, `last_error` (none
/// for `unknown`; a crawl's window as `attempts` and `advanced`).
fn underflow(cause: &UnderflowCause) -> (&'static str, Vec<(&'static str, f64)>) {
    let attempts = |first: &(f64, f64), last: &(f64, f64)| {
        vec![
            ("first_h", first.0),
            ("first_error", first.1),
            ("last_h", last.0),
            ("last_error", last.1),
        ]
    };
    match cause {
        UnderflowCause::Unknown => ("unknown", vec![]),
        UnderflowCause::Unresolved { first, last } => ("unresolved", attempts(first, last)),
        UnderflowCause::Stagnant { first, last } => ("stagnant", attempts(first, last)),
        UnderflowCause::Crawl { attempts, advanced } => (
            "crawl",
            vec![("attempts", *attempts as f64), ("advanced", *advanced)],
        ),
    }
}

/// The class `name` of `mbsim.errors`.
fn class<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("mbsim.errors")?.getattr(name)
}

/// An instance of `mbsim.errors.<name>` with `message` and the attributes `attrs`.
fn raise(py: Python<'_>, name: &str, message: String, attrs: Bound<'_, PyDict>) -> PyErr {
    let made = class(py, name).and_then(|cls| {
        let value = cls.call1((message.clone(),))?;
        for (key, v) in attrs.iter() {
            value.setattr(key.cast::<pyo3::types::PyString>()?, v)?;
        }
        Ok(PyErr::from_value(value))
    });
    // The classes are part of the package; if they cannot be reached the message survives.
    made.unwrap_or_else(|e| {
        pyo3::exceptions::PyRuntimeError::new_err(format!("{message} (and: {e})"))
    })
}

/// The coordinates a failure names: those the motion without inertia moves (a singular M on
/// ker G).
fn coordinates(e: &SimError) -> Vec<String> {
    match e {
        SimError::SingularKkt {
            block: SingularBlock::MassOnKernel { coordinates },
            ..
        }
        | SimError::SingularIterationMatrix {
            block: SingularBlock::MassOnKernel { coordinates },
            ..
        } => coordinates.iter().map(|c| c.name.clone()).collect(),
        _ => Vec::new(),
    }
}

/// `e` as the Python exception a user catches (a [`SimError`] names its rows itself).
pub fn to_py(py: Python<'_>, e: AppError) -> PyErr {
    let message = e.to_string();
    let attrs = PyDict::new(py);
    let result = (|| -> PyResult<&'static str> {
        Ok(match &e {
            AppError::Sim(sim) => {
                let d = diagnose(sim);
                attrs.set_item("kind", d.kind)?;
                attrs.set_item("t", d.t)?;
                attrs.set_item("h", d.h)?;
                attrs.set_item("rows", d.rows)?;
                attrs.set_item("coordinates", coordinates(sim))?;
                if let SimError::NonFiniteKernel { at, .. } = sim {
                    attrs.set_item("at", at)?;
                }
                if let SimError::StepSizeUnderflow { cause, .. } = sim {
                    attrs.set_item("cause", underflow(cause).0)?;
                }
                let detail = PyDict::new(py);
                for (k, v) in d.detail {
                    detail.set_item(k, v)?;
                }
                attrs.set_item("detail", detail)?;
                "SimulationError"
            }
            AppError::UnknownModel { name, .. } => {
                attrs.set_item("name", name)?;
                "UnknownModelError"
            }
            AppError::UnknownParameter(_)
            | AppError::BadValue { .. }
            | AppError::UnknownCoordinate { .. }
            | AppError::WrongLength { .. }
            | AppError::NotFinite { .. }
            | AppError::UnknownTable(_)
            | AppError::Config { .. }
            | AppError::Unsupported { .. } => "InputError",
            AppError::ModelFile(_) => "ModelFileError",
            AppError::RunFile { .. } | AppError::Merge(_) => "InputError",
            AppError::Io { .. } | AppError::Plot { .. } | AppError::ChecksFailed(_) => "MbsimError",
        })
    })();
    match result {
        Ok(name) => raise(py, name, message, attrs),
        Err(err) => err,
    }
}

/// `mbsim.errors.InputError` with `message`: a Python argument the CLI's checks never see
/// (an unknown keyword, a value that is not one of a choice's names).
pub fn input(py: Python<'_>, message: String) -> PyErr {
    raise(py, "InputError", message, PyDict::new(py))
}
