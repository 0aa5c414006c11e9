//! Constant-step Adams methods on constrained systems ([`Adams`]): AB_k, AMPC_k and MAMPC_k of
//! [`AdamsScheme`] with the layer's drift control, on the layer's uniform schedule.
//!
//! NFCN counts every KKT solve: 1 per AB step, 2 per PECE step, 1 for f(t0), and 4 per RK4
//! substep of the Runge–Kutta start (also reported as `Stats::extra["start_nfcn"]`). Samples
//! between step points come from the Adams interpolant of the step (`engine.rs`).

use crate::error::SimError;
use crate::integrator::controller::Uniform;
use crate::integrator::driver::{Attempt, Schedule, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::output::Observer;
use crate::rhs::Rhs;
use crate::stabilize::{Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;

use super::engine::{Engine, Field};
use super::{AdamsScheme, MAX_ORDER};

/// A constant-step Adams method with the layer's drift control.
#[derive(Clone, Debug, PartialEq)]
pub struct Adams {
    /// The formula, order and start.
    pub scheme: AdamsScheme,
    /// Step size (> 0; the direction comes from the problem).
    pub h: f64,
    /// The options every method shares (Baumgarte for Wu's runs, PStab by default).
    pub common: CommonOptions,
}

impl Adams {
    /// `scheme` with step `h`, PStab on every step.
    pub fn new(scheme: AdamsScheme, h: f64) -> Self {
        Self {
            scheme,
            h,
            common: CommonOptions::default(),
        }
    }

    /// The same method with another stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }
}

impl Integrator for Adams {
    fn name(&self) -> String {
        self.scheme.name()
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
        self.scheme.validate()?;
        let schedule = Schedule::Uniform(Uniform::over(self.h, problem)?);
        let (mut run, mut stats) = prepare(sys, &self.common, problem, None, observer)?;
        let mut stepper =
            AdamsStepper::new(sys, &self.common, self.scheme, problem).with_rank_loss_guard();
        stepper.begin(sys, problem.t0)?;
        run.drive(&mut stepper, schedule, &mut stats)?;
        stats
            .extra
            .set("start_nfcn", stepper.engine.start_nfcn as u64);
        Ok(run.finish(stepper.solution(problem.t_end, stats)))
    }
}

/// The layer's drift control as an Adams [`Field`]: f from the KKT solve (γ̂ under
/// Baumgarte), the post-step correction of the stabilizer, its error scales.
pub(crate) struct DaeField<'a, S: ?Sized> {
    pub(crate) sys: &'a S,
    pub(crate) rhs: &'a mut Rhs,
    pub(crate) stab: &'a mut Stabilizer,
    pub(crate) datol: f64,
    /// Whether the post-step correction after f^p borrows the dynamics' K factored at the
    /// predicted point ([`AdamsStepper::with_predicted_factors`]).
    pub(crate) predicted_factors: bool,
}

impl<S: ConstrainedSystem + ?Sized> Field for DaeField<'_, S> {
    fn eval(&mut self, t: f64, z: &[f64], h: f64, f: &mut [f64]) -> Result<(), SimError> {
        self.rhs.eval(self.sys, t, z, h, f)
    }

    fn project(&mut self, t: f64, h: f64, z: &mut [f64]) -> Result<bool, SimError> {
        let (q, v) = z.split_at_mut(z.len() / 2);
        self.stab.apply(self.sys, t, h, q, v, self.datol)
    }

    fn project_after_predicted(&mut self, t: f64, h: f64, z: &mut [f64]) -> Result<bool, SimError> {
        if !self.predicted_factors {
            return self.project(t, h, z);
        }
        let (q, v) = z.split_at_mut(z.len() / 2);
        let factored = self.rhs.last_kkt();
        self.stab
            .apply_nearby_factored(self.sys, t, h, q, v, self.datol, factored)
    }

    fn scale(&self, c: usize, sk: f64) -> f64 {
        self.stab.floored_scale(c, sk)
    }
}

/// The Adams engine with the layer's right-hand side and stabilizer.
pub(crate) struct AdamsStepper {
    pub(crate) engine: Engine,
    rhs: Rhs,
    stab: Stabilizer,
    datol: f64,
    predicted_factors: bool,
    scheme: AdamsScheme,
}

impl AdamsStepper {
    pub(crate) fn new<S: ConstrainedSystem + ?Sized>(
        sys: &S,
        common: &CommonOptions,
        scheme: AdamsScheme,
        problem: &Problem,
    ) -> Self {
        let dims = sys.dims();
        let z0: Vec<f64> = problem.q0.iter().chain(&problem.v0).copied().collect();
        Self {
            engine: Engine::new(&z0, MAX_ORDER + 3),
            rhs: Rhs::new(dims, common.stabilization, common.kkt),
            stab: Stabilizer::new(common.stabilization, dims).with_kkt_solver(common.kkt),
            datol: common.datol,
            predicted_factors: false,
            scheme,
        }
    }

    /// The constant-step stepper: its stabilizer skips amplified round-off near rank loss
    /// (`stabilize/projection.rs`, "Rank-loss guard"), as it has no error test to reject it.
    fn with_rank_loss_guard(self) -> Self {
        Self {
            stab: self.stab.with_rank_loss_guard(),
            ..self
        }
    }

    /// The variable-step stepper: the correction after a PECE step solves with K factored
    /// at the predicted point z^p, which the evaluation of f^p left in the right-hand side's
    /// workspace, instead of assembling and factoring K at the corrected point (`engine.rs`,
    /// "Projection with the predictor's factors"). The constant-step methods keep their own
    /// factorization, so Wu's tables stay as the sources print them.
    pub(crate) fn with_predicted_factors(self) -> Self {
        Self {
            predicted_factors: true,
            ..self
        }
    }

    /// The field view for one call.
    pub(crate) fn field<'a, S: ConstrainedSystem + ?Sized>(
        &'a mut self,
        sys: &'a S,
    ) -> (&'a mut Engine, DaeField<'a, S>) {
        let field = DaeField {
            sys,
            rhs: &mut self.rhs,
            stab: &mut self.stab,
            datol: self.datol,
            predicted_factors: self.predicted_factors,
        };
        (&mut self.engine, field)
    }

    /// f(t0, z0) into the history.
    pub(crate) fn begin<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
    ) -> Result<(), SimError> {
        let (engine, mut field) = self.field(sys);
        engine.begin(&mut field, t0)
    }

    /// The run's end.
    pub(crate) fn solution(&self, t: f64, stats: crate::output::Stats) -> Solution {
        let (q, v) = self.engine.z.split_at(self.engine.z.len() / 2);
        Solution {
            t,
            q: q.to_vec(),
            v: v.to_vec(),
            stats,
            event: None,
        }
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for AdamsStepper {
    fn state(&self) -> &[f64] {
        &self.engine.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let scheme = self.scheme;
        let (engine, mut field) = self.field(sys);
        engine.set_time(t);
        let slopes = engine.hist.len();
        let stabilized = if scheme.starting(slopes) {
            engine.runge_kutta_start(&mut field, h)?
        } else {
            let k = scheme.order_at(slopes);
            engine.attempt(&mut field, h, k, scheme.kind.corrector_nodes(k))?
        };
        Ok(Attempt {
            error: 0.0,
            stabilized,
            verdict: None,
        })
    }

    fn accept(&mut self, _t: f64, h: f64) {
        self.engine.accept(h);
        self.stab.note_accepted();
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        self.engine.interpolate(t, out);
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(self.rhs.row_selection())
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.rhs.nfcn,
            nstab: self.stab.applications,
            stabilization_time: self.stab.time,
            output_solves: 0,
            conditioning: self.rhs.conditioning,
        }
    }
}
