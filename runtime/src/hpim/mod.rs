//! The high-precision integration method (HPIM) of Liu, Begg, Devane and Zhong for linear
//! structures under nonlinear holonomic constraints (\[HPIM\], digest §2.10), and its paper's
//! comparison method NPC ([`Npc`], a Newmark predictor–corrector).
//!
//! A [`crate::structural::Structure`] in first-order form v = [D; u], u = M D' + C D/2,
//! v' = H v + [0; P(t) + Q − Eᵀλ] (`setup.rs`). One step of size τ (constant, the layer's
//! uniform schedule):
//! 1. T = exp(Hτ) by the 2^N algorithm ([`expm`]), once per run (N = 20 by default, checked
//!    against the truncation criterion (18)).
//! 2. At t_k: λ_k from the multiplier equation with the penalty (32) (`forces.rs`), and the
//!    force g = Q − Eᵀλ that the method expands to second order in local time s = t − t_k,
//!    g ≈ g_k + g'_k s + g''_k s²/2 (first order with [`Expansion::First`], Fig. 7);
//!    g'_k, g''_k by the paper's 3-point backward differences ([`ForceDerivatives::Backward`])
//!    or by central differences along the index-1 flow from the current state, evaluating
//!    the generated kernels at nearby points ([`ForceDerivatives::Flow`]).
//! 3. v_{k+1} = T (v_k − v^p(t_k)) + v^p(t_{k+1}), v^p the particular integral of the loads
//!    (exact for polynomial, harmonic, exponential P, [`particular`]) plus that of the
//!    quadratic g.
//!
//! That is the paper's formulation ([`Formulation::Explicit`]). Its g carries the stiff
//! dependence of λ on D, D' (through K D, C D'), extrapolated explicitly: unstable for
//! τ|μ|max ≫ 1 and limited to ~1e-6 violations on the truss. The default
//! ([`Formulation::Projected`], `projected.rs`) folds that linear part into H (H₀ with Π₀C,
//! Π₀K for E₀ = Φ_D frozen, re-projected when E turns by more than [`Hpim::reproject`]), so
//! g is the smooth remainder (γ̂, Q, the E − E₀ part); since H₀ is singular, the quadratic
//! g and the polynomial loads go through the Duhamel integrals W₀, W₁, W₂ of one augmented
//! 2^N exponential ([`expm::duhamel`]): v_{k+1} = T₀ (v_k − x(t_k)) + x(t_{k+1}) + Σ W_j g_j.
//!
//! Choices where the paper is silent or garbled (digest §4.2): the product (E^T λ) is expanded
//! as a whole together with Q (the same quadratic as expanding E, λ separately up to the
//! terms the differences drop) (\[AMBIG-37\] eq. 12 corrected as in the digest);
//! start-up of the backward differences (\[AMBIG-40\]) for k < 2 uses the flow derivatives;
//! samples between step points are cubic Hermite in (D, D'), end slopes from the multiplier
//! solve.
//!
//! An over-constrained structure (E with dependent rows) is integrated with its redundant rows
//! left out of S = E M⁻¹ Eᵀ, λ = 0 on them (`schur.rs`, the shared
//! [`crate::redundancy::RowSelection`]); Π₀ is built from the kept rows. The selection's
//! changes are in [`crate::Stats::redundancy`], the left-out rows' residuals in
//! [`crate::Stats::redundant_drift`].
//!
//! Counters in [`crate::Stats::extra`]: `multiplier_solves` (every λ evaluation, also those of
//! the flow derivatives), `doublings` (N), `projections` (builds of H₀ in the projected
//! formulation, [`Formulation::Projected`]; 1 for a constant E and an unchanged selection of
//! redundant rows).

pub mod expm;
mod forces;
mod npc;
pub mod particular;
mod projected;
mod schur;
mod setup;
mod stepper;

use std::sync::Arc;

pub use forces::Penalty;
pub use npc::Npc;

use crate::error::SimError;
use crate::integrator::controller::Uniform;
use crate::integrator::driver::Schedule;
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::output::Observer;
use crate::stabilize::Stabilization;
use crate::structural::Structure;
use crate::system::ConstrainedSystem;

use setup::Setup;
use stepper::HpimStepper;

/// How g'_k and g''_k of the expanded force g = Q − Eᵀλ are obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForceDerivatives {
    /// The paper's 3-point backward differences over the last three step points ((29) and
    /// "λ'' by numerical differentiation"); the flow derivatives for the first two steps.
    Backward,
    /// Fourth-order central differences of g at t_k ± δ, t_k ± 2δ (δ = τ/4) on states reached by
    /// RK4 substeps of the index-1 equations from the current state: λ from the generated
    /// constraint kernels at each point, no step history.
    Flow,
}

/// How the constraint force Eᵀλ enters the step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Formulation {
    /// The paper's: H of the free structure, Q − Eᵀλ expanded in time as a whole. Explicit in
    /// the stiff dependence of λ on D, D' (through K D, C D'): unstable for τ|μ|max ≫ 1 and
    /// limited to ~1e-6 constraint violation on the truss (`projected.rs` docs).
    Explicit,
    /// Ours: the linear part of λ(D, D') for E₀ = Φ_D(t₀, D₀) folded into H (Π₀C, Π₀K), only
    /// the smooth remainder expanded; exact in the constraint stiffness for constant E.
    Projected,
}

/// Order of the Taylor expansion of g over a step (\[HPIM\] Fig. 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expansion {
    /// g_k + g'_k s.
    First,
    /// g_k + g'_k s + g''_k s²/2 (the paper's choice).
    Second,
}

/// The HPIM method on a structural model.
#[derive(Clone, Debug)]
pub struct Hpim {
    /// M, C, K, the loads and Q (the system integrated supplies the constraint kernels).
    pub structure: Arc<Structure>,
    /// Step size τ (> 0).
    pub tau: f64,
    /// N of the 2^N algorithm (1..=50, default 20).
    pub doublings: u32,
    /// The penalty of (32).
    pub penalty: Penalty,
    /// Where g', g'' come from.
    pub derivatives: ForceDerivatives,
    /// First or second order expansion of g.
    pub expansion: Expansion,
    /// Explicit (paper) or projected (ours) constraint force.
    pub formulation: Formulation,
    /// Projected formulation: rebuild the projection (E₀ := E, H₀, T, W) at a step point where
    /// ‖E − E₀‖_F/‖E₀‖_F exceeds this, so that the explicitly expanded part of the
    /// constraint force, of stiffness ~ this fraction of K, stays stable (default 1e-2;
    /// `f64::INFINITY`: never). Constant E never triggers it.
    pub reproject: f64,
    /// The options every method shares (stabilization is off: HPIM has its own penalty).
    pub common: CommonOptions,
}

impl Hpim {
    /// HPIM with step `tau`, N = 20, no penalty, second-order expansion with backward
    /// differences (the paper's Table 2 setting), the projected constraint force.
    pub fn new(structure: Arc<Structure>, tau: f64) -> Self {
        Self {
            structure,
            tau,
            doublings: 20,
            penalty: Penalty::NONE,
            derivatives: ForceDerivatives::Backward,
            expansion: Expansion::Second,
            formulation: Formulation::Projected,
            reproject: 1e-2,
            common: CommonOptions {
                stabilization: Stabilization::None,
                ..CommonOptions::default()
            },
        }
    }

    /// The same method with the penalty of (32).
    pub fn with_penalty(mut self, penalty: Penalty) -> Self {
        self.penalty = penalty;
        self
    }
}

impl Integrator for Hpim {
    fn name(&self) -> String {
        "hpim".to_string()
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
        refuse_events(sys, "HPIM")?;
        let uniform = Uniform::over(self.tau, problem)?;
        self.penalty.validate()?;
        let setup = Setup::new(sys, &self.structure, problem)?;
        expm::check_truncation(self.doublings, self.tau, setup.spectral_bound())?;
        // The projected formulation's Π₀ is built by `start`, about the initial point's E₀
        // with the rows its multiplier solve keeps.
        let loads = match self.formulation {
            Formulation::Explicit => setup.load_integrals(&self.structure)?,
            Formulation::Projected => Vec::new(),
        };
        let (mut run, mut stats) = prepare(sys, &self.common, problem, None, observer)?;
        let mut stepper = HpimStepper::new(self, setup, loads, uniform.h);
        stepper.start(sys, problem)?;
        run.drive(&mut stepper, Schedule::Uniform(uniform), &mut stats)?;
        stats
            .extra
            .set("multiplier_solves", stepper.solves() as u64);
        stats.extra.set("doublings", u64::from(self.doublings));
        if let Some(p) = stepper.projections() {
            stats.extra.set("projections", p as u64);
        }
        Ok(run.finish(stepper.solution(problem.t_end, stats)))
    }
}

/// HPIM and NPC do not take events: [`SimError::InvalidProblem`] naming the model's events and
/// the reason, before anything runs. Their step is the exponential of a linear structure's
/// operator over a uniform grid, with no dense output of the method's own order to locate a
/// crossing on, and an event's impulse or mode switch (a contact row, a sticking row) would
/// change the structure the step operator was built for.
pub fn refuse_events<S: ConstrainedSystem + ?Sized>(sys: &S, method: &str) -> Result<(), SimError> {
    match sys.as_events() {
        None => Ok(()),
        Some(events) => Err(SimError::InvalidProblem {
            what: format!(
                "{method} does not take events: `{}` declares {}; {method} steps a linear \
                 structure's exponential on a uniform grid, with no dense output to locate a \
                 crossing on and no mode switch (use rkstab, abm, radau or the α family)",
                sys.name(),
                events.event_names().join(", ")
            ),
        }),
    }
}
