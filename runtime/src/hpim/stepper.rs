//! The HPIM step on the layer's run loop: v_{k+1} = T (v_k − v^p(t_k)) + v^p(t_{k+1}) with the
//! particular integral of the loads (absolute time) and of the quadratic expansion of
//! g = Q − Eᵀλ (local time), see the module docs of [`super`].

use nalgebra::{DMatrix, DVector};

use super::forces::ConstraintForce;
use super::particular::{LoadIntegral, quadratic_into};
use super::projected::Projection;
use super::setup::Setup;
use super::{Expansion, ForceDerivatives, Formulation, Hpim, expm};
use crate::error::SimError;
use crate::integrator::driver::{Attempt, Stepper, StepperCounters};
use crate::integrator::{Problem, Solution};
use crate::output::Stats;
use crate::structural::Structure;
use crate::system::ConstrainedSystem;

/// Spacing of the flow differences as a fraction of τ (δ = τ/4: RK4 substeps well inside the
/// stability region for ω τ ≲ 4; truncation (ωδ)⁴/90 of the 5-point second difference).
const FLOW_FRACTION: f64 = 0.25;

/// Per-step workspaces (taken out of the stepper while in use, so nothing is allocated per
/// step).
#[derive(Default)]
struct Work {
    /// g'_k, g''_k.
    d1: DVector<f64>,
    d2: DVector<f64>,
    /// g at t ± δ, t ± 2δ.
    flow_g: [DVector<f64>; 4],
    /// The state of the flow substeps, the RK4 stages and slopes.
    flow_state: Vec<f64>,
    stage: Vec<f64>,
    slopes: [Vec<f64>; 4],
}

impl Work {
    fn new(n: usize) -> Self {
        let z = || vec![0.0; 2 * n];
        Self {
            d1: DVector::zeros(n),
            d2: DVector::zeros(n),
            flow_g: [(); 4].map(|_| DVector::zeros(n)),
            flow_state: z(),
            stage: z(),
            slopes: [z(), z(), z(), z()],
        }
    }
}

pub(crate) struct HpimStepper {
    work: Work,
    structure: std::sync::Arc<Structure>,
    setup: Setup,
    loads: Vec<LoadIntegral>,
    derivatives: ForceDerivatives,
    expansion: Expansion,
    doublings: u32,
    reproject: f64,
    /// The projected formulation (its [`Projection`] is built by [`Self::start`]).
    projected: bool,
    /// The bound of |μ| of H (caps the flow-difference spacing).
    mu_max: f64,
    /// T = exp(H τ) for `tau`.
    t_mat: DMatrix<f64>,
    tau: f64,
    force: ConstraintForce,
    /// The projected formulation's H₀ and residual (None: the paper's explicit Eᵀλ, or before
    /// [`Self::start`]).
    projection: Option<Projection>,
    /// The expanded force at the last [`Self::eval_force`].
    g_eval: DVector<f64>,
    /// First-order state v = [D; u] and the layer's z = [D; D'] at the current step point.
    v: DVector<f64>,
    z: Vec<f64>,
    v_new: DVector<f64>,
    z_new: Vec<f64>,
    /// g at the last three step points (newest first) and how many are valid.
    history: [DVector<f64>; 3],
    filled: usize,
    g_now: DVector<f64>,
    /// g and D'' at the end of the attempted step (evaluated by the attempt).
    g_new: DVector<f64>,
    a_new: DVector<f64>,
    coeffs: [DVector<f64>; 3],
    /// Hermite data of the last step: start state, start and end accelerations.
    z_prev: Vec<f64>,
    a_prev: DVector<f64>,
    a_now: DVector<f64>,
    t_prev: f64,
    h_prev: f64,
    output_solves: usize,
}

impl HpimStepper {
    pub(crate) fn new(m: &Hpim, setup: Setup, loads: Vec<LoadIntegral>, tau: f64) -> Self {
        let n = m.structure.dofs();
        let force =
            ConstraintForce::new(&m.structure.mass, setup.minv.clone(), setup.rows, m.penalty);
        let zero = || DVector::zeros(n);
        Self {
            work: Work::new(n),
            structure: m.structure.clone(),
            t_mat: expm::expm(&setup.h, tau, m.doublings),
            mu_max: setup.spectral_bound().max(f64::MIN_POSITIVE),
            setup,
            loads,
            derivatives: m.derivatives,
            expansion: m.expansion,
            doublings: m.doublings,
            reproject: m.reproject,
            projected: m.formulation == Formulation::Projected,
            tau,
            force,
            projection: None,
            g_eval: zero(),
            v: DVector::zeros(2 * n),
            z: vec![0.0; 2 * n],
            v_new: DVector::zeros(2 * n),
            z_new: vec![0.0; 2 * n],
            history: [zero(), zero(), zero()],
            filled: 0,
            g_now: zero(),
            g_new: zero(),
            a_new: zero(),
            coeffs: [
                DVector::zeros(2 * n),
                DVector::zeros(2 * n),
                DVector::zeros(2 * n),
            ],
            z_prev: vec![0.0; 2 * n],
            a_prev: zero(),
            a_now: zero(),
            t_prev: 0.0,
            h_prev: 0.0,
            output_solves: 0,
        }
    }

    /// The initial state, its multiplier and acceleration, and the projected formulation's
    /// Π₀ about the initial E₀ (with the rows its multiplier solve keeps).
    pub(crate) fn start<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        problem: &Problem,
    ) -> Result<(), SimError> {
        let n = self.structure.dofs();
        self.z[..n].copy_from_slice(&problem.q0);
        self.z[n..].copy_from_slice(&problem.v0);
        self.v = self
            .setup
            .first_order_state(&self.structure, &problem.q0, &problem.v0);
        let (t0, q0, v0) = (problem.t0, &problem.q0, &problem.v0);
        self.force
            .eval(sys, &self.structure, t0, self.tau, q0, v0)?;
        if self.projected {
            let e0 = (&self.force.e, &self.force.schur.rows);
            let p = Projection::new(
                sys,
                &self.structure,
                &self.setup,
                e0,
                t0,
                self.tau,
                self.doublings,
            )?;
            self.projection = Some(p);
        }
        self.expanded_force(t0, q0, v0);
        self.a_now.copy_from(&self.force.accel);
        self.g_now.copy_from(&self.g_eval);
        Ok(())
    }

    /// λ, D'' and the expanded force g at (t, D, D') into `force` and `g_eval`: Q − Eᵀλ
    /// (explicit) or the projected residual.
    fn eval_force<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        d: &[f64],
        dv: &[f64],
    ) -> Result<(), SimError> {
        self.force.eval(sys, &self.structure, t, h, d, dv)?;
        self.expanded_force(t, d, dv);
        Ok(())
    }

    /// The expanded force g of the last multiplier solve (at (t, D, D')) into `g_eval`.
    fn expanded_force(&mut self, t: f64, d: &[f64], dv: &[f64]) {
        match &mut self.projection {
            Some(p) => p.residual_into(t, d, dv, &self.force.accel, &mut self.g_eval),
            None => self.g_eval.copy_from(&self.force.expanded),
        }
    }

    /// Builds of the projection (None: explicit formulation).
    pub(crate) fn projections(&self) -> Option<usize> {
        self.projection.as_ref().map(|p| p.refreshes)
    }

    /// Rebuild the projection about the current E when it has turned more than `reproject`
    /// or the multiplier solve's selection of redundant rows changed since (the last
    /// evaluation is the current point's); g at the current point follows, and the
    /// backward-difference history restarts (it holds the old g).
    fn maybe_reproject(&mut self, t: f64, h: f64) -> Result<(), SimError> {
        let Some(p) = &mut self.projection else {
            return Ok(());
        };
        let turned = p.turn(&self.force.e) > self.reproject;
        if self.setup.rows == 0 || (!turned && p.built_with(&self.force.schur.rows)) {
            return Ok(());
        }
        // The rows the multiplier solve keeps at this point (its last evaluation).
        let e = (&self.force.e, &self.force.schur.rows);
        p.project(&self.structure, &self.setup.minv, e, t, h, self.doublings)?;
        let n = self.structure.dofs();
        let (d, dv) = self.z.split_at(n);
        p.residual_into(t, d, dv, &self.force.accel, &mut self.g_now);
        self.filled = 0;
        Ok(())
    }

    pub(crate) fn solves(&self) -> usize {
        self.force.evaluations
    }

    pub(crate) fn solution(&self, t: f64, stats: Stats) -> Solution {
        let n = self.structure.dofs();
        Solution {
            t,
            q: self.z[..n].to_vec(),
            v: self.z[n..].to_vec(),
            stats,
            event: None,
        }
    }

    /// g'_k, g''_k into `w.d1`, `w.d2`.
    fn derivatives<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        w: &mut Work,
    ) -> Result<(), SimError> {
        let backward = self.derivatives == ForceDerivatives::Backward && self.filled >= 2;
        if backward {
            let (g0, g1, g2) = (&self.g_now, &self.history[0], &self.history[1]);
            for i in 0..g0.len() {
                w.d1[i] = (3.0 * g0[i] - 4.0 * g1[i] + g2[i]) / (2.0 * h);
                w.d2[i] = (g0[i] - 2.0 * g1[i] + g2[i]) / (h * h);
            }
        } else {
            self.flow_derivatives(sys, t, h, w)?;
        }
        if self.expansion == Expansion::First {
            w.d2.fill(0.0);
        }
        Ok(())
    }

    /// 5-point central differences of g on RK4 substeps of the index-1 flow.
    fn flow_derivatives<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        w: &mut Work,
    ) -> Result<(), SimError> {
        // δ = τ/4, but at most 1/2 over |μ|max so that the RK4 substeps resolve every mode.
        let delta = h.signum() * (FLOW_FRACTION * h.abs()).min(0.5 / self.mu_max);
        let n = self.z.len() / 2;
        for (side, sign) in [(0, 1.0), (2, -1.0)] {
            w.flow_state.copy_from_slice(&self.z);
            for sub in 0..2 {
                let ts = t + sign * delta * sub as f64;
                self.rk4(sys, ts, sign * delta, w)?;
                let tn = ts + sign * delta;
                let (d, dv) = w.flow_state.split_at(n);
                self.eval_force(sys, tn, h, d, dv)?;
                w.flow_g[side + sub].copy_from(&self.g_eval);
            }
        }
        // g = [g(δ), g(2δ), g(−δ), g(−2δ)].
        let (g, g0) = (&w.flow_g, &self.g_now);
        for i in 0..n {
            w.d1[i] = (8.0 * (g[0][i] - g[2][i]) - (g[1][i] - g[3][i])) / (12.0 * delta);
            w.d2[i] = (16.0 * (g[0][i] + g[2][i]) - (g[1][i] + g[3][i]) - 30.0 * g0[i])
                / (12.0 * delta * delta);
        }
        Ok(())
    }

    /// One classical RK4 substep of (D, D')' = (D', D'') with D'' from the multiplier solve,
    /// on `w.flow_state`.
    fn rk4<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        dt: f64,
        w: &mut Work,
    ) -> Result<(), SimError> {
        let len = w.flow_state.len();
        let n = len / 2;
        let (c, b) = ([0.0, 0.5, 0.5, 1.0], [1.0, 2.0, 2.0, 1.0]);
        w.stage.copy_from_slice(&w.flow_state);
        for i in 0..4 {
            if i > 0 {
                for j in 0..len {
                    w.stage[j] = w.flow_state[j] + c[i] * dt * w.slopes[i - 1][j];
                }
            }
            self.force.eval(
                sys,
                &self.structure,
                t + c[i] * dt,
                dt,
                &w.stage[..n],
                &w.stage[n..],
            )?;
            w.slopes[i][..n].copy_from_slice(&w.stage[n..]);
            w.slopes[i][n..].copy_from_slice(self.force.accel.as_slice());
        }
        for j in 0..len {
            w.flow_state[j] += dt / 6.0 * (0..4).map(|i| b[i] * w.slopes[i][j]).sum::<f64>();
        }
        Ok(())
    }

    /// v^p of the loads at absolute time t, added into `out`.
    fn add_load_integrals(&self, t: f64, out: &mut DVector<f64>) {
        for load in &self.loads {
            load.add_into(t, out);
        }
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for HpimStepper {
    fn state(&self) -> &[f64] {
        &self.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        if h != self.tau {
            self.t_mat = expm::expm(&self.setup.h, h, self.doublings);
            if let Some(p) = &mut self.projection {
                p.retime(h, self.doublings);
            }
            self.tau = h;
        }
        self.maybe_reproject(t, h)?;
        let n = self.structure.dofs();
        let mut w = std::mem::take(&mut self.work);
        let forced = self.setup.rows > 0 || self.structure.nonlinear.is_some();
        let result = if forced || self.projection.is_some() {
            self.derivatives(sys, t, h, &mut w)
        } else {
            w.d1.fill(0.0);
            w.d2.fill(0.0);
            Ok(())
        };
        if let Err(e) = result {
            self.work = w;
            return Err(e);
        }
        match &self.projection {
            Some(p) => projected_step(
                p,
                &self.v,
                t,
                h,
                [&self.g_now, &w.d1, &w.d2],
                &mut self.v_new,
            ),
            None => {
                if forced {
                    let lu = match self.setup.require_lu() {
                        Ok(lu) => lu,
                        Err(e) => {
                            self.work = w;
                            return Err(e);
                        }
                    };
                    quadratic_into(
                        lu,
                        [self.g_now.as_slice(), w.d1.as_slice(), w.d2.as_slice()],
                        &mut self.coeffs,
                    );
                } else {
                    self.coeffs.iter_mut().for_each(|c| c.fill(0.0));
                }
                let [a0, a1, a2] = &self.coeffs;
                let mut start = DVector::zeros(2 * n);
                self.add_load_integrals(t, &mut start);
                let free = &self.v - start - a0;
                let mut end = a0 + a1 * h + a2 * (h * h);
                self.add_load_integrals(t + h, &mut end);
                self.v_new = &self.t_mat * free + end;
            }
        }
        self.work = w;
        self.z_new[..n].copy_from_slice(&self.v_new.as_slice()[..n]);
        let (_, dv) = self.z_new.split_at_mut(n);
        self.setup.velocity_into(&self.v_new, &mut self.work.d1, dv);
        let z_new = std::mem::take(&mut self.z_new);
        let (d, dv) = z_new.split_at(n);
        let evaluated = self.eval_force(sys, t + h, h, d, dv);
        self.z_new = z_new;
        evaluated?;
        self.g_new.copy_from(&self.g_eval);
        self.a_new.copy_from(&self.force.accel);
        Ok(Attempt {
            error: 0.0,
            stabilized: false,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        std::mem::swap(&mut self.z_prev, &mut self.z);
        std::mem::swap(&mut self.z, &mut self.z_new);
        std::mem::swap(&mut self.v, &mut self.v_new);
        self.history.rotate_right(1);
        self.history[0].copy_from(&self.g_now);
        self.filled = (self.filled + 1).min(3);
        std::mem::swap(&mut self.g_now, &mut self.g_new);
        std::mem::swap(&mut self.a_prev, &mut self.a_now);
        std::mem::swap(&mut self.a_now, &mut self.a_new);
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
                (self.a_prev[c - n], self.a_now[c - n])
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
            output_solves: self.output_solves,
            // The multiplier solve's S = E M⁻¹ Eᵀ (HPIM and NPC have no KKT solve).
            conditioning: self.force.conditioning,
        }
    }
}

/// v_{k+1} = T₀ (v_k − x(t_k)) + x(t_{k+1}) + W₀ g₀ + W₁ g₁ + W₂ g₂ into `out` (the projected
/// formulation: x the exact loads' particular integrals on H₀, g(s) = g₀ + g₁ s + g₂ s²/2).
fn projected_step(
    p: &Projection,
    v: &DVector<f64>,
    t: f64,
    h: f64,
    g: [&DVector<f64>; 3],
    out: &mut DVector<f64>,
) {
    // out = T₀ (v − x(t)) = T₀ v − Σ T₀ x_l(t): the load integrals are added with −T₀ below.
    out.gemv(1.0, &p.t_mat, v, 0.0);
    for load in &p.loads {
        load.add_t_into(&p.t_mat, t, -1.0, out);
        load.add_into(t + h, out);
    }
    for (wj, gj) in p.w.iter().zip(g) {
        out.gemv(1.0, wj, gj, 1.0);
    }
}
