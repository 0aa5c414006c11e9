//! NPC, the Newmark predictor–corrector that \[HPIM\] compares with (Liu, Williams and Kennedy
//! 1994; the paper only names it, so this is our reconstruction from its description in §2:
//! "an estimated value of λ is obtained from Eq. (8) due to predictions of D and D'; the
//! corrections to D are then found by substituting this approximate λ into Eq. (5)").
//!
//! One step of size τ with the average-acceleration Newmark rule (β = 1/4, γ = 1/2):
//!
//! ```text
//! predict   D̃ = D_k + τ D'_k + τ²(1/2 − β) D''_k,   D̃' = D'_k + τ(1 − γ) D''_k
//! λ̃         from (8) with the penalty (32) at (t_{k+1}, D̃, D̃')
//! correct   (M + γτC + βτ²K) D''_{k+1} = P(t_{k+1}) + Q(t_{k+1}, D̃, D̃') − Eᵀ(D̃) λ̃ − C D̃' − K D̃
//!           D_{k+1} = D̃ + βτ² D''_{k+1},   D'_{k+1} = D̃' + γτ D''_{k+1}
//! ```

use std::sync::Arc;

use nalgebra::{DMatrix, DVector, Dyn, LU};

use super::forces::{ConstraintForce, Penalty};
use super::setup::Setup;
use crate::error::SimError;
use crate::integrator::controller::Uniform;
use crate::integrator::driver::{Attempt, Schedule, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::output::Observer;
use crate::stabilize::Stabilization;
use crate::structural::Structure;
use crate::system::ConstrainedSystem;

/// The Newmark predictor–corrector on a structural model.
#[derive(Clone, Debug)]
pub struct Npc {
    /// M, C, K, loads and Q.
    pub structure: Arc<Structure>,
    /// Step size τ (> 0).
    pub tau: f64,
    /// The penalty of (32).
    pub penalty: Penalty,
    /// The options every method shares (stabilization off).
    pub common: CommonOptions,
}

impl Npc {
    /// NPC with step `tau` and no penalty.
    pub fn new(structure: Arc<Structure>, tau: f64) -> Self {
        Self {
            structure,
            tau,
            penalty: Penalty::NONE,
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

const BETA: f64 = 0.25;
const GAMMA: f64 = 0.5;

impl Integrator for Npc {
    fn name(&self) -> String {
        "npc".to_string()
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
        super::refuse_events(sys, "NPC")?;
        let uniform = Uniform::over(self.tau, problem)?;
        self.penalty.validate()?;
        let setup = Setup::new(sys, &self.structure, problem)?;
        let (mut run, mut stats) = prepare(sys, &self.common, problem, None, observer)?;
        let mut stepper = NpcStepper::new(self, &setup, problem)?;
        stepper.force.eval(
            sys,
            &self.structure,
            problem.t0,
            self.tau,
            &problem.q0,
            &problem.v0,
        )?;
        stepper.accel.copy_from(&stepper.force.accel);
        run.drive(&mut stepper, Schedule::Uniform(uniform), &mut stats)?;
        let n = problem.q0.len();
        Ok(run.finish(Solution {
            t: problem.t_end,
            q: stepper.z[..n].to_vec(),
            v: stepper.z[n..].to_vec(),
            stats,
            event: None,
        }))
    }
}

struct NpcStepper {
    structure: Arc<Structure>,
    damping: DMatrix<f64>,
    stiffness: DMatrix<f64>,
    effective: LU<f64, Dyn, Dyn>,
    h_eff: f64,
    force: ConstraintForce,
    z: Vec<f64>,
    z_new: Vec<f64>,
    accel: DVector<f64>,
    accel_new: DVector<f64>,
    z_prev: Vec<f64>,
    accel_prev: DVector<f64>,
    t_prev: f64,
    h_prev: f64,
    /// Workspaces: the predicted D̃, D̃' and the corrector's right-hand side.
    dp: DVector<f64>,
    vp: DVector<f64>,
    rhs: DVector<f64>,
}

impl NpcStepper {
    fn new(m: &Npc, setup: &Setup, problem: &Problem) -> Result<Self, SimError> {
        let st = &m.structure;
        let n = st.dofs();
        let z: Vec<f64> = problem.q0.iter().chain(&problem.v0).copied().collect();
        Ok(Self {
            structure: st.clone(),
            damping: st.damping.clone(),
            stiffness: st.stiffness.clone(),
            effective: effective(st, m.tau),
            h_eff: m.tau,
            force: ConstraintForce::new(
                &m.structure.mass,
                setup.minv.clone(),
                setup.rows,
                m.penalty,
            ),
            z_new: z.clone(),
            z_prev: z.clone(),
            z,
            accel: DVector::zeros(n),
            accel_new: DVector::zeros(n),
            accel_prev: DVector::zeros(n),
            t_prev: 0.0,
            h_prev: 0.0,
            dp: DVector::zeros(n),
            vp: DVector::zeros(n),
            rhs: DVector::zeros(n),
        })
    }
}

/// LU of M + γτC + βτ²K.
fn effective(st: &Structure, h: f64) -> LU<f64, Dyn, Dyn> {
    (&st.mass + &st.damping * (GAMMA * h) + &st.stiffness * (BETA * h * h)).lu()
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for NpcStepper {
    fn state(&self) -> &[f64] {
        &self.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        if h != self.h_eff {
            self.effective = effective(&self.structure, h);
            self.h_eff = h;
        }
        let n = self.accel.len();
        let (d, dv) = self.z.split_at(n);
        let (dp, vp) = (&mut self.dp, &mut self.vp);
        for i in 0..n {
            dp[i] = d[i] + h * dv[i] + h * h * (0.5 - BETA) * self.accel[i];
            vp[i] = dv[i] + h * (1.0 - GAMMA) * self.accel[i];
        }
        let t1 = t + h;
        self.force
            .eval(sys, &self.structure, t1, h, dp.as_slice(), vp.as_slice())?;
        // F̃ − C D̃' − K D̃ = M D''(λ̃) at the predicted point: the multiplier solve's force.
        let rhs = &mut self.rhs;
        self.structure.load_into(t1, rhs.as_mut_slice());
        rhs.gemv(-1.0, &self.damping, vp, 1.0);
        rhs.gemv(-1.0, &self.stiffness, dp, 1.0);
        *rhs += &self.force.expanded;
        if !self.effective.solve_mut(rhs) {
            return Err(SimError::InvalidProblem {
                what: "npc: M + γτC + βτ²K is singular".to_string(),
            });
        }
        self.accel_new.copy_from(rhs);
        dp.axpy(BETA * h * h, &self.accel_new, 1.0);
        vp.axpy(GAMMA * h, &self.accel_new, 1.0);
        self.z_new[..n].copy_from_slice(dp.as_slice());
        self.z_new[n..].copy_from_slice(vp.as_slice());
        Ok(Attempt {
            error: 0.0,
            stabilized: false,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        std::mem::swap(&mut self.z_prev, &mut self.z);
        std::mem::swap(&mut self.z, &mut self.z_new);
        std::mem::swap(&mut self.accel_prev, &mut self.accel);
        std::mem::swap(&mut self.accel, &mut self.accel_new);
        (self.t_prev, self.h_prev) = (t, h);
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        let n = out.len() / 2;
        let h = self.h_prev;
        let th = (t - self.t_prev) / h;
        let [h00, h10, h01, h11] = crate::dense::hermite_basis(th);
        for c in 0..out.len() {
            let (f0, f1) = if c < n {
                (self.z_prev[n + c], self.z[n + c])
            } else {
                (self.accel_prev[c - n], self.accel[c - n])
            };
            out[c] = h00 * self.z_prev[c] + h10 * h * f0 + h01 * self.z[c] + h11 * h * f1;
        }
        Ok(())
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(&self.force.schur.rows)
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.force.evaluations,
            nstab: 0,
            stabilization_time: std::time::Duration::ZERO,
            output_solves: 0,
            // The multiplier solve's S = E M⁻¹ Eᵀ (HPIM and NPC have no KKT solve).
            conditioning: self.force.conditioning,
        }
    }
}
