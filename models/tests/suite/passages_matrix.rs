//! The singular-passage matrix of issue 22, item 5: every method on the IFToMM A02 N-four-bar
//! (N = 40, 20 s from all cranks vertical at 1 rad/s: ~20 passes through the horizontal
//! positions where G = [Φ_q] loses rank 40 and the DOF jumps from 1 to 41), in both forms
//! (`four-bar-chain`, crank angles; `four-bar-chain-bodies`, 81 planar bodies), against the
//! exact 1-DOF reduction ψ̈ = κ sin ψ.
//!
//! One cell is (method, tolerance or step, form) → the largest error of any crank angle against
//! the reduction at the 401 output times (every 0.05 s, the benchmark's sampling), the largest
//! drift ‖Φ‖∞ and ‖Φ_q v‖∞ over the step points, NFCN, steps and the run's thread CPU time.
//! Shared by the release test slice (`passages.rs`) and the full matrix
//! (`cargo bench -p mbsim-models --bench passages`); no expected number lives here.

use std::time::Duration;

use mbsim_models::four_bar_chain::{self, FourBarChain, WINDOWS};
use mbsim_models::four_bar_chain_bodies::{BODIES, FourBarChainBodies};
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Ali3p, ConstrainedSystem, Dop853, FixedStep,
    Implicit, Problem, Radau, Recorder, Rkstab, Scheme, SimError, Solution, StepRule, StepSize,
    integrate, tableau,
};
use mbsim_testkit::thread_cpu;
use mbsim_tests::dense_forms::DenseForms;

/// The benchmark's span [s].
pub const T_END: f64 = 20.0;
/// The benchmark's output spacing [s].
pub const DT_OUT: f64 = 0.05;
/// HHT's α and generalized-α's ρ∞ used in the matrix (the usual mild damping).
pub const HHT_ALPHA: f64 = -0.05;
/// Generalized-α's spectral radius at infinity.
pub const RHO_INF: f64 = 0.8;

/// Which form of the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `four-bar-chain`: the 41 crank angles, 40 rows.
    Angles,
    /// `four-bar-chain-bodies`: 81 planar bodies, 243 coordinates, 242 rows.
    Bodies,
}

impl Form {
    /// The catalog name.
    pub fn name(self) -> &'static str {
        match self {
            Form::Angles => "four-bar-chain",
            Form::Bodies => "four-bar-chain-bodies",
        }
    }

    /// The model, its start (cranks vertical at 1 rad/s) and the crank angles' indices in q.
    pub fn setup(self) -> (Box<dyn ConstrainedSystem>, Vec<f64>, Vec<f64>, Vec<usize>) {
        match self {
            Form::Angles => {
                let sys = FourBarChain::unit();
                let (q, v) = FourBarChain::initial(&sys);
                (Box::new(sys), q, v, (0..=WINDOWS).collect())
            }
            Form::Bodies => {
                let sys = FourBarChainBodies::unit();
                let (q, v) = FourBarChainBodies::initial(&sys);
                let cranks = (0..=WINDOWS).map(|i| 2 * BODIES + i).collect();
                (Box::new(sys), q, v, cranks)
            }
        }
    }
}

/// A method of the matrix; the `f64` is rtol (= atol) for the error-controlled methods and the
/// step size for the constant-step ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// DOPRI5 with PStab.
    Rkstab,
    /// Variable-step variable-order ABM with PStab.
    Abm,
    /// DOP853 with PStab on every accepted step.
    Dop853,
    /// Radau IIA (order 5), error-controlled.
    Radau,
    /// HHT-α, error-controlled.
    HhtAdaptive,
    /// Generalized-α, error-controlled.
    GenAlphaAdaptive,
    /// HHT-α, error-controlled, with the centred step rule (`StepRule::Centred`).
    HhtCentred,
    /// Generalized-α, error-controlled, with the centred step rule.
    GenAlphaCentred,
    /// Classical RK4 with PStab, constant step.
    Rk4,
    /// MAMPC4 (Haug's PECE) with PStab, constant step.
    Mampc4,
    /// Newmark (ME451), constant step.
    Newmark,
    /// HHT-α, constant step.
    Hht,
    /// Generalized-α, constant step.
    GenAlpha,
    /// Radau IIA, constant step.
    RadauFixed,
    /// ALI3-P (augmented Lagrangian index 3 with projections), constant step.
    Ali3p,
}

impl Method {
    /// Every method, error-controlled first.
    pub const ALL: [Method; 15] = [
        Method::Rkstab,
        Method::Abm,
        Method::Dop853,
        Method::Radau,
        Method::HhtAdaptive,
        Method::GenAlphaAdaptive,
        Method::HhtCentred,
        Method::GenAlphaCentred,
        Method::Rk4,
        Method::Mampc4,
        Method::Newmark,
        Method::Hht,
        Method::GenAlpha,
        Method::RadauFixed,
        Method::Ali3p,
    ];

    /// The name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Method::Rkstab => "rkstab",
            Method::Abm => "abm",
            Method::Dop853 => "dop853",
            Method::Radau => "radau",
            Method::HhtAdaptive => "hht",
            Method::GenAlphaAdaptive => "gen-alpha",
            Method::HhtCentred => "hht-centred",
            Method::GenAlphaCentred => "gen-alpha-centred",
            Method::Rk4 => "rk4 --h",
            Method::Mampc4 => "mampc4 --h",
            Method::Newmark => "newmark --h",
            Method::Hht => "hht --h",
            Method::GenAlpha => "gen-alpha --h",
            Method::RadauFixed => "radau --h",
            Method::Ali3p => "ali3p --h",
        }
    }

    /// Whether the parameter is a step size (else a tolerance).
    pub fn constant_step(self) -> bool {
        match self {
            Method::Rkstab
            | Method::Abm
            | Method::Dop853
            | Method::Radau
            | Method::HhtAdaptive
            | Method::GenAlphaAdaptive
            | Method::HhtCentred
            | Method::GenAlphaCentred => false,
            Method::Rk4
            | Method::Mampc4
            | Method::Newmark
            | Method::Hht
            | Method::GenAlpha
            | Method::RadauFixed
            | Method::Ali3p => true,
        }
    }

    /// Run it with parameter `x` (rtol or h).
    pub fn run(
        self,
        sys: &dyn ConstrainedSystem,
        problem: &Problem,
        x: f64,
    ) -> Result<(Recorder, Solution), SimError> {
        let hht = Scheme::Hht { alpha: HHT_ALPHA };
        let gen_alpha = Scheme::GeneralizedAlpha { rho_inf: RHO_INF };
        match self {
            Method::Rkstab => integrate(sys, &Rkstab::new(x), problem),
            Method::Abm => integrate(sys, &Abm::new(x), problem),
            Method::Dop853 => integrate(sys, &Dop853::new(x), problem),
            Method::Radau => integrate(sys, &Radau::adaptive(x), problem),
            Method::HhtAdaptive => integrate(sys, &Implicit::hht(HHT_ALPHA, x), problem),
            Method::GenAlphaAdaptive => {
                integrate(sys, &Implicit::generalized_alpha(RHO_INF, x), problem)
            }
            Method::HhtCentred => {
                let method = Implicit::hht(HHT_ALPHA, x).with_step_rule(StepRule::Centred);
                integrate(sys, &method, problem)
            }
            Method::GenAlphaCentred => {
                let method =
                    Implicit::generalized_alpha(RHO_INF, x).with_step_rule(StepRule::Centred);
                integrate(sys, &method, problem)
            }
            Method::Rk4 => integrate(sys, &FixedStep::new(tableau::RK4, x), problem),
            Method::Mampc4 => {
                let scheme = AdamsScheme::new(AdamsKind::Mampc, 4, AdamsStart::RungeKutta);
                integrate(sys, &Adams::new(scheme, x), problem)
            }
            Method::Newmark => integrate(sys, &Implicit::newmark(x), problem),
            Method::Hht => integrate(sys, &Implicit::new(hht, StepSize::Fixed(x)), problem),
            Method::GenAlpha => {
                integrate(sys, &Implicit::new(gen_alpha, StepSize::Fixed(x)), problem)
            }
            Method::RadauFixed => integrate(sys, &Radau::fixed(x), problem),
            Method::Ali3p => integrate(sys, &Ali3p::new(x), problem),
        }
    }
}

/// One cell of the matrix.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The method.
    pub method: Method,
    /// rtol or h.
    pub x: f64,
    /// The form.
    pub form: Form,
    /// The outcome: the measures, or the error's text.
    pub outcome: Result<Measures, String>,
}

/// What a successful run measured.
#[derive(Clone, Copy, Debug)]
pub struct Measures {
    /// max over output times and cranks of |θ_i(t) − θ(t)| against the reduction [rad].
    pub error: f64,
    /// The largest ‖Φ‖∞ over the step points.
    pub drift_position: f64,
    /// The largest ‖Φ_q v‖∞ over the step points.
    pub drift_velocity: f64,
    /// Right-hand-side (residual) evaluations.
    pub nfcn: usize,
    /// Steps taken.
    pub steps: usize,
    /// Thread CPU time of the run.
    pub cpu: Duration,
}

/// The crank angle θ(t_k) of the reduction θ̈ = −κ cos θ from (π/2, 1 rad/s) at each of
/// `times` (increasing), by classical RK4 with steps ≤ 1e-5 s: the local error is
/// ~(κ h²)^(5/2) ≈ 1e-22, the accumulated round-off of 2·10⁶ steps on θ ≤ 70 a few 1e-12.
pub fn reduction(times: &[f64]) -> Vec<f64> {
    let kappa = four_bar_chain::kappa(WINDOWS, 1.0, 9.81);
    let f = |y: [f64; 2]| [y[1], -kappa * y[0].cos()];
    let mut y = [std::f64::consts::FRAC_PI_2, 1.0];
    let mut t = 0.0;
    let mut out = Vec::with_capacity(times.len());
    for &target in times {
        let steps = ((target - t) / 1e-5).ceil().max(0.0) as usize;
        let h = if steps > 0 {
            (target - t) / steps as f64
        } else {
            0.0
        };
        for _ in 0..steps {
            let k1 = f(y);
            let k2 = f([y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
            let k3 = f([y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
            let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
            for c in 0..2 {
                y[c] += h / 6.0 * (k1[c] + 2.0 * k2[c] + 2.0 * k3[c] + k4[c]);
            }
        }
        t = target;
        out.push(y[0]);
    }
    out
}

/// The output times of a run up to `t_end`: 0, 0.05, …
pub fn output_times(t_end: f64) -> Vec<f64> {
    let count = (t_end / DT_OUT).round() as usize;
    (0..=count)
        .map(|k| (k as f64 * DT_OUT).min(t_end))
        .collect()
}

/// Run one cell over [0, `t_end`], with the reduction at the output times precomputed; with the
/// model's sparse kernel forms hidden when `dense` ([`DenseForms`]: the dense path every method
/// took before the sparse one).
pub fn measure(
    method: Method,
    x: f64,
    (form, dense): (Form, bool),
    t_end: f64,
    reference: &[f64],
) -> Cell {
    let outcome = measure_run((form, dense), t_end, reference, |sys, problem| {
        method.run(sys, problem, x)
    });
    Cell {
        method,
        x,
        form,
        outcome,
    }
}

/// [`measure`] of any run `run(sys, problem)` of the chain in `form` (the stabilization
/// matrix, `passages_stabilizations.rs`, runs RKSTAB with each drift control through it).
pub fn measure_run(
    (form, dense): (Form, bool),
    t_end: f64,
    reference: &[f64],
    run: impl FnOnce(&dyn ConstrainedSystem, &Problem) -> Result<(Recorder, Solution), SimError>,
) -> Result<Measures, String> {
    let (sys, q0, v0, cranks) = form.setup();
    let times = output_times(t_end);
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_times(&times);
    let hidden = DenseForms(sys.as_ref());
    let sys: &dyn ConstrainedSystem = if dense { &hidden } else { sys.as_ref() };
    let (run, cpu) = thread_cpu(|| run(sys, &problem));
    run.map_err(|e| e.to_string()).map(|(rec, end)| {
        let error = rec
            .q
            .iter()
            .zip(reference)
            .flat_map(|(q, want)| cranks.iter().map(move |&i| (q[i] - want).abs()))
            .fold(
                0.0_f64,
                |s, e| if e.is_nan() { f64::INFINITY } else { s.max(e) },
            );
        let error = if rec.t.len() == reference.len() {
            error
        } else {
            f64::INFINITY
        };
        Measures {
            error,
            drift_position: end.stats.max_drift.position,
            drift_velocity: end.stats.max_drift.velocity,
            nfcn: end.stats.nfcn,
            steps: end.stats.nstep,
            cpu,
        }
    })
}

/// The table's header line.
pub fn header() -> String {
    format!(
        "{:<22} {:<17} {:>7} {:>9} {:>9} {:>9} {:>9} {:>8} {:>9}",
        "form", "method", "rtol/h", "error", "max|Φ|", "max|Φ̇|", "nfcn", "steps", "cpu [s]"
    )
}

impl std::fmt::Display for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let lead = format!(
            "{:<22} {:<17} {:>7.0e}",
            self.form.name(),
            self.method.name(),
            self.x
        );
        write_row(f, &lead, &self.outcome)
    }
}

/// A table row: `lead` (form, method, parameter), then the measures or the error's text.
pub fn write_row(
    f: &mut std::fmt::Formatter<'_>,
    lead: &str,
    outcome: &Result<Measures, String>,
) -> std::fmt::Result {
    match outcome {
        Ok(m) => write!(
            f,
            "{lead} {:>9.2e} {:>9.1e} {:>9.1e} {:>9} {:>8} {:>9.3}",
            m.error,
            m.drift_position,
            m.drift_velocity,
            m.nfcn,
            m.steps,
            m.cpu.as_secs_f64()
        ),
        Err(e) => write!(f, "{lead} FAILED: {e}"),
    }
}
