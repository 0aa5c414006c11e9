//! The analysis subcommands (issue 12): `mbsim kinematics`, `mbsim inverse`, `mbsim equilibrium`
//! and `mbsim check`, on the installed models (and, for `check`, the built-in defective models
//! of `mbsim_models::defective`). Reduced Newton reaches the model's tangent kernels and
//! energy through `as_tangents`/`as_energy` ([`super::views::Both`]), so it works for any
//! model that has both.
//!
//! Files, in `--out` like `simulate`:
//! - `kinematics`: `kinematics.csv` (t, q, `<q>_dot`, `<q>_ddot`, `phi_norm`, `phidot_norm`,
//!   `newton_iterations`, `condition`, `determinant`), `summary.json` (with the intervals where
//!   det Φ_q changed sign: singular configurations passed, and `condition_measure`: κ₂ from
//!   the dense SVD, or the banded path's 1-norm estimate κ̂₁ for a large sparse model),
//!   `coordinates.png`, `condition.png`;
//! - `inverse`: the same plus `reactions.csv` (t, `lambda_<row>` per named constraint row, then
//!   `<row>_on_<coordinate>` = −λ ∂Φ_row/∂q_coordinate for the (row, coordinate) pairs where
//!   G = [Φ_q; A] is structurally nonzero, row by row in coordinate order: the model's stated
//!   pattern plus any entry found nonzero, so a column left out is zero at every point — on
//!   the A02 chain's driven form 805 columns instead of 243·243 = 59 049) and `reactions.png` (λ by row name);
//! - `equilibrium`: `equilibrium.json` (per method: q, λ by row name, iterations, residuals,
//!   stability, eigenvalues of the reduced Hessian, CPU time);
//! - `check`: stdout only (text, or JSON with `--json`).

use crate::timing::Stopwatch;
use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use mbsim::runtime::ConstrainedSystem;
use mbsim::runtime::analysis::{
    self, EquilibriumOptions, InverseDynamics, KinematicOptions, Kinematics, SettlingOptions,
};
use serde_json::json;

use super::plot::{self, PlotSpec, Series};
use super::registry;
use crate::error::AppError;

/// Arguments of `mbsim kinematics` and `mbsim inverse`.
#[derive(Debug, Args)]
pub struct AnalysisArgs {
    /// Model name (see `mbsim list`).
    pub model: String,
    /// End of the time grid (default: the model's).
    #[arg(long)]
    pub t_end: Option<f64>,
    /// Grid spacing (default: the model's output spacing).
    #[arg(long)]
    pub dt_out: Option<f64>,
    /// Override a parameter (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Output directory.
    #[arg(long, default_value = "out/analysis")]
    pub out: PathBuf,
    /// Skip the plots.
    #[arg(long)]
    pub no_plots: bool,
}

/// Which equilibrium method `mbsim equilibrium` runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum EquilibriumMethod {
    /// Reduced Newton with line search (minimum potential energy).
    Newton,
    /// Dynamic settling with added damping.
    Settle,
    /// Both (Newton where the model allows it).
    Both,
}

/// Arguments of `mbsim equilibrium`.
#[derive(Debug, Args)]
pub struct EquilibriumArgs {
    /// Model name (see `mbsim list`).
    pub model: String,
    /// The method(s).
    #[arg(long, value_enum, default_value_t = EquilibriumMethod::Both)]
    pub method: EquilibriumMethod,
    /// Added damping c (force Q − c v) for settling.
    #[arg(long, default_value_t = 2.0)]
    pub damping: f64,
    /// Override a parameter (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Output directory.
    #[arg(long, default_value = "out/equilibrium")]
    pub out: PathBuf,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> AppError + '_ {
    move |source| AppError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// `NAME=VALUE` pairs, validated against `sys`.
pub(crate) fn apply_params(
    sys: &mut dyn ConstrainedSystem,
    params: &[String],
) -> Result<(), AppError> {
    for text in params {
        let bad = |why| AppError::BadValue {
            what: "--param",
            value: text.clone(),
            why,
        };
        let (name, value) = text
            .split_once('=')
            .ok_or_else(|| bad("expected NAME=VALUE"))?;
        let value: f64 = value.trim().parse().map_err(|_| bad("not a number"))?;
        if !value.is_finite() {
            return Err(bad("must be finite"));
        }
        sys.set_parameter(name.trim(), value)?;
    }
    Ok(())
}

/// The model with its parameters and its initial guess.
fn build(
    name: &str,
    params: &[String],
) -> Result<(Box<dyn ConstrainedSystem>, Vec<f64>), AppError> {
    let entry = registry::entry_or_defective(name)?;
    let mut sys = (entry.build)();
    apply_params(sys.as_mut(), params)?;
    let (q0, _) = (entry.initial)(sys.as_ref());
    Ok((sys, q0))
}

/// The time grid of `args` (the model's defaults where not given).
fn grid(args: &AnalysisArgs) -> Result<Vec<f64>, AppError> {
    let entry = registry::entry_or_defective(&args.model)?;
    let t_end = args.t_end.unwrap_or(entry.t_end);
    let dt = args.dt_out.unwrap_or(entry.dt_out.min(t_end));
    let positive = |what, x: f64| {
        if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(AppError::BadValue {
                what,
                value: x.to_string(),
                why: "must be positive",
            })
        }
    };
    let (t_end, dt) = (positive("--t-end", t_end)?, positive("--dt-out", dt)?);
    if t_end / dt > 1e7 {
        return Err(AppError::BadValue {
            what: "--dt-out",
            value: dt.to_string(),
            why: "more than 1e7 output rows",
        });
    }
    Ok(super::simulate::output_times(t_end, dt))
}

/// `mbsim kinematics` (`inverse = false`) or `mbsim inverse`.
pub fn kinematic(args: &AnalysisArgs, inverse: bool) -> Result<(), AppError> {
    let (sys, q0) = build(&args.model, &args.params)?;
    let times = grid(args)?;
    let start = Stopwatch::start();
    let opts = KinematicOptions::default();
    let result = if inverse {
        analysis::inverse_dynamics(sys.as_ref(), &times, &q0, &opts)?
    } else {
        InverseDynamics {
            kinematics: analysis::kinematics(sys.as_ref(), &times, &q0, &opts)?,
            reactions: Vec::new(),
        }
    };
    let seconds = start.stop().cpu.as_secs_f64();
    std::fs::create_dir_all(&args.out).map_err(io_err(&args.out))?;
    let names = sys.coordinate_names();
    write_kinematics(&args.out.join("kinematics.csv"), names, &result.kinematics)?;
    if inverse {
        write_reactions(&args.out.join("reactions.csv"), sys.as_ref(), &result)?;
    }
    let summary = kinematic_summary(&args.model, &result, inverse, seconds);
    write_json(&args.out.join("summary.json"), &summary)?;
    if !args.no_plots {
        plot_kinematics(&args.out, &args.model, names, &result, inverse)?;
    }
    crate::say!(
        "{}",
        kinematic_report(&args.model, &result, inverse, seconds, &args.out)
    );
    Ok(())
}

fn write_json(path: &Path, value: &serde_json::Value) -> Result<(), AppError> {
    let text = serde_json::to_string_pretty(value).unwrap_or_default();
    std::fs::write(path, text + "\n").map_err(io_err(path))
}

fn write_rows(path: &Path, header: Vec<String>, rows: Vec<Vec<f64>>) -> Result<(), AppError> {
    let mut text = header.join(",");
    text.push('\n');
    for row in rows {
        let cells: Vec<String> = row.iter().map(|x| format!("{x:e}")).collect();
        text.push_str(&cells.join(","));
        text.push('\n');
    }
    std::fs::write(path, text).map_err(io_err(path))
}

fn write_kinematics(path: &Path, names: &[&str], kin: &Kinematics) -> Result<(), AppError> {
    let mut header = vec!["t".to_string()];
    header.extend(names.iter().map(|c| c.to_string()));
    header.extend(names.iter().map(|c| format!("{c}_dot")));
    header.extend(names.iter().map(|c| format!("{c}_ddot")));
    for h in [
        "phi_norm",
        "phidot_norm",
        "newton_iterations",
        "condition",
        "determinant",
    ] {
        header.push(h.to_string());
    }
    let rows = kin
        .points
        .iter()
        .map(|p| {
            let mut row = vec![p.t];
            row.extend(&p.q);
            row.extend(&p.v);
            row.extend(&p.a);
            row.extend([
                p.residual,
                p.velocity_residual,
                p.iterations as f64,
                p.condition,
                p.determinant,
            ]);
            row
        })
        .collect();
    write_rows(path, header, rows)
}

/// The (row, coordinate) pairs of reactions.csv: G's stated structural nonzeros
/// ([`ConstrainedSystem::phi_q_sparsity`], `a_sparsity` or every entry of an A row), plus any
/// entry nonzero at some point (a pattern that misses one loses nothing), in row-major order.
fn reaction_columns(sys: &dyn ConstrainedSystem, inv: &InverseDynamics) -> Vec<(usize, usize)> {
    let (m, n) = (sys.dims().m, sys.dims().n);
    let rows = inv.kinematics.names.len();
    let mut inside = vec![false; rows * n];
    let mut mark = |i: usize, j: usize| {
        if i < rows && j < n {
            inside[i * n + j] = true;
        }
    };
    sys.phi_q_sparsity()
        .nonzeros
        .iter()
        .for_each(|&(i, j)| mark(i, j));
    match sys.a_sparsity() {
        Some(a) => a.nonzeros.iter().for_each(|&(i, j)| mark(m + i, j)),
        None => (m..rows).for_each(|i| (0..n).for_each(|j| mark(i, j))),
    }
    for r in inv.reactions.iter().flatten() {
        for &(j, x) in &r.generalized {
            if x != 0.0 {
                mark(r.row, j);
            }
        }
    }
    (0..rows * n)
        .filter(|&k| inside[k])
        .map(|k| (k / n, k % n))
        .collect()
}

fn write_reactions(
    path: &Path,
    sys: &dyn ConstrainedSystem,
    inv: &InverseDynamics,
) -> Result<(), AppError> {
    let (rows_names, coords) = (&inv.kinematics.names, sys.coordinate_names());
    let columns = reaction_columns(sys, inv);
    let mut header = vec!["t".to_string()];
    header.extend(rows_names.iter().map(|r| format!("lambda_{r}")));
    header.extend((columns.iter()).map(|&(i, j)| format!("{}_on_{}", rows_names[i], coords[j])));
    let rows = inv
        .kinematics
        .points
        .iter()
        .zip(&inv.reactions)
        .map(|(p, reactions)| {
            let mut row = vec![p.t];
            row.extend(reactions.iter().map(|r| r.lambda));
            row.extend(columns.iter().map(|&(i, j)| reactions[i].on(j)));
            row
        })
        .collect();
    write_rows(path, header, rows)
}

fn kinematic_summary(
    model: &str,
    inv: &InverseDynamics,
    inverse: bool,
    seconds: f64,
) -> serde_json::Value {
    let kin = &inv.kinematics;
    let (pos, vel) = kin.max_residuals();
    let worst = kin.worst_condition();
    let peak: Vec<serde_json::Value> = kin
        .names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let max = inv
                .reactions
                .iter()
                .map(|r| r[i].lambda.abs())
                .fold(0.0_f64, f64::max);
            json!({"row": name, "max_abs_lambda": max})
        })
        .collect();
    json!({
        "model": model,
        "mode": if inverse { "inverse dynamics" } else { "kinematic analysis" },
        "points": kin.points.len(),
        "newton_iterations": kin.total_iterations(),
        "max_phi_norm": pos,
        "max_phidot_norm": vel,
        "worst_condition": worst.map(|w| w.1),
        "condition_measure": kin.condition_measure.label(),
        "worst_condition_t": worst.map(|w| w.0),
        "singular_passages": kin.singular_passages(),
        "constraint_rows": kin.names,
        "reactions": if inverse { json!(peak) } else { json!(null) },
        "cpu_seconds": seconds,
    })
}

fn kinematic_report(
    model: &str,
    inv: &InverseDynamics,
    inverse: bool,
    seconds: f64,
    out: &Path,
) -> String {
    let kin = &inv.kinematics;
    let (pos, vel) = kin.max_residuals();
    let (t_worst, worst) = kin.worst_condition().unwrap_or((f64::NAN, f64::NAN));
    let passages: String = kin
        .singular_passages()
        .iter()
        .map(|(a, b)| {
            format!(
                "\nwarning: passed a singular configuration between t = {a} and t = {b} \
                 (det Phi_q changed sign; the continuation may have switched branches)"
            )
        })
        .collect();
    format!(
        "{} of {model}: {} points, {} Newton iterations, max |phi| {pos:.2e}, max |phi_dot| \
         {vel:.2e}, worst condition {worst:.3e} at t = {t_worst} ({}), {seconds:.3} s CPU{passages}\n\
         wrote {}",
        if inverse {
            "inverse dynamics"
        } else {
            "kinematic analysis"
        },
        kin.points.len(),
        kin.total_iterations(),
        kin.condition_measure.label(),
        out.display()
    )
}

fn plot_kinematics(
    out: &Path,
    model: &str,
    names: &[&str],
    inv: &InverseDynamics,
    inverse: bool,
) -> Result<(), AppError> {
    let points = &inv.kinematics.points;
    let coordinates: Vec<Series> = (0..names.len())
        .map(|j| Series {
            name: names[j].to_string(),
            points: points.iter().map(|p| (p.t, p.q[j])).collect(),
        })
        .collect();
    let title = format!("{model}: kinematic analysis");
    let spec = |title, y_label, log_y| PlotSpec {
        title,
        x_label: "t",
        y_label,
        log_y,
    };
    plot::lines(
        &out.join("coordinates.png"),
        &spec(&title, "q", false),
        &coordinates,
    )?;
    let condition = [Series {
        name: "cond(Phi_q)".to_string(),
        points: points.iter().map(|p| (p.t, p.condition)).collect(),
    }];
    let title = format!("{model}: condition of Phi_q");
    plot::lines(
        &out.join("condition.png"),
        &spec(&title, "condition", true),
        &condition,
    )?;
    if inverse {
        let reactions: Vec<Series> = (0..inv.kinematics.names.len())
            .map(|i| Series {
                name: inv.kinematics.names[i].clone(),
                points: points
                    .iter()
                    .zip(&inv.reactions)
                    .map(|(p, r)| (p.t, r[i].lambda))
                    .collect(),
            })
            .collect();
        let title = format!("{model}: multipliers (reactions, driving forces)");
        plot::lines(
            &out.join("reactions.png"),
            &spec(&title, "lambda", false),
            &reactions,
        )?;
    }
    Ok(())
}

/// `mbsim equilibrium`.
pub fn equilibrium(args: &EquilibriumArgs) -> Result<(), AppError> {
    let (sys, q0) = build(&args.model, &args.params)?;
    let names = sys.constraint_names();
    let mut methods = Vec::new();
    let mut lines = Vec::new();
    let newton = matches!(
        args.method,
        EquilibriumMethod::Newton | EquilibriumMethod::Both
    );
    if newton {
        let start = Stopwatch::start();
        match newton_capable(sys.as_ref(), &q0)? {
            Some(eq) => {
                let seconds = start.stop().cpu.as_secs_f64();
                lines.push(format!(
                    "reduced Newton: converged in {} iterations ({} halvings), reduced gradient \
                     {:.1e}, |Q - G^T lambda| {:.1e}, |phi| {:.1e}, {:?} (eigenvalues {:?}), \
                     V = {:.6}, q = {:?}, {seconds:.4} s CPU",
                    eq.iterations, eq.halvings, eq.residual, eq.equation_residual,
                    eq.constraint_residual, eq.stability, eq.hessian_eigenvalues, eq.potential, eq.q
                ));
                methods.push(json!({
                    "method": eq.method, "q": eq.q, "lambda": named(&names, &eq.lambda),
                    "iterations": eq.iterations, "halvings": eq.halvings,
                    "reduced_gradient": eq.residual, "equation_residual": eq.equation_residual,
                    "phi_norm": eq.constraint_residual, "potential": eq.potential,
                    "stability": format!("{:?}", eq.stability).to_lowercase(),
                    "hessian_eigenvalues": eq.hessian_eigenvalues, "cpu_seconds": seconds,
                }));
            }
            None if matches!(args.method, EquilibriumMethod::Newton) => {
                return Err(AppError::BadValue {
                    what: "--method",
                    value: "newton".into(),
                    why: "needs a Lagrangian model with tangent kernels (spring-bar); use settle",
                });
            }
            None => lines.push("reduced Newton: not available for this model (needs the potential energy and tangent kernels)".into()),
        }
    }
    if matches!(
        args.method,
        EquilibriumMethod::Settle | EquilibriumMethod::Both
    ) {
        let opts = SettlingOptions {
            damping: args.damping,
            ..SettlingOptions::default()
        };
        let start = Stopwatch::start();
        let s = analysis::settle(sys.as_ref(), &q0, &opts)?;
        let seconds = start.stop().cpu.as_secs_f64();
        lines.push(format!(
            "dynamic settling (damping {}): at rest after t = {} s, {} steps, |v| {:.1e}, \
             reduced gradient {:.1e}, q = {:?}, {seconds:.4} s CPU",
            args.damping, s.time, s.steps, s.speed, s.residual, s.q
        ));
        methods.push(json!({
            "method": s.method, "q": s.q, "lambda": named(&names, &s.lambda), "time": s.time,
            "steps": s.steps, "speed": s.speed, "reduced_gradient": s.residual,
            "damping": args.damping, "cpu_seconds": seconds,
        }));
    }
    std::fs::create_dir_all(&args.out).map_err(io_err(&args.out))?;
    let path = args.out.join("equilibrium.json");
    write_json(&path, &json!({"model": args.model, "results": methods}))?;
    crate::say!(
        "equilibrium of {}:\n{}\nwrote {}",
        args.model,
        lines.join("\n"),
        path.display()
    );
    Ok(())
}

fn named(names: &[String], values: &[f64]) -> serde_json::Value {
    let map: serde_json::Map<String, serde_json::Value> = names
        .iter()
        .zip(values)
        .map(|(n, v)| (n.clone(), json!(v)))
        .collect();
    serde_json::Value::Object(map)
}

/// Reduced Newton, when the model has tangent kernels and an energy.
fn newton_capable(
    sys: &dyn ConstrainedSystem,
    q0: &[f64],
) -> Result<Option<analysis::Equilibrium>, AppError> {
    let opts = EquilibriumOptions::default();
    match super::views::Both::of(sys) {
        Some(both) => Ok(Some(analysis::equilibrium(&both, q0, &opts)?)),
        None => Ok(None),
    }
}

/// For other front ends (the Python bindings): the model `name` (catalog or defective) with
/// the `NAME=VALUE` parameters applied, and its initial guess q0 — what every analysis
/// subcommand starts from.
pub fn model_and_guess(
    name: &str,
    params: &[String],
) -> Result<(Box<dyn ConstrainedSystem>, Vec<f64>), AppError> {
    build(name, params)
}

/// For other front ends: the time grid of `args` (the model's defaults where not given),
/// checked as `mbsim kinematics` checks it.
pub fn time_grid(args: &AnalysisArgs) -> Result<Vec<f64>, AppError> {
    grid(args)
}

pub use crate::check::check_value;

/// For other front ends: reduced Newton on the potential energy when `sys` has tangent
/// kernels and an energy (`None` otherwise), as `mbsim equilibrium` runs it.
pub fn reduced_newton(
    sys: &dyn ConstrainedSystem,
    q0: &[f64],
) -> Result<Option<analysis::Equilibrium>, AppError> {
    newton_capable(sys, q0)
}
