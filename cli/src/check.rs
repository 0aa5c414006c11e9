//! `mbsim check`: the model's dimensions, the rank of G = [Φ_q; A], its degrees of freedom and
//! redundant constraint rows by name (the runtime's `analysis::check`), with the diagnostics
//! decided at generation time, at a state the user chooses:
//!
//! - nothing: the consistent state nearest the model's guess at `--t` (or the guess itself
//!   when no consistent state is found near it, as for a redundant model);
//! - `--q NAME=VALUE` (repeatable, on the guess) and `--t`: the consistent state with the
//!   given coordinates kept fixed (as given when the initialization fails — the state is then
//!   examined where it is, `|phi|` printed);
//! - `--at TIME --from DIR`: the row of a previous run's `DIR/trajectory.csv` (or
//!   `trajectory.parquet`) nearest TIME,
//!   exactly as recorded, with that run's parameters from `DIR/summary.json` (then `--param`).
//!
//! This is what the near-singular warning of `simulate` points to. Output on stdout only
//! (text, or JSON with `--json`).

use std::path::{Path, PathBuf};

use clap::Args;
use mbsim::runtime::analysis::{self, Diagnosis};
use mbsim::runtime::{ConstrainedSystem, InitOptions};
use serde_json::json;

use crate::analysis::apply_params;
use crate::error::AppError;
use crate::state;

/// Arguments of `mbsim check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model name (see `mbsim list`; the built-in catalog's defective models too).
    pub model: String,
    /// Time at which the model is examined (ignored with --from, which takes the row's time).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub t: f64,
    /// A coordinate of the examined state, e.g. --q theta=0.3 (repeatable; the others from the
    /// model's guess; kept fixed while the rest is made consistent).
    #[arg(long = "q", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    pub q: Vec<String>,
    /// Examine the state of a previous run at this time (the nearest row of --from's
    /// trajectory.csv).
    #[arg(
        long,
        requires = "from",
        allow_hyphen_values = true,
        conflicts_with = "q"
    )]
    pub at: Option<f64>,
    /// The output directory of a previous `simulate` run (its trajectory.csv and summary.json).
    #[arg(long, requires = "at")]
    pub from: Option<PathBuf>,
    /// Override a parameter (repeatable; after the run's parameters with --from).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The examined state and where it came from.
struct Examined {
    t: f64,
    q: Vec<f64>,
    origin: String,
}

/// `mbsim check`.
pub fn check(args: &CheckArgs) -> Result<(), AppError> {
    let value = check_value(args)?;
    if args.json {
        let mut value = value;
        if let Some(map) = value.as_object_mut() {
            map.remove("text");
        }
        crate::say!(
            "{}",
            serde_json::to_string_pretty(&value).unwrap_or_default()
        );
    } else {
        crate::say!("{}", value["text"].as_str().unwrap_or_default().trim_end());
    }
    Ok(())
}

/// What `mbsim check --json` prints, as a value, plus the text report under `"text"` (for
/// other front ends: the Python bindings).
pub fn check_value(args: &CheckArgs) -> Result<serde_json::Value, AppError> {
    let entry = crate::registry::entry_or_defective(&args.model)?;
    let mut sys = (entry.build)();
    if let Some(dir) = &args.from {
        apply_params(sys.as_mut(), &run_parameters(dir, &args.model)?)?;
    }
    apply_params(sys.as_mut(), &args.params)?;
    let examined = match (&args.from, args.at) {
        (Some(dir), Some(at)) => from_run(sys.as_ref(), dir, at)?,
        _ => {
            // The model's guess for the parameters in force.
            let (guess, _) = (entry.initial)(sys.as_ref());
            given(sys.as_ref(), args, guess)?
        }
    };
    let d = analysis::check(sys.as_ref(), examined.t, &examined.q)?;
    let generated = sys.generated_diagnostics();
    let mut text = check_text(&args.model, sys.coordinate_names(), &d);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("state: {}\n", examined.origin));
    text.push_str(&generated_text(generated, d.n));
    let mut value = check_json(&args.model, &d);
    value["generated"] = generated_json(generated);
    value["state_origin"] = json!(examined.origin);
    value["text"] = json!(text);
    Ok(value)
}

/// The state of `--q`/`--t`: the guess with the named coordinates set, made consistent with
/// them kept fixed where possible.
fn given(
    sys: &dyn ConstrainedSystem,
    args: &CheckArgs,
    guess: Vec<f64>,
) -> Result<Examined, AppError> {
    let t = state::finite("--t", args.t)?;
    let mut q = guess;
    let mut locked = Vec::new();
    for text in &args.q {
        let (name, value) = state::pair("--q", text)?;
        let i = state::index(sys, "--q", &name)?;
        q[i] = value;
        locked.push(i);
    }
    let n = q.len();
    let opts = InitOptions {
        locked: locked.clone(),
        ..InitOptions::default()
    };
    let (what, kept) = if locked.is_empty() {
        ("the model's guess", "")
    } else {
        ("the given coordinates", " (given coordinates kept fixed)")
    };
    Ok(
        match mbsim::runtime::initialize(sys, t, &q, &vec![0.0; n], &opts) {
            Ok(report) => Examined {
                t,
                q: report.q,
                origin: format!("the consistent state nearest {what}{kept}"),
            },
            Err(e) => Examined {
                t,
                q,
                origin: format!("{what} as is (no consistent state found near it: {e})"),
            },
        },
    )
}

/// The parameters recorded in `dir/summary.json` as `NAME=VALUE` (none when the file is
/// missing); an error when that run was of another model.
fn run_parameters(dir: &Path, model: &str) -> Result<Vec<String>, AppError> {
    let path = dir.join("summary.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    let bad = |message: String| AppError::RunFile {
        path: path.clone(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad(format!("summary.json is not JSON: {e}")))?;
    if let Some(recorded) = value["model"].as_str()
        && recorded != model
    {
        return Err(bad(format!(
            "that run was of model `{recorded}`, not `{model}`"
        )));
    }
    Ok(value["parameters"]
        .as_object()
        .map(|m| {
            m.iter()
                .filter_map(|(k, v)| v.as_f64().map(|x| format!("{k}={x:e}")))
                .collect()
        })
        .unwrap_or_default())
}

/// The row of the run's trajectory nearest `at` (`trajectory.parquet` when the run wrote one,
/// else `trajectory.csv`), its coordinates found by the header's names.
fn from_run(sys: &dyn ConstrainedSystem, dir: &Path, at: f64) -> Result<Examined, AppError> {
    let parquet = dir.join("trajectory.parquet");
    if parquet.exists() {
        return from_parquet(sys, &parquet, state::finite("--at", at)?);
    }
    let path = dir.join("trajectory.csv");
    let unreadable = |e: csv::Error| AppError::RunFile {
        path: path.clone(),
        message: format!("not a trajectory.csv: {e}"),
    };
    let at = state::finite("--at", at)?;
    let mut reader = csv::Reader::from_path(&path).map_err(|e| AppError::RunFile {
        path: path.clone(),
        message: format!("cannot read it ({e}); --from takes the --out directory of a run"),
    })?;
    let header: Vec<String> = reader
        .headers()
        .map_err(unreadable)?
        .iter()
        .map(str::to_string)
        .collect();
    let column = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .ok_or_else(|| AppError::RunFile {
                path: path.clone(),
                message: format!("no column `{name}` (a coordinate of `{}`)", sys.name()),
            })
    };
    let t_col = column("t")?;
    let cols: Vec<usize> = sys
        .coordinate_names()
        .iter()
        .map(|n| column(n))
        .collect::<Result<_, _>>()?;
    let mut best: Option<(f64, Vec<f64>)> = None;
    for record in reader.records() {
        let record = record.map_err(unreadable)?;
        let number = |j: usize| -> Result<f64, AppError> {
            let text = record.get(j).unwrap_or("");
            text.trim().parse().map_err(|_| AppError::RunFile {
                path: path.clone(),
                message: format!("`{text}` in column {} is not a number", header[j]),
            })
        };
        let t = number(t_col)?;
        if best
            .as_ref()
            .is_none_or(|(tb, _)| (t - at).abs() < (tb - at).abs())
        {
            best = Some((
                t,
                cols.iter().map(|&j| number(j)).collect::<Result<_, _>>()?,
            ));
        }
    }
    let (t, q) = best.ok_or_else(|| AppError::RunFile {
        path: path.clone(),
        message: "no rows".to_string(),
    })?;
    Ok(Examined {
        t,
        q,
        origin: format!(
            "row t = {t} of {} (nearest --at {at}), as recorded",
            path.display()
        ),
    })
}

/// [`from_run`] on a `trajectory.parquet`.
fn from_parquet(sys: &dyn ConstrainedSystem, path: &Path, at: f64) -> Result<Examined, AppError> {
    let mut names = vec!["t"];
    names.extend(sys.coordinate_names());
    let columns = crate::trajectory::read_parquet_columns(path, &names).map_err(|message| {
        AppError::RunFile {
            path: path.to_path_buf(),
            message: format!(
                "{message} (the trajectory needs t and every coordinate of `{}`)",
                sys.name()
            ),
        }
    })?;
    let nearest = (0..columns[0].len())
        .min_by(|&a, &b| {
            (columns[0][a] - at)
                .abs()
                .total_cmp(&(columns[0][b] - at).abs())
        })
        .ok_or_else(|| AppError::RunFile {
            path: path.to_path_buf(),
            message: "no rows".to_string(),
        })?;
    let t = columns[0][nearest];
    Ok(Examined {
        t,
        q: columns[1..].iter().map(|c| c[nearest]).collect(),
        origin: format!(
            "row t = {t} of {} (nearest --at {at}), as recorded",
            path.display()
        ),
    })
}

/// The generation-time diagnostics (`null` for a model without generated code).
fn generated_json(g: Option<mbsim::runtime::GeneratedDiagnostics>) -> serde_json::Value {
    g.map_or(serde_json::Value::Null, |g| {
        json!({
            "structural_rank": g.structural_rank,
            "repeated_rows": g.repeated_rows.iter().map(|(a, b)| json!([a, b])).collect::<Vec<_>>(),
            "structurally_redundant": g.structurally_redundant,
        })
    })
}

/// The generation-time diagnostics as text lines.
fn generated_text(g: Option<mbsim::runtime::GeneratedDiagnostics>, n: usize) -> String {
    let Some(g) = g else {
        return "generation-time diagnostics: none (not generated code)\n".into();
    };
    let mut s = format!(
        "generation time: structural rank of G = {} (so DOF >= {})\n",
        g.structural_rank,
        n - g.structural_rank.min(n)
    );
    for (first, again) in g.repeated_rows {
        s.push_str(&format!(
            "generation time: row `{again}` repeats `{first}` (equal or opposite expression)\n"
        ));
    }
    if !g.structurally_redundant.is_empty() {
        s.push_str(&format!(
            "generation time: structurally redundant rows (dependent at every state): {}\n",
            g.structurally_redundant.join(", ")
        ));
    }
    s
}

/// How the condition was computed, when not by the dense SVD (whose line stays as it was),
/// and with redundant rows the condition of the independent ones.
fn condition_note(d: &Diagnosis) -> String {
    let how = |measure| match measure {
        analysis::ConditionMeasure::TwoNormSvd => String::new(),
        other => format!(" ({})", other.label()),
    };
    let mut note = how(d.jacobian.condition_measure);
    if !d.jacobian.redundant.is_empty() {
        let (kept, measure) = d.jacobian.kept_condition;
        note.push_str(&format!(
            "; of the {} independent rows {kept:.3e}{}",
            d.jacobian.rank,
            how(measure)
        ));
    }
    note
}

fn check_json(model: &str, d: &Diagnosis) -> serde_json::Value {
    let redundant: Vec<serde_json::Value> = d
        .jacobian
        .redundant
        .iter()
        .map(|r| {
            let combination: Vec<serde_json::Value> = r
                .combination
                .iter()
                .map(|(row, name, c)| json!({"row": row, "name": name, "coefficient": c}))
                .collect();
            json!({"row": r.row.row, "name": r.row.name, "distance": r.row.distance,
                   "combination": combination})
        })
        .collect();
    json!({
        "model": model, "n": d.n, "m": d.m, "k": d.k, "rank": d.jacobian.rank, "dof": d.dof,
        "t": d.t, "q": d.q, "phi_norm": d.residual, "condition": d.jacobian.condition,
        "condition_measure": d.jacobian.condition_measure.label(),
        "kept_condition": d.jacobian.kept_condition.0,
        "kept_condition_measure": d.jacobian.kept_condition.1.label(),
        "rank_tolerance": analysis::RANK_TOLERANCE, "constraint_rows": d.names,
        "redundant": redundant, "fully_driven": d.fully_driven(),
        "kinematic_analysis": d.kinematic_advice(),
    })
}

fn check_text(model: &str, coords: &[&str], d: &Diagnosis) -> String {
    let mut s = format!(
        "{model}: n = {} coordinates ({}), m = {} holonomic, k = {} nonholonomic rows ({})\n\
         rank G = {} (relative tolerance {:.2e}), DOF = n - rank G = {}, condition of G {:.3e}{}\n\
         examined at t = {}, q = {:?} (|phi| = {:.1e})\n",
        d.n,
        coords.join(", "),
        d.m,
        d.k,
        d.names.join(", "),
        d.jacobian.rank,
        analysis::RANK_TOLERANCE,
        d.dof,
        d.jacobian.condition,
        condition_note(d),
        d.t,
        d.q,
        d.residual
    );
    if d.jacobian.redundant.is_empty() {
        s.push_str("no redundant constraint rows\n");
    }
    for r in &d.jacobian.redundant {
        let terms: Vec<String> = r
            .combination
            .iter()
            .map(|(_, name, c)| format!("{c:+.6} * grad {name}"))
            .collect();
        s.push_str(&format!(
            "redundant: `{}` (row {}): grad {} = {} (distance {:.1e})\n",
            r.row.name,
            r.row.row,
            r.row.name,
            if terms.is_empty() {
                "0".to_string()
            } else {
                terms.join(" ")
            },
            r.row.distance
        ));
    }
    s.push_str(&format!("kinematic analysis: {}", d.kinematic_advice()));
    s
}
