//! ALI3-P: the augmented Lagrangian index-3 formulation with mass-orthogonal projections
//! (Bayo & Ledesma 1996; Cuadrado, Cardenal & Bayo 1997; the integrator of García de Jalón's
//! IFToMM benchmark reference solutions), on the layer's run loop with constant steps.
//!
//! Per step t → t + h, with the trapezoidal rule written for the unknown q = q_{n+1}
//! (v = (2/h) q + v̂, q̈ = (4/h²) q + â, v̂ = −((2/h) q_n + v_n), â = −((4/h²) q_n + (4/h) v_n +
//! q̈_n)), Newton's method on the equations of motion scaled by h²/4,
//!
//! f(q) = (h²/4) (M q̈ + Gᵀ (α c + λ*) − Q) = 0,   c = [Φ(t, q); (h/2)(A v + b)],
//!
//! with the iteration matrix f_q = M + (h/2) C + (h²/4) (K + α GᵀG) (K, C the tangents of
//! `implicit/tangents.rs`, evaluated once per step at the predictor: modified Newton in them;
//! M and G are refreshed every iteration), and after every correction the multiplier update
//! λ* ← λ* + α c. The nonholonomic rows enter as (h/2)(A v + b): their derivative with respect
//! to q through v = (2/h) q + v̂ is A, so one α serves both kinds. The converged λ* are the
//! method's multipliers. Then velocities and accelerations are projected with the same leading
//! matrix P = W + (h²/4) α GᵀG, W = M + (h/2) C + (h²/4) K:
//!
//! P v = W v* − (h²/4) α Gᵀ [Φ_t; b],   P q̈ = W q̈* + (h²/4) α Gᵀ γ,
//!
//! each iterated as an augmented Lagrangian (v ← v − P⁻¹ (h²/4) α Gᵀ (G v + [Φ_t; b]) until the
//! residual stops falling), so that G v + [Φ_t; b] and G q̈ − γ reach round-off instead of the
//! 1/α-sized residual of a single penalty solve. Neither P nor f_q ever contains [M Gᵀ; G 0]:
//! redundant rows of G only make GᵀG rank-deficient, which M keeps regular, so no row is
//! selected. The multiplier increments α c lie in the range of G (up to O(c²)), so from the
//! minimum-norm start λ stays minimum-norm while the null space of Gᵀ is fixed (identical
//! parallel members share a reaction equally) and keeps the null component it inherited
//! where that space turns with the motion (measured in the README's over-constrained
//! section).
//!
//! Penalty: [`Ali3pPenalty::Scaled`] (default, 10⁴) sets α = s · (4/h²) · ω / g², ω the
//! largest diagonal entry of M and g the largest row norm of G at t0, so that the penalty block
//! (h²/4) α GᵀG is s times the mass block whatever the units and the step: the multiplier
//! iteration contracts by about ω / ((h²/4) α σ²) = (g/σ)²/s per iteration (σ the smallest
//! non-zero singular value of G), while the conditioning of f_q, about s (g/σ)², stays far from
//! 1/ε. [`Ali3pPenalty::Absolute`] takes the literature's fixed α (10⁷–10⁹ for kg-m models).
//!
//! Linear algebra (`linear.rs`): P dense on small models; on the implicit methods' sparse path
//! [W Gᵀ; G −I/s] factored banded, whose solve of [r; 0] is P⁻¹ r without forming GᵀG.
//!
//! Singular positions: the multiplier update contracts by about ω / (ω + s σ²) per iteration
//! in the direction of G's singular value σ, so where σ → 0 it stops contracting; an iteration
//! that crawls raises α 100-fold (up to 10⁴) for its step (`step.rs`, `boost_if_crawling`).
//!
//! Failures: a Newton iteration that diverges, produces non-finite corrections or exhausts
//! its iterations is [`SimError::NewtonDiverged`] (t, h, iterations, the constraint residual,
//! the last scaled correction); the step is then redone in 2, 4, … substeps up to
//! [`CommonOptions::max_failed_attempts`] halvings (counted as `substeps`) before the error is
//! returned. A singular f_q (M not positive definite on ker G) is
//! [`SimError::SingularIterationMatrix`].
//!
//! Counters in [`crate::Stats::extra`]: `newton_iterations`, `tangent_evaluations`,
//! `factorizations`, `projection_iterations`, `substeps`, `penalty_boosts`, and `round_off_stalls` when a step was accepted at its round-off
//! stall (`step.rs`, `stalled_at_round_off`). Samples report λ* (linear between
//! step points), not the KKT solve's λ.

mod linear;
mod step;

use crate::error::SimError;
use crate::implicit::tangents::{Exact, FiniteDifference, Tangents};
use crate::integrator::common::{invalid, positive};
use crate::integrator::controller::Uniform;
use crate::integrator::driver::Schedule;
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::kkt_layout::KktLayout;
use crate::output::{Observer, Stats};
use crate::stabilize::Stabilization;
use crate::system::ConstrainedSystem;
use crate::tangent::TangentSystem;

use step::Ali3pStepper;

/// The penalty factor α of [`Ali3p`] (module docs).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Ali3pPenalty {
    /// α = s · (4/h²) · max M_ii / max‖g_i‖² at t0: the penalty block s times the mass block.
    Scaled(f64),
    /// α as given (units of force per length per multiplier unit of the model).
    Absolute(f64),
}

/// ALI3-P with constant step `h` (module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct Ali3p {
    /// Step size (> 0; the direction comes from the problem).
    pub h: f64,
    /// The penalty factor.
    pub penalty: Ali3pPenalty,
    /// Newton tolerance on the correction, ‖Δq‖∞ ≤ tol · (1 + ‖q‖∞) (default 1e-12: the
    /// multiplier iteration then leaves ‖Φ‖ at about tol/s, i.e. round-off).
    pub tol: f64,
    /// Newton iterations per step before the step counts as failed (default 30).
    pub max_iterations: usize,
    /// Iterations of each projection at most (default 6; they stop earlier when the residual
    /// stops halving).
    pub max_projection_iterations: usize,
    /// The options every method shares; the stabilization must be `None` (ALI3-P projects
    /// by itself).
    pub common: CommonOptions,
}

impl Ali3p {
    /// ALI3-P with step `h`, penalty scaled by 10⁴, Newton tolerance 1e-12.
    pub fn new(h: f64) -> Self {
        Self {
            h,
            penalty: Ali3pPenalty::Scaled(1e4),
            tol: 1e-12,
            max_iterations: 30,
            max_projection_iterations: 6,
            common: CommonOptions {
                stabilization: Stabilization::None,
                ..CommonOptions::default()
            },
        }
    }

    /// The same method with another penalty.
    pub fn with_penalty(mut self, penalty: Ali3pPenalty) -> Self {
        self.penalty = penalty;
        self
    }

    /// The same method with another Newton tolerance.
    pub fn with_tol(mut self, tol: f64) -> Self {
        self.tol = tol;
        self
    }

    fn validate(&self, problem: &Problem) -> Result<(), SimError> {
        Uniform::over(self.h, problem)?;
        match self.penalty {
            Ali3pPenalty::Scaled(s) => positive("penalty (scaled)", s)?,
            Ali3pPenalty::Absolute(a) => positive("penalty (absolute)", a)?,
        }
        positive("tol", self.tol)?;
        if self.max_iterations == 0 {
            return Err(invalid("max_iterations", "0", "must be at least 1"));
        }
        if !matches!(self.common.stabilization, Stabilization::None) {
            let reason = "ALI3-P projects velocities and accelerations itself; use none";
            return Err(invalid(
                "stabilization",
                self.common.stabilization.name(),
                reason,
            ));
        }
        Ok(())
    }

    /// The layout a run on `sys` factors the leading matrix in: dense, or [W Gᵀ; G −I/s]
    /// banded under the RCM ordering, by the implicit methods' rule (`linear.rs`).
    pub fn layout<S: ConstrainedSystem + ?Sized>(&self, sys: &S) -> KktLayout {
        crate::implicit::iteration::layout(sys, self.common.kkt, 1)
    }

    /// Integrate with the model's exact tangent kernels in K and C.
    pub fn integrate_exact_into<S: TangentSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        self.run(sys, Exact::new(sys.dims().n), problem, observer)
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
        self.validate(problem)?;
        let (mut run, mut stats) = prepare(sys, &self.common, problem, None, observer)?;
        let mut stepper = Ali3pStepper::new(sys.dims(), self, tangents);
        stepper.prepare(sys, self.common.kkt);
        stepper.initialize(sys, problem.t0, &problem.q0, &problem.v0)?;
        let schedule = Schedule::Uniform(Uniform::over(self.h, problem)?);
        let result = run.drive(&mut stepper, schedule, &mut stats);
        Self::extra(&stepper, &mut stats);
        result?;
        let (q, v) = stepper.z().split_at(sys.dims().n);
        Ok(run.finish(Solution {
            t: problem.t_end,
            q: q.to_vec(),
            v: v.to_vec(),
            stats,
            event: None,
        }))
    }

    fn extra<T>(stepper: &Ali3pStepper<T>, stats: &mut Stats) {
        let c = stepper.counters;
        let extra = &mut stats.extra;
        extra.set("newton_iterations", c.iterations as u64);
        extra.set("tangent_evaluations", c.tangents as u64);
        extra.set("factorizations", c.factorizations as u64);
        extra.set("projection_iterations", c.projections as u64);
        extra.set("substeps", c.substeps as u64);
        extra.set("penalty_boosts", c.boosts as u64);
        // Only when a step was accepted so: the counters of every other run (the
        // conformance snapshot) keep their keys.
        if c.stalls > 0 {
            extra.set("round_off_stalls", c.stalls as u64);
        }
    }
}

impl Integrator for Ali3p {
    fn name(&self) -> String {
        "ali3p".to_string()
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
