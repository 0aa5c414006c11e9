//! One co-simulation instance, in safe Rust: the settings and parameters set by the
//! importer, the consistent start when initialization ends (the CLI's own checks and
//! `initialize`), and `do_step` on the method chosen by the `method`/`stabilization`/`rtol`/
//! `atol`/`h` settings — a run from the communication point to the next one, started at the
//! state the previous step ended in, with the method's drift control inside it.
//!
//! The state between steps is (t, q, v); λ, v̇ and the drift are those of the last sample.
//! [`Slave::snapshot`]/[`Slave::restore`] give `fmi2GetFMUstate`/`fmi2SetFMUstate`.

use mbsim::runtime::catalog::ModelEntry;
use mbsim::runtime::{
    CommonOptions, ConsistencyCheck, ConstrainedSystem, Drift, Observer, Problem, Sample,
};
use mbsim_cli::method::{Chosen, Method, Stabilize};
use mbsim_cli::simulate::args::{SimConfig, SimulateArgs};

use mbsim_fmu::variables::{Kind, Variable, variables};

/// What the importer can observe and restore.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    strings: Vec<String>,
    reals: Vec<f64>,
    t: f64,
    q: Vec<f64>,
    v: Vec<f64>,
    vdot: Vec<f64>,
    lambda: Vec<f64>,
    drift: Drift,
    steps: usize,
}

/// A running instance.
pub struct Slave {
    entry: &'static ModelEntry,
    vars: Vec<Variable>,
    state: Snapshot,
    stop_time: Option<f64>,
    run: Option<(Box<dyn ConstrainedSystem>, Chosen)>,
}

/// Keeps the last sample of a step.
#[derive(Default)]
struct Last {
    t: f64,
    vdot: Vec<f64>,
    lambda: Vec<f64>,
    drift: Drift,
}

impl Observer for Last {
    fn output(&mut self, s: &Sample<'_>) {
        self.t = s.t;
        self.vdot.clear();
        self.vdot.extend_from_slice(s.vdot);
        self.lambda.clear();
        self.lambda.extend_from_slice(s.lambda);
        self.drift = s.drift;
    }
}

/// The real and string variables of `vars`, each list in value-reference order.
fn split(vars: &[Variable]) -> (Vec<&Variable>, Vec<&Variable>) {
    vars.iter().partition(|v| !v.is_string())
}

impl Slave {
    /// A new instance of `entry` with its defaults.
    pub fn new(entry: &'static ModelEntry) -> Slave {
        let sys = (entry.build)();
        let (q0, v0) = (entry.initial)(sys.as_ref());
        let vars = variables(sys.as_ref(), &q0, &v0, entry.rtol);
        let (real, string) = split(&vars);
        let strings = string
            .iter()
            .map(|v| match &v.kind {
                Kind::Setting(s) => s.to_string(),
                _ => String::new(),
            })
            .collect();
        let reals = real
            .iter()
            .map(|v| match &v.kind {
                Kind::Tolerance(x)
                | Kind::Parameter(x)
                | Kind::InitialPosition(_, x)
                | Kind::InitialVelocity(_, x) => *x,
                _ => 0.0,
            })
            .collect();
        let n = q0.len();
        let rows = sys.dims().constraint_rows();
        Slave {
            entry,
            vars,
            state: Snapshot {
                strings,
                reals,
                t: 0.0,
                q: q0,
                v: v0,
                vdot: vec![0.0; n],
                lambda: vec![0.0; rows],
                drift: Drift::default(),
                steps: 0,
            },
            stop_time: None,
            run: None,
        }
    }

    /// The real variable with reference `vr`.
    fn real_var(&self, vr: u32) -> Result<&Variable, String> {
        self.vars
            .iter()
            .find(|v| !v.is_string() && v.vr == vr)
            .ok_or_else(|| format!("no Real variable has value reference {vr}"))
    }

    /// The value of the real variable `vr`.
    pub fn get_real(&self, vr: u32) -> Result<f64, String> {
        let s = &self.state;
        Ok(match self.real_var(vr)?.kind {
            Kind::Position(i) => s.q[i],
            Kind::Velocity(i) => s.v[i],
            Kind::Multiplier(i) => s.lambda[i],
            Kind::DriftPosition => s.drift.position,
            Kind::DriftVelocity => s.drift.velocity,
            Kind::Setting(_)
            | Kind::Tolerance(_)
            | Kind::Parameter(_)
            | Kind::InitialPosition(..)
            | Kind::InitialVelocity(..) => s.reals[vr as usize],
        })
    }

    /// Set the real parameter `vr` (before initialization ends; outputs cannot be set).
    pub fn set_real(&mut self, vr: u32, value: f64) -> Result<(), String> {
        let var = self.real_var(vr)?;
        if var.is_output() {
            return Err(format!("`{}` is an output and cannot be set", var.name));
        }
        if self.run.is_some() {
            return Err(format!(
                "`{}` is a fixed parameter: set it before initialization ends",
                var.name
            ));
        }
        if !value.is_finite() {
            return Err(format!("`{}` must be finite, got {value}", var.name));
        }
        self.state.reals[vr as usize] = value;
        Ok(())
    }

    /// The string setting `vr`.
    pub fn get_string(&self, vr: u32) -> Result<&str, String> {
        self.state
            .strings
            .get(vr as usize)
            .map(String::as_str)
            .ok_or_else(|| format!("no String variable has value reference {vr}"))
    }

    /// Set the string setting `vr` (before initialization ends).
    pub fn set_string(&mut self, vr: u32, value: &str) -> Result<(), String> {
        if self.run.is_some() {
            return Err("the settings are fixed once initialization ends".into());
        }
        let slot = self
            .state
            .strings
            .get_mut(vr as usize)
            .ok_or_else(|| format!("no String variable has value reference {vr}"))?;
        *slot = value.to_string();
        Ok(())
    }

    /// `fmi2SetupExperiment`: the start time and, if given, the stop time.
    pub fn setup(&mut self, start: f64, stop: Option<f64>) {
        self.state.t = start;
        self.stop_time = stop;
    }

    /// The CLI's arguments for the current settings and parameters.
    fn args(&self) -> Result<SimulateArgs, String> {
        let mut a = SimulateArgs::for_model(self.entry.name);
        a.out = Some(".".into());
        a.no_plots = true;
        let (real, _) = split(&self.vars);
        let method = &self.state.strings[0];
        let stab = &self.state.strings[1];
        let choice = |text: &str| -> Result<Method, String> {
            clap::ValueEnum::from_str(text, true)
                .map_err(|_| format!("method `{text}` is not a method of mbsim simulate"))
        };
        a.method = Some(choice(method)?);
        if !stab.is_empty() {
            a.stabilization = Some(
                <Stabilize as clap::ValueEnum>::from_str(stab, true)
                    .map_err(|_| format!("stabilization `{stab}` is unknown"))?,
            );
        }
        let mut q0 = self.state.q.clone();
        let mut v0 = self.state.v.clone();
        for (v, &x) in real.iter().zip(&self.state.reals) {
            match v.kind {
                Kind::Tolerance(_) if v.name == "rtol" => a.rtol = Some(x),
                Kind::Tolerance(_) if v.name == "atol" => a.atol = (x > 0.0).then_some(x),
                Kind::Tolerance(_) => a.h = (x > 0.0).then_some(x),
                Kind::Parameter(_) => a.params.push(format!("{}={x:e}", v.name)),
                Kind::InitialPosition(i, _) => q0[i] = x,
                Kind::InitialVelocity(i, _) => v0[i] = x,
                Kind::Setting(_)
                | Kind::Position(_)
                | Kind::Velocity(_)
                | Kind::Multiplier(_)
                | Kind::DriftPosition
                | Kind::DriftVelocity => {}
            }
        }
        a.q0 = Some(q0);
        a.v0 = Some(v0);
        if let Some(stop) = self.stop_time.filter(|&s| s > self.state.t) {
            a.t_end = Some(stop - self.state.t);
        }
        Ok(a)
    }

    /// `fmi2ExitInitializationMode`: check the settings as `mbsim simulate` does, make the
    /// initial guess consistent and build the method.
    pub fn initialize(&mut self) -> Result<(), String> {
        let cfg: SimConfig = self.args()?.config().map_err(|e| e.to_string())?;
        let (sys, init, _) = mbsim_cli::simulate::prepare(&cfg).map_err(|e| e.to_string())?;
        let common = CommonOptions {
            stabilization: cfg.stabilization,
            datol: cfg.datol,
            samples: cfg.samples,
            max_steps: cfg.max_steps,
            ..CommonOptions::default()
        };
        let method = Chosen::build(&cfg.request, common).map_err(|e| e.to_string())?;
        let s = &mut self.state;
        s.q = init.q;
        s.v = init.v;
        s.vdot = init.vdot;
        s.lambda = init.lambda;
        s.drift = init.residual;
        self.run = Some((sys, method));
        Ok(())
    }

    /// `fmi2DoStep`: integrate from the communication point `t` over `h`.
    pub fn do_step(&mut self, t: f64, h: f64) -> Result<(), String> {
        let Some((sys, method)) = &mut self.run else {
            return Err("doStep before initialization ended".into());
        };
        if !(h > 0.0 && h.is_finite()) {
            return Err(format!("communication step {h} must be positive"));
        }
        let s = &mut self.state;
        if (t - s.t).abs() > 1e-9 * (1.0 + t.abs()) {
            return Err(format!(
                "communication point {t} is not the instance's time {}",
                s.t
            ));
        }
        // After the first step the start is the method's own previous end point, whose drift
        // is the method's business (a drift control of `none` lets it grow on purpose):
        // checking it again against the initial-state tolerance would stop such runs.
        if s.steps > 0 {
            method.common_mut().consistency = ConsistencyCheck::Off;
        }
        let end = s.t + h;
        let problem = Problem::new(s.t, end, &s.q, &s.v).with_times(&[end]);
        let mut last = Last::default();
        // Through the event loop: impacts, contacts and friction switches inside the step are
        // located and acted on; a contact closed at the step's end is found closed again at
        // the next step's start (touching, at rest, pressed by the free motion).
        let options = mbsim::runtime::events::EventOptions::default();
        let solution = mbsim::runtime::events::simulate(
            sys.as_ref(),
            &*method,
            &problem,
            &options,
            None,
            &mut last,
        )
        .map_err(|e| e.to_string())?
        .solution;
        s.t = end;
        s.q = solution.q;
        s.v = solution.v;
        if last.t == end {
            s.vdot = last.vdot;
            s.lambda = last.lambda;
            s.drift = last.drift;
        }
        s.steps += 1;
        Ok(())
    }

    /// The instance's time.
    pub fn time(&self) -> f64 {
        self.state.t
    }

    /// Whether initialization has ended.
    pub fn initialized(&self) -> bool {
        self.run.is_some()
    }

    /// A copy of the state (`fmi2GetFMUstate`).
    pub fn snapshot(&self) -> Snapshot {
        self.state.clone()
    }

    /// Restore a state of this instance (`fmi2SetFMUstate`).
    pub fn restore(&mut self, snapshot: &Snapshot) {
        self.state = snapshot.clone();
    }

    /// `fmi2Reset`: the instance as instantiated.
    pub fn reset(&mut self) {
        *self = Slave::new(self.entry);
    }
}

impl Slave {
    /// `fmi2SetupExperiment`'s tolerance: the relative tolerance `rtol`.
    pub fn set_tolerance(&mut self, rtol: f64) -> Result<(), String> {
        let vr = self
            .vars
            .iter()
            .find(|v| v.name == "rtol")
            .map(|v| v.vr)
            .ok_or("no rtol variable")?;
        self.set_real(vr, rtol)
    }
}
