//! `mbsim eval <file.rs> [--model NAME] --t T --q a,b,… --v a,b,… [--param name=value]…`: every
//! kernel of an annotated model at one state, as JSON, without compiling the model.
//!
//! The model is read by the same front end as the proc-macro and run by the interpreter behind
//! the runtime's traits ([`interpreted::Interpreted`]). Every row of the kernel table the model
//! provides is printed (matrices as arrays of rows) under its table name, then the runtime's own
//! KKT solve (`mbsim::runtime::accelerations_into`, sign convention M v̇ + Gᵀ λ = Q) gives
//! `accelerations` and `multipliers` (by index and by constraint name), or `null` with the
//! runtime's diagnosis in `kkt`. Tangent kernels (models with `tangents: true`) are evaluated at
//! λ = those multipliers and w = those accelerations, unless `--lambda` / `--w` are given. Every
//! runtime parameter needs a value; baked ones (`const`) cannot be set.

pub mod interpreted;

use clap::Args;
use interpreted::Interpreted;
use mbsim::runtime::table::{Group, KERNELS, KernelArgs, KernelSpec};
use mbsim::runtime::{ConstrainedSystem, KktWorkspace, accelerations_into};
use serde_json::{Value, json};
use std::path::PathBuf;

use crate::error::AppError;

/// Arguments of `mbsim eval`.
#[derive(Debug, Args)]
pub struct EvalArgs {
    /// The model file.
    pub file: PathBuf,
    /// The model, when the file has several.
    #[arg(long)]
    pub model: Option<String>,
    /// Time.
    #[arg(long, allow_hyphen_values = true)]
    pub t: f64,
    /// Coordinates, comma separated.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub q: Vec<f64>,
    /// Velocities, comma separated.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub v: Vec<f64>,
    /// A runtime parameter, e.g. --param g=9.81 (repeatable; every one needs a value).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Multipliers for the tangent kernels (default: the KKT solution).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub lambda: Option<Vec<f64>>,
    /// The vector w of ∂(M w)/∂q (default: the accelerations).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub w: Option<Vec<f64>>,
}

impl EvalArgs {
    /// The evaluation these arguments ask for.
    pub fn input(self) -> EvalInput {
        EvalInput {
            file: self.file,
            model: self.model,
            t: self.t,
            q: self.q,
            v: self.v,
            params: self.params,
            lambda: self.lambda,
            w: self.w,
        }
    }
}

/// The state and parameters of an evaluation.
#[derive(Clone, Debug, Default)]
pub struct EvalInput {
    /// The model file.
    pub file: PathBuf,
    /// The model's name when the file has several.
    pub model: Option<String>,
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// `name=value` runtime parameters.
    pub params: Vec<String>,
    /// Multipliers for the tangent kernels (default: the KKT solution).
    pub lambda: Option<Vec<f64>>,
    /// The vector w of the tangent kernels (default: the accelerations).
    pub w: Option<Vec<f64>>,
}

/// Run `mbsim eval`; returns the JSON text.
pub fn run(input: &EvalInput) -> Result<String, AppError> {
    let model = crate::generate::read_model(&input.file, input.model.as_deref())?;
    let mut sys = Interpreted::new(model);
    check_lengths(&sys, input)?;
    set_parameters(&mut sys, &input.params)?;
    let value = evaluate(&sys, input)?;
    Ok(serde_json::to_string_pretty(&value).expect("JSON values serialise"))
}

fn bad(message: String) -> AppError {
    AppError::ModelFile(message)
}

fn set_parameters(sys: &mut Interpreted, params: &[String]) -> Result<(), AppError> {
    let name = sys.name();
    let mut given = Vec::new();
    for text in params {
        let (p, x) = text
            .split_once('=')
            .ok_or_else(|| bad(format!("`--param {text}`: expected name=value")))?;
        let x: f64 = x
            .trim()
            .parse()
            .ok()
            .filter(|x: &f64| x.is_finite())
            .ok_or_else(|| bad(format!("--param {p}: `{x}` is not a finite number")))?;
        sys.set_parameter(p.trim(), x)
            .map_err(|e| bad(format!("{e}; `const`s are baked")))?;
        given.push(p.trim().to_string());
    }
    let missing: Vec<&str> = sys
        .parameter_names()
        .iter()
        .copied()
        .filter(|k| !given.iter().any(|g| g == k))
        .collect();
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|m| format!("--param {m}=…")).collect();
        return Err(bad(format!(
            "model {name}: runtime parameter(s) without a value: {} (add {})",
            missing.join(", "),
            flags.join(" ")
        )));
    }
    Ok(())
}

fn check_lengths(sys: &Interpreted, input: &EvalInput) -> Result<(), AppError> {
    let d = sys.dims();
    let coords = sys.coordinate_names().join(", ");
    let lengths = [("--q", input.q.len(), d.n), ("--v", input.v.len(), d.n)];
    let optional = [
        (
            "--lambda",
            input.lambda.as_ref().map(Vec::len),
            d.constraint_rows(),
        ),
        ("--w", input.w.as_ref().map(Vec::len), d.n),
    ];
    let optional = optional
        .into_iter()
        .filter_map(|(f, l, e)| l.map(|l| (f, l, e)));
    for (flag, found, expected) in lengths.into_iter().chain(optional) {
        if found != expected {
            return Err(bad(format!(
                "model {} has n = {} coordinates ({coords}) and m + k = {} constraint rows, but {flag} has {found} values (expected {expected})",
                sys.name(),
                d.n,
                d.constraint_rows()
            )));
        }
    }
    Ok(())
}

fn evaluate(sys: &Interpreted, input: &EvalInput) -> Result<Value, AppError> {
    let d = sys.dims();
    let (t, q, v) = (input.t, &input.q[..], &input.v[..]);
    let mut out = serde_json::Map::new();
    out.insert("model".into(), json!(sys.name()));
    out.insert("coordinates".into(), json!(sys.coordinate_names()));
    out.insert("dims".into(), json!({"n": d.n, "m": d.m, "k": d.k}));
    let names = sys.constraint_names();
    out.insert("constraint_names".into(), json!(names));
    let args = KernelArgs {
        t,
        q,
        v,
        lambda: &[],
        w: &[],
    };
    for spec in KERNELS
        .iter()
        .filter(|s| s.group != Group::Tangent && sys.has(s.id))
    {
        out.insert(spec.name.into(), kernel_json(sys, spec, &args)?);
    }
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    let mut ws = KktWorkspace::new(d);
    match accelerations_into(sys, t, q, v, None, &mut ws, 0.0, &mut vdot, &mut lambda) {
        Ok(()) => {
            out.insert("kkt".into(), json!({"status": "solved"}));
            out.insert("accelerations".into(), json!(vdot));
            let by_name: serde_json::Map<String, Value> = names
                .iter()
                .cloned()
                .zip(lambda.iter().map(|&x| json!(x)))
                .collect();
            out.insert("multipliers".into(), json!(lambda));
            out.insert("multipliers_by_name".into(), Value::Object(by_name));
        }
        Err(e) => {
            out.insert(
                "kkt".into(),
                json!({"status": "failed", "reason": e.to_string()}),
            );
            for key in ["accelerations", "multipliers", "multipliers_by_name"] {
                out.insert(key.into(), Value::Null);
            }
        }
    }
    let lambda = input.lambda.clone().unwrap_or(lambda);
    let w = input.w.clone().unwrap_or(vdot);
    let args = KernelArgs {
        t,
        q,
        v,
        lambda: &lambda,
        w: &w,
    };
    for spec in KERNELS
        .iter()
        .filter(|s| s.group == Group::Tangent && sys.has(s.id))
    {
        out.insert(spec.name.into(), kernel_json(sys, spec, &args)?);
    }
    Ok(Value::Object(out))
}

/// One kernel's values (matrices as arrays of rows); a non-finite entry is an error naming it.
fn kernel_json(
    sys: &Interpreted,
    spec: &KernelSpec,
    args: &KernelArgs<'_>,
) -> Result<Value, AppError> {
    let values = sys.values(spec.id, args);
    if let Some(i) = values.iter().position(|x| !x.is_finite()) {
        return Err(bad(format!(
            "model {}: {}[{i}] = {} at this state (expression `{}`)",
            sys.name(),
            spec.name,
            values[i],
            sys.expression(spec.id, i)
        )));
    }
    let d = sys.dims();
    Ok(match spec.shape {
        mbsim::runtime::table::Shape::Vector(_) => json!(values),
        mbsim::runtime::table::Shape::Matrix(_, c) => {
            let cols = c.of(d.n, d.m, d.k);
            let rows = spec.shape.size(d.n, d.m, d.k).0;
            let row = |r: usize| values[r * cols..(r + 1) * cols].to_vec();
            json!((0..rows).map(row).collect::<Vec<_>>())
        }
    })
}
