//! The Newton iteration of one implicit step (digest §2.9, generalized to the α family).
//!
//! Unknowns x = (q̈_{n+1}, λ_{n+1}); q_{n+1}, v_{n+1} follow from q̈_{n+1} by the scheme's
//! update (`scheme.rs`). With cq = β h² c and cv = γ h c the residual is
//! ```text
//! Ψ = [ M(q) q̈ + Gᵀ(q) λ − Q(t, q, v) ;  Φ(t, q) / cq ;  (A(t, q) v + b(t, q)) / cv ]
//! ```
//! and its Jacobian (the iteration matrix)
//! ```text
//! J = [ M + cq K + cv C   Φ_qᵀ  Aᵀ ;  Φ_q  0  0 ;  A  0  0 ],   K = ∂(M q̈ + Gᵀλ − Q)/∂q,  C = −∂Q/∂v
//! ```
//! (ME451's matrix for α_m = α_f = 0). The nonholonomic rows are their exact derivative
//! A + (cq/cv) N with N = ∂(A v + b)/∂q, which no kernel gives: N comes from central
//! differences of the A and b kernels (2n evaluations of each per refresh, only when k > 0),
//! so Newton keeps its quadratic convergence on nonholonomic models.
//!
//! Start: x⁰ = (q̈_n, λ_n) (ME451). Each iteration evaluates Ψ at the iterate; the iteration
//! has converged when the last correction, scaled to positions and velocities
//! (max_i max(cq |Δq̈_i| / (1 + |q_i|), cv |Δq̈_i| / (1 + |v_i|)), the velocity part against a
//! tolerance floored by the index-3 round-off noise, see `Newton::correct`), and the constraint residual
//! max(‖Φ‖∞ / (1 + ‖q‖∞), ‖A v + b‖∞ / (1 + ‖v‖∞)) are both ≤ the tolerance (ambiguity 35:
//! the slide gives neither test nor limit). The correction test also counts as passed when the
//! dynamic rows hold to round-off (|Ψ_i| ≤ 1e3 ε (Σ|M_ij q̈_j| + Σ|G_ji λ_j| + |Q_i|)): on stiff models
//! the correction itself stalls at ε cond(J) there. The residual is evaluated after the last correction,
//! so Φ of the returned state is what the test measured.
//!
//! Large sparse models (`iteration.rs`) keep M, G, K and C as nonzeros and factor J banded
//! under the RCM ordering of its pattern; the iteration is the same.
//!
//! [`NewtonKind::Full`] refreshes K, C and the factorization every iteration.
//! [`NewtonKind::Modified`] keeps the factorization across iterations and across steps while h
//! is unchanged, and refreshes it when h changed, when the corrections contract slower than
//! `max_rate`, or when a stale matrix fails.

use crate::redundancy::RowSelection;
use nalgebra::DMatrix;

use crate::error::{ConstraintRow, NewtonDiagnosis, SimError};
use crate::integrator::common::invalid;
use crate::kernels;
use crate::kkt::{Conditioning, KktSolver};
use crate::lu::{DenseLu, diagnose_singular};
use crate::system::{ConstrainedSystem, Dims};

use super::iteration::{BandedIteration, sparse_parts, sparse_plan};
use super::matrices::PointMatrices;
use super::nonholonomic::NhWork;
use super::scheme::Coefficients;
use super::tangents::{Point, TangentStore, Tangents};

/// The stall rule's allowance over the measured round-off level δ_ro of the corrections
/// (`Newton::settled`), Radau's (`radau/newton.rs`): PStab's noise safety, 16; δ_ro probes one
/// sign pattern of round-off, the stalled corrections are the sum of many such terms.
const STALL_ROUND_OFF: f64 = crate::stabilize::NOISE_SAFETY;

/// Full or modified Newton.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewtonKind {
    /// New tangents and a new factorization every iteration (quadratic convergence).
    Full,
    /// One factorization reused across iterations and steps (module docs for the refresh
    /// rules): linear convergence, far fewer tangent evaluations and factorizations.
    Modified,
}

/// Options of the Newton iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonOptions {
    /// Full or modified Newton. Default [`NewtonKind::Full`] (ME451).
    pub kind: NewtonKind,
    /// Tolerance of the scaled correction and of the scaled constraint residual (module docs).
    /// Default 1e-10: Φ is held to ~1e-10 relative, far below any step's local error, and
    /// full Newton gets there in one or two more iterations than at 1e-6. Must be ≥ 1e-14
    /// (below, round-off in Φ keeps the test from ever passing).
    pub tol: f64,
    /// Iterations allowed per step (≥ 1). Default 10 for full Newton; modified Newton usually
    /// needs more (use 25).
    pub max_iterations: usize,
    /// Modified Newton: refresh the matrix when ‖Δ_k‖/‖Δ_{k−1}‖ exceeds this. Default 0.5.
    pub max_rate: f64,
}

impl Default for NewtonOptions {
    fn default() -> Self {
        Self {
            kind: NewtonKind::Full,
            tol: 1e-10,
            max_iterations: 10,
            max_rate: 0.5,
        }
    }
}

impl NewtonOptions {
    /// The options' domains.
    pub fn validate(&self) -> Result<(), SimError> {
        if !(self.tol.is_finite() && self.tol >= 1e-14) {
            let reason = "must be finite and >= 1e-14 (round-off of Φ)";
            return Err(invalid("newton.tol", &self.tol.to_string(), reason));
        }
        if self.max_iterations == 0 {
            return Err(invalid("newton.max_iterations", "0", "must be at least 1"));
        }
        if !(self.max_rate > 0.0 && self.max_rate < 1.0) {
            let reason = "must lie in (0, 1)";
            return Err(invalid(
                "newton.max_rate",
                &self.max_rate.to_string(),
                reason,
            ));
        }
        Ok(())
    }
}

/// The state at the start of a step: (q, v) as one slice, q̈, the pseudo-acceleration, λ.
pub(crate) struct StepStart<'a> {
    pub(crate) z: &'a [f64],
    pub(crate) qdd: &'a [f64],
    pub(crate) a: &'a [f64],
    pub(crate) lambda: &'a [f64],
}

/// Counters of the Newton iterations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct NewtonCounters {
    pub(crate) iterations: usize,
    pub(crate) residuals: usize,
    pub(crate) tangents: usize,
    pub(crate) factorizations: usize,
    pub(crate) failures: usize,
}

/// The Newton workspace; after a successful [`Newton::solve`] the step's end state is in
/// `z` (q then v), `qdd`, `a` and `lambda`.
pub(crate) struct Newton {
    dims: Dims,
    opts: NewtonOptions,
    /// J's factors: dense, or banded on the sparse path (`iteration.rs`).
    matrix: Matrix,
    /// M and G at the iterate.
    point: PointMatrices,
    /// The rows of G left out of J as redundant ([`crate::redundancy`]).
    pub(crate) rows: RowSelection,
    /// K and C at the last refresh.
    tangents: TangentStore,
    /// N = ∂(A v + b)/∂q (k × n) and the scratch of its central differences.
    nh_q: DMatrix<f64>,
    nh_work: NhWork,
    force: Vec<f64>,
    offset: Vec<f64>,
    res: Vec<f64>,
    pub(crate) z: Vec<f64>,
    pub(crate) qdd: Vec<f64>,
    pub(crate) a: Vec<f64>,
    pub(crate) lambda: Vec<f64>,
    /// h of the factorization held (modified Newton), if any.
    factored_h: Option<f64>,
    /// max(‖Φ‖∞, ‖A v + b‖∞) at the last residual evaluation, and the same scaled by
    /// 1 + ‖q‖∞ and 1 + ‖v‖∞ respectively (what the convergence test compares).
    constraint: (f64, f64),
    /// max_i |Ψ_i| / (Σ_j |M_ij q̈_j| + Σ_j |G_ji λ_j| + |Q_i|) of the dynamic rows at the last
    /// evaluation: the residual relative to the round-off of its own evaluation.
    dynamic_relative: f64,
    /// Scratch for the round-off level of the corrections (`noise_level`, length n + r).
    noise: Vec<f64>,
    pub(crate) counters: NewtonCounters,
    /// The worst pivot spread of the iteration matrix's factorizations and its time.
    pub(crate) conditioning: Option<Conditioning>,
}

/// The iteration matrix's factors.
enum Matrix {
    Dense(DenseLu),
    Banded(Box<BandedIteration>),
}

/// How one solve ended, before it is turned into an error.
enum Outcome {
    Converged,
    Failed(NewtonDiagnosis, usize, f64),
}

impl Newton {
    pub(crate) fn new(dims: Dims, opts: NewtonOptions) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            dims,
            opts,
            matrix: Matrix::Dense(DenseLu::new(n + r)),
            point: PointMatrices::dense(dims),
            rows: RowSelection::default(),
            tangents: TangentStore::dense(n),
            nh_q: DMatrix::zeros(dims.k, n),
            nh_work: NhWork::new(dims),
            force: vec![0.0; n],
            offset: vec![0.0; dims.k],
            res: vec![0.0; n + r],
            z: vec![0.0; 2 * n],
            qdd: vec![0.0; n],
            a: vec![0.0; n],
            lambda: vec![0.0; r],
            factored_h: None,
            constraint: (0.0, 0.0),
            dynamic_relative: f64::INFINITY,
            noise: vec![0.0; n + r],
            counters: NewtonCounters::default(),
            conditioning: None,
        }
    }

    /// Move to the sparse path when `sys` goes on it under the policy `solver`
    /// (`iteration.rs`); before the first step.
    pub(crate) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, solver: KktSolver) {
        if let Some(tangents) = sparse_plan(sys, solver, 1) {
            let point = PointMatrices::sparse(sys);
            if let Some((mass, jac)) = point.nonzeros() {
                let banded = BandedIteration::new(mass, jac, &tangents);
                self.matrix = Matrix::Banded(Box::new(banded));
            }
            (self.point, self.tangents) = (point, TangentStore::Sparse(Box::new(tangents)));
        }
    }

    /// Solve the step from `start` over [t, t + h]; the end state is left in `self`.
    pub(crate) fn solve<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        coef: &Coefficients,
        start: &StepStart<'_>,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let t_new = t + h;
        self.qdd.copy_from_slice(start.qdd);
        self.lambda.copy_from_slice(start.lambda);
        let outcome = match self.opts.kind {
            NewtonKind::Full => self.iterate(sys, tangents, coef, start, t_new, h, false)?,
            NewtonKind::Modified => {
                match self.iterate(sys, tangents, coef, start, t_new, h, true)? {
                    Outcome::Converged => Outcome::Converged,
                    // A stale matrix may be the cause: once more with fresh ones throughout.
                    Outcome::Failed(..) => {
                        self.qdd.copy_from_slice(start.qdd);
                        self.lambda.copy_from_slice(start.lambda);
                        self.factored_h = None;
                        self.iterate(sys, tangents, coef, start, t_new, h, true)?
                    }
                }
            }
        };
        match outcome {
            Outcome::Converged => Ok(()),
            Outcome::Failed(diagnosis, iterations, correction) => {
                self.counters.failures += 1;
                self.factored_h = None;
                self.tangents.distrust();
                Err(SimError::NewtonDiverged {
                    t: t_new,
                    h,
                    iterations,
                    residual: self.constraint_residual(),
                    correction,
                    diagnosis,
                })
            }
        }
    }

    /// The iterations of one solve; `reuse` allows keeping the factorization (modified Newton).
    #[allow(clippy::too_many_arguments)] // system, tangent source, scheme, start and the step
    fn iterate<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        coef: &Coefficients,
        start: &StepStart<'_>,
        t_new: f64,
        h: f64,
        reuse: bool,
    ) -> Result<Outcome, SimError> {
        let (cq, cv) = (coef.beta * h * h * coef.c(), coef.gamma * h * coef.c());
        let (mut last, mut rate) = (f64::INFINITY, 0.0);
        let (mut fresh, mut diverged) = (false, None);
        for it in 0..=self.opts.max_iterations {
            self.update_state(coef, start, h);
            self.residual(sys, t_new, cq, cv)?;
            // Round-off: once the dynamic rows are satisfied to 1e3 ε of their terms' size,
            // no correction can improve them (stiff models, tight tolerances: the velocity
            // part of the correction, γhc Δq̈, stalls at ε cond(J) |q̈| γhc).
            let at_round_off = self.dynamic_relative <= 1e3 * f64::EPSILON;
            if (last <= 1.0 || at_round_off) && self.constraint.1 <= self.opts.tol {
                return Ok(Outcome::Converged);
            }
            if let Some(correction) = diverged {
                return Ok(match it > 1 && self.settled(cq, cv, last) {
                    true => Outcome::Converged,
                    false => Outcome::Failed(NewtonDiagnosis::Diverging, it, correction),
                });
            }
            if it == self.opts.max_iterations {
                // Stagnation shows only after two corrections (as for divergence above): a
                // limit of one iteration that misses the tolerance is a failure.
                return Ok(match it > 1 && self.settled(cq, cv, last) {
                    true => Outcome::Converged,
                    false => Outcome::Failed(NewtonDiagnosis::IterationLimit { rate }, it, last),
                });
            }
            let stale = !reuse || self.factored_h != Some(h) || rate > self.opts.max_rate;
            if stale {
                self.refresh(sys, tangents, t_new, h, cq, cv, it)?;
                fresh = true;
            }
            let correction = self.correct(cq, cv);
            if !correction.is_finite() {
                return Ok(Outcome::Failed(
                    NewtonDiagnosis::NonFinite,
                    it + 1,
                    correction,
                ));
            }
            if it > 0 {
                rate = correction / last;
                if rate > 2.0 && fresh {
                    // Judged on the residual of the new iterate (next pass): near a singular
                    // configuration the corrections wander at ε cond(J) (`settled`).
                    diverged = Some(correction);
                }
            }
            last = correction;
            fresh = !reuse;
        }
        unreachable!("the loop returns at it == max_iterations")
    }

    /// Whether the iterate held is as good as the arithmetic allows: Φ (and A v + b) hold to
    /// round-off, 1e3 ε (1 + ‖(q, v)‖∞), and the dynamic rows to √ε of their terms' size (the rule
    /// of Radau's `StageSolver::at_round_off`). Near a singular configuration J's condition
    /// grows like 1/s² and the corrections stagnate at ε cond(J): on the A02 chain at its
    /// second passage (HHT, h = 1e-3 … 1e-6, t = 1.2439) they wandered between 0.1 and 2.4
    /// tolerances while Φ stayed at 4e-16 and the dynamic rows at 2e-10 relative. Such an
    /// iterate is accepted where the iteration would otherwise be given up. Only with
    /// constraint rows: the stagnation this accepts is Φ's round-off over G's vanishing
    /// singular value; on an unconstrained stiff oscillator (ωh = 1e5, `tests/suite/implicit.rs`,
    /// spectral radius) accepting dynamic rows at √ε moved the measured ρ∞ by 1–4 %.
    ///
    /// Closer to the passage the dynamic rows no longer reach √ε either: on the body form
    /// (`four-bar-chain-bodies`, adaptive HHT at rtol 1e-8, t = 0.72157, 3e-5 s from the first
    /// passage) they stalled at 1.8e-5 relative and the corrections at 11 … 277 tolerances while
    /// Φ held at 7e-15, and every retry with h/4 down to h = 6e-11 stalled alike (a step-size
    /// collapse: the run failed there at rtol 1e-7 … 1e-12). Such corrections are round-off
    /// mapped through J⁻¹: the iterate is also accepted when the last correction `last` (in
    /// tolerance units) is within max(1, [`STALL_ROUND_OFF`] δ_ro), δ_ro the level the held
    /// factors give Φ's evaluation noise (`noise_level`; Radau's stall rule, `radau/newton.rs`).
    fn settled(&mut self, cq: f64, cv: f64, last: f64) -> bool {
        let size = self.z.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let constrained = self.dims.constraint_rows() > 0
            && self.constraint.0 <= 1e3 * f64::EPSILON * (1.0 + size);
        constrained
            && (self.dynamic_relative <= f64::EPSILON.sqrt()
                || last <= (STALL_ROUND_OFF * self.noise_level(cq, cv, size)).max(1.0))
    }

    /// δ_ro: the correction J⁻¹ρ, in the units of the convergence test (`correct`), of a
    /// residual ρ that is the round-off of Φ's evaluation, ε (1 + ‖(q, v)‖∞) in every constraint
    /// row (÷ cq, ÷ cv for nonholonomic rows, as the rows are scaled) with the signs of the
    /// current residual (at a stall those are noise), 0 in the dynamic rows. Near a singular
    /// position J⁻¹ maps it along G's weakest directions with the gain 1/σ_min(G), the level at
    /// which the corrections stall. One more back substitution with the factors held, made only
    /// when a solve would otherwise be given up.
    fn noise_level(&mut self, cq: f64, cv: f64, size: f64) -> f64 {
        let n = self.dims.n;
        self.probe_round_off(cq, cv, size);
        let (tol, tol_v) = self.tolerances(cq, cv);
        (0..n).fold(0.0_f64, |s, i| {
            let d = self.noise[i];
            let dq = (cq * d).abs() / (1.0 + self.z[i].abs()) / tol;
            let dv = (cv * d).abs() / (1.0 + self.z[n + i].abs()) / tol_v;
            s.max(dq).max(dv)
        })
    }

    /// `noise` ← J⁻¹ (0, ρ) with the factors held: ρ the round-off of Φ's evaluation,
    /// ε (1 + `size`) in every constraint row (÷ cq, ÷ cv for nonholonomic rows, as the rows
    /// are scaled) with the signs of the current residual, 0 in the dynamic rows.
    fn probe_round_off(&mut self, cq: f64, cv: f64, size: f64) {
        let (n, m) = (self.dims.n, self.dims.m);
        let floor = f64::EPSILON * (1.0 + size);
        self.noise[..n].fill(0.0);
        for (row, x) in self.noise[n..].iter_mut().enumerate() {
            let div = if row < m { cq } else { cv };
            *x = (floor / div).copysign(self.res[n + row]);
        }
        solve_with(&mut self.matrix, &mut self.noise);
        if !self.rows.is_empty() {
            self.rows
                .pin_corrections(&self.lambda, &mut self.noise[n..]);
        }
    }

    /// The convergence test's tolerances on the position and velocity parts of a correction
    /// (`correct`).
    fn tolerances(&self, cq: f64, cv: f64) -> (f64, f64) {
        let n = self.dims.n;
        let q_scale = 1.0 + self.z[..n].iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let tol = self.opts.tol;
        (
            tol,
            tol.max(100.0 * f64::EPSILON * q_scale * (cv / cq).abs()),
        )
    }

    /// q, v and a at the current q̈.
    fn update_state(&mut self, coef: &Coefficients, start: &StepStart<'_>, h: f64) {
        let n = self.dims.n;
        let (q0, v0) = start.z.split_at(n);
        let (q, v) = self.z.split_at_mut(n);
        for i in 0..n {
            let a = coef.pseudo_acceleration(self.qdd[i], start.qdd[i], start.a[i]);
            self.a[i] = a;
            q[i] = q0[i] + h * v0[i] + h * h * ((0.5 - coef.beta) * start.a[i] + coef.beta * a);
            v[i] = v0[i] + h * ((1.0 - coef.gamma) * start.a[i] + coef.gamma * a);
        }
    }

    /// Ψ at the current iterate into `res`; M and G are left in `mass`, `jac`.
    fn residual<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        cq: f64,
        cv: f64,
    ) -> Result<(), SimError> {
        self.counters.residuals += 1;
        let d = self.dims;
        let (q, v) = self.z.split_at(d.n);
        self.point.eval(sys, t, q)?;
        kernels::force(sys, t, q, v, &mut self.force)?;
        let (dyn_rows, rest) = self.res.split_at_mut(d.n);
        let (phi_rows, nh_rows) = rest.split_at_mut(d.m);
        kernels::phi(sys, t, q, phi_rows)?;
        kernels::nh_offset(sys, t, q, &mut self.offset)?;
        self.dynamic_relative =
            self.point
                .dynamic_rows(&self.force, &self.qdd, &self.lambda, dyn_rows);
        let phi = phi_rows.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        phi_rows.iter_mut().for_each(|x| *x /= cq);
        let mut nh = 0.0_f64;
        for (i, r) in nh_rows.iter_mut().enumerate() {
            let av = self.point.jac_row_dot(d.m + i, v);
            nh = nh.max((av + self.offset[i]).abs());
            *r = (av + self.offset[i]) / cv;
        }
        let max_abs = |x: &[f64]| x.iter().fold(0.0_f64, |s, y| s.max(y.abs()));
        let scaled = (phi / (1.0 + max_abs(q))).max(nh / (1.0 + max_abs(v)));
        self.constraint = (phi.max(nh), scaled);
        Ok(())
    }

    /// New tangents at the iterate and a new factorization of J.
    #[allow(clippy::too_many_arguments)] // system, tangents, the step and its scalings
    fn refresh<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        t: f64,
        h: f64,
        cq: f64,
        cv: f64,
        iteration: usize,
    ) -> Result<(), SimError> {
        let n = self.dims.n;
        let (q, v) = self.z.split_at(n);
        let point = Point {
            t,
            q,
            v,
            qdd: &self.qdd,
            lambda: &self.lambda,
        };
        self.tangents.eval(tangents, sys, &point)?;
        self.nh_work.eval(sys, self.dims, t, q, v, &mut self.nh_q)?;
        self.counters.tangents += 1;
        self.counters.factorizations += 1;
        if !self.factor_selected(cq, cv, t) {
            self.factored_h = None;
            let w = self.dense_w(cq, cv);
            let names = sys.coordinate_names();
            let (block, dependent) = diagnose_singular(self.point.dense_jac(), Some(&w), names);
            return Err(SimError::SingularIterationMatrix {
                t,
                h,
                iteration,
                block,
                dependent_rows: ConstraintRow::named(&dependent, &sys.constraint_names()),
            });
        }
        let spread = self.pivot_spread();
        Conditioning::note(&mut self.conditioning, spread, t);
        self.factored_h = Some(h);
        Ok(())
    }

    /// Assemble and factor J with the redundant rows of G left out ([`crate::redundancy`]):
    /// rows that regained independence are taken back, and a singular J makes a new
    /// selection and is factored again. Whether J factored.
    fn factor_selected(&mut self, cq: f64, cv: f64, t: f64) -> bool {
        let mut ok = self.assemble_factor(cq, cv);
        if ok && !self.rows.is_empty() {
            // ω: the largest diagonal entry of J's (1,1) block M + cq K + cv C.
            let omega = (0..self.dims.n).fold(0.0_f64, |s, i| {
                let (k, c) = self.tangents.diagonal(i);
                s.max((self.point.mass_entry(i, i) + cq * k + cv * c).abs())
            });
            let (spread, matrix) = (self.pivot_spread(), &mut self.matrix);
            let solve = |x: &mut [f64]| solve_with(matrix, x);
            if (self.point).revise_selection(&mut self.rows, (omega, spread, t), solve) {
                ok = self.assemble_factor(cq, cv);
            }
        }
        if !ok {
            let g = self.point.dense_jac();
            if g.iter().all(|x| x.is_finite()) && self.rows.reselect(g, t) {
                ok = self.assemble_factor(cq, cv);
            }
        }
        ok
    }

    /// Assemble J from M, G, K and C and factor it; whether it factored. On the sparse path a
    /// grown tangent pattern or a changed selection of rows first gets its new layout: while
    /// rows are left out J is the matrix of the kept rows alone (`iteration.rs`).
    fn assemble_factor(&mut self, cq: f64, cv: f64) -> bool {
        match &mut self.matrix {
            Matrix::Dense(_) => {
                self.assemble(cq, cv);
                let Matrix::Dense(lu) = &mut self.matrix else {
                    return false;
                };
                lu.factor().is_ok()
            }
            Matrix::Banded(banded) => {
                let Some((nonzeros, t)) = sparse_parts(&self.point, &self.tangents) else {
                    return false;
                };
                if !banded.serves(t, self.rows.left_out()) {
                    let left_out = self.rows.left_out();
                    **banded = BandedIteration::for_selection(nonzeros.0, nonzeros.1, t, left_out);
                }
                banded.factor(nonzeros, t, (cq, cv), &self.rows).is_ok()
            }
        }
    }

    /// The pivot spread of the current factors.
    fn pivot_spread(&self) -> f64 {
        match &self.matrix {
            Matrix::Dense(lu) => lu.pivot_spread(),
            Matrix::Banded(b) => b.pivot_spread(),
        }
    }

    /// The (1,1) block the diagnosis of a singular J reads (allocates): on the dense path the
    /// LU storage's, as before the sparse path existed (after a failed factorization it holds
    /// the partly eliminated matrix, not W: kept so the dense path's diagnoses are unchanged);
    /// on the sparse path W = M + cq K + cv C.
    fn dense_w(&mut self, cq: f64, cv: f64) -> DMatrix<f64> {
        let n = self.dims.n;
        match &mut self.matrix {
            Matrix::Dense(lu) => lu.matrix_mut().view((0, 0), (n, n)).into_owned(),
            Matrix::Banded(_) => {
                let (k, c) = self.tangents.dense_copies();
                self.point.dense_mass() + k * cq + c * cv
            }
        }
    }

    /// J from M, G, K and C into the dense LU storage (not yet factored).
    fn assemble(&mut self, cq: f64, cv: f64) {
        let (n, r) = (self.dims.n, self.dims.constraint_rows());
        let (Matrix::Dense(lu), PointMatrices::Dense { mass, jac }, TangentStore::Dense { k, c }) =
            (&mut self.matrix, &self.point, &self.tangents)
        else {
            return;
        };
        let j = lu.matrix_mut();
        j.fill(0.0);
        for col in 0..n {
            for row in 0..n {
                j[(row, col)] = mass[(row, col)] + cq * k[(row, col)] + cv * c[(row, col)];
            }
            for row in 0..r {
                j[(n + row, col)] = jac[(row, col)];
                j[(col, n + row)] = jac[(row, col)];
            }
            for row in 0..self.dims.k {
                j[(n + self.dims.m + row, col)] += cq / cv * self.nh_q[(row, col)];
            }
        }
        if !self.rows.is_empty() {
            self.rows.mask_dense(j, n, jac);
        }
    }

    /// Ψ and J (unfactored) at the unknowns `x` = (q̈, λ) of a step from `start`: the
    /// diagnostic behind [`super::newton_system`]. Allocates (cold path).
    #[allow(clippy::too_many_arguments)] // system, tangents, scheme, start, step and unknowns
    pub(crate) fn probe<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        coef: &Coefficients,
        start: &StepStart<'_>,
        t: f64,
        h: f64,
        x: &[f64],
    ) -> Result<(Vec<f64>, DMatrix<f64>), SimError> {
        let n = self.dims.n;
        let (cq, cv) = (coef.beta * h * h * coef.c(), coef.gamma * h * coef.c());
        self.qdd.copy_from_slice(&x[..n]);
        self.lambda.copy_from_slice(&x[n..]);
        self.update_state(coef, start, h);
        self.residual(sys, t + h, cq, cv)?;
        let (q, v) = self.z.split_at(n);
        let point = Point {
            t: t + h,
            q,
            v,
            qdd: &self.qdd,
            lambda: &self.lambda,
        };
        self.tangents.eval(tangents, sys, &point)?;
        self.nh_work
            .eval(sys, self.dims, t + h, q, v, &mut self.nh_q)?;
        self.assemble(cq, cv);
        let j = match &mut self.matrix {
            Matrix::Dense(lu) => lu.matrix_mut().clone(),
            Matrix::Banded(_) => DMatrix::zeros(0, 0),
        };
        Ok((self.res.clone(), j))
    }

    /// Solve J Δ = Ψ, x ← x − Δ; returns the correction scaled so that ≤ 1 passes: position
    /// parts cq |Δq̈_i| / (1 + |q_i|) against tol, velocity parts cv |Δq̈_i| / (1 + |v_i|)
    /// against tol_v = max(tol, 100 ε (1 + ‖q‖∞) cv/cq). The floor of tol_v is the noise the
    /// 1/cq scaling of Φ puts into v: round-off δΦ ≈ ε (1 + ‖q‖∞) in Φ moves q̈ by δΦ/cq and v
    /// by cv δΦ/cq = γ δΦ/(β h), which no iteration removes (the h⁻² conditioning of index-3
    /// methods).
    fn correct(&mut self, cq: f64, cv: f64) -> f64 {
        self.counters.iterations += 1;
        solve_with(&mut self.matrix, &mut self.res);
        let n = self.dims.n;
        if !self.rows.is_empty() {
            self.rows.pin_corrections(&self.lambda, &mut self.res[n..]);
        }
        let (tol, tol_v) = self.tolerances(cq, cv);
        let mut norm = 0.0_f64;
        for i in 0..n {
            let d = self.res[i];
            self.qdd[i] -= d;
            let dq = (cq * d).abs() / (1.0 + self.z[i].abs()) / tol;
            let dv = (cv * d).abs() / (1.0 + self.z[n + i].abs()) / tol_v;
            norm = norm.max(dq).max(dv);
            if !d.is_finite() {
                norm = f64::NAN;
            }
        }
        for (l, d) in self.lambda.iter_mut().zip(&self.res[n..]) {
            *l -= d;
        }
        norm
    }

    /// Factor the iteration matrix of step h at the solution held, unless one for h is held: a
    /// solve that converged before any correction (a start that already satisfies the step's
    /// equations — the pendulum released at rest from the horizontal, whose predictor meets
    /// the dynamics exactly) factors nothing, and the error filter needs one.
    pub(crate) fn ensure_factored<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        coef: &Coefficients,
        t_new: f64,
        h: f64,
    ) -> Result<(), SimError> {
        if self.factored_h == Some(h) {
            return Ok(());
        }
        let (cq, cv) = (coef.beta * h * h * coef.c(), coef.gamma * h * coef.c());
        self.refresh(sys, tangents, t_new, h, cq, cv, 0)
    }

    /// Δ ← the first n entries of J⁻¹ (M Δ, 0), with J the last factored iteration matrix and
    /// M from the last residual evaluation (the stepper's error filter). Uses `noise` as
    /// scratch, so that the last residual stays for `round_off_into`.
    pub(crate) fn filter(&mut self, delta: &mut [f64]) {
        let n = self.dims.n;
        self.noise.fill(0.0);
        self.point.mass_mul(delta, &mut self.noise[..n]);
        solve_with(&mut self.matrix, &mut self.noise);
        delta.copy_from_slice(&self.noise[..n]);
    }

    /// The q̈ part of δ_ro's probe (`noise_level`) for the step of size `h` held into `out`:
    /// the change of q̈ that J⁻¹ gives Φ's evaluation noise at the solution held, the
    /// round-off level of the q̈ the error estimate differences (`stepper.rs`,
    /// `ROUND_OFF_SAFETY`). Needs the residual of the last iterate in `res`: call before
    /// anything that uses it as scratch (the filter does not). One back substitution.
    pub(crate) fn round_off_into(&mut self, coef: &Coefficients, h: f64, out: &mut [f64]) {
        let (cq, cv) = (coef.beta * h * h * coef.c(), coef.gamma * h * coef.c());
        let size = self.z.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        self.probe_round_off(cq, cv, size);
        out.copy_from_slice(&self.noise[..self.dims.n]);
    }

    /// max(‖Φ‖∞, ‖A v + b‖∞) at the last residual evaluation.
    pub(crate) fn constraint_residual(&self) -> f64 {
        self.constraint.0
    }
}

/// Solve in place with the factors of `matrix`.
fn solve_with(matrix: &mut Matrix, rhs: &mut [f64]) {
    match matrix {
        Matrix::Dense(lu) => lu.solve_in_place(rhs),
        Matrix::Banded(b) => b.solve_in_place(rhs),
    }
}
