//! Radau IIA with three stages (order 5, stiffly accurate, L-stable) on the index-3 DAE
//! q' = v, v' = a, 0 = M(q) a − Q(t, q, v) + Gᵀλ, 0 = Φ(t, q) with simplified Newton
//! iterations: the method of Hairer & Wanner's RADAU5 \[Hairer–Wanner II §IV.8, §VII.4;
//! `radau5.f`\] written for second-order mechanical systems.
//!
//! Per step the unknowns are the stage accelerations A_i and multipliers Λ_i (i = 1..3); the
//! stage velocities and positions are V = v0 + h (𝒜⊗I) A and Q = q0 + h c v0 + h² (𝒜²⊗I) A
//! (`tableau.rs`), the equations M(Q_i) A_i + G(Q_i)ᵀ Λ_i = Q(t_i, Q_i, V_i) and
//! Φ(t_i, Q_i)/h² = 0 (`newton.rs`: the iteration matrix is the Newmark matrix of `implicit/`
//! Kronecker'd with 𝒜, tangents frozen at the step start, dense LU of order 3(n + m)). The
//! method is stiffly accurate: the step's end is stage 3, so Φ = 0 holds at every step point
//! to the Newton tolerance, and a, λ at the end are those of stage 3. Global orders on the
//! index-3 formulation (Hairer–Lubich–Roche): q 5 (2s − 1), v 3 (s), λ 2 (s − 1).
//!
//! Tangents K = ∂(M a + Gᵀλ − Q)/∂q and C = −∂Q/∂v come from the model's tangent kernels
//! ([`Radau::integrate_exact_into`], a [`TangentSystem`]) or from central differences
//! ([`Integrator::integrate_into`], any model), shared with [`crate::Implicit`]
//! (`implicit/tangents.rs`). Steps are constant ([`StepSize::Fixed`]) or error-controlled
//! ([`StepSize::Adaptive`], `stepper.rs`: RADAU5's embedded estimate and controller,
//! Gustafsson's predictive control, Jacobian reuse). Nonholonomic rows A v + b = 0 (k > 0) are
//! stage equations of index 2 (`newton.rs`), held at every step point (stage 3) to the Newton
//! tolerance. The holonomic velocity constraint is not enforced (index 3) unless
//! a post-step [`Stabilization`] is chosen (default `None`; Baumgarte is refused). The
//! M-orthogonal projections (PStab, S-both, velocity-only, GGᵀ) keep the order; the oblique ones
//! (S-full, GCP, hybrid) move the tangential motion by the velocity residual, O(h³) per step for
//! the third-order velocities, which costs q its fifth order (pendulum, 400 steps per period:
//! q error 4.2e-7 with S-full and 3.4e-7 with GCP against 4e-8 with PStab).
//!
//! Counters in [`crate::Stats::extra`]: `newton_iterations`, `tangent_evaluations`,
//! `factorizations`, `newton_failures`, `slow_newton_rejections`; `nfcn` counts stage
//! evaluations (each one evaluation of M, G, Q, Φ) plus the initial KKT solve.

mod assembly;
mod newton;
mod stages;
mod stepper;
mod tableau;

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::implicit::StepSize;
use crate::implicit::tangents::{Exact, FiniteDifference, Tangents};
use crate::integrator::common::invalid;
use crate::integrator::controller::{Adaptive, Uniform};
use crate::integrator::driver::Schedule;
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::kkt::KktLayout;
use crate::options::{StepControl, Tolerance};
use crate::output::{Observer, Recorder, Stats};
use crate::stabilize::Stabilization;
use crate::system::ConstrainedSystem;
use crate::tangent::TangentSystem;

use newton::{StageSolver, Start};
use stepper::{ErrorControl, RadauStepper, Setup};

/// Options of the simplified Newton iteration and of the controller.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RadauOptions {
    /// Newton iterations per step (`radau5.f`'s NIT). `None`: 7 for adaptive runs
    /// (`radau5.f`), 15 for constant steps (whose κ is near round-off and whose failures are
    /// final: with the contraction θ ≈ 0.07 of a step h ω ≈ 0.3, 7 corrections fell short).
    pub max_iterations: Option<usize>,
    /// κ of the Newton test η ‖Δ‖ ≤ κ. Adaptive runs measure ‖Δ‖ in the error weights;
    /// `None` is `radau5.f`'s FNEWT = max(10 ε/rtol, min(0.03, √rtol)). Constant-step runs
    /// measure it relative to 1 + |z|; `None` is 1e-12.
    pub newton_tol: Option<f64>,
    /// Keep the tangents for the next step when the Newton contraction was at most this
    /// (`radau5.f`'s THET). Default 0.001; 0 re-evaluates them every step.
    pub jacobian_reuse: f64,
    /// Gustafsson's predictive step-size control. Default on.
    pub gustafsson: bool,
}

impl Default for RadauOptions {
    fn default() -> Self {
        Self {
            max_iterations: None,
            newton_tol: None,
            jacobian_reuse: 0.001,
            gustafsson: true,
        }
    }
}

/// Radau IIA (s = 3) on the index-3 DAE: step sizes, Newton options, common options.
#[derive(Clone, Debug, PartialEq)]
pub struct Radau {
    /// Constant or error-controlled steps.
    pub step: StepSize,
    /// Newton and controller options.
    pub options: RadauOptions,
    /// The options every method shares; the constructors set `stabilization: None`.
    pub common: CommonOptions,
}

impl Radau {
    /// `step` with default options and no stabilization.
    pub fn new(step: StepSize) -> Self {
        let common = CommonOptions {
            stabilization: Stabilization::None,
            ..CommonOptions::default()
        };
        Self {
            step,
            options: RadauOptions::default(),
            common,
        }
    }

    /// Constant steps of size `h`.
    pub fn fixed(h: f64) -> Self {
        Self::new(StepSize::Fixed(h))
    }

    /// Error control at `rtol` = atol with the default controller.
    pub fn adaptive(rtol: f64) -> Self {
        Self::new(StepSize::Adaptive {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol),
            control: StepControl::default(),
        })
    }

    /// The same method with other options.
    pub fn with_options(mut self, options: RadauOptions) -> Self {
        self.options = options;
        self
    }

    /// The same method with another post-step stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }

    /// Everything but the common options (which `prepare` checks), before any kernel call.
    fn validate<S: ConstrainedSystem + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
    ) -> Result<(), SimError> {
        let dims = sys.dims();
        if self.common.stabilization.modifies_field() {
            let reason = "Baumgarte and the continuous stabilizations modify γ or the \
                          accelerations, which an index-3 method never uses";
            let name = self.common.stabilization.name();
            return Err(invalid("stabilization", name, reason));
        }
        let o = &self.options;
        if let Some(it) = o.max_iterations
            && it < 2
        {
            return Err(invalid(
                "max_iterations",
                &it.to_string(),
                "must be at least 2",
            ));
        }
        if let Some(tol) = o.newton_tol
            && !(tol.is_finite() && tol > 0.0)
        {
            return Err(invalid("newton_tol", &tol.to_string(), "must be > 0"));
        }
        if !(0.0..1.0).contains(&o.jacobian_reuse) {
            let value = o.jacobian_reuse.to_string();
            return Err(invalid("jacobian_reuse", &value, "must lie in [0, 1)"));
        }
        match &self.step {
            StepSize::Fixed(h) => Uniform::over(*h, problem).map(|_| ()),
            StepSize::Adaptive {
                rtol,
                atol,
                control,
            } => {
                rtol.validate("rtol", 2 * dims.n, 10.0 * f64::EPSILON)?;
                atol.validate("atol", 2 * dims.n, 0.0)?;
                control.validate()
            }
        }
    }

    /// The layout of the stage system a run on `sys` starts with: dense of order 3(n + m + k),
    /// or banded with the stages interleaved on the sparse path (`stages.rs`).
    pub fn layout<S: ConstrainedSystem + ?Sized>(&self, sys: &S) -> KktLayout {
        crate::implicit::iteration::layout(sys, self.common.kkt, 3)
    }

    /// Integrate with the model's exact tangent kernels in the iteration matrix.
    pub fn integrate_exact_into<S: TangentSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        self.run(sys, Exact::new(sys.dims().n), problem, observer)
    }

    /// [`Radau::integrate_exact_into`] recording every sample.
    pub fn integrate_exact<S: TangentSystem + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
    ) -> Result<(Recorder, Solution), SimError> {
        let mut rec = Recorder::default();
        let solution = self.integrate_exact_into(sys, problem, &mut rec)?;
        Ok((rec, solution))
    }

    /// The stepper's setup: tolerances, κ and the controller.
    fn setup(&self, len: usize, problem: &Problem) -> Setup {
        let o = &self.options;
        let (error, kappa, max_iterations) = match &self.step {
            StepSize::Fixed(_) => (
                None,
                o.newton_tol.unwrap_or(1e-12),
                o.max_iterations.unwrap_or(15),
            ),
            StepSize::Adaptive {
                rtol,
                atol,
                control,
            } => {
                let rtol_min = (0..len).map(|i| rtol.get(i)).fold(1.0, f64::min);
                let fnewt = (10.0 * f64::EPSILON / rtol_min).max(rtol_min.sqrt().min(0.03));
                let error = ErrorControl {
                    rtol: rtol.clone(),
                    atol: atol.clone(),
                    control: *control,
                    h_max: control.h_max.min((problem.t_end - problem.t0).abs()),
                    gustafsson: o.gustafsson,
                };
                (
                    Some(error),
                    o.newton_tol.unwrap_or(fnewt),
                    o.max_iterations.unwrap_or(7),
                )
            }
        };
        Setup {
            error,
            kappa,
            max_iterations,
            jacobian_reuse: o.jacobian_reuse,
            stabilization: self.common.stabilization,
            datol: self.common.datol,
            kkt: self.common.kkt,
        }
    }

    fn run<S, O, T>(
        &self,
        sys: &S,
        tangents: T,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError>
    where
        S: ConstrainedSystem + ?Sized,
        O: Observer + ?Sized,
        T: Tangents<S>,
    {
        let dims = sys.dims();
        self.validate(sys, problem)?;
        let auto_tol = match &self.step {
            StepSize::Fixed(_) => None,
            StepSize::Adaptive { atol, .. } => Some(
                (0..2 * dims.n)
                    .map(|i| atol.get(i))
                    .fold(f64::INFINITY, f64::min),
            ),
        };
        let (mut run, mut stats) = prepare(sys, &self.common, problem, auto_tol, observer)?;
        let mut stepper = RadauStepper::new(dims, self.setup(2 * dims.n, problem), tangents);
        stepper.initialize(sys, problem.t0, &problem.q0, &problem.v0)?;
        let schedule = match &self.step {
            StepSize::Fixed(h) => Schedule::Uniform(Uniform::over(*h, problem)?),
            StepSize::Adaptive { control, .. } => first_step(control, &stepper, problem),
        };
        let result = run.drive(&mut stepper, schedule, &mut stats);
        extra(&stepper, &mut stats);
        result?;
        let (q, v) = stepper.z().split_at(dims.n);
        Ok(run.finish(Solution {
            t: problem.t_end,
            q: q.to_vec(),
            v: v.to_vec(),
            stats,
            event: None,
        }))
    }
}

/// The adaptive schedule: `h_init`, or 0.01 ‖z‖/‖ż‖ (1e-6 when either norm is below 1e-5), at
/// most h_max and the span. The driver's controller only shortens failed attempts (h/4): the
/// stepper gives its own verdicts.
fn first_step<T>(control: &StepControl, stepper: &RadauStepper<T>, problem: &Problem) -> Schedule {
    let h_max = control.h_max.min((problem.t_end - problem.t0).abs());
    let h0 = control
        .h_init
        .unwrap_or_else(|| match stepper.initial_slope_norms() {
            Some((dny, dnf)) if dny > 1e-5 && dnf > 1e-5 => 0.01 * dny / dnf,
            _ => 1e-6,
        });
    Schedule::Adaptive {
        control: Adaptive::new(*control, 3, h_max),
        h0: h0.min(h_max),
    }
}

fn extra<T>(stepper: &RadauStepper<T>, stats: &mut Stats) {
    let c = stepper.solver.counters;
    let extra = &mut stats.extra;
    extra.set("newton_iterations", c.iterations as u64);
    extra.set("tangent_evaluations", c.tangents as u64);
    extra.set("factorizations", c.factorizations as u64);
    extra.set("newton_failures", c.failures as u64);
    extra.set("slow_newton_rejections", stepper.slow_newton as u64);
}

impl Integrator for Radau {
    fn name(&self) -> String {
        "radau".to_string()
    }

    fn common(&self) -> &CommonOptions {
        &self.common
    }

    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        let dims = sys.dims();
        let tangents = FiniteDifference::new(dims.n, dims.constraint_rows());
        self.run(sys, tangents, problem, observer)
    }
}

/// One step of Radau IIA from a consistent start, for [`radau_system`].
#[derive(Clone, Copy, Debug)]
pub struct RadauProbe<'a> {
    /// Time at the start of the step.
    pub t: f64,
    /// Step size.
    pub h: f64,
    /// (q0, v0), length 2n.
    pub z: &'a [f64],
    /// a0 (length n).
    pub a: &'a [f64],
}

/// The stage residual Ψ(x) and its exact Jacobian ∂Ψ/∂x (from the tangent kernels, each stage's
/// block row at that stage) at the unknowns x = (A_1, A_2, A_3, Λ_1, Λ_2, Λ_3) of the step
/// `probe`: exposed so tests can compare it with finite differences of Ψ (digest §4.1). The
/// iteration matrix the method factors is this Jacobian with every stage's tangents taken at
/// the step start. Allocates.
pub fn radau_system<S: TangentSystem + ?Sized>(
    sys: &S,
    probe: &RadauProbe<'_>,
    x: &[f64],
) -> Result<(Vec<f64>, DMatrix<f64>), SimError> {
    let dims = sys.dims();
    let mut solver = StageSolver::new(dims);
    let mut tangents = Exact::new(dims.n);
    let lambda = vec![0.0; dims.constraint_rows()];
    let start = Start {
        t: probe.t,
        z: probe.z,
        a: probe.a,
        lambda: &lambda,
    };
    solver.probe(sys, &mut tangents, &start, probe.h, x)
}
