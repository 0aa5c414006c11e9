//! The implicit step on the layer's run loop: a [`Stepper`] whose attempt is one Newton solve
//! (`newton.rs`), with the local error estimate of adaptive runs, the step reduction of
//! constant-step runs, optional post-stabilization and the dense output.
//!
//! - Local error (adaptive runs): with Δ = q̈_{n+1} − q̈_n ≈ h q⃛ (after the start-up step),
//!   e_q = h² (β + (α_m − α_f)/2 − 1/6) Δ and e_v = h (γ + α_m − α_f − 1/2) Δ: the leading
//!   terms of the local truncation error of the updates when a_n ≈ q̈(t_n + (α_m − α_f) h)
//!   (Zienkiewicz & Xie's estimate for Newmark, α terms added). e_v vanishes for the
//!   second-order members, e_q is O(h³): the controller uses order p = 2. The velocity's own
//!   h³ q⁗ term (c₃ = 1/12 for the trapezoidal rule, from the second divided difference of q̈)
//!   was tried and left out: on the crank-angle A02 chain it moved the error at rtol 1e-8 on
//!   [0, 0.6] s only from 1.6e-5 to 1.05e-5, but on the stiff deformable slider-crank (Chin
//!   ch. 5, rtol 1e-3, atol 1e-4, [0, 1] s) it took 442 159 steps instead of 7 417: an index-3
//!   scheme's q̈ carries the damped high-frequency modes' noise, whose divided difference is
//!   O(1/h) larger than a smooth q⁗, and HHT's point is to step over those modes.
//!   Δ is filtered through the iteration matrix first, Δ ← [J⁻¹ (M Δ, 0)]_q (Shampine's
//!   filter, as in RADAU5): components the scheme damps (stiff, cq K ≫ M) no longer count as
//!   error, the others (J ≈ M) pass
//!   unchanged. The norm is Hairer's RMS over (q, v) with sk = atol + rtol max(|z_n|, |z_{n+1}|),
//!   each scaled by √rtol: the local error per step is held to tol^{3/2}, so that the global
//!   error follows the tolerance. A local error C h³ per step held to tol gives h ∝ tol^{1/3}
//!   and a global error of T/h steps' worth, ∝ tol^{2/3} (measured on the A02 chain over
//!   [0, 0.6] s at rtol 1e-8: 1.6e-5, 10³ times the tolerance); held to tol^{3/2} it gives
//!   h ∝ tol^{1/2} and a global error ∝ T C^{1/3} tol (3.3e-8 there). tol → tol^{(p+1)/p} is the transformation that makes a local-error
//!   control of a method of order p tolerance-proportional (RADAU5's `radau5.f` applies such a
//!   power to its tolerances, rtol → 0.1 rtol^{2/3}); error per unit step (‖e‖ ≤ tol h,
//!   Shampine) scales the same way but depends on the time unit (tried: 2.6e-8 on the
//!   chain, whose steps are ~1e-4 s, and far stricter on models with short steps). Cost: ten
//!   times the steps per factor 100 in tol.
//! - Zeros of q⃛ (measured, no rule adopted): on the crank-angle A02 chain over 20 s (twenty
//!   passages, where q⃛ = κ sin θ θ̇ vanishes) HHT's error is 2.7e-2 / 4.2e-3 / 6.1e-5 at rtol
//!   1e-5 / 1e-6 / 1e-8 (2 618 / 8 186 / 81 409 steps), constant h = 1e-3 gives 1.5e-5 with
//!   20 000. The estimate does drop on the one step that straddles the zero (0.35 → 0.038 at
//!   t = 0.7195, rtol 1e-6) and the next attempt is rejected, but the steps grow only 2-fold
//!   over the ~20 steps before it. Lower bounds for the estimate changed the 20 s error by
//!   factors from 4.7 worse to 3.6 better, in no consistent direction, at the same step
//!   count: the previous step's coefficient
//!   (e ≥ e_{n−1} (h/h_{n−1})³/2: 2.2e-2 / 4.9e-3 / 6.2e-5), componentwise |Δ_n| ≥
//!   |Δ_{n−1}| h/h_{n−1} (1.3e-2 / 3.5e-3 / 5.9e-5), the largest coefficient of the last 16 or
//!   64 accepted steps halved (5.6e-2 / 1.2e-3 / 5.3e-5; 0.13 / 5.7e-3 / 3.9e-5). The error
//!   is an energy drift per turn (rtol 1e-8: +2.3e-7 per turn against −1.5e-8 at h = 1e-3,
//!   measured at the same phase every 2 s): a nearly symmetric scheme on steps that vary
//!   with the position loses its bounded energy error, which a lower bound on the estimate
//!   does not restore. The velocities' h³ q⁗ term helps (8.5e-4 / 1.5e-4 / 1.7e-6, 2.6 times
//!   the steps), also with a minmod limiter (the smaller of two consecutive second divided
//!   differences when their signs agree, else 0: 1.2e-3 / 1.6e-4 / 1.7e-6), but the limiter
//!   does not spare the deformable slider-crank: `mbsim repro chin5` HHT took 416 923 / 204 979
//!   steps at 180 / 60 rad/s instead of 28 118 / 5 032, so its q̈ content is not alternating
//!   noise. A centred step rule (`step_rule.rs`, [`StepRule::Centred`]: the next step from the
//!   error extrapolated to its own midpoint, so that the step follows the position without the
//!   standard controller's one-step lag, a cheap approximation of a reversible step-size
//!   function) holds every step's error at 0.66–0.75 against its target 0.73 (rtol 1e-6, the
//!   passage at t = 1.24, no rejection where the standard controller rejects three), yet
//!   gives 1.3e-1 / 4.2e-3 / 5.5e-5 (HHT) and 1.2e-1 / 7.8e-3 / 7.3e-5 (generalized-α) at
//!   rtol 1e-5 / 1e-6 / 1e-8 with 3–4 % fewer steps: the lag is not the cause. Neither is a fast
//!   change of h: the step growth limited to 2 / 5 / 10 / 25 % per step gave 3.1e-3 / 5.0e-3 /
//!   4.5e-3 / 5.8e-3 at 1e-6. What the estimate misses at the zeros of q⃛ is the velocity's
//!   h³ q⁗/12 (the rule with that term in its prediction, not in the test: 1.6e-4 with 21 071
//!   steps, the cost of the velocity term in the test). Part of the error ratio is the
//!   tolerance's scale: the crank angle grows to 65 rad over the 20 s (ten turns) and
//!   sk ∝ rtol |θ| loosens the position test turn by turn (steps per second 598 in the second
//!   second, 330 in the nineteenth at rtol 1e-6); with sk from |z| = 1 (an experiment, not an
//!   option) the steps stay at ~1 000 per second and HHT gives 3.3e-3 / 7.7e-5 / 1.2e-6 /
//!   5.1e-7 at rtol 1e-5 … 1e-8 (6 016 / 18 919 / 59 720 / 188 750 steps; generalized-α 3.0e-3
//!   / 1.2e-4 / 6.4e-7 / 2.4e-7), against the default's 5.5e-4 with 25 778 steps at 1e-7 and
//!   6.1e-5 with 81 409 at 1e-8. A tolerance relative to an unbounded angle is the user's
//!   choice (`Tolerance` per component); changing the scale for every model would move every
//!   reproduction and was not done.
//! - Constant-step runs: a step whose Newton iteration fails (or whose matrix is singular) is
//!   redone as 2, 4, … substeps, up to 2^`max_failed_attempts`; the substeps are counted.
//!   Adaptive runs leave that to the driver (retry with h/4).
//! - Dense output: q from the cubic Hermite interpolant of (q, v) at both ends, v from that of
//!   (v, q̈); no extra evaluation.

use crate::error::SimError;
use crate::integrator::driver::{Attempt, Stepper, StepperCounters};
use crate::kkt::{KktSolver, KktWorkspace, accelerations_into};
use crate::options::Tolerance;
use crate::stabilize::{NOISE_SAFETY, Stabilization, Stabilizer};
use crate::system::{ConstrainedSystem, Dims};

use super::newton::{Newton, NewtonOptions, StepStart};
use super::scheme::Coefficients;
use super::step_rule::{Centred, StepRule, Weights};
use super::tangents::Tangents;

/// The error test's allowance over the round-off level of its own estimate: a step whose
/// estimate exceeds 1 passes with a scaled error up to max(1, κ e_ro), κ = PStab's
/// [`NOISE_SAFETY`] = 16 (Radau's `STALL_SAFETY`, `radau/stepper.rs`). e_ro is the estimate's
/// norm of the q̈ that J⁻¹ gives Φ's evaluation noise ε (1 + ‖z‖∞) (the probe of the Newton
/// stall rule's δ_ro, `newton.rs`, `round_off_into`), sent through the same filter and
/// weights as Δ = q̈_{n+1} − q̈_n: a q̈ known only to that level makes an estimate of that
/// level whatever h is, since e_q = h² c_q Δ and the position round-off cq δq̈ ∝ ε ‖q‖/σ_min(G)
/// does not shrink with h. Δ differences two solves' noise and the probe takes one sign
/// pattern, hence κ: at the A02 chain's first passage (body form, HHT, rtol 1e-10, t = 0.7216)
/// the rejected estimates were 0.29 … 0.62 e_ro from h = 1.7e-6 to 8e-8 (69 … 106 against
/// e_ro = 120 … 240) and up to 6.4 e_ro on the steps the controller then cut to 1e-10 … 1e-15,
/// where the run stopped named singular. Away from the passages e_ro ≈ 1e-10 (the filter
/// removes what J⁻¹ maps into G's range): the floor is 1 and the test is the plain one bit for
/// bit. Computed only for a step that would be rejected (one back substitution and the
/// filter's), so accepted steps cost nothing more.
///
/// Δ also differences the accepted q̈_n's round-off, which the new step's probe does not see:
/// at rtol 1e-11 (HHT, t = 1.24404) the estimates after steps accepted under floors up to
/// 1.6e6 fell like h² (5.1e7, 2.1e6, 8.2e4 at h = 4.7e-7, 9.3e-8, 1.9e-8) and h collapsed to
/// 1e-14. A step that passes only under its floor therefore keeps its raw probe (`carried`),
/// and the next attempts take the larger of their own level and that probe's, sent through
/// their own filter and weights: e_q = h² c_q Δ scales it by (h/h_n)², as Δ weighs it. The
/// first step that passes without the floor drops it. Measured at the two passages at 1e-11:
/// 27 steps passed under a floor, 9 of them only under the carried level (an estimate of
/// 2.8e4 against 7.8e2 of its own and 8.7e5 carried at t = 1.24402), and the run passed
/// (README, "At 1e-11"; generalized-α passed there before too). A run whose test never
/// reaches the floor never sets it and stays bit for bit; the rtol 1e-10 runs do reach it and
/// moved (HHT 3.54e-8 → 7.67e-8, generalized-α 5.62e-7 → 1.21e-6 over [0, 1.5] s). Counting
/// the carried level only from a step's third attempt did not keep them bit for bit either
/// (generalized-α 158 489 steps instead of 158 490) and HHT at 1e-11 then failed as before.
const ROUND_OFF_SAFETY: f64 = NOISE_SAFETY;

/// One end of a step: (q, v), q̈, the pseudo-acceleration a and λ.
struct State {
    z: Vec<f64>,
    qdd: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

impl State {
    fn new(dims: Dims) -> Self {
        Self {
            z: vec![0.0; 2 * dims.n],
            qdd: vec![0.0; dims.n],
            a: vec![0.0; dims.n],
            lambda: vec![0.0; dims.constraint_rows()],
        }
    }

    fn load(&mut self, newton: &Newton) {
        self.z.copy_from_slice(&newton.z);
        self.qdd.copy_from_slice(&newton.qdd);
        self.a.copy_from_slice(&newton.a);
        self.lambda.copy_from_slice(&newton.lambda);
    }

    fn copy_from(&mut self, other: &State) {
        self.z.copy_from_slice(&other.z);
        self.qdd.copy_from_slice(&other.qdd);
        self.a.copy_from_slice(&other.a);
        self.lambda.copy_from_slice(&other.lambda);
    }

    fn start(&self) -> StepStart<'_> {
        StepStart {
            z: &self.z,
            qdd: &self.qdd,
            a: &self.a,
            lambda: &self.lambda,
        }
    }
}

/// Tolerances of the local error test (adaptive runs).
pub(crate) struct ErrorTest {
    pub(crate) rtol: Tolerance,
    pub(crate) atol: Tolerance,
}

/// What the stepper needs besides the model.
pub(crate) struct Setup {
    pub(crate) coef: Coefficients,
    pub(crate) newton: NewtonOptions,
    pub(crate) error_test: Option<ErrorTest>,
    pub(crate) max_halvings: usize,
    pub(crate) stabilization: Stabilization,
    pub(crate) datol: f64,
    /// The factorization policy (`common.kkt`): the Newton matrix's dense or sparse path.
    pub(crate) kkt: KktSolver,
    /// The next step's rule (adaptive runs) and the controller's target error (safety³).
    pub(crate) step_rule: (StepRule, f64),
}

/// The implicit stepper and its preallocated workspace.
pub(crate) struct ImplicitStepper<T> {
    coef: Coefficients,
    tangents: T,
    pub(crate) newton: Newton,
    error_test: Option<ErrorTest>,
    max_halvings: usize,
    stab: Stabilizer,
    datol: f64,
    kkt_solver: KktSolver,
    start: State,
    end: State,
    prev: State,
    work: State,
    t_prev: f64,
    h_prev: f64,
    kkt: KktWorkspace,
    initial_solves: usize,
    /// Substeps taken beyond one per step (constant-step reduction).
    pub(crate) substeps: usize,
    /// Scratch for the filtered error estimate.
    delta: Vec<f64>,
    /// 1/sk of the last error estimate, per component of (q, v).
    inv_scale: Vec<f64>,
    /// The centred rule's history and target error, when chosen.
    centred: Option<(Centred, f64)>,
    /// The centred rule's proposal for the step after the last attempt.
    proposal: Option<f64>,
    /// The round-off probe of the last attempt's q̈ (`Newton::round_off_into`, unfiltered),
    /// valid when that attempt passed only under its floor.
    round_off: Vec<f64>,
    /// Whether the last attempt passed only under its round-off floor.
    floored: bool,
    /// The accepted q̈_n's round-off probe (valid when `carrying`): Δ of the next step
    /// differences it (`ROUND_OFF_SAFETY`).
    carried: Vec<f64>,
    /// Whether step n passed only under its floor, so that `carried` holds its probe.
    carrying: bool,
}

impl<T> ImplicitStepper<T> {
    pub(crate) fn new(dims: Dims, setup: Setup, tangents: T) -> Self {
        let centred = match setup.step_rule {
            (StepRule::Centred, target) if setup.error_test.is_some() => {
                Some((Centred::new(dims.n), target))
            }
            _ => None,
        };
        Self {
            coef: setup.coef,
            tangents,
            newton: Newton::new(dims, setup.newton),
            error_test: setup.error_test,
            max_halvings: setup.max_halvings,
            stab: Stabilizer::new(setup.stabilization, dims),
            datol: setup.datol,
            kkt_solver: setup.kkt,
            start: State::new(dims),
            end: State::new(dims),
            prev: State::new(dims),
            work: State::new(dims),
            t_prev: 0.0,
            h_prev: 0.0,
            kkt: KktWorkspace::new(dims),
            initial_solves: 0,
            substeps: 0,
            delta: vec![0.0; dims.n],
            inv_scale: vec![0.0; 2 * dims.n],
            centred,
            proposal: None,
            round_off: vec![0.0; dims.n],
            floored: false,
            carried: vec![0.0; dims.n],
            carrying: false,
        }
    }

    /// The start state at t0: q̈_0 and λ_0 from the KKT solve (§2.1), a_0 = q̈_0; the Newton
    /// matrix's path chosen for `sys`.
    pub(crate) fn initialize<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<(), SimError> {
        self.newton.prepare(sys, self.kkt_solver);
        let n = q0.len();
        self.start.z[..n].copy_from_slice(q0);
        self.start.z[n..].copy_from_slice(v0);
        self.initial_solves += 1;
        let s = &mut self.start;
        accelerations_into(
            sys,
            t0,
            q0,
            v0,
            None,
            &mut self.kkt,
            0.0,
            &mut s.qdd,
            &mut s.lambda,
        )?;
        s.a.copy_from_slice(&s.qdd);
        // The Newton matrix starts with the start solve's rows left out (and lists them in
        // `Stats::redundancy`); its first factorization takes back the ones that regained
        // independence by then.
        self.newton.rows.continue_from(self.kkt.row_selection());
        Ok(())
    }

    /// The accepted state z_n = (q, v).
    pub(crate) fn z(&self) -> &[f64] {
        &self.start.z
    }

    /// (‖z_0‖, ‖(v_0, q̈_0)‖) weighted like the error test, for the first step size.
    pub(crate) fn initial_slope_norms(&self) -> Option<(f64, f64)> {
        let test = self.error_test.as_ref()?;
        let (len, n) = (self.start.z.len(), self.start.qdd.len());
        let (mut dny, mut dnf) = (0.0, 0.0);
        for c in 0..len {
            let sk = test.atol.get(c) + test.rtol.get(c) * self.start.z[c].abs();
            let f = if c < n {
                self.start.z[n + c]
            } else {
                self.start.qdd[c - n]
            };
            dny += (self.start.z[c] / sk).powi(2);
            dnf += (f / sk).powi(2);
        }
        Some(((dny / len as f64).sqrt(), (dnf / len as f64).sqrt()))
    }

    /// The scaled local error of the step start → end (module docs).
    fn error_norm(&mut self, h: f64) -> f64 {
        let Some(test) = &self.error_test else {
            return 0.0;
        };
        let c = self.coef;
        let wq = (c.beta + 0.5 * (c.alpha_m - c.alpha_f) - 1.0 / 6.0) * h * h;
        let wv = c.velocity_error_weight() * h;
        let (len, n) = (self.start.z.len(), self.start.qdd.len());
        for i in 0..n {
            self.delta[i] = self.end.qdd[i] - self.start.qdd[i];
        }
        self.newton.filter(&mut self.delta);
        let mut sum = 0.0;
        for i in 0..len {
            let delta = self.delta[i % n];
            let e = if i < n { wq * delta } else { wv * delta };
            let zmax = self.start.z[i].abs().max(self.end.z[i].abs());
            let rtol = test.rtol.get(i);
            let sk = (test.atol.get(i) + rtol * zmax) * proportional(rtol);
            self.inv_scale[i] = 1.0 / sk;
            sum += (e / sk).powi(2);
        }
        if let Some((centred, _)) = &mut self.centred {
            for (d, delta) in centred.current.iter_mut().zip(&self.delta) {
                *d = delta / h;
            }
        }
        let err = (sum / len as f64).sqrt();
        self.floored = false;
        if err <= 1.0 {
            return err;
        }
        // A step about to be rejected: is the estimate above the round-off of its own q̈, or
        // of the accepted q̈_n it differences (`ROUND_OFF_SAFETY`)?
        self.newton.round_off_into(&c, h, &mut self.delta);
        self.round_off.copy_from_slice(&self.delta);
        self.newton.filter(&mut self.delta);
        let own = self.scaled_norm(wq, wv);
        let carried = if self.carrying {
            self.delta.copy_from_slice(&self.carried);
            self.newton.filter(&mut self.delta);
            self.scaled_norm(wq, wv)
        } else {
            0.0
        };
        let floor = (ROUND_OFF_SAFETY * own.max(carried)).max(1.0);
        self.floored = err <= floor;
        err / floor
    }

    /// After an accepted step: keep its q̈'s round-off probe for the next steps' floor when it
    /// passed only under its floor (a swap of buffers: the next estimate overwrites
    /// `round_off` before reading), else forget it.
    fn carry(&mut self) {
        self.carrying = self.floored;
        if self.floored {
            std::mem::swap(&mut self.carried, &mut self.round_off);
        }
    }

    /// The RMS over (q, v) of (wq δ_i, wv δ_i) in the weights of the last estimate.
    fn scaled_norm(&self, wq: f64, wv: f64) -> f64 {
        let n = self.delta.len();
        let sum: f64 = (0..2 * n)
            .map(|i| {
                let w = if i < n { wq } else { wv };
                (w * self.delta[i % n] * self.inv_scale[i]).powi(2)
            })
            .sum();
        (sum / (2 * n) as f64).sqrt()
    }

    /// The centred rule's next step after an accepted attempt of size `h` (`step_rule.rs`).
    fn propose(&self, h: f64, error: f64) -> Option<f64> {
        let (centred, target) = self.centred.as_ref()?;
        if error > 1.0 {
            return None;
        }
        let c = &self.coef;
        let weights = Weights {
            inv_scale: &self.inv_scale,
            c_q: c.beta + 0.5 * (c.alpha_m - c.alpha_f) - 1.0 / 6.0,
            c_v: c.velocity_error_weight(),
        };
        centred.propose(h.abs(), &weights, *target)
    }
}

/// The factor √rtol of the local tolerance (module docs: tolerance proportionality); 1 for a
/// component with rtol = 0, whose absolute tolerance is then a tolerance per step.
fn proportional(rtol: f64) -> f64 {
    if rtol > 0.0 { rtol.sqrt() } else { 1.0 }
}

impl<T> ImplicitStepper<T> {
    /// One Newton-solved step from `work` over [t, t + h], leaving the result in `work`.
    fn substep<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        let start = self.work.start();
        self.newton
            .solve(sys, &mut self.tangents, &self.coef, &start, t, h)?;
        self.work.load(&self.newton);
        Ok(())
    }

    /// The step as `pieces` equal substeps from `start`, result in `end`.
    fn pieces<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        pieces: usize,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        self.work.copy_from(&self.start);
        let hs = h / pieces as f64;
        for i in 0..pieces {
            self.substep(sys, t + i as f64 * hs, hs)?;
        }
        self.end.copy_from(&self.work);
        Ok(())
    }
}

impl<S: ConstrainedSystem + ?Sized, T: Tangents<S>> Stepper<S> for ImplicitStepper<T> {
    fn state(&self) -> &[f64] {
        &self.start.z
    }

    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let mut result = self.pieces(sys, t, h, 1);
        if self.error_test.is_none() {
            let mut level = 0;
            while let Err(e) = &result {
                if !e.is_retryable() || level == self.max_halvings {
                    break;
                }
                level += 1;
                result = self.pieces(sys, t, h, 1 << level);
                if result.is_ok() {
                    self.substeps += (1 << level) - 1;
                }
            }
        }
        result?;
        if self.error_test.is_some() {
            let coef = self.coef;
            self.newton
                .ensure_factored(sys, &mut self.tangents, &coef, t + h, h)?;
        }
        let error = self.error_norm(h);
        self.proposal = self.propose(h, error);
        let n = self.end.qdd.len();
        let (q, v) = self.end.z.split_at_mut(n);
        let stabilized = self.stab.apply(sys, t + h, h, q, v, self.datol)?;
        Ok(Attempt {
            error,
            stabilized,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        if let Some((centred, _)) = &mut self.centred {
            centred.accept(h.abs());
        }
        std::mem::swap(&mut self.prev, &mut self.start);
        std::mem::swap(&mut self.start, &mut self.end);
        self.carry();
        (self.t_prev, self.h_prev) = (t, h);
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        let h = self.h_prev;
        let th = (t - self.t_prev) / h;
        let [h00, h10, h01, h11] = crate::dense::hermite_basis(th);
        let n = self.start.qdd.len();
        let (z0, z1) = (&self.prev.z, &self.start.z);
        for i in 0..n {
            out[i] = h00 * z0[i] + h10 * h * z0[n + i] + h01 * z1[i] + h11 * h * z1[n + i];
            out[n + i] = h00 * z0[n + i]
                + h10 * h * self.prev.qdd[i]
                + h01 * z1[n + i]
                + h11 * h * self.start.qdd[i];
        }
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn proposal(&self) -> Option<f64> {
        self.proposal
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(&self.newton.rows)
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.newton.counters.residuals + self.initial_solves,
            nstab: self.stab.applications,
            stabilization_time: self.stab.time,
            output_solves: 0,
            conditioning: self.newton.conditioning,
        }
    }
}
