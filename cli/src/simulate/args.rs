//! The arguments of `simulate` (also the run of `animate` and `sweep`): the clap struct
//! [`SimulateArgs`], the `--config` file merged in (flags win), and their validation into a
//! [`SimConfig`] — every name, length and value checked before anything runs or is written
//! (exit status 1; clap itself rejects unknown flags and `--method` values, exit status 2).

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use mbsim::runtime::{CommonOptions, ConstrainedSystem, SampleKind, Stabilization};

use crate::config::FileConfig;
use crate::error::AppError;
use crate::method::{Method, MethodRequest, PartitionFlags, Stabilize, Start, stabilization};
use crate::registry::{self, ModelEntry};
use crate::state;
use crate::trajectory::Format;

use super::columns::{DEFAULT_ITEMS, Selection, default_dt_out};

/// How output samples between step points are made.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Samples {
    /// Dense output projected onto the constraints (PStab).
    Projected,
    /// Dense output as it is.
    Interpolated,
}

/// What a run records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutputMode {
    /// The output grid (every --dt-out and t_end) and every accepted step point (default).
    #[default]
    Grid,
    /// The state at t_end only: one row in trajectory.csv, no step points recorded, no plots
    /// (the maximum drift over the steps is still measured).
    Final,
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
    /// and radau take constant steps with it instead of --rtol/--atol); a span that is not a
    /// whole number of steps ends with one shorter step onto t_end.
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
    /// rkstab: the singular-passage guard (under none, baumgarte, velocity, sboth and the
    /// continuous stabilizations, project the accepted state with PStab when the KKT matrix's
    /// pivot spread says G is losing rank; under the drift-only ones also project the attempts
    /// across a passage with PStab; README, "Singular passages").
    #[arg(long)]
    pub passage_guard: bool,
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
    /// continuous-ggt/-identity/-two-step: the gain gamma (1/s, default 10).
    #[arg(long, allow_hyphen_values = true)]
    pub gamma: Option<f64>,
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
    /// What to record: `grid` (default) or `final` (the state at t_end only).
    #[arg(long, value_enum)]
    pub output: Option<OutputMode>,
    /// What the trajectory holds, comma separated: q, v, vdot, lambda (each optionally
    /// KIND:PATTERN, names matched with * and ?) and drift; default q,v,lambda,drift. Without
    /// vdot and lambda the samples need no KKT solve.
    #[arg(long, value_delimiter = ',', value_name = "ITEMS")]
    pub write: Option<Vec<String>>,
    /// The trajectory's format: auto (default: CSV up to 10^6 values, Parquet beyond), csv or
    /// parquet.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Integrate N times from the same consistent state and report the minimum and median
    /// CPU and wall times (the results are those of the first run; every run is identical).
    #[arg(long, value_name = "N")]
    pub repeat: Option<usize>,
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
    pub state: state::StateRequest,
    /// What the run records.
    pub output: OutputMode,
    /// How many times the integration is run (timing).
    pub repeat: usize,
    /// The quantities the trajectory holds.
    pub write: Selection,
    /// The trajectory's format.
    pub format: Format,
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

impl SimulateArgs {
    /// These arguments with the `--config` file merged in (flags win).
    pub fn resolved(&self) -> Result<SimulateArgs, AppError> {
        match &self.config {
            Some(path) => {
                let file = crate::config::load(path)?;
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
        let model = registry::entry(&self.model)?;
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
        let names = (sys.coordinate_names(), sys.constraint_names());
        let default_items = DEFAULT_ITEMS.map(String::from);
        let items = self.write.as_deref().unwrap_or(&default_items);
        let write = Selection::parse(items, names.0, &names.1)?;
        let columns = write.columns(names.0).len();
        let dt_out = (self.dt_out).unwrap_or_else(|| default_dt_out(model.dt_out, t_end, columns));
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
        let own_control = method.is_implicit() || method.has_own_drift_control();
        let kind = self.stabilization.unwrap_or(if own_control {
            Stabilize::None
        } else {
            Stabilize::Pstab
        });
        let gains = (self.alpha, self.beta);
        let stabilization = stabilization(kind, gains, self.gamma, flags)?;
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
            passage_guard: self.passage_guard,
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
        let repeat = self.repeat.unwrap_or(1);
        if !(1..=10_000).contains(&repeat) {
            return Err(AppError::BadValue {
                what: "--repeat",
                value: repeat.to_string(),
                why: "must be between 1 and 10000",
            });
        }
        let wrap = match &self.wrap_angles {
            None => Vec::new(),
            Some(names) if names.is_empty() => (0..sys.dims().n).collect(),
            Some(names) => names
                .iter()
                .map(|n| state::index(sys.as_ref(), "--wrap-angles", n))
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
            output: self.output.unwrap_or_default(),
            repeat,
            write,
            format: self.format.unwrap_or_default(),
        })
    }

    /// The initial state flags, checked against `sys` (names, lengths, finite values).
    fn state(&self, sys: &dyn ConstrainedSystem) -> Result<state::StateRequest, AppError> {
        let pairs = |what, items: &[String]| -> Result<Vec<(String, f64)>, AppError> {
            items.iter().map(|t| state::pair(what, t)).collect()
        };
        let request = state::StateRequest {
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

fn value<T: ValueEnum>(path: &Path, key: &str, text: &str) -> Result<T, AppError> {
    T::from_str(text, true).map_err(|_| {
        let known: Vec<String> = T::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value().map(|p| p.get_name().to_string()))
            .collect();
        AppError::Config {
            path: path.to_path_buf(),
            message: format!("`{key} = \"{text}\"` is not one of {}", known.join(", ")),
        }
    })
}

impl SimulateArgs {
    /// These flags with the file's values where a flag was not given (flags win). Parameters:
    /// the file's first, then the flags' (so a flag overrides the file for the same name).
    pub fn with_file(mut self, path: &Path, file: FileConfig) -> Result<Self, AppError> {
        let m = file.method;
        if self.method.is_none()
            && let Some(name) = &m.name
        {
            self.method = Some(value::<Method>(path, "method.name", name)?);
        }
        if self.stabilization.is_none()
            && let Some(name) = &m.stabilization
        {
            self.stabilization = Some(value::<Stabilize>(path, "method.stabilization", name)?);
        }
        if self.samples.is_none()
            && let Some(name) = &m.samples
        {
            self.samples = Some(value::<Samples>(path, "method.samples", name)?);
        }
        or(&mut self.rtol, m.rtol);
        or(&mut self.atol, m.atol);
        or(&mut self.datol, m.datol);
        or(&mut self.h, m.h);
        or(&mut self.order, m.order);
        or(&mut self.alpha, m.alpha);
        or(&mut self.beta, m.beta);
        or(&mut self.gamma, m.gamma);
        or(&mut self.max_steps, m.max_steps);
        let o = file.output;
        or(&mut self.t_end, o.t_end);
        or(&mut self.dt_out, o.dt_out);
        or(&mut self.out, o.out);
        self.svg |= o.svg.unwrap_or(false);
        or(&mut self.write, o.write);
        if self.format.is_none()
            && let Some(name) = &o.format
        {
            self.format = Some(value::<Format>(path, "output.format", name)?);
        }
        or(&mut self.wrap_angles, o.wrap_angles);
        let mut params: Vec<String> = file
            .parameters
            .iter()
            .map(|(k, v)| format!("{k}={v:e}"))
            .collect();
        params.append(&mut self.params);
        self.params = params;
        let i = file.initial;
        or(&mut self.q0, i.q0);
        or(&mut self.v0, i.v0);
        let mut q: Vec<String> = i.q.iter().map(|(k, v)| format!("{k}={v:e}")).collect();
        q.append(&mut self.q);
        self.q = q;
        let mut v: Vec<String> = i.v.iter().map(|(k, v)| format!("{k}={v:e}")).collect();
        v.append(&mut self.v);
        self.v = v;
        if self.lock.is_empty() {
            self.lock = i.lock;
        }
        Ok(self)
    }
}

fn or<T>(slot: &mut Option<T>, file: Option<T>) {
    if slot.is_none() {
        *slot = file;
    }
}

impl SimulateArgs {
    /// The arguments of `mbsim simulate MODEL` with no other flag (every option at its
    /// default, parsed by clap itself, so a new flag needs no change here), for front ends
    /// that set the fields from their own inputs (the Python bindings, the FMU).
    pub fn for_model(model: &str) -> SimulateArgs {
        use clap::Parser;
        let parsed = crate::cli::Cli::try_parse_from(["mbsim", "simulate", "--", model]);
        match parsed {
            Ok(crate::cli::Cli {
                command: crate::cli::Command::Simulate(args),
            }) => args,
            // Unreachable for a parse of these fixed arguments; keep the name anyway.
            Ok(_) | Err(_) => unreachable!("`mbsim simulate -- MODEL` always parses"),
        }
    }

    /// Refuse `--output` and `--repeat` in a command that does not use them: `why` says why
    /// (`animate` needs the trajectory; `sweep` times every run and records its final state).
    pub fn only_for_simulate(&self, why: &'static str) -> Result<(), AppError> {
        let output = self.output.map(|o| format!("{o:?}").to_lowercase());
        let given = [
            ("--output", output),
            ("--repeat", self.repeat.map(|n| n.to_string())),
        ];
        match given.into_iter().find_map(|(flag, v)| v.map(|v| (flag, v))) {
            Some((what, value)) => Err(AppError::BadValue { what, value, why }),
            None => Ok(()),
        }
    }
}
