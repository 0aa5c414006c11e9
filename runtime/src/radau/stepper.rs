//! The Radau IIA step on the layer's run loop: a [`Stepper`] whose attempt is one stage solve
//! (`newton.rs`), with the embedded error estimate, `radau5.f`'s step-size controller and
//! Jacobian reuse, and the collocation polynomial as dense output.
//!
//! - Tangents and factorization: K, C, M, G are evaluated at the step start, and kept for the
//!   next step when the last Newton contraction θ was ≤ `jacobian_reuse` (`radau5.f`'s THET,
//!   default 0.001); the matrix is refactored whenever h changed. After a rejected step the
//!   tangents of the same start are reused (only the factorization is redone). A solve that
//!   fails is redone at once with tangents of this step and G per stage (`newton.rs`,
//!   singular passages; constant-step runs have no next attempt).
//! - Passage projection: a step whose solve needed that retry crossed (or came near) a
//!   position where G loses rank, and index 3 leaves the velocities of the directions G loses
//!   free there: a loose step put noise into them and the A02 chain at rtol 1e-4 left its
//!   branch (24 rad against the reduction, ‖Φ_q v‖ 2.7). In runs without a stabilization of
//!   their own the end of such a step is projected onto Φ = 0, Φ_q v = 0 (PStab's two
//!   M-orthogonal passes, which keep the order, `mod.rs`); the cranks then stay within 7e-4 rad
//!   of each other (error 0.28 rad, the phase of a 1e-4 run over 20 turns). Steps without a
//!   retry are untouched, so runs that never retry (the reproductions, the flyball governor at
//!   rtol 1e-7 and 1e-10) keep their numbers bit for bit.
//! - Newton start: the previous step's collocation polynomial extrapolated to the new stages
//!   (A_i⁰ = Σ_j L_j(1 + c_i h/h_prev) A_j^prev, Λ likewise); on the first step a0, λ0.
//! - Error estimate (adaptive runs), Hairer–Wanner II §IV.8 (8.19)–(8.20) and `radau5.f`'s
//!   ESTRAD with the mass matrix B = diag(I, M, 0) of the first-order form
//!   (q' = v, M v' = Q − Gᵀλ, 0 = Φ): err = (B/(γ₀h) − J)⁻¹ (f(y0) + B Σ_i d_i (Y_i − y0)/h).
//!   Eliminating the velocity row leaves one (n + m) solve with
//!   [M + γ₀h C + (γ₀h)² K, Gᵀ; G, 0] (`StageSolver::estimate`); e_q is its position part and
//!   e_v = e_q/(γ₀h) − r_q. The scaled norm is the RMS over the 2n components of
//!   e_q,i / sk_i and h e_v,i / sk_{n+i}, sk = atol + rtol max(|z0|, |z1|): velocities are the
//!   index-2 components of the index-3 formulation and count with the factor h as in
//!   `radau5.f` (SCAL/HHFAC); λ (index 3) is not estimated. The estimate is O(h⁴) (p = 3 in the
//!   controller). `radau5.f`'s second estimate after a rejected first step (f re-evaluated at
//!   y0 + err) is not done.
//! - Step size (`radau5.f`): fac = min(safety, safety (2 k_max + 1)/(k + 2 k_max)) with k the
//!   Newton iterations of the step, quot = clamp(err^(1/4)/fac, 1/max_ratio, 1/min_ratio),
//!   h_new = h/quot; Gustafsson's predictive controller on acceptance (optional, default on);
//!   no growth right after a rejection; h kept (no new factorization) when θ ≤ THET and
//!   h_new/h ∈ [1, 1.2]; the first step is rejected with h/10. A Newton iteration predicted
//!   too slow is a rejection with the step factor of `newton.rs`; a diverging or non-finite
//!   one is a [`SimError::NewtonDiverged`] (retried by the driver with h/4, as every failed
//!   attempt). Constant-step runs return every failure.
//! - Dense output: the collocation polynomials of the last step (`tableau.rs`),
//!   q(t0 + θh) = q0 + θ h v0 + h² Σ_j P_j(θ) A_j and v = v0 + h Σ_j I_j(θ) A_j (both of
//!   degree 3: order s = 3 between the step points, Hairer–Wanner II §IV.5).

use crate::error::{NewtonDiagnosis, SimError};
use crate::integrator::controller::Verdict;
use crate::integrator::driver::{Attempt, Stepper, StepperCounters};
use crate::kkt::{KktSolver, KktWorkspace, accelerations_into};
use crate::options::{StepControl, Tolerance};
use crate::stabilize::{NOISE_SAFETY, Stabilization, Stabilizer};
use crate::system::{ConstrainedSystem, Dims};

use super::newton::{Outcome, StageSolver, Start, Test};
use crate::implicit::tangents::Tangents;

/// The error test's allowance over a stalled solve's round-off level (`newton.rs`,
/// `stall_noise`): a step whose Newton iteration ended at its noise floor δ (corrections that
/// no longer shrink, Φ at round-off) passes with a scaled error up to max(1, κ δ), κ = PStab's
/// [`NOISE_SAFETY`] = 16, the same allowance its round-off floor gives the explicit methods.
/// The error estimate of such a step is noise of the same stage values: measured at the A02
/// chain's first passage (body form, rtol 1e-11, h ≤ 1e-6, where no truncation error is left)
/// it was 1.3 … 1.9 δ, and with κ = 4 the controller, which reads that noise as error of the
/// step, shrank h to 2e-11 at the second passage and crawled there. Elsewhere δ = 0 and the
/// test is `radau5.f`'s.
///
/// The same floor holds after a solve with the stage Jacobians that reached κ, at the measured
/// round-off level δ_ro of its corrections (`newton.rs`, `noise_level`): the round-off of the
/// stage values is a property of the matrix at that position (ε ‖q‖/σ_min(G) in the weights),
/// not of how the iteration ended, and a solve that met κ by chance carries it too. With the
/// floor for stalled solves alone, rtol 1e-12 on the A02 body form collapsed at each passage:
/// at t = 0.7194 retried solves that converged gave err 1.0 … 1.6 flat from h = 3e-5 down to
/// 1e-10 (noise: it did not shrink with h), the controller cut h to 1e-12, and there the
/// index-3 round-off of the velocities, ε ‖q‖/h through the 1/h² scaling of Φ, reached
/// ‖Φ_q v‖ = 0.15 in steps whose first solve converged (so not projected); the estimate,
/// which weights velocities with h, never saw it. The error grew at every passage (4.3e-5
/// over 20 s against 1.6e-7 at 1e-11). With the floor at δ_ro: over [0, 1.5] s 8.7e-11
/// (was 8.1e-9), ‖Φ_q v‖ 4.8e-9 (0.15), 13 399 stage evaluations (87 604), h ≥ 1e-9.
const STALL_SAFETY: f64 = NOISE_SAFETY;

/// Tolerances and controller of adaptive runs.
pub(crate) struct ErrorControl {
    pub(crate) rtol: Tolerance,
    pub(crate) atol: Tolerance,
    pub(crate) control: StepControl,
    pub(crate) h_max: f64,
    pub(crate) gustafsson: bool,
}

/// What the stepper needs besides the model.
pub(crate) struct Setup {
    pub(crate) error: Option<ErrorControl>,
    /// κ of the Newton test (in error-weight units, or relative to 1 + |z| for constant steps).
    pub(crate) kappa: f64,
    pub(crate) max_iterations: usize,
    pub(crate) jacobian_reuse: f64,
    pub(crate) stabilization: Stabilization,
    pub(crate) datol: f64,
    /// The factorization policy (`common.kkt`): the stage system's dense or sparse path.
    pub(crate) kkt: KktSolver,
}

/// `radau5.f`'s controller state.
#[derive(Default)]
struct Control {
    accepted: usize,
    after_reject: bool,
    h_acc: f64,
    err_acc: f64,
}

/// The accepted state at t: (q, v), a and λ (the last stage's, consistent to the Newton
/// tolerance).
struct State {
    t: f64,
    z: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

impl State {
    fn start(&self) -> Start<'_> {
        Start {
            t: self.t,
            z: &self.z,
            a: &self.a,
            lambda: &self.lambda,
        }
    }
}

/// The Radau IIA stepper and its preallocated workspace.
pub(crate) struct RadauStepper<T> {
    n: usize,
    r: usize,
    pub(crate) solver: StageSolver,
    tangents: T,
    setup: Setup,
    stab: Stabilizer,
    /// PStab for the steps that cross a singular position in runs without a stabilization
    /// of their own (`attempt`, "passage projection").
    passage: Stabilizer,
    state: State,
    end: Vec<f64>,
    /// The last accepted step's start (q, v), stage accelerations and multipliers, t and h:
    /// dense output and the next Newton start.
    dense_z: Vec<f64>,
    dense_acc: Vec<f64>,
    dense_mult: Vec<f64>,
    dense_t: f64,
    dense_h: f64,
    have_dense: bool,
    scale: Vec<f64>,
    eq: Vec<f64>,
    ev: Vec<f64>,
    control: Control,
    /// The tangents held were evaluated at the current step start.
    tangents_current: bool,
    /// The tangents held may be used for this step (θ ≤ THET on the last one).
    tangents_kept: bool,
    kkt: KktWorkspace,
    initial_solves: usize,
    /// Steps redone because Newton was predicted too slow.
    pub(crate) slow_newton: usize,
}

impl<T> RadauStepper<T> {
    pub(crate) fn new(dims: Dims, setup: Setup, tangents: T) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            n,
            r,
            solver: StageSolver::new(dims),
            tangents,
            stab: Stabilizer::new(setup.stabilization, dims),
            passage: Stabilizer::new(Stabilization::PStab, dims),
            setup,
            state: State {
                t: 0.0,
                z: vec![0.0; 2 * n],
                a: vec![0.0; n],
                lambda: vec![0.0; r],
            },
            end: vec![0.0; 2 * n],
            dense_z: vec![0.0; 2 * n],
            dense_acc: vec![0.0; 3 * n],
            dense_mult: vec![0.0; 3 * r],
            dense_t: 0.0,
            dense_h: 0.0,
            have_dense: false,
            scale: vec![0.0; 2 * n],
            eq: vec![0.0; n],
            ev: vec![0.0; n],
            control: Control::default(),
            tangents_current: false,
            tangents_kept: false,
            kkt: KktWorkspace::new(dims),
            initial_solves: 0,
            slow_newton: 0,
        }
    }

    /// The start state at t0: a0 and λ0 from the KKT solve (§2.1); the stage system's path
    /// chosen for `sys`.
    pub(crate) fn initialize<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<(), SimError> {
        self.solver.prepare(sys, self.setup.kkt);
        let n = self.n;
        let s = &mut self.state;
        s.t = t0;
        s.z[..n].copy_from_slice(q0);
        s.z[n..].copy_from_slice(v0);
        self.initial_solves += 1;
        accelerations_into(
            sys,
            t0,
            q0,
            v0,
            None,
            &mut self.kkt,
            0.0,
            &mut s.a,
            &mut s.lambda,
        )
    }

    /// (‖z0‖, ‖(v0, a0)‖) in the error weights, for the first step size (adaptive runs).
    pub(crate) fn initial_slope_norms(&self) -> Option<(f64, f64)> {
        let e = self.setup.error.as_ref()?;
        let (n, z) = (self.n, &self.state.z);
        let (mut dny, mut dnf) = (0.0, 0.0);
        for c in 0..2 * n {
            let sk = e.atol.get(c) + e.rtol.get(c) * z[c].abs();
            let f = if c < n { z[n + c] } else { self.state.a[c - n] };
            dny += (z[c] / sk).powi(2);
            dnf += (f / sk).powi(2);
        }
        let len = (2 * n) as f64;
        Some(((dny / len).sqrt(), (dnf / len).sqrt()))
    }

    /// The accepted state z = (q, v).
    pub(crate) fn z(&self) -> &[f64] {
        &self.state.z
    }

    /// The Newton weights of this step. Adaptive runs: q sk, v sk/h (`radau5.f`'s index-2
    /// scaling, as in the error estimate). Constant steps: q 1 + |q_i|, v 1 + |v_i| without the
    /// factor h (a velocity error κ/h per step would grow into q like N² κ over N steps,
    /// 2e-8 measured on the pendulum at N = 160), floored at the round-off the 1/h² scaling of
    /// Φ puts into v, 100 ε (1 + ‖q‖∞)/h (in units of κ).
    fn newton_scale(&mut self, h: f64, kappa: f64) {
        let (n, z) = (self.n, &self.state.z);
        let q_size = 1.0 + z[..n].iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let v_floor = 100.0 * f64::EPSILON * q_size / (h.abs() * kappa);
        for (c, s) in self.scale.iter_mut().enumerate() {
            *s = match &self.setup.error {
                Some(e) => {
                    let sk = e.atol.get(c) + e.rtol.get(c) * z[c].abs();
                    if c < n { sk } else { sk / h.abs() }
                }
                None if c < n => 1.0 + z[c].abs(),
                None => (1.0 + z[c].abs()).max(v_floor),
            };
        }
    }

    /// The Newton start: the last step's collocation polynomial extrapolated, or (a0, λ0).
    fn newton_start(&mut self, h: f64) {
        let (n, r) = (self.n, self.r);
        let s = &mut self.solver;
        if !self.have_dense {
            for i in 0..3 {
                s.acc[i * n..(i + 1) * n].copy_from_slice(&self.state.a);
                s.mult[i * r..(i + 1) * r].copy_from_slice(&self.state.lambda);
            }
            return;
        }
        for i in 0..3 {
            let l = s.tab.lagrange(1.0 + s.tab.c[i] * h / self.dense_h);
            for k in 0..n {
                s.acc[i * n + k] = (0..3).map(|j| l[j] * self.dense_acc[j * n + k]).sum();
            }
            for k in 0..r {
                s.mult[i * r + k] = (0..3).map(|j| l[j] * self.dense_mult[j * r + k]).sum();
            }
        }
    }

    /// The scaled error of the step held (module docs).
    fn error_norm(&mut self, h: f64) -> f64 {
        let Some(e) = &self.setup.error else {
            return 0.0;
        };
        let n = self.n;
        let start = self.state.start();
        self.solver.estimate(&start, h, &mut self.eq, &mut self.ev);
        let mut sum = 0.0;
        for c in 0..2 * n {
            let zmax = self.state.z[c].abs().max(self.end[c].abs());
            let sk = e.atol.get(c) + e.rtol.get(c) * zmax;
            let x = if c < n {
                self.eq[c]
            } else {
                h * self.ev[c - n]
            };
            sum += (x / sk).powi(2);
        }
        // The stage values' round-off level (`STALL_SAFETY`): a stalled solve's corrections or
        // the measured δ_ro of a solve with the stage Jacobians, whichever is larger.
        let noise = self.solver.stall_noise.max(self.solver.round_off_level);
        let floor = (STALL_SAFETY * noise).max(1.0);
        ((sum / (2 * n) as f64).sqrt() / floor).max(1e-10)
    }

    /// `radau5.f`'s verdict on an attempt of magnitude `h` with error `err` after `newt`
    /// Newton iterations (module docs).
    /// `None` for constant-step runs (the schedule accepts every step).
    fn judge(&mut self, err: f64, h: f64, newt: usize) -> Option<Verdict> {
        let e = self.setup.error.as_ref()?;
        let sc = &e.control;
        let nit = self.setup.max_iterations as f64;
        let fac = sc
            .safety
            .min(sc.safety * (2.0 * nit + 1.0) / (newt as f64 + 2.0 * nit));
        let clamp = |x: f64| x.clamp(1.0 / sc.max_ratio, 1.0 / sc.min_ratio);
        let mut quot = clamp(err.powf(0.25) / fac);
        let c = &mut self.control;
        if err >= 1.0 {
            c.after_reject = true;
            return Some(Verdict::Reject(if c.accepted == 0 {
                0.1 * h
            } else {
                h / quot
            }));
        }
        if e.gustafsson && c.accepted > 0 {
            let facgus = (c.h_acc / h) * (err * err / c.err_acc).powf(0.25) / sc.safety;
            quot = quot.max(clamp(facgus));
        }
        c.h_acc = h;
        c.err_acc = err.max(1e-2);
        c.accepted += 1;
        let mut h_new = (h / quot).min(e.h_max);
        if c.after_reject {
            h_new = h_new.min(h);
        }
        c.after_reject = false;
        let ratio = h_new / h;
        if self.solver.theta <= self.setup.jacobian_reuse && (1.0..=1.2).contains(&ratio) {
            h_new = h;
        }
        Some(Verdict::Accept(h_new))
    }

    /// Tangents (when not held for this start) and the factorization for `h`.
    fn prepare_matrix<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        h: f64,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        if !self.tangents_current && !self.tangents_kept {
            let start = self.state.start();
            self.solver
                .freeze_tangents(sys, &mut self.tangents, &start)?;
            self.tangents_current = true;
        }
        if self.solver.factored_h != Some(h) {
            let start = self.state.start();
            self.solver.factor(sys, &start, h)?;
        }
        Ok(())
    }

    /// One stage solve from the Newton start, with the matrix prepared for `h`.
    fn solve_once<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        h: f64,
    ) -> Result<Outcome, SimError>
    where
        T: Tangents<S>,
    {
        self.newton_start(h);
        self.prepare_matrix(sys, h)?;
        self.newton_scale(h, self.setup.kappa);
        let test = Test {
            scale: &self.scale,
            kappa: self.setup.kappa,
            max_iterations: self.setup.max_iterations,
            predict: self.setup.error.is_some(),
            min_iterations: if self.setup.error.is_some() { 1 } else { 2 },
        };
        let start = self.state.start();
        self.solver.solve(sys, &start, h, &test)
    }

    /// The typed error of a failed solve.
    fn diverged(&mut self, t: f64, h: f64, failure: (NewtonDiagnosis, usize, f64)) -> SimError {
        let (diagnosis, iterations, correction) = failure;
        self.solver.counters.failures += 1;
        self.tangents_kept = false;
        SimError::NewtonDiverged {
            t: t + h,
            h,
            iterations,
            residual: self.solver.constraint_residual(),
            correction,
            diagnosis,
        }
    }
}

impl<S: ConstrainedSystem + ?Sized, T: Tangents<S>> Stepper<S> for RadauStepper<T> {
    fn state(&self) -> &[f64] {
        &self.state.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let mut iterations_before = self.solver.counters.iterations;
        let mut outcome = self.solve_once(sys, h)?;
        let retried = matches!(outcome, Outcome::Failed(..) | Outcome::Slow(..));
        if retried {
            // Near a singular configuration G changes fast (its sign, across the passage), and
            // the iteration fails (or crawls) with a matrix holding G of this or an earlier step start
            // where one with G at the stages converges (`newton.rs`). Once more with the
            // tangents of this step and the stage Jacobians before giving up; the next step
            // factors its usual matrix again.
            self.tangents_kept = false;
            self.solver.distrust_tangents();
            self.solver.factored_h = None;
            self.solver.stage_jacobians = true;
            // The controller's count (`judge`) is the iterations of the solve that made the step.
            iterations_before = self.solver.counters.iterations;
            let retried = self.solve_once(sys, h);
            self.solver.stage_jacobians = false;
            self.solver.factored_h = None;
            self.solver.forget_contraction();
            outcome = retried?;
        }
        match outcome {
            Outcome::Converged => {}
            Outcome::Slow(factor) => {
                self.slow_newton += 1;
                self.tangents_kept = false;
                self.control.after_reject = true;
                return Ok(Attempt {
                    error: f64::INFINITY,
                    stabilized: false,
                    verdict: Some(Verdict::Reject(h.abs() * factor)),
                });
            }
            Outcome::Failed(d, it, c) => return Err(self.diverged(t, h, (d, it, c))),
        }
        let newt = self.solver.counters.iterations - iterations_before;
        let n = self.n;
        self.end[..n].copy_from_slice(&self.solver.q[2 * n..]);
        self.end[n..].copy_from_slice(&self.solver.v[2 * n..]);
        let (error, verdict) = match self.setup.error {
            Some(_) => {
                let err = self.error_norm(h);
                (err, self.judge(err, h.abs(), newt))
            }
            None => (0.0, None),
        };
        let (q, v) = self.end.split_at_mut(n);
        let mut stabilized = self.stab.apply(sys, t + h, h, q, v, self.setup.datol)?;
        if retried && matches!(self.setup.stabilization, Stabilization::None) {
            stabilized |= self.passage.apply(sys, t + h, h, q, v, self.setup.datol)?;
        }
        Ok(Attempt {
            error,
            stabilized,
            verdict,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        let (n, r) = (self.n, self.r);
        self.dense_z.copy_from_slice(&self.state.z);
        self.dense_acc.copy_from_slice(&self.solver.acc);
        self.dense_mult.copy_from_slice(&self.solver.mult);
        (self.dense_t, self.dense_h, self.have_dense) = (t, h, true);
        self.state.t = t + h;
        self.state.z.copy_from_slice(&self.end);
        self.state.a.copy_from_slice(&self.solver.acc[2 * n..]);
        self.state
            .lambda
            .copy_from_slice(&self.solver.mult[2 * r..]);
        self.tangents_current = false;
        self.tangents_kept = self.solver.theta <= self.setup.jacobian_reuse;
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        let (n, h) = (self.n, self.dense_h);
        let theta = (t - self.dense_t) / h;
        let (once, twice) = self.solver.tab.weights(theta);
        let z0 = &self.dense_z;
        for k in 0..n {
            let (mut dq, mut dv) = (0.0, 0.0);
            for j in 0..3 {
                let a = self.dense_acc[j * n + k];
                dq += twice[j] * a;
                dv += once[j] * a;
            }
            out[k] = z0[k] + theta * h * z0[n + k] + h * h * dq;
            out[n + k] = z0[n + k] + h * dv;
        }
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(&self.solver.rows)
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.solver.counters.stage_evaluations + self.initial_solves,
            nstab: self.stab.applications + self.passage.applications,
            stabilization_time: self.stab.time,
            output_solves: 0,
            conditioning: self.solver.conditioning,
        }
    }
}
