//! The command line: clap definitions, validation into a [`SimConfig`], and dispatch.
//!
//! clap rejects unknown subcommands, flags and `--method`/`--stabilization` values itself (exit status 2, with
//! the list of valid values); [`SimulateArgs::config`] rejects what clap cannot see: unknown
//! models and parameters, `t_end <= 0`, negative or non-finite tolerances (exit status 1).

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use mbsim::runtime::{CommonOptions, ConstrainedSystem, SampleKind, Stabilization};

use super::AppError;
use super::method::{Method, MethodRequest, PartitionFlags, Stabilize, Start, stabilization};
use super::registry::{self, ModelEntry};

/// `mbsim`: constrained multibody models of the sources, simulated with RKSTAB.
#[derive(Debug, Parser)]
#[command(name = "mbsim", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a model with RKSTAB (DOPRI5 + stabilization); write trajectory.csv,
    /// summary.json and plots into --out.
    Simulate(SimulateArgs),
    /// Simulate, then draw the mechanism moving: animation.gif, frame.png and animation.html
    /// (an SVG player with a time slider) in --out. Needs a model that declares `draw`.
    Animate(AnimateArgs),
    /// Run a model over a grid or random samples of parameters and initial values, in
    /// parallel; one row per run in sweep.csv (failures recorded with their error).
    Sweep(super::sweep::SweepArgs),
    /// List the models and their sources.
    List,
    /// Print a model's generated kernels (the committed macro expansion).
    Kernels {
        /// Model name (see `mbsim list`).
        model: String,
    },
    /// Every kernel of an annotated model file at one state, with accelerations and
    /// multipliers from the runtime's KKT solve, as JSON (nothing is compiled).
    Eval(EvalArgs),
    /// Write the expansion of every model of an annotated file into DIR (or check it).
    Generate {
        /// The model file.
        file: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Write nothing; fail when a file is missing or differs.
        #[arg(long)]
        check: bool,
    },
    /// Kinematic analysis of a fully driven (0-DOF) model: q, v, a along the time grid;
    /// writes kinematics.csv, summary.json and plots into --out.
    Kinematics(AnalysisArgs),
    /// Inverse dynamics of a fully driven model: the kinematics plus the multipliers and the
    /// reaction (driving) force of every named constraint row (reactions.csv).
    Inverse(AnalysisArgs),
    /// Static equilibrium: reduced Newton on the potential energy (models with tangent and
    /// energy kernels) and/or dynamic settling with added damping; writes equilibrium.json.
    Equilibrium(EquilibriumArgs),
    /// Diagnostics: n, m, k, rank of G, degrees of freedom, redundant constraint rows by name.
    Check(CheckArgs),
    /// Export an FMI 2.0 co-simulation FMU (modelDescription.xml and the C API library; the
    /// method, stabilization and tolerances are FMU parameters). See `mbsim-fmu`.
    Fmu {
        /// Model name (see `mbsim list`).
        model: String,
        /// The .fmu file to write.
        #[arg(long)]
        out: PathBuf,
    },
    #[cfg(feature = "builtin")]
    /// Reproduce a published table: Chin's 3.1, 4.1, 4.2, 4.6, 4.7, 4.8, p10, p11, chin5; Wu's wu2, wu3,
    /// wu-alpha; Haug's 7.4.1, 7.4.2, 7.4.3, 7.4.4, 7.4.6, 7.4.7, 7.4.8, ex7.4.5, 7.4.11;
    /// pstab-adams (PStab on Adams methods, ours); or all.
    Repro {
        /// Table name.
        table: String,
        /// Directory for the CSV files and plots.
        #[arg(long, default_value = "out/repro")]
        out: PathBuf,
    },
}

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

/// Arguments of `mbsim check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// Model name (see `mbsim list`; also the defective models such as redundant-pendulum).
    pub model: String,
    /// Time at which the model is examined.
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub t: f64,
    /// Override a parameter (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// How output samples between step points are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Samples {
    /// Dense output projected onto the constraints (PStab).
    Projected,
    /// Dense output as it is.
    Interpolated,
}

/// Arguments of `mbsim animate`.
#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// The run (every option of `simulate`).
    #[command(flatten)]
    pub sim: SimulateArgs,
    /// Frames of the animation (the trajectory is resampled on them).
    #[arg(long, default_value_t = 100)]
    pub frames: usize,
    /// Frames per second of the GIF and the player.
    #[arg(long, default_value_t = 25)]
    pub fps: u32,
}

/// Arguments of `mbsim simulate` (also the run of `animate` and `sweep`).
#[derive(Clone, Debug, Args)]
pub struct SimulateArgs {
    /// Model name (see `mbsim list`).
    pub model: String,
    /// A TOML file with parameters, the initial state, the method and the output grid (see
    /// the README); flags override it.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// The integrator (default rkstab).
    #[arg(long, value_enum)]
    pub method: Option<Method>,
    /// Drift control (with every method; default pstab, none for the implicit methods, which
    /// hold Φ = 0 by their Newton iteration).
    #[arg(long, value_enum)]
    pub stabilization: Option<Stabilize>,
    /// Step size of the constant-step methods (ab, ampc, mampc, newmark; hht, generalized-alpha
    /// and radau take constant steps with it instead of --rtol/--atol).
    #[arg(long, allow_hyphen_values = true)]
    pub h: Option<f64>,
    /// Order: the predictor order of ab/ampc/mampc (default 4), the highest order of abm
    /// (default 12).
    #[arg(long)]
    pub order: Option<usize>,
    /// Start of ab/ampc/mampc: accurate Runge-Kutta steps (default) or Haug's order ramp.
    #[arg(long, value_enum)]
    pub start: Option<Start>,
    /// hht: alpha in [-1/3, 0] (default -0.1).
    #[arg(long, allow_hyphen_values = true)]
    pub hht_alpha: Option<f64>,
    /// generalized-alpha: spectral radius at infinity in [0, 1] (default 0.8).
    #[arg(long, allow_hyphen_values = true)]
    pub rho_inf: Option<f64>,
    /// Implicit methods: modified Newton (keep the factorization while it converges).
    #[arg(long)]
    pub modified_newton: bool,
    /// gcp/hybrid: Newton tolerance on the dependent positions, max |Phi| (default 1e-12).
    #[arg(long, allow_hyphen_values = true)]
    pub newton_tol: Option<f64>,
    /// gcp/hybrid: Newton iterations per correction (default 10).
    #[arg(long)]
    pub max_newton: Option<usize>,
    /// hybrid: correct only when the drift exceeds this (default 1e-10).
    #[arg(long, allow_hyphen_values = true)]
    pub hybrid_tol: Option<f64>,
    /// Baumgarte damping gain alpha (velocity residual weighted by 2 alpha).
    #[arg(long, allow_hyphen_values = true)]
    pub alpha: Option<f64>,
    /// Baumgarte position gain beta (position residual weighted by beta^2).
    #[arg(long, allow_hyphen_values = true)]
    pub beta: Option<f64>,
    /// Relative tolerance (default: the model's).
    #[arg(long, allow_hyphen_values = true)]
    pub rtol: Option<f64>,
    /// Absolute tolerance (default rtol / 10).
    #[arg(long, allow_hyphen_values = true)]
    pub atol: Option<f64>,
    /// DATOL: stabilize only when the drift exceeds it; 0 (default) stabilizes every step.
    #[arg(long, allow_hyphen_values = true)]
    pub datol: Option<f64>,
    /// End time (default: the model's).
    #[arg(long, allow_hyphen_values = true)]
    pub t_end: Option<f64>,
    /// Output spacing (default: the model's); a row is always written at t_end.
    #[arg(long, allow_hyphen_values = true)]
    pub dt_out: Option<f64>,
    /// Change a runtime parameter, e.g. --param g=1.62 (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// How samples between step points are made: `projected` (default with a post-step
    /// stabilization: on the constraint manifold to the step accuracy) or `interpolated`
    /// (the raw dense output; the default without post-step stabilization, so its drift shows).
    #[arg(long, value_enum)]
    pub samples: Option<Samples>,
    /// Limit on step attempts (default 10 000 000).
    #[arg(long)]
    pub max_steps: Option<usize>,
    /// Initial coordinates, the whole vector, comma separated (default: the model's guess).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub q0: Option<Vec<f64>>,
    /// Initial velocities, the whole vector, comma separated (default: the model's guess).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub v0: Option<Vec<f64>>,
    /// One initial coordinate by name, e.g. --q theta=0.3 (repeatable; after --q0).
    #[arg(long = "q", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    pub q: Vec<String>,
    /// One initial velocity by coordinate name, e.g. --v theta=1 (repeatable; after --v0).
    #[arg(long = "v", value_name = "NAME=VALUE", allow_hyphen_values = true)]
    pub v: Vec<String>,
    /// A coordinate the consistent initialization keeps fixed (repeatable).
    #[arg(long = "lock", value_name = "NAME")]
    pub lock: Vec<String>,
    /// Output directory (required here or in the config file).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Skip the plots.
    #[arg(long)]
    pub no_plots: bool,
    /// Also write every plot as SVG.
    #[arg(long)]
    pub svg: bool,
    /// Plot these coordinates wrapped to (-pi, pi] (comma separated; no names: all).
    #[arg(long, value_delimiter = ',', num_args = 0..)]
    pub wrap_angles: Option<Vec<String>>,
}

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

/// A validated simulation request.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// The model.
    pub model: &'static ModelEntry,
    /// Parameter overrides, validated against the model.
    pub params: Vec<(String, f64)>,
    /// The method and its own options.
    pub request: MethodRequest,
    /// The runtime's drift control.
    pub stabilization: Stabilization,
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// DATOL.
    pub datol: f64,
    /// End time (start is 0).
    pub t_end: f64,
    /// Output spacing.
    pub dt_out: f64,
    /// How samples between step points are made.
    pub samples: SampleKind,
    /// Limit on step attempts.
    pub max_steps: usize,
    /// Output directory.
    pub out: PathBuf,
    /// Whether to draw plots.
    pub plots: bool,
    /// Also write the plots as SVG.
    pub svg: bool,
    /// Coordinates plotted wrapped to (-pi, pi] (indices).
    pub wrap: Vec<usize>,
    /// The initial state asked for (checked against the model in `config`).
    pub state: super::state::StateRequest,
}

/// `value` if it is finite and satisfies `ok`, else a [`AppError::BadValue`].
fn checked(what: &'static str, value: f64, ok: bool, why: &'static str) -> Result<f64, AppError> {
    if value.is_finite() && ok {
        Ok(value)
    } else {
        Err(AppError::BadValue {
            what,
            value: value.to_string(),
            why,
        })
    }
}

/// The model called `name`, or an error listing the known ones.
pub fn model(name: &str) -> Result<&'static ModelEntry, AppError> {
    registry::find(name).ok_or_else(|| AppError::UnknownModel {
        name: name.to_string(),
        known: registry::names(),
    })
}

impl SimulateArgs {
    /// These arguments with the `--config` file merged in (flags win).
    pub fn resolved(&self) -> Result<SimulateArgs, AppError> {
        match &self.config {
            Some(path) => {
                let file = super::config::load(path)?;
                self.clone().with_file(path, file)
            }
            None => Ok(self.clone()),
        }
    }

    /// Validate the arguments (the `--config` file merged in): every name, length and value
    /// is checked before anything runs or is written.
    pub fn config(&self) -> Result<SimConfig, AppError> {
        let args = self.resolved()?;
        args.validate()
    }

    fn validate(&self) -> Result<SimConfig, AppError> {
        let model = model(&self.model)?;
        let mut sys = (model.build)();
        let mut params = Vec::new();
        for text in &self.params {
            let Some((name, value)) = text.split_once('=') else {
                return Err(AppError::BadValue {
                    what: "--param",
                    value: text.clone(),
                    why: "expected NAME=VALUE",
                });
            };
            let value: f64 = value.trim().parse().map_err(|_| AppError::BadValue {
                what: "--param value",
                value: text.clone(),
                why: "not a number",
            })?;
            let value = checked("--param value", value, true, "must be finite")?;
            sys.set_parameter(name.trim(), value)?;
            params.push((name.trim().to_string(), value));
        }
        let rtol = self.rtol.unwrap_or(model.rtol);
        let rtol = checked("--rtol", rtol, rtol > 0.0, "must be a positive number")?;
        let atol = self.atol.unwrap_or(rtol / 10.0);
        let atol = checked("--atol", atol, atol >= 0.0, "must not be negative")?;
        let datol = self.datol.unwrap_or(0.0);
        let datol = checked("--datol", datol, datol >= 0.0, "must not be negative")?;
        let t_end = self.t_end.unwrap_or(model.t_end);
        let t_end = checked("--t-end", t_end, t_end > 0.0, "must be positive")?;
        let dt_out = self.dt_out.unwrap_or(model.dt_out.min(t_end));
        let dt_out = checked("--dt-out", dt_out, dt_out > 0.0, "must be positive")?;
        if t_end / dt_out > 1e7 {
            return Err(AppError::BadValue {
                what: "--dt-out",
                value: dt_out.to_string(),
                why: "more than 1e7 output rows",
            });
        }
        let flags = PartitionFlags {
            newton_tol: self.newton_tol,
            max_newton: self.max_newton,
            hybrid_tol: self.hybrid_tol,
        };
        let method = self.method.unwrap_or(Method::Rkstab);
        let own_control = method.is_implicit() || method.is_structural();
        let kind = self.stabilization.unwrap_or(if own_control {
            Stabilize::None
        } else {
            Stabilize::Pstab
        });
        let stabilization = stabilization(kind, self.alpha, self.beta, flags)?;
        if let Some(h) = self.h {
            checked("--h", h, h > 0.0, "must be positive")?;
        }
        let request = MethodRequest {
            method,
            rtol,
            atol,
            h: self.h,
            order: self.order,
            start: self.start,
            hht_alpha: self.hht_alpha,
            rho_inf: self.rho_inf,
            modified_newton: self.modified_newton,
        };
        let samples = match self.samples {
            Some(Samples::Projected) => SampleKind::Projected,
            Some(Samples::Interpolated) => SampleKind::Interpolated,
            None if stabilization.is_post_step() => SampleKind::Projected,
            None => SampleKind::Interpolated,
        };
        let max_steps = self.max_steps.unwrap_or(CommonOptions::default().max_steps);
        if max_steps == 0 {
            return Err(AppError::BadValue {
                what: "--max-steps",
                value: "0".to_string(),
                why: "must be at least 1",
            });
        }
        let state = self.state(sys.as_ref())?;
        let wrap = match &self.wrap_angles {
            None => Vec::new(),
            Some(names) if names.is_empty() => (0..sys.dims().n).collect(),
            Some(names) => names
                .iter()
                .map(|n| super::state::index(sys.as_ref(), "--wrap-angles", n))
                .collect::<Result<_, _>>()?,
        };
        let out = self.out.clone().ok_or(AppError::BadValue {
            what: "--out",
            value: String::new(),
            why: "give the output directory (--out DIR or `out` in [output] of --config)",
        })?;
        Ok(SimConfig {
            model,
            params,
            request,
            stabilization,
            rtol,
            atol,
            datol,
            t_end,
            dt_out,
            samples,
            max_steps,
            out,
            plots: !self.no_plots,
            svg: self.svg,
            wrap,
            state,
        })
    }

    /// The initial state flags, checked against `sys` (names, lengths, finite values).
    fn state(&self, sys: &dyn ConstrainedSystem) -> Result<super::state::StateRequest, AppError> {
        let pairs = |what, items: &[String]| -> Result<Vec<(String, f64)>, AppError> {
            items.iter().map(|t| super::state::pair(what, t)).collect()
        };
        let request = super::state::StateRequest {
            q0: self.q0.clone(),
            v0: self.v0.clone(),
            q: pairs("--q", &self.q)?,
            v: pairs("--v", &self.v)?,
            lock: self.lock.clone(),
        };
        let n = sys.dims().n;
        request.apply(sys, (vec![0.0; n], vec![0.0; n]))?;
        Ok(request)
    }
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<(), AppError> {
    match cli.command {
        Command::Simulate(args) => {
            let cfg = args.config()?;
            let run = super::simulate::run(&cfg, true)?;
            crate::say!("{}", run.init_text);
            super::output::write_all(&cfg, &run)?;
            crate::say!("{}", super::output::report(&cfg, &run));
            Ok(())
        }
        Command::Animate(args) => super::animate::run(&args),
        Command::Sweep(args) => super::sweep::run(&args),
        Command::List => {
            for m in registry::models() {
                crate::say!(
                    "{:<26} {}\n{:<26} source: {}",
                    m.name,
                    m.title,
                    "",
                    m.source
                );
            }
            Ok(())
        }
        Command::Kernels { model: name } => {
            crate::say!("{}", model(&name)?.kernels.trim_end());
            Ok(())
        }
        Command::Eval(a) => {
            let input = super::eval::EvalInput {
                file: a.file,
                model: a.model,
                t: a.t,
                q: a.q,
                v: a.v,
                params: a.params,
                lambda: a.lambda,
                w: a.w,
            };
            crate::say!("{}", super::eval::run(&input)?);
            Ok(())
        }
        Command::Generate { file, out, check } => {
            let outcome = super::generate::run(&file, &out, check)?;
            let verb = if check { "stale" } else { "written" };
            eprintln!(
                "mbsim: {} generated file(s) fresh, {} {verb}",
                outcome.fresh.len(),
                outcome.changed.len()
            );
            Ok(())
        }
        Command::Kinematics(a) => super::analysis::kinematic(&a, false),
        Command::Inverse(a) => super::analysis::kinematic(&a, true),
        Command::Equilibrium(a) => super::analysis::equilibrium(&a),
        Command::Check(a) => super::analysis::check(&a),
        Command::Fmu { model: name, out } => super::fmu::export(model(&name)?, &out),
        #[cfg(feature = "builtin")]
        Command::Repro { table, out } => super::repro::run(&table, &out),
    }
}

impl SimulateArgs {
    /// The arguments of `mbsim simulate MODEL` with no other flag (every option at its
    /// default, parsed by clap itself, so a new flag needs no change here), for front ends
    /// that set the fields from their own inputs (the Python bindings, the FMU).
    pub fn for_model(model: &str) -> SimulateArgs {
        let parsed = Cli::try_parse_from(["mbsim", "simulate", "--", model]);
        match parsed {
            Ok(Cli {
                command: Command::Simulate(args),
            }) => args,
            // Unreachable for a parse of these fixed arguments; keep the name anyway.
            Ok(_) | Err(_) => unreachable!("`mbsim simulate -- MODEL` always parses"),
        }
    }
}
