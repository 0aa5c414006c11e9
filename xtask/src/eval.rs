//! `cargo xtask eval <file.rs> [--model NAME] --t T --q a,b,… --v a,b,… [--param name=value]…`:
//! every kernel of an annotated model at one state, as JSON, without compiling the model.
//!
//! The model is read by the same front end as the proc-macro, its kernels derived, and each
//! evaluated with the `codegen` interpreter (`Pool::eval_many`): phi, phi_q, phi_t, nh_matrix,
//! nh_offset, gamma, L, M, Q. Then the KKT system [M Gᵀ; G 0] [v̇; λ] = [Q; γ] (G = [Φ_q; A],
//! sign convention M v̇ + Gᵀ λ = Q) is solved by full-pivot LU: `accelerations` and
//! `multipliers` are printed when it is nonsingular, otherwise `null` with the reason in
//! `kkt`. Matrices are arrays of rows. Every runtime parameter needs a value; baked ones
//! (`const`) cannot be set. Errors name the model and the value at fault.

use anyhow::{Context, Result, bail};
use mbsim_codegen::{Env, ExprId, Model, frontend, kernels};
use nalgebra::{DMatrix, DVector};
use serde_json::{Value, json};
use std::path::PathBuf;

/// The parsed command line.
#[derive(Debug, Default)]
struct Args {
    file: PathBuf,
    model: Option<String>,
    t: Option<f64>,
    q: Option<Vec<f64>>,
    v: Option<Vec<f64>>,
    params: Vec<(String, f64)>,
}

/// Run the task; returns the JSON text.
pub fn run(args: &[String]) -> Result<String> {
    let args = parse_args(args)?;
    let text = std::fs::read_to_string(&args.file)
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let found = frontend::file::models_in_source(&text)
        .map_err(|e| anyhow::anyhow!(crate::located(&args.file, &e)))?;
    let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
    let chosen = match (&args.model, found.len()) {
        (Some(name), _) => found.iter().find(|m| &m.name == name).with_context(|| {
            format!(
                "{}: no model `{name}` (models in this file: {})",
                args.file.display(),
                names.join(", ")
            )
        })?,
        (None, 1) => &found[0],
        (None, 0) => bail!(
            "{}: no `#[model(…)]` struct in this file",
            args.file.display()
        ),
        (None, _) => bail!(
            "{}: several models ({}); pick one with --model",
            args.file.display(),
            names.join(", ")
        ),
    };
    let model = chosen
        .build()
        .map_err(|e| anyhow::anyhow!(crate::located(&args.file, &e)))?;
    let value = evaluate(model, &args)?;
    Ok(serde_json::to_string_pretty(&value)?)
}

fn parse_args(raw: &[String]) -> Result<Args> {
    let mut args = Args::default();
    let mut it = raw.iter();
    let mut file = None;
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().with_context(|| format!("`{flag}` needs a value"));
        match a.as_str() {
            "--model" => args.model = Some(value("--model")?.clone()),
            "--t" => args.t = Some(number(value("--t")?, "--t")?),
            "--q" => args.q = Some(list(value("--q")?, "--q")?),
            "--v" => args.v = Some(list(value("--v")?, "--v")?),
            "--param" => {
                let p = value("--param")?;
                let (name, x) = p
                    .split_once('=')
                    .with_context(|| format!("`--param {p}`: expected name=value"))?;
                args.params.push((
                    name.trim().to_string(),
                    number(x, &format!("--param {name}"))?,
                ));
            }
            flag if flag.starts_with("--") => bail!("unknown option `{flag}`"),
            path if file.is_none() => file = Some(PathBuf::from(path)),
            extra => bail!("unexpected argument `{extra}`"),
        }
    }
    args.file =
        file.context("eval needs a model file: cargo xtask eval <file.rs> --t T --q … --v …")?;
    Ok(args)
}

fn number(text: &str, what: &str) -> Result<f64> {
    let x: f64 = text
        .trim()
        .parse()
        .with_context(|| format!("{what}: `{text}` is not a number"))?;
    if !x.is_finite() {
        bail!("{what}: `{text}` is not finite");
    }
    Ok(x)
}

fn list(text: &str, what: &str) -> Result<Vec<f64>> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .enumerate()
        .map(|(i, x)| number(x, &format!("{what}[{i}]")))
        .collect()
}

/// The state's environment, checked against the model's coordinates and parameters.
fn environment(model: &Model, args: &Args) -> Result<Env> {
    let name = &model.name;
    let coords: Vec<&str> = model.coordinates.iter().map(|c| c.name.as_str()).collect();
    let mut env = Env::new();
    env.set(
        &model.pool,
        model.time,
        args.t
            .with_context(|| format!("model {name}: give the time with --t"))?,
    );
    for (flag, values) in [("--q", &args.q), ("--v", &args.v)] {
        let values = values
            .as_ref()
            .with_context(|| format!("model {name}: give {flag} with {} values", coords.len()))?;
        if values.len() != coords.len() {
            bail!(
                "model {name} has {} coordinates ({}) but {flag} has {} values",
                coords.len(),
                coords.join(", "),
                values.len()
            );
        }
        for (c, &x) in model.coordinates.iter().zip(values) {
            env.set(&model.pool, if flag == "--q" { c.q } else { c.v }, x);
        }
    }
    let known: Vec<&str> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    for (p, x) in &args.params {
        let Some(param) = model.parameters.iter().find(|q| &q.name == p) else {
            bail!(
                "model {name} has no runtime parameter `{p}` (runtime parameters: {}; `const`s are baked)",
                known.join(", ")
            );
        };
        env.set(&model.pool, param.sym, *x);
    }
    let missing: Vec<&str> = known
        .iter()
        .copied()
        .filter(|k| !args.params.iter().any(|(p, _)| p == k))
        .collect();
    if !missing.is_empty() {
        let flags: Vec<String> = missing.iter().map(|m| format!("--param {m}=…")).collect();
        bail!(
            "model {name}: runtime parameter(s) without a value: {} (add {})",
            missing.join(", "),
            flags.join(" ")
        );
    }
    Ok(env)
}

fn evaluate(mut model: Model, args: &Args) -> Result<Value> {
    let env = environment(&model, args)?;
    let k = kernels::derive(&mut model);
    let (n, m, nk) = (model.n(), k.phi.len(), k.nh_offset.len());
    let pool = &model.pool;
    let name = model.name.clone();
    let eval = |label: &str, ids: &[ExprId]| -> Result<Vec<f64>> {
        let values = pool.eval_many(ids, &env);
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            let expr = pool.to_sexpr(ids[i]);
            bail!(
                "model {name}: {label}[{i}] = {} at this state (expression `{expr}`)",
                values[i]
            );
        }
        Ok(values)
    };
    let rows = |values: Vec<f64>, cols: usize| -> Value {
        if cols == 0 {
            return json!(vec![Vec::<f64>::new(); values.len()]);
        }
        json!(values.chunks(cols).map(<[f64]>::to_vec).collect::<Vec<_>>())
    };
    let mass = eval("M", &k.mass.entries)?;
    let force = eval("Q", &k.force)?;
    let jacobian = eval("G", &k.jacobian().entries)?;
    let gamma = eval("gamma", &k.gamma)?;
    let (accelerations, multipliers, kkt) = solve_kkt(n, m + nk, &mass, &force, &jacobian, &gamma);
    Ok(json!({
        "model": model.name,
        "coordinates": model.coordinates.iter().map(|c| c.name.clone()).collect::<Vec<_>>(),
        "dims": { "n": n, "m": m, "k": nk },
        "phi": eval("phi", &k.phi)?,
        "phi_q": rows(eval("phi_q", &k.phi_q.entries)?, n),
        "phi_t": eval("phi_t", &k.phi_t)?,
        "nh_matrix": rows(eval("nh_matrix", &k.nh_matrix.entries)?, n),
        "nh_offset": eval("nh_offset", &k.nh_offset)?,
        "gamma": gamma,
        "L": rows(eval("L", &k.l.entries)?, n),
        "M": rows(mass, n),
        "Q": force,
        "kkt": kkt,
        "accelerations": accelerations,
        "multipliers": multipliers,
    }))
}

/// Solve [M Gᵀ; G 0] [v̇; λ] = [Q; γ]; `null`s and the reason when the matrix is singular.
fn solve_kkt(
    n: usize,
    r: usize,
    mass: &[f64],
    force: &[f64],
    g: &[f64],
    gamma: &[f64],
) -> (Value, Value, Value) {
    let size = n + r;
    let mut a = DMatrix::<f64>::zeros(size, size);
    for i in 0..n {
        for j in 0..n {
            a[(i, j)] = mass[i * n + j];
        }
    }
    for i in 0..r {
        for j in 0..n {
            a[(n + i, j)] = g[i * n + j];
            a[(j, n + i)] = g[i * n + j];
        }
    }
    let rhs = DVector::from_iterator(size, force.iter().chain(gamma).copied());
    let lu = a.clone().full_piv_lu();
    let pivots: Vec<f64> = (0..size).map(|i| lu.u()[(i, i)].abs()).collect();
    let largest = pivots.iter().copied().fold(0.0, f64::max);
    let smallest = pivots.iter().copied().fold(f64::INFINITY, f64::min);
    // Relative pivot threshold: below size·ε the factorization cannot tell the matrix from a
    // singular one (the rounding of the LU itself is of that order).
    let threshold = size as f64 * f64::EPSILON * largest;
    match lu.solve(&rhs) {
        Some(x) if smallest > threshold => {
            let residual = (&a * &x - &rhs).amax();
            (
                json!(x.as_slice()[..n].to_vec()),
                json!(x.as_slice()[n..].to_vec()),
                json!({"status": "nonsingular", "residual": residual}),
            )
        }
        _ => {
            let reason = format!(
                "the KKT matrix [M Gᵀ; G 0] ({size}×{size}) is singular: smallest pivot {smallest:e} ≤ {threshold:e} (size·ε·largest pivot); check M and that the constraint rows are independent"
            );
            (
                Value::Null,
                Value::Null,
                json!({"status": "singular", "reason": reason}),
            )
        }
    }
}
