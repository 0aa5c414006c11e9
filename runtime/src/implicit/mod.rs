//! Implicit integration of the index-3 DAE with Newton iterations: Newmark as in \[ME451\]
//! (digest §2.9), HHT-α and generalized-α (Chung–Hulbert), one family in the
//! Arnold–Brüls form (`scheme.rs`), on the layer's run loop (`stepper.rs`).
//!
//! Per step the unknowns (q̈_{n+1}, λ_{n+1}) solve M q̈ + Gᵀλ = Q and Φ = 0 at t_{n+1} by
//! Newton's method (`newton.rs`: the residual with ME451's 1/(βh²) scaling, the iteration
//! matrix [M + βh²c K + γhc C, Gᵀ; G, 0], the convergence test on the correction and on Φ,
//! full or modified Newton). K and C come from the model's tangent kernels
//! ([`Implicit::integrate_exact_into`], for a [`TangentSystem`]) or from central differences of
//! the same residual ([`Integrator::integrate_into`], any model: the trait's generic bound cannot
//! see whether a model has tangents). Both converge to the same step result; they differ in
//! cost and in Newton's convergence rate only.
//!
//! Steps are constant ([`StepSize::Fixed`], the ME451 setting; a step whose Newton iteration
//! fails is redone in 2, 4, … substeps) or error-controlled ([`StepSize::Adaptive`]: the
//! estimate of `stepper.rs`, Hairer's controller with p = 2 or, with [`StepRule::Centred`],
//! the next step from the error predicted at its own midpoint (`step_rule.rs`), failed
//! attempts retried by the driver with h/4). Initial accelerations and multipliers come from the KKT solve at t0. The
//! constraint Φ = 0 holds at every step point to the Newton tolerance; the velocity constraint
//! is not enforced (index 3) unless a post-step [`Stabilization`] is chosen (default `None`;
//! Baumgarte does not apply: no γ enters an index-3 method).
//!
//! Counters in [`crate::Stats::extra`]: `newton_iterations`, `tangent_evaluations`,
//! `factorizations`, `newton_failures`, `substeps`; `nfcn` counts residual evaluations (each
//! one evaluation of M, G, Q, Φ) plus the initial KKT solve.

pub(crate) mod iteration;
pub(crate) mod matrices;
mod newton;
mod nonholonomic;
pub(crate) mod pattern;
mod scheme;
mod step_rule;
mod stepper;
pub(crate) mod tangents;

pub use newton::{NewtonKind, NewtonOptions};
pub use scheme::{Coefficients, Scheme};
pub use step_rule::StepRule;

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::integrator::common::invalid;
use crate::integrator::controller::{Adaptive, Uniform};
use crate::integrator::driver::Schedule;
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::kkt::KktLayout;
use crate::options::{StepControl, Tolerance};
use crate::output::{Observer, Stats};
use crate::stabilize::Stabilization;
use crate::system::ConstrainedSystem;
use crate::tangent::TangentSystem;

use newton::{Newton, StepStart};
pub(crate) use nonholonomic::NhWork;
use stepper::{ErrorTest, ImplicitStepper, Setup};
use tangents::{Exact, FiniteDifference, Tangents};

/// How step sizes are chosen.
#[derive(Clone, Debug, PartialEq)]
pub enum StepSize {
    /// Constant steps of this size (> 0); a span that is not a whole number of steps ends with
    /// one shorter step onto t_end.
    Fixed(f64),
    /// Error-controlled steps (module docs of `stepper.rs` for the estimate).
    Adaptive {
        /// Relative tolerance (> 10 ε).
        rtol: Tolerance,
        /// Absolute tolerance (> 0).
        atol: Tolerance,
        /// Controller parameters (`h_init: None` picks 0.01 ‖z‖/‖ż‖ in the weighted norm).
        control: StepControl,
    },
}

/// An implicit index-3 method: scheme, Newton options, step sizes, common options.
#[derive(Clone, Debug, PartialEq)]
pub struct Implicit {
    /// Newmark, HHT-α or generalized-α.
    pub scheme: Scheme,
    /// The Newton iteration (default: full Newton, tol 1e-10, 10 iterations).
    pub newton: NewtonOptions,
    /// Constant or error-controlled steps.
    pub step: StepSize,
    /// How error-controlled runs choose the next step (`step_rule.rs`).
    pub step_rule: StepRule,
    /// The options every method shares; the constructors set `stabilization: None`.
    pub common: CommonOptions,
}

impl Implicit {
    /// `scheme` with `step`, default Newton options, no stabilization.
    pub fn new(scheme: Scheme, step: StepSize) -> Self {
        let common = CommonOptions {
            stabilization: Stabilization::None,
            ..CommonOptions::default()
        };
        Self {
            scheme,
            newton: NewtonOptions::default(),
            step,
            step_rule: StepRule::default(),
            common,
        }
    }

    /// ME451's Newmark (β = 0.3025, γ = 0.6) with constant step `h`.
    pub fn newmark(h: f64) -> Self {
        Self::new(Scheme::ME451, StepSize::Fixed(h))
    }

    /// HHT-α with error control at `rtol` (atol = rtol).
    pub fn hht(alpha: f64, rtol: f64) -> Self {
        Self::new(Scheme::Hht { alpha }, Self::adaptive(rtol))
    }

    /// Generalized-α with spectral radius `rho_inf` and error control at `rtol` (atol = rtol).
    pub fn generalized_alpha(rho_inf: f64, rtol: f64) -> Self {
        Self::new(Scheme::GeneralizedAlpha { rho_inf }, Self::adaptive(rtol))
    }

    /// Error-controlled steps at `rtol` = atol with the default controller.
    pub fn adaptive(rtol: f64) -> StepSize {
        StepSize::Adaptive {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol),
            control: StepControl::default(),
        }
    }

    /// The same method with other step sizes.
    pub fn with_step(mut self, step: StepSize) -> Self {
        self.step = step;
        self
    }

    /// The same method with another rule for the next step (error-controlled runs).
    pub fn with_step_rule(mut self, step_rule: StepRule) -> Self {
        self.step_rule = step_rule;
        self
    }

    /// The same method with other Newton options.
    pub fn with_newton(mut self, newton: NewtonOptions) -> Self {
        self.newton = newton;
        self
    }

    /// The same method with another post-step stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }

    /// Everything but the common options (which `prepare` checks), before any kernel call.
    fn validate(&self, len: usize, problem: &Problem) -> Result<(), SimError> {
        self.scheme.validate()?;
        self.newton.validate()?;
        if self.common.stabilization.modifies_field() {
            let reason = "Baumgarte and the continuous stabilizations modify γ or the \
                          accelerations, which an index-3 method never uses";
            let name = self.common.stabilization.name();
            return Err(invalid("stabilization", name, reason));
        }
        match &self.step {
            StepSize::Fixed(h) => Uniform::over(*h, problem).map(|_| ()),
            StepSize::Adaptive {
                rtol,
                atol,
                control,
            } => {
                rtol.validate("rtol", len, 10.0 * f64::EPSILON)?;
                atol.validate("atol", len, 0.0)?;
                control.validate()
            }
        }
    }

    /// The layout of the Newton matrix a run on `sys` starts with: dense, or banded under the
    /// RCM ordering on the sparse path (models with the sparse kernel forms, `common.kkt`'s
    /// rule; `iteration.rs`).
    pub fn layout<S: ConstrainedSystem + ?Sized>(&self, sys: &S) -> KktLayout {
        iteration::layout(sys, self.common.kkt, 1)
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

    /// [`Implicit::integrate_exact_into`] recording every sample.
    pub fn integrate_exact<S: TangentSystem + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
    ) -> Result<(crate::Recorder, Solution), SimError> {
        let mut rec = crate::Recorder::default();
        let solution = self.integrate_exact_into(sys, problem, &mut rec)?;
        Ok((rec, solution))
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
        self.validate(2 * dims.n, problem)?;
        let auto_tol = match &self.step {
            StepSize::Fixed(_) => None,
            StepSize::Adaptive { atol, .. } => Some(
                (0..2 * dims.n)
                    .map(|i| atol.get(i))
                    .fold(f64::INFINITY, f64::min),
            ),
        };
        let (mut run, mut stats) = prepare(sys, &self.common, problem, auto_tol, observer)?;
        let setup = Setup {
            coef: self.scheme.coefficients(),
            newton: self.newton,
            error_test: match &self.step {
                StepSize::Fixed(_) => None,
                StepSize::Adaptive { rtol, atol, .. } => Some(ErrorTest {
                    rtol: rtol.clone(),
                    atol: atol.clone(),
                }),
            },
            max_halvings: self.common.max_failed_attempts,
            stabilization: self.common.stabilization,
            datol: self.common.datol,
            kkt: self.common.kkt,
            step_rule: (self.step_rule, self.safety().powi(3)),
        };
        let mut stepper = ImplicitStepper::new(dims, setup, tangents);
        stepper.initialize(sys, problem.t0, &problem.q0, &problem.v0)?;
        let schedule = match &self.step {
            StepSize::Fixed(h) => Schedule::Uniform(Uniform::over(*h, problem)?),
            StepSize::Adaptive { control, .. } => {
                Self::adaptive_schedule(control, &stepper, problem)
            }
        };
        let result = run.drive(&mut stepper, schedule, &mut stats);
        Self::extra(&stepper, &mut stats);
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

    /// The controller's safety factor (error-controlled runs; unused otherwise).
    fn safety(&self) -> f64 {
        match &self.step {
            StepSize::Fixed(_) => 1.0,
            StepSize::Adaptive { control, .. } => control.safety,
        }
    }

    /// Hairer's controller with p = 2 and the first step: `h_init`, or 0.01 ‖z‖/‖ż‖ (1e-6 when
    /// either norm is below 1e-5, as `dopri5.f`'s first guess), at most h_max and the span.
    fn adaptive_schedule<T>(
        control: &StepControl,
        stepper: &ImplicitStepper<T>,
        problem: &Problem,
    ) -> Schedule {
        let span = (problem.t_end - problem.t0).abs();
        let h_max = control.h_max.min(span);
        let h0 = control
            .h_init
            .unwrap_or_else(|| match stepper.initial_slope_norms() {
                Some((dny, dnf)) if dny > 1e-5 && dnf > 1e-5 => 0.01 * dny / dnf,
                _ => 1e-6,
            });
        Schedule::Adaptive {
            control: Adaptive::new(*control, 2, h_max),
            h0: h0.min(h_max),
        }
    }

    fn extra<T>(stepper: &ImplicitStepper<T>, stats: &mut Stats) {
        let c = stepper.newton.counters;
        let extra = &mut stats.extra;
        extra.set("newton_iterations", c.iterations as u64);
        extra.set("tangent_evaluations", c.tangents as u64);
        extra.set("factorizations", c.factorizations as u64);
        extra.set("newton_failures", c.failures as u64);
        extra.set("substeps", stepper.substeps as u64);
    }
}

impl Integrator for Implicit {
    fn name(&self) -> String {
        self.scheme.name().to_string()
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

/// The start of one step, for [`newton_system`].
#[derive(Clone, Copy, Debug)]
pub struct StepProbe<'a> {
    /// Time at the start of the step.
    pub t: f64,
    /// Step size.
    pub h: f64,
    /// (q_n, v_n), length 2n.
    pub z: &'a [f64],
    /// q̈_n.
    pub qdd: &'a [f64],
    /// The pseudo-acceleration a_n (= q̈_n for Newmark and at t0).
    pub a: &'a [f64],
}

/// The Newton residual Ψ(x) and the iteration matrix J(x) (with exact tangents) of the step
/// `probe` of `scheme`, at the unknowns `x` = (q̈_{n+1}, λ_{n+1}): what the Newton iteration
/// factors, exposed so tests can compare J with finite differences of Ψ (digest §4.1). For
/// k > 0 the nonholonomic rows of J hold N = ∂(A v + b)/∂q by central differences (see
/// `newton.rs`). Allocates.
pub fn newton_system<S: TangentSystem + ?Sized>(
    sys: &S,
    scheme: &Scheme,
    probe: &StepProbe<'_>,
    x: &[f64],
) -> Result<(Vec<f64>, DMatrix<f64>), SimError> {
    let dims = sys.dims();
    let mut newton = Newton::new(dims, NewtonOptions::default());
    let mut tangents = Exact::new(dims.n);
    let lambda = vec![0.0; dims.constraint_rows()];
    let start = StepStart {
        z: probe.z,
        qdd: probe.qdd,
        a: probe.a,
        lambda: &lambda,
    };
    let coef = scheme.coefficients();
    newton.probe(sys, &mut tangents, &coef, &start, probe.t, probe.h, x)
}
