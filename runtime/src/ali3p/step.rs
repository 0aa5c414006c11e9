//! The ALI3-P step on the layer's run loop (see `mod.rs` for the formulation): the Newton
//! iteration on q_{n+1} with the multiplier update, the two projections with the same leading
//! matrix, substeps after a failed iteration, and the cubic Hermite dense output (q from
//! (q, v), v from (v, q̈) at both ends; λ* linear). Every buffer is allocated once in
//! [`Ali3pStepper::new`].

use nalgebra::DMatrix;

use crate::drift::inf_norm;
use crate::error::{NewtonDiagnosis, SimError, SingularBlock};
use crate::implicit::tangents::{Point, Tangents};
use crate::integrator::driver::{Attempt, Stepper, StepperCounters};
use crate::kernels;
use crate::kkt::{Conditioning, KktSolver, KktWorkspace, accelerations_into};
use crate::system::{ConstrainedSystem, Dims};
use crate::table::{KernelArgs, KernelId, KernelOut};

use super::linear::Linear;
use super::{Ali3p, Ali3pPenalty};

/// The factor by which a crawling iteration raises the penalty (`boost_if_crawling`), and the
/// largest boost of one step.
const BOOST: f64 = 1e2;
const MAX_BOOST: f64 = 1e4;

/// The largest boost of a step's last resort (`attempt`): only for a step that failed with
/// every substep level at [`MAX_BOOST`], so every run that [`MAX_BOOST`] carries stays bit for
/// bit. 10⁴ was too small at h = 1e-5 on the A02 chain: the steps come within ~1e-4 rad of the
/// horizontal position, where the boosted iteration still crept at a rate of 0.8 … 0.94
/// (crank-angle form, t = 0.72165 … 0.7217, the same at every halving of the step: s = (h²/4) α
/// does not depend on h) and the run failed at the first passage; with 10⁶ it contracts and
/// both forms pass (README). Not the first choice: the spatial double pendulum of the
/// conformance suite at N = 320, whose steps [`MAX_BOOST`] carries in substeps, lost accuracy
/// with the cap at 10⁶ for every step (error 2.7e-4 against 5.3e-6 at N = 640). The round-off
/// of the boosted iteration grows like √s (`stalled_at_round_off`): 0.67 tolerances at 10⁴
/// there.
const LAST_RESORT_BOOST: f64 = 1e6;

/// The stall rule's allowance over the measured round-off level δ_ro of the corrections
/// (`stalled_at_round_off`; the value of `implicit/newton.rs` and Radau's `STALL_SAFETY`).
const STALL_ROUND_OFF: f64 = crate::stabilize::NOISE_SAFETY;

/// One end of a step: (q, v), q̈ and λ*.
struct End {
    z: Vec<f64>,
    a: Vec<f64>,
    lambda: Vec<f64>,
}

impl End {
    fn new(dims: Dims) -> Self {
        Self {
            z: vec![0.0; 2 * dims.n],
            a: vec![0.0; dims.n],
            lambda: vec![0.0; dims.constraint_rows()],
        }
    }

    fn copy_from(&mut self, other: &End) {
        self.z.copy_from_slice(&other.z);
        self.a.copy_from_slice(&other.a);
        self.lambda.copy_from_slice(&other.lambda);
    }
}

/// Work counters (reported in `Stats::extra`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counters {
    pub(crate) iterations: usize,
    pub(crate) tangents: usize,
    pub(crate) factorizations: usize,
    pub(crate) projections: usize,
    pub(crate) substeps: usize,
    /// Penalty raises of crawling iterations (`boost_if_crawling`).
    pub(crate) boosts: usize,
    /// Iterations accepted at their round-off stall (`stalled_at_round_off`).
    pub(crate) stalls: usize,
    /// Evaluations of M, G, Q and c (the residual), plus the initial KKT solve.
    pub(crate) residuals: usize,
}

/// The ALI3-P stepper and its workspace.
pub(crate) struct Ali3pStepper<T> {
    dims: Dims,
    penalty: Ali3pPenalty,
    tol: f64,
    max_iterations: usize,
    max_projections: usize,
    max_halvings: usize,
    /// ω / g² at t0 (module docs of `mod.rs`), for [`Ali3pPenalty::Scaled`].
    penalty_scale: f64,
    /// The penalty's factor in the current step (1, raised by `boost_if_crawling`).
    boost: f64,
    /// Whether the current step is its last resort (`attempt`): boosts up to
    /// [`LAST_RESORT_BOOST`] and the round-off stall rule.
    last_resort: bool,
    tangents: T,
    /// M, G, K, C and the factors of the leading matrix (`linear.rs`).
    linear: Linear,
    force: Vec<f64>,
    /// c = [Φ; (h/2)(A v + b)], then α c + λ* where the force needs it.
    c: Vec<f64>,
    mult: Vec<f64>,
    /// [Φ_t; b], γ, a residual of the projections (length m + k each).
    e: Vec<f64>,
    res: Vec<f64>,
    /// The trapezoidal rule's predictor (q, v, q̈ at Δq = 0) and the Newton displacement Δq
    /// from it; a right-hand side (length n each). Written in increments, q = q_p + Δq,
    /// v = v_p + (2/h) Δq, q̈ = q̈_p + (4/h²) Δq, so no term of size (4/h²) q cancels (the
    /// form v̂ + (2/h) q, â + (4/h²) q lost ε |q| 4/h² of q̈ every step: a free fall, which
    /// the rule integrates exactly, drifted by 2e-11 s over 20 impacts at h = 1e-4).
    qpred: Vec<f64>,
    vpred: Vec<f64>,
    apred: Vec<f64>,
    dq: Vec<f64>,
    rhs: Vec<f64>,
    /// M x of the residuals (length n).
    mass_x: Vec<f64>,
    /// The vector being projected (length n).
    x: Vec<f64>,
    start: End,
    end: End,
    prev: End,
    work: End,
    t_prev: f64,
    h_prev: f64,
    accepted: bool,
    kkt: KktWorkspace,
    pub(crate) counters: Counters,
    conditioning: Option<Conditioning>,
}

impl<T> Ali3pStepper<T> {
    pub(crate) fn new(dims: Dims, method: &Ali3p, tangents: T) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            dims,
            penalty: method.penalty,
            tol: method.tol,
            max_iterations: method.max_iterations,
            max_projections: method.max_projection_iterations,
            max_halvings: method.common.max_failed_attempts,
            penalty_scale: 1.0,
            boost: 1.0,
            last_resort: false,
            tangents,
            linear: Linear::new(dims),
            force: vec![0.0; n],
            c: vec![0.0; r],
            mult: vec![0.0; r],
            e: vec![0.0; r],
            res: vec![0.0; r],
            qpred: vec![0.0; n],
            vpred: vec![0.0; n],
            apred: vec![0.0; n],
            dq: vec![0.0; n],
            rhs: vec![0.0; n],
            mass_x: vec![0.0; n],
            x: vec![0.0; n],
            start: End::new(dims),
            end: End::new(dims),
            prev: End::new(dims),
            work: End::new(dims),
            t_prev: 0.0,
            h_prev: 0.0,
            accepted: false,
            kkt: KktWorkspace::new(dims),
            counters: Counters::default(),
            conditioning: None,
        }
    }

    /// Move to the sparse path when `sys` goes on it under `solver` (`linear.rs`); before
    /// [`Ali3pStepper::initialize`].
    pub(crate) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, solver: KktSolver) {
        self.linear.prepare(sys, solver);
    }

    /// The accepted state z_n = (q, v).
    pub(crate) fn z(&self) -> &[f64] {
        &self.start.z
    }

    /// The start at t0: q̈_0 from the KKT solve, λ*_0 its minimum-norm multipliers (so that a
    /// redundant mechanism starts in the range of G, as the iteration keeps it), and the
    /// penalty scale ω / g². Cold path.
    pub(crate) fn initialize<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
    ) -> Result<(), SimError> {
        let n = self.dims.n;
        self.start.z[..n].copy_from_slice(q0);
        self.start.z[n..].copy_from_slice(v0);
        self.counters.residuals += 1;
        let s = &mut self.start;
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
        )?;
        self.linear.eval(sys, t0, q0)?;
        if !s.lambda.is_empty() {
            let spread = self.linear.minimum_norm_multipliers(&s.lambda);
            s.lambda.copy_from_slice(&spread);
        }
        let (omega, g2) = self.linear.scales();
        self.penalty_scale = if omega > 0.0 && g2 > 0.0 {
            omega / g2
        } else {
            1.0
        };
        Ok(())
    }

    /// α for step size h (with the current step's boost).
    fn alpha(&self, h: f64) -> f64 {
        self.boost
            * match self.penalty {
                Ali3pPenalty::Scaled(s) => s * 4.0 / (h * h) * self.penalty_scale,
                Ali3pPenalty::Absolute(a) => a,
            }
    }

    /// Raise the penalty by [`BOOST`] (up to [`MAX_BOOST`] in one step) when the iteration
    /// crawls: from its fourth correction on, one that did not halve. The multiplier update
    /// λ* ← λ* + α c contracts by about ω / (ω + s σ²) per iteration in the direction of G's
    /// singular value σ (s = (h²/4) α against the mass ω), so near a singular position, where
    /// σ → 0, it stops contracting at any fixed α: on the A02 chain (`four-bar-chain`,
    /// h = 1e-3, t = 0.718, the first passage) the corrections crept at a rate of 0.97 from
    /// 1e-11 to 1.08 tolerances until the iteration limit, and halving the step down to 1e-6
    /// did not help. A larger α cuts the rate by the same factor; the leading matrix's
    /// conditioning grows with it (about s (g/σ)²), so the boost lasts one step only
    /// (`newton` resets it) and is capped. Whether it raised α.
    fn boost_if_crawling(&mut self, iteration: usize, correction: f64, previous: f64) -> bool {
        let crawling = iteration >= 3 && correction > 0.5 * previous;
        let cap = if self.last_resort {
            LAST_RESORT_BOOST
        } else {
            MAX_BOOST
        };
        if !crawling || self.boost >= cap {
            return false;
        }
        self.boost *= BOOST;
        self.counters.boosts += 1;
        true
    }

    /// Whether the iterate held is as good as the arithmetic allows, where the iteration would
    /// otherwise be given up (the round-off stall rule of `implicit/newton.rs`, `settled`, and
    /// of Radau's `radau/newton.rs`): Φ (and (h/2)(A v + b)) at round-off, 1e3 ε (1 + ‖q‖∞),
    /// and the last correction `correction` (relative, as the convergence test measures it)
    /// within max(tol, [`STALL_ROUND_OFF`] δ_ro). δ_ro is the correction the held factors give
    /// the round-off of c's evaluation through the multiplier force: one more back
    /// substitution of (h²/4) α Gᵀ ρ, ρ_i = ε (1 + ‖q‖∞) with the signs of c (at a stall those
    /// are noise). Near a singular position f_q⁻¹ maps it along G's weak directions with a gain
    /// up to √s/2 (s σ² against the mass ω, largest at s σ² ≈ ω), s the boosted penalty's
    /// factor: the level at which the corrections stall (the module docs of `mod.rs`).
    fn stalled_at_round_off(&mut self, h: f64, alpha: f64, correction: f64) -> bool {
        let n = self.dims.n;
        let size = inf_norm(&self.work.z[..n]);
        let floor = f64::EPSILON * (1.0 + size);
        if !correction.is_finite() || self.residual(h) > 1e3 * floor {
            return false;
        }
        for (r, c) in self.res.iter_mut().zip(&self.c) {
            *r = floor.copysign(*c);
        }
        self.rhs.fill(0.0);
        let res = std::mem::take(&mut self.res);
        self.add_gt(0.25 * h * h * alpha, &res);
        self.res = res;
        self.linear.solve_in_place(&mut self.rhs);
        let noise = inf_norm(&self.rhs) / (1.0 + size);
        correction <= (STALL_ROUND_OFF * noise).max(self.tol)
    }

    /// M, G, Q and c at (t, q, v) of `work`.
    fn evaluate<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        self.counters.residuals += 1;
        let (n, m) = (self.dims.n, self.dims.m);
        let (q, v) = self.work.z.split_at(n);
        self.linear.eval(sys, t, q)?;
        kernels::force(sys, t, q, v, &mut self.force)?;
        let (phi, nh) = self.c.split_at_mut(m);
        kernels::phi(sys, t, q, phi)?;
        kernels::nh_offset(sys, t, q, nh)?;
        for (i, ci) in nh.iter_mut().enumerate() {
            let av = self.linear.jac_row_dot(m + i, v);
            *ci = 0.5 * h * (av + *ci);
        }
        Ok(())
    }

    /// ‖Φ‖∞ and ‖A v + b‖∞ from c (for the error report).
    fn residual(&self, h: f64) -> f64 {
        let m = self.dims.m;
        let phi = self.c[..m].iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let nh = self.c[m..].iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        phi.max(nh / (0.5 * h))
    }

    /// `lu` ← W + (h²/4) α GᵀG with W = M + (h/2) C + (h²/4) K (also kept in `w`), factored.
    /// Singular only when W is singular on ker G (α GᵀG is positive definite off it): the error
    /// names the coordinates of the matrix's null direction, the motion without inertia.
    fn factor(
        &mut self,
        coordinate_names: &[&str],
        (t, h): (f64, f64),
        alpha: f64,
        iteration: usize,
    ) -> Result<(), SimError> {
        self.counters.factorizations += 1;
        if self.linear.factor(h, alpha).is_err() {
            let a = self.linear.dense_p(h, alpha);
            return Err(SimError::SingularIterationMatrix {
                t,
                h,
                iteration,
                block: SingularBlock::MassOnKernel {
                    coordinates: null_direction(a, coordinate_names),
                },
                dependent_rows: Vec::new(),
            });
        }
        Conditioning::note(&mut self.conditioning, self.linear.pivot_spread(), t);
        Ok(())
    }

    /// `rhs` += s Gᵀ x.
    fn add_gt(&mut self, s: f64, x: &[f64]) {
        self.linear.add_gt(s, x, &mut self.rhs);
    }

    /// `rhs` = W x.
    fn w_times(&mut self, x: &[f64]) {
        self.linear.w_mul(x, &mut self.rhs);
    }
}

impl<T> Ali3pStepper<T> {
    /// The Newton iteration of one step from `work` over [t, t + h]; `work` holds the
    /// converged (q, v*, q̈*, λ*) after it, with M, G, Q, c evaluated there.
    fn newton<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        self.boost = 1.0;
        let (n, t1, mut alpha) = (self.dims.n, t + h, self.alpha(h));
        let (c1, c2) = (2.0 / h, 4.0 / (h * h));
        for i in 0..n {
            let (q0, v0, a0) = (self.work.z[i], self.work.z[n + i], self.work.a[i]);
            self.qpred[i] = q0 + h * v0 + 0.5 * h * h * a0;
            self.vpred[i] = v0 + h * a0;
            self.apred[i] = a0;
            self.dq[i] = 0.0;
        }
        let (mut correction, mut previous) = (f64::INFINITY, f64::INFINITY);
        for iteration in 0..=self.max_iterations {
            for i in 0..n {
                let dq = self.dq[i];
                self.work.z[i] = self.qpred[i] + dq;
                self.work.z[n + i] = self.vpred[i] + c1 * dq;
                self.work.a[i] = self.apred[i] + c2 * dq;
            }
            self.evaluate(sys, t1, h)?;
            if iteration > 0 {
                for (l, c) in self.work.lambda.iter_mut().zip(&self.c) {
                    *l += alpha * c;
                }
                if correction <= self.tol {
                    return Ok(());
                }
            }
            let diagnosis = if !correction.is_finite() && iteration > 0 {
                Some(NewtonDiagnosis::NonFinite)
            } else if iteration >= 2 && correction > 2.0 * previous {
                Some(NewtonDiagnosis::Diverging)
            } else if iteration == self.max_iterations {
                let rate = correction / previous;
                Some(NewtonDiagnosis::IterationLimit { rate })
            } else {
                None
            };
            let stalled = self.last_resort
                && matches!(
                    diagnosis,
                    Some(NewtonDiagnosis::Diverging | NewtonDiagnosis::IterationLimit { .. })
                )
                && self.stalled_at_round_off(h, alpha, correction);
            if stalled {
                self.counters.stalls += 1;
                return Ok(());
            }
            if let Some(diagnosis) = diagnosis {
                return Err(SimError::NewtonDiverged {
                    t: t1,
                    h,
                    iterations: iteration,
                    residual: self.residual(h),
                    correction: correction / self.tol,
                    diagnosis,
                });
            }
            if self.boost_if_crawling(iteration, correction, previous) {
                // A new α changes the equations: the next correction starts a new sequence.
                alpha = self.alpha(h);
                correction = f64::INFINITY;
            }
            for ((m, c), l) in self.mult.iter_mut().zip(&self.c).zip(&self.work.lambda) {
                *m = alpha * c + l;
            }
            if iteration == 0 {
                self.counters.tangents += 1;
                let (q, v) = self.work.z.split_at(n);
                let point = Point {
                    t: t1,
                    q,
                    v,
                    qdd: &self.work.a,
                    lambda: &self.mult,
                };
                (self.linear).eval_tangents(&mut self.tangents, sys, &point)?;
            }
            self.factor(sys.coordinate_names(), (t1, h), alpha, iteration)?;
            self.counters.iterations += 1;
            // rhs = −(h²/4) (M q̈ + Gᵀ(α c + λ*) − Q), then Δq = f_q⁻¹ rhs.
            self.linear.mass_mul(&self.work.a, &mut self.mass_x);
            for i in 0..n {
                self.rhs[i] = self.force[i] - self.mass_x[i];
            }
            let mult = std::mem::take(&mut self.mult);
            self.add_gt(-1.0, &mult);
            self.mult = mult;
            let hh = 0.25 * h * h;
            self.rhs.iter_mut().for_each(|r| *r *= hh);
            self.linear.solve_in_place(&mut self.rhs);
            let scale = 1.0 + inf_norm(&self.work.z[..n]);
            previous = correction;
            correction = inf_norm(&self.rhs) / scale;
            if self.rhs.iter().any(|x| !x.is_finite()) {
                correction = f64::NAN;
                continue;
            }
            for (q, d) in self.dq.iter_mut().zip(&self.rhs) {
                *q += d;
            }
        }
        unreachable!("the loop returns at its last iteration")
    }

    /// Project v and q̈ of `work` (module docs of `mod.rs`) with P = W + (h²/4) α GᵀG at the
    /// converged q, where `evaluate` left M, G and b.
    fn project<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let (n, m, alpha) = (self.dims.n, self.dims.m, self.alpha(h));
        let s = 0.25 * h * h * alpha;
        self.factor(sys.coordinate_names(), (t, h), alpha, self.max_iterations)?;
        let (q, v) = self.work.z.split_at(n);
        let args = KernelArgs {
            t,
            q,
            v,
            lambda: &[],
            w: &[],
        };
        // Velocities: G v + [Φ_t; b] = 0.
        let (phi_t, b) = self.e.split_at_mut(m);
        kernels::checked(sys, KernelId::PhiT, &args, KernelOut::Vector(phi_t))?;
        kernels::nh_offset(sys, t, q, b)?;
        self.x.copy_from_slice(v);
        self.project_level(s);
        self.work.z[n..].copy_from_slice(&self.x);
        // Accelerations: G q̈ − γ(t, q, v) = 0 at the projected v.
        let (q, v) = self.work.z.split_at(n);
        let args = KernelArgs {
            t,
            q,
            v,
            lambda: &[],
            w: &[],
        };
        kernels::checked(sys, KernelId::Gamma, &args, KernelOut::Vector(&mut self.e))?;
        self.e.iter_mut().for_each(|x| *x = -*x);
        self.x.copy_from_slice(&self.work.a);
        self.project_level(s);
        self.work.a.copy_from_slice(&self.x);
        self.multipliers(sys, t, s)
    }

    /// The multipliers at the projected (q, v): λ* refined by the acceleration-level augmented
    /// Lagrangian with the same matrix P, P x = (W − M) x + Q − Gᵀλ + s Gᵀγ, λ ← λ + s (G x − γ),
    /// whose fixed point is M x + Gᵀλ = Q, G x = γ. λ* alone carries the penalty's round-off,
    /// α ε |Φ| (its last updates α c are made of Φ's round-off, and α grows as 1/h²: up to
    /// 7e-4 on a unit pendulum at h ≈ 1e-4); these updates s (G x − γ) are ε-sized relative to
    /// the force (s = (h²/4) α is dimensionless against M). Both lie in the range of G, so λ
    /// keeps the minimum-norm start while the null space of Gᵀ stays fixed, and the null
    /// component it inherited where that space turns with the motion (README).
    /// The state keeps ALI3-P's projected q̈.
    fn multipliers<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        s: f64,
    ) -> Result<(), SimError> {
        let n = self.dims.n;
        let (q, v) = self.work.z.split_at(n);
        kernels::force(sys, t, q, v, &mut self.force)?;
        self.x.copy_from_slice(&self.work.a);
        let mut previous = f64::INFINITY;
        for _ in 0..=self.max_projections {
            let x = std::mem::take(&mut self.x);
            self.w_times(&x);
            self.linear.mass_mul(&x, &mut self.mass_x);
            for (i, r) in self.rhs.iter_mut().enumerate() {
                *r += self.force[i] - self.mass_x[i];
            }
            self.x = x;
            let (lambda, e) = (
                std::mem::take(&mut self.work.lambda),
                std::mem::take(&mut self.e),
            );
            self.add_gt(-1.0, &lambda);
            self.add_gt(-s, &e);
            self.linear.solve_in_place(&mut self.rhs);
            self.x.copy_from_slice(&self.rhs);
            for (i, r) in self.res.iter_mut().enumerate() {
                *r = e[i] + self.linear.jac_row_dot(i, &self.x);
            }
            (self.work.lambda, self.e) = (lambda, e);
            for (l, r) in self.work.lambda.iter_mut().zip(&self.res) {
                *l += s * r;
            }
            self.counters.projections += 1;
            let norm = inf_norm(&self.res);
            if norm == 0.0 || norm > 0.5 * previous {
                break;
            }
            previous = norm;
        }
        Ok(())
    }

    /// The augmented-Lagrangian projection of `x` onto G x + e = 0 in the metric of W with
    /// penalty s = (h²/4) α: P x = W x* − s Gᵀ e, then x ← x − P⁻¹ s Gᵀ (G x + e) while the
    /// residual at least halves (it contracts by about 1/`Scaled`'s s per pass until round-off).
    fn project_level(&mut self, s: f64) {
        let x = std::mem::take(&mut self.x);
        self.w_times(&x);
        let mut x = x;
        let e = std::mem::take(&mut self.e);
        self.add_gt(-s, &e);
        self.linear.solve_in_place(&mut self.rhs);
        x.copy_from_slice(&self.rhs);
        let mut previous = f64::INFINITY;
        for pass in 0..=self.max_projections {
            for (i, r) in self.res.iter_mut().enumerate() {
                *r = e[i] + self.linear.jac_row_dot(i, &x);
            }
            let norm = inf_norm(&self.res);
            if pass == self.max_projections || norm == 0.0 || norm > 0.5 * previous {
                break;
            }
            previous = norm;
            self.rhs.fill(0.0);
            let res = std::mem::take(&mut self.res);
            self.add_gt(-s, &res);
            self.res = res;
            self.linear.solve_in_place(&mut self.rhs);
            for (xi, d) in x.iter_mut().zip(&self.rhs) {
                *xi += d;
            }
            self.counters.projections += 1;
        }
        self.e = e;
        self.x = x;
    }

    /// One step (Newton, then the projections) from `work` over [t, t + h].
    fn substep<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        self.newton(sys, t, h)?;
        self.project(sys, t + h, h)
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

    /// The step, redone in 2, 4, … substeps after a retryable failure (module docs).
    fn halvings<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError>
    where
        T: Tangents<S>,
    {
        let mut result = self.pieces(sys, t, h, 1);
        let mut level = 0;
        while let Err(e) = &result {
            if !e.is_retryable() || level == self.max_halvings {
                break;
            }
            level += 1;
            result = self.pieces(sys, t, h, 1 << level);
            if result.is_ok() {
                self.counters.substeps += (1 << level) - 1;
            }
        }
        result
    }
}

impl<S: ConstrainedSystem + ?Sized, T: Tangents<S>> Stepper<S> for Ali3pStepper<T> {
    fn state(&self) -> &[f64] {
        &self.start.z
    }

    /// The step, redone in 2, 4, … substeps after a retryable failure (module docs); if every
    /// level failed, once more as its last resort ([`LAST_RESORT_BOOST`], the round-off stall
    /// rule).
    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        let result = self.halvings(sys, t, h);
        let result = match result {
            Err(e) if e.is_retryable() => {
                self.last_resort = true;
                let retried = self.halvings(sys, t, h);
                self.last_resort = false;
                retried
            }
            other => other,
        };
        result?;
        Ok(Attempt {
            error: 0.0,
            stabilized: false,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        std::mem::swap(&mut self.prev, &mut self.start);
        std::mem::swap(&mut self.start, &mut self.end);
        (self.t_prev, self.h_prev, self.accepted) = (t, h, true);
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        let h = self.h_prev;
        let [h00, h10, h01, h11] = crate::dense::hermite_basis((t - self.t_prev) / h);
        let n = self.dims.n;
        let (z0, z1) = (&self.prev.z, &self.start.z);
        for i in 0..n {
            out[i] = h00 * z0[i] + h10 * h * z0[n + i] + h01 * z1[i] + h11 * h * z1[n + i];
            out[n + i] = h00 * z0[n + i]
                + h10 * h * self.prev.a[i]
                + h01 * z1[n + i]
                + h11 * h * self.start.a[i];
        }
        Ok(())
    }

    fn own_outputs_at(&self, t: f64, vdot: &mut [f64], lambda: &mut [f64]) -> bool {
        if !self.accepted {
            vdot.copy_from_slice(&self.start.a);
            lambda.copy_from_slice(&self.start.lambda);
            return true;
        }
        let th = (t - self.t_prev) / self.h_prev;
        let (prev, now) = (&self.prev, &self.start);
        for ((o, a), b) in vdot.iter_mut().zip(&prev.a).zip(&now.a) {
            *o = (1.0 - th) * a + th * b;
        }
        for ((o, a), b) in lambda.iter_mut().zip(&prev.lambda).zip(&now.lambda) {
            *o = (1.0 - th) * a + th * b;
        }
        true
    }

    fn counters(&self) -> StepperCounters {
        StepperCounters {
            nfcn: self.counters.residuals,
            nstab: 0,
            stabilization_time: std::time::Duration::ZERO,
            output_solves: 0,
            conditioning: self.conditioning,
        }
    }
}

/// The coordinates moved by the eigenvector of the smallest |eigenvalue| of the symmetric part
/// of `a` (cold path: after a failed factorization), named for the message.
fn null_direction(a: DMatrix<f64>, coordinate_names: &[&str]) -> Vec<crate::error::Coordinate> {
    let a = (&a + a.transpose()) * 0.5;
    if a.iter().any(|x| !x.is_finite()) {
        return Vec::new();
    }
    let eigen = a.symmetric_eigen();
    let smallest = eigen.eigenvalues.iamin();
    let x = eigen.eigenvectors.column(smallest);
    crate::naming::moving_coordinates(x.as_slice(), coordinate_names)
}
