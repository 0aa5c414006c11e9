//! The simplified Newton iteration of one Radau IIA step on the index-3 DAE, and the linear
//! solve of the embedded error estimate.
//!
//! Unknowns x = (A_1, A_2, A_3, Λ_1, Λ_2, Λ_3): the stage accelerations and multipliers. The
//! stage states follow from them (`tableau.rs`):
//! ```text
//! V_i = v0 + h Σ_j a_ij A_j,   Q_i = q0 + c_i h v0 + h² Σ_j (𝒜²)_ij A_j,   t_i = t0 + c_i h
//! ```
//! and the residual is, per stage,
//! ```text
//! F_i = M(Q_i) A_i + G(Q_i)ᵀ Λ_i − Q(t_i, Q_i, V_i),   Φ(t_i, Q_i) / h²,
//!       (A(t_i, Q_i) V_i + b(t_i, Q_i)) / h
//! ```
//! (the holonomic rows scaled by 1/h², as the 1/(βh²) of the Newmark iteration; the
//! nonholonomic rows, index 2, by 1/h, so both are O(1) in the stage accelerations). Its
//! Jacobian with every tangent frozen at the step start (q0, v0, a0, λ0), G_i = G(q0), is the
//! iteration matrix
//! ```text
//! J = [ I⊗M + h² 𝒜²⊗K + h 𝒜⊗C            diag_i(G_iᵀ) ;
//!       block (i, j): (𝒜²)_ij Φ_q,i           0 ;
//!       block (i, j): 𝒜_ij A_i + h (𝒜²)_ij N  0 ]
//! K = ∂(M a + Gᵀλ − Q)/∂q,  C = −∂Q/∂v,  N = ∂(A v + b)/∂q (central differences, k > 0 only)
//! ```
//! the Newmark matrix of `implicit/newton.rs` Kronecker'd with the Radau matrix, factored once
//! by a dense LU of order 3(n + m) and reused across iterations (and across steps while h is
//! unchanged and the tangents are kept, `stepper.rs`). Large sparse models
//! (`implicit/iteration.rs`) keep M, G, K and C as nonzeros and factor J banded with its
//! stages interleaved per unknown (`stages.rs`), the estimate's matrix banded too.
//!
//! Singular passages: with G at the step start alone the iteration cannot cross a position
//! where G changes sign within the step (the A02 chain's G = 2ℓ² sin θ D; Radau failed at its
//! first passage at every tolerance and step). A solve that fails is redone
//! (`stepper.rs`) with `stage_jacobians`: G_i = G(t_i, Q_i⁰) at the stage positions of the
//! Newton start, the exact derivatives there. Only then: as the default it kept tangents far
//! longer (the contraction looks excellent) and let single corrections pass on a carried-over
//! η, which cost three decades of accuracy on the redundant models (Radau 3.7e-9 → 1.1e-5 in
//! ψ on `four-bar-chain-extra`, `models/tests/suite/redundant.rs`).
//!
//! Round-off: near a singular configuration J's condition grows like 1/s² and the corrections
//! stagnate at ε cond(J), above a constant-step κ near round-off; an iterate that satisfies Φ
//! to round-off and the dynamic rows to √ε of their terms is accepted where the iteration would
//! otherwise be given up (`StageSolver::at_round_off`). On the body form of the chain the
//! retried solve (stage Jacobians) stalls higher, at ε ‖q‖/σ_min(G) in coordinates weighted by
//! atol alone (0.05–0.4 error-weight units at rtol 1e-10/1e-11 against κ = 2.2e-5): with Φ at
//! round-off and corrections not growing twofold the iterate is accepted too, and its level is
//! kept in `stall_noise` for the error test (`stepper.rs`, `STALL_SAFETY`), which respects the
//! measured round-off level δ_ro of a retried solve's corrections whether it stalled or not.
//!
//! Convergence (Hairer–Wanner II §IV.8, `radau5.f`): with ‖Δ_k‖ the RMS of the stage
//! corrections of positions and velocities in the weights the stepper gives (`stepper.rs`), θ_k = ‖Δ_k‖/‖Δ_{k−1}‖ (geometric mean of the last two from k = 3 on) and
//! η = θ/(1 − θ), the iteration has converged when η ‖Δ_k‖ ≤ κ (η carried over from the last
//! step for the first iteration; constant-step runs, whose κ is near round-off, require two
//! corrections: a θ carried over from a solve that ended in round-off is meaninglessly small
//! and let a single correction pass with an error ~1e4 κ, measured on the pendulum). θ ≥ 0.99 is divergence; when the predicted error after the
//! remaining iterations, η ‖Δ_k‖ θ^(k_max − 1 − k) / κ, exceeds 1 the step is given up early
//! with the step-size factor 0.8 (that ratio)^(−1/(4 + k_max − 1 − k)) (adaptive runs only).

use crate::redundancy::RowSelection;
use nalgebra::DMatrix;

use crate::error::{ConstraintRow, NewtonDiagnosis, SimError};
use crate::implicit::NhWork;
use crate::implicit::iteration::{BandedIteration, sparse_parts, sparse_plan};
use crate::implicit::matrices::PointMatrices;
use crate::implicit::tangents::{Point, TangentStore, Tangents};
use crate::kernels;
use crate::kkt::{Conditioning, KktSolver};
use crate::lu::{DenseLu, diagnose_singular};
use crate::sparse::JacobianStore;
use crate::system::{ConstrainedSystem, Dims};

use super::assembly::{DenseBlocks, DenseStages, StageMatrix};
use super::stages::BandedStages;
use super::tableau::RadauTableau;

/// The stall rule's allowance over the measured round-off level δ_ro of the corrections
/// (`StageSolver::stalled`): PStab's [`crate::stabilize::NOISE_SAFETY`] = 16, the factor the
/// error test gives the same level (`stepper.rs`, `STALL_SAFETY`), so that a solve the rule
/// accepts is one the error test can judge. δ_ro probes one sign pattern of round-off, the
/// stalled corrections are the sum of many such terms; measured at the A02 chain's passages
/// (body form, rtol 1e-11, 0.7 … 1.5 s) δ_ro was 0.01 … 3.3 where the corrections stalled at
/// 0.005 … 1.05, the one stall above 1 error-weight unit at 0.32 δ_ro.
const STALL_ROUND_OFF: f64 = crate::stabilize::NOISE_SAFETY;

/// The start of a step: t0, (q0, v0) as one slice, a0 and λ0 (consistent).
pub(crate) struct Start<'a> {
    pub(crate) t: f64,
    pub(crate) z: &'a [f64],
    pub(crate) a: &'a [f64],
    pub(crate) lambda: &'a [f64],
}

/// Counters of the stage solves.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Counters {
    pub(crate) iterations: usize,
    /// Stage evaluations (each one evaluation of M, G, Q and Φ).
    pub(crate) stage_evaluations: usize,
    pub(crate) tangents: usize,
    pub(crate) factorizations: usize,
    pub(crate) failures: usize,
}

/// How one stage solve ended.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Outcome {
    Converged,
    /// Converging too slowly to reach κ within the limit: redo the step with h × this factor.
    Slow(f64),
    Failed(NewtonDiagnosis, usize, f64),
}

/// The convergence test of one solve.
pub(crate) struct Test<'a> {
    /// Weights of the position and velocity corrections (length 2n, q then v).
    pub(crate) scale: &'a [f64],
    /// κ: the bound on η ‖Δ‖.
    pub(crate) kappa: f64,
    pub(crate) max_iterations: usize,
    /// Give up early on slow convergence (adaptive runs).
    pub(crate) predict: bool,
    /// Corrections before the test may pass: 1 lets η carried over from the last step judge
    /// the first correction (`radau5.f`), 2 uses this solve's own contraction.
    pub(crate) min_iterations: usize,
}

/// The stage system's workspace; after a converged solve the stage values are in `acc`,
/// `mult`, `q` and `v` (stage-major: stage i at i n .. (i + 1) n).
pub(crate) struct StageSolver {
    n: usize,
    r: usize,
    dims: Dims,
    pub(crate) tab: RadauTableau,
    /// The factors of J and of the estimate's matrix: dense, or banded on the sparse path.
    matrix: StageMatrix,
    /// M and G at the step start.
    start_point: PointMatrices,
    /// The stage constraint rows' and Gᵀ blocks' G: G(t_i, Q_i⁰) at the stage positions the
    /// Newton iteration of the factoring step starts from when `stage_jacobians`, else G at
    /// the step start (module docs).
    g_stage: [JacobianStore; 3],
    /// Take G per stage in the next factorizations (the retry of a failed solve, `stepper.rs`).
    pub(crate) stage_jacobians: bool,
    /// K and C at the step start.
    tangents: TangentStore,
    /// N = ∂(A v + b)/∂q at the step start (k × n; empty for k = 0).
    nh0: DMatrix<f64>,
    nh_work: NhWork,
    /// b(t, Q_i) of the stage being evaluated (length k).
    offset: Vec<f64>,
    /// M and G at the stage being evaluated.
    point: PointMatrices,
    force: Vec<f64>,
    pub(crate) acc: Vec<f64>,
    pub(crate) mult: Vec<f64>,
    pub(crate) q: Vec<f64>,
    pub(crate) v: Vec<f64>,
    res: Vec<f64>,
    rhs: Vec<f64>,
    /// h of the factorization held, if any.
    pub(crate) factored_h: Option<f64>,
    /// The last contraction rate θ and η = θ/(1 − θ) (carried across steps as `radau5.f`).
    pub(crate) theta: f64,
    faccon: f64,
    /// max ‖Φ(t_i, Q_i)‖∞ at the last residual evaluation.
    phi_max: f64,
    /// max_i |F_i| / (Σ_j |M_ij A_j| + Σ_j |G_ji Λ_j| + |Q_i|) over the stages' dynamic rows at
    /// the last residual evaluation: the residual relative to the round-off of its terms.
    dynamic_relative: f64,
    /// max ‖(Q_i, V_i)‖∞ over the stages at the last residual evaluation.
    state_size: f64,
    /// The size of the last corrections (error-weight units) when the solve ended stalled at
    /// round-off (`stalled`), else 0: the noise floor of the stage values, which the error
    /// test then respects (`stepper.rs`).
    pub(crate) stall_noise: f64,
    /// The round-off level of the corrections in error-weight units, δ_ro (`noise_level`),
    /// measured in the current solve when its constraint rows hold to round-off, else 0; the
    /// error test respects it (`stepper.rs`, `STALL_SAFETY`).
    pub(crate) round_off_level: f64,
    /// The probe of `noise_level`: a round-off-sized residual and its correction.
    noise: Vec<f64>,
    pub(crate) counters: Counters,
    pub(crate) conditioning: Option<Conditioning>,
    /// The rows of G left out of the stage system as redundant ([`crate::redundancy`]).
    pub(crate) rows: RowSelection,
}

impl StageSolver {
    pub(crate) fn new(dims: Dims) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            n,
            r,
            dims,
            tab: RadauTableau::new(),
            matrix: StageMatrix::Dense {
                stages: Box::new(DenseStages::for_selection(n, r, &[])),
                estimate: DenseLu::new(n + r),
            },
            start_point: PointMatrices::dense(dims),
            g_stage: std::array::from_fn(|_| JacobianStore::new(r, n)),
            stage_jacobians: false,
            tangents: TangentStore::dense(n),
            nh0: DMatrix::zeros(dims.k, n),
            nh_work: NhWork::new(dims),
            offset: vec![0.0; dims.k],
            point: PointMatrices::dense(dims),
            force: vec![0.0; n],
            acc: vec![0.0; 3 * n],
            mult: vec![0.0; 3 * r],
            q: vec![0.0; 3 * n],
            v: vec![0.0; 3 * n],
            res: vec![0.0; 3 * (n + r)],
            rhs: vec![0.0; n + r],
            factored_h: None,
            theta: 1.0,
            faccon: 1.0,
            phi_max: 0.0,
            dynamic_relative: f64::INFINITY,
            state_size: 0.0,
            stall_noise: 0.0,
            round_off_level: 0.0,
            noise: vec![0.0; 3 * (n + r)],
            counters: Counters::default(),
            conditioning: None,
            rows: RowSelection::default(),
        }
    }

    /// Move to the sparse path when `sys` goes on it under the policy `solver`
    /// (`implicit/iteration.rs`, judged on the stage system); before the first step.
    pub(crate) fn prepare<S: ConstrainedSystem + ?Sized>(&mut self, sys: &S, solver: KktSolver) {
        let Some(tangents) = sparse_plan(sys, solver, 3) else {
            return;
        };
        let (start_point, point) = (PointMatrices::sparse(sys), PointMatrices::sparse(sys));
        if let Some((mass, jac)) = start_point.nonzeros() {
            let left_out = self.rows.left_out();
            self.matrix = StageMatrix::Banded {
                stages: Box::new(BandedStages::for_selection(mass, jac, &tangents, left_out)),
                estimate: Box::new(BandedIteration::for_selection(
                    mass, jac, &tangents, left_out,
                )),
            };
        }
        for g in &mut self.g_stage {
            g.prepare(sys);
        }
        (self.start_point, self.point) = (start_point, point);
        self.tangents = TangentStore::Sparse(Box::new(tangents));
    }

    /// M, G, K and C at the step start; the factorization held becomes stale.
    pub(crate) fn freeze_tangents<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        start: &Start<'_>,
    ) -> Result<(), SimError> {
        let (q, v) = start.z.split_at(self.n);
        self.start_point.eval(sys, start.t, q)?;
        let point = Point {
            t: start.t,
            q,
            v,
            qdd: start.a,
            lambda: start.lambda,
        };
        self.tangents.eval(tangents, sys, &point)?;
        self.nh_work
            .eval(sys, self.dims, start.t, q, v, &mut self.nh0)?;
        self.counters.tangents += 1;
        self.factored_h = None;
        Ok(())
    }

    /// Assemble and factor J (module docs) and the estimate's matrix for step `h` from
    /// `start`; with `stage_jacobians`, G per stage at the stage positions of the Newton start
    /// held in `acc`.
    pub(crate) fn factor<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        start: &Start<'_>,
        h: f64,
    ) -> Result<(), SimError> {
        self.counters.factorizations += 1;
        let t = start.t;
        self.stage_states(start, h);
        for (i, g) in self.g_stage.iter_mut().enumerate() {
            let ti = t + self.tab.c[i] * h;
            match self.stage_jacobians {
                true => g.eval(sys, ti, &self.q[i * self.n..(i + 1) * self.n])?,
                false => g.copy_from(self.start_point.jac()),
            }
        }
        let mut singular = !self.factor_both(h, t + h);
        if singular {
            let g0 = self.start_point.dense_jac();
            if g0.iter().all(|x| x.is_finite()) && self.rows.reselect(g0, t + h) {
                singular = !self.factor_both(h, t + h);
            }
        }
        if singular {
            self.factored_h = None;
            let (a11, a2_11) = (self.tab.a[0][0], self.tab.a2[0][0]);
            let (k0, c0) = self.tangents.dense_copies();
            let w = &self.start_point.dense_mass() + &k0 * (h * h * a2_11) + &c0 * (h * a11);
            let names = sys.coordinate_names();
            let (block, dependent) =
                diagnose_singular(self.start_point.dense_jac(), Some(&w), names);
            return Err(SimError::SingularIterationMatrix {
                t: t + h,
                h,
                iteration: 0,
                block,
                dependent_rows: ConstraintRow::named(&dependent, &sys.constraint_names()),
            });
        }
        let spread = self.matrix.stages_spread();
        Conditioning::note(&mut self.conditioning, spread, t + h);
        self.factored_h = Some(h);
        Ok(())
    }

    /// Assemble and factor J and the estimate's matrix with the redundant rows of G left out
    /// ([`crate::redundancy`]; rows that regained independence, judged on the estimate's
    /// matrix [W Gᵀ; G 0], are taken back first). Whether both factored.
    fn factor_both(&mut self, h: f64, t: f64) -> bool {
        let mut ok = self.factor_estimate(h);
        if ok && !self.rows.is_empty() {
            // ω: the largest diagonal entry of M + γh C + (γh)² K.
            let gh = self.tab.gamma0 * h;
            let omega = (0..self.n).fold(0.0_f64, |s, i| {
                let (k, c) = self.tangents.diagonal(i);
                let w = self.start_point.mass_entry(i, i) + gh * c + gh * gh * k;
                s.max(w.abs())
            });
            let spread = self.matrix.estimate_spread();
            // By rows on the sparse path (no dense G per factorization), as the Newmark family.
            let matrix = &mut self.matrix;
            if self
                .start_point
                .revise_selection(&mut self.rows, (omega, spread, t), |x| {
                    matrix.solve_estimate(x)
                })
            {
                ok = self.factor_estimate(h);
            }
        }
        ok && self.factor_stages(h)
    }

    /// Assemble and factor the estimate's matrix; whether it factored (on the sparse path a
    /// grown tangent pattern or a changed selection first gets its new layout, `assembly.rs`).
    fn factor_estimate(&mut self, h: f64) -> bool {
        let gh = self.tab.gamma0 * h;
        match &mut self.matrix {
            StageMatrix::Dense { estimate, .. } => {
                let held = (&self.start_point, &self.tangents, &self.g_stage, &self.nh0);
                let Some(blocks) = dense_blocks(&self.tab, held, self.dims.m) else {
                    return false;
                };
                blocks.estimate_matrix(estimate.matrix_mut(), h, &self.rows);
                estimate.factor().is_ok()
            }
            StageMatrix::Banded { estimate, .. } => {
                let Some((nonzeros, t)) = sparse_parts(&self.start_point, &self.tangents) else {
                    return false;
                };
                let left_out = self.rows.left_out();
                if !estimate.serves(t, left_out) {
                    **estimate =
                        BandedIteration::for_selection(nonzeros.0, nonzeros.1, t, left_out);
                }
                estimate
                    .factor(nonzeros, t, (gh * gh, gh), &self.rows)
                    .is_ok()
            }
        }
    }

    /// Assemble and factor J over the kept rows (`assembly.rs`; a changed selection or, on
    /// the sparse path, a grown tangent pattern first gets its new layout); whether it
    /// factored.
    fn factor_stages(&mut self, h: f64) -> bool {
        let left_out = self.rows.left_out();
        match &mut self.matrix {
            StageMatrix::Dense { stages, .. } => {
                let held = (&self.start_point, &self.tangents, &self.g_stage, &self.nh0);
                let Some(blocks) = dense_blocks(&self.tab, held, self.dims.m) else {
                    return false;
                };
                if !stages.serves(left_out) {
                    **stages = DenseStages::for_selection(self.n, self.r, left_out);
                }
                stages.assemble(&blocks, h);
                stages.factor().is_ok()
            }
            StageMatrix::Banded { stages, .. } => {
                let Some(((mass, g0), t)) = sparse_parts(&self.start_point, &self.tangents) else {
                    return false;
                };
                if !stages.serves(t, left_out) {
                    **stages = BandedStages::for_selection(mass, g0, t, left_out);
                }
                let g_stage = self
                    .g_stage
                    .each_ref()
                    .map(|g| g.sparse.as_ref().unwrap_or(g0));
                stages.factor((&self.tab, h), (mass, t), g_stage).is_ok()
            }
        }
    }

    /// Q_i and V_i from the stage accelerations.
    pub(crate) fn stage_states(&mut self, start: &Start<'_>, h: f64) {
        let n = self.n;
        let (q0, v0) = start.z.split_at(n);
        for i in 0..3 {
            for k in 0..n {
                let (mut dq, mut dv) = (0.0, 0.0);
                for j in 0..3 {
                    let aj = self.acc[j * n + k];
                    dq += self.tab.a2[i][j] * aj;
                    dv += self.tab.a[i][j] * aj;
                }
                self.q[i * n + k] = q0[k] + self.tab.c[i] * h * v0[k] + h * h * dq;
                self.v[i * n + k] = v0[k] + h * dv;
            }
        }
    }

    /// The residual (module docs) at the current stage values into `res`.
    fn residual<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t0: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let (n, r) = (self.n, self.r);
        self.phi_max = 0.0;
        self.dynamic_relative = 0.0;
        self.state_size = 0.0;
        for i in 0..3 {
            self.counters.stage_evaluations += 1;
            let t = t0 + self.tab.c[i] * h;
            let (q, v) = (&self.q[i * n..(i + 1) * n], &self.v[i * n..(i + 1) * n]);
            self.point.eval(sys, t, q)?;
            kernels::force(sys, t, q, v, &mut self.force)?;
            let size = q.iter().chain(v).fold(0.0_f64, |s, x| s.max(x.abs()));
            self.state_size = self.state_size.max(size);
            self.constraint_rows(sys, t, h, i)?;
            let (a, l) = (
                &self.acc[i * n..(i + 1) * n],
                &self.mult[i * r..(i + 1) * r],
            );
            let out = &mut self.res[i * n..(i + 1) * n];
            let relative = self.point.dynamic_rows(&self.force, a, l, out);
            self.dynamic_relative = self.dynamic_relative.max(relative);
        }
        Ok(())
    }

    /// Whether the current iterate is as good as the arithmetic allows (module docs): the
    /// constraint rows hold to round-off, 1e3 ε (1 + ‖(Q, V)‖∞), and the dynamic rows to √ε of
    /// their terms' size. Near a singular configuration J's condition grows like 1/s² (s the
    /// distance in G's weakest direction) and the corrections stagnate at ε cond(J): on the
    /// A02 chain at its passage (h = 1e-4, t = 0.7216) they wandered between 1e-11 and 7e-11
    /// against κ = 1e-12 while Φ stayed at 4e-16 and the dynamic rows at 1e-9 … 1e-10 relative.
    /// Such an iterate is accepted where the iteration would otherwise be given up; the error
    /// estimate (adaptive runs) still judges the step.
    fn at_round_off(&self) -> bool {
        self.dynamic_relative <= f64::EPSILON.sqrt() && self.constraints_at_round_off()
    }

    /// Whether the iteration stalls at round-off (module docs): Φ holds to round-off, the
    /// correction `dyno` did not grow more than twofold over the last `dynold` (measured at
    /// the A02 chain's passage: successive corrections wander by factors 0.7 … 1.45, at
    /// 0.05 … 0.63 error-weight units), and both are within what the arithmetic explains:
    /// max(dyno, dynold) ≤ max(1, STALL_ROUND_OFF δ_ro), δ_ro the measured round-off level
    /// of the corrections (`noise_level`). Where G is well conditioned δ_ro ≪ 1 and the bound
    /// is the error tolerance itself (1 error-weight unit): without a bound the flyball
    /// governor's retried solves were accepted after corrections far above the tolerance and
    /// its L_z drifted 3e-3 instead of 1e-7 (`models/tests/suite/spatial.rs`). At a passage
    /// δ_ro grows like ε ‖q‖/σ_min(G) and the bound with it, so a correction that is round-off
    /// of the stage values passes at every tolerance (the constant 1 failed the body form at
    /// rtol 1e-11 at t = 0.7214 with a stalled correction of 0.63 units above 1 before it).
    /// Only with the stage Jacobians: with G of the step start, whose sign flips across the
    /// passage, J is no model of the stage system and small corrections prove nothing.
    fn stalled(&self, dyno: f64, dynold: f64) -> bool {
        let bound = (STALL_ROUND_OFF * self.round_off_level).max(1.0);
        let small = dyno.max(dynold) <= bound;
        self.stage_jacobians && self.constraints_at_round_off() && dyno <= 2.0 * dynold && small
    }

    /// Whether the stages' constraint rows hold to round-off, 1e3 ε (1 + ‖(Q, V)‖∞).
    fn constraints_at_round_off(&self) -> bool {
        self.phi_max <= 1e3 * f64::EPSILON * (1.0 + self.state_size)
    }

    /// δ_ro: the correction J⁻¹ρ in error-weight units of a residual ρ that is the round-off
    /// of Φ's evaluation, ε (1 + ‖(Q, V)‖∞) in every constraint row (÷ h² as the rows are,
    /// ÷ h for nonholonomic rows) with the signs of the current residual (at a stall those are
    /// noise), 0 in the dynamic rows. Near a singular position J⁻¹ maps such a residual along
    /// G's weakest directions with the gain 1/σ_min(G), which is the stall level the corrections
    /// show (module docs); one more back substitution with the factors held, made only where
    /// the stall rule is asked (stage Jacobians, Φ at round-off). Reads `res` before its solve.
    fn noise_level(&mut self, h: f64, scale: &[f64]) -> f64 {
        let (n, r, m) = (self.n, self.r, self.dims.m);
        let floor = f64::EPSILON * (1.0 + self.state_size);
        self.noise[..3 * n].fill(0.0);
        for s in 0..3 {
            for row in 0..r {
                let i = 3 * n + s * r + row;
                let div = if row < m { h * h } else { h };
                self.noise[i] = (floor / div).copysign(self.res[i]);
            }
        }
        self.matrix.solve_stages(&mut self.noise);
        pin_redundant(&self.rows, &self.mult, (n, r), &mut self.noise);
        correction_norm(&self.tab, n, &self.noise, h, scale)
    }

    /// Stage i's constraint rows of the residual: Φ/h² and (A V_i + b)/h (module docs), with
    /// the stage's G already in `jac`; their largest magnitude (unscaled) into `phi_max`.
    fn constraint_rows<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        i: usize,
    ) -> Result<(), SimError> {
        let (n, r, m) = (self.n, self.r, self.dims.m);
        let (q, v) = (&self.q[i * n..(i + 1) * n], &self.v[i * n..(i + 1) * n]);
        let rows = &mut self.res[3 * n + i * r..3 * n + (i + 1) * r];
        kernels::phi(sys, t, q, &mut rows[..m])?;
        if m < r {
            kernels::nh_offset(sys, t, q, &mut self.offset)?;
            for (row, x) in rows[m..].iter_mut().enumerate() {
                let av = self.point.jac_row_dot(m + row, v);
                *x = av + self.offset[row];
            }
        }
        for (row, x) in rows.iter_mut().enumerate() {
            self.phi_max = self.phi_max.max(x.abs());
            *x /= if row < m { h * h } else { h };
        }
        Ok(())
    }

    /// The simplified Newton iteration from the stage values in `acc`, `mult` (module docs);
    /// the matrix must be factored for `h`. On convergence the stage states are up to date.
    pub(crate) fn solve<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        start: &Start<'_>,
        h: f64,
        test: &Test<'_>,
    ) -> Result<Outcome, SimError> {
        let nit = test.max_iterations;
        self.faccon = self.faccon.max(f64::EPSILON).powf(0.8);
        let (mut dynold, mut thqold) = (0.0_f64, 0.0_f64);
        for newt in 1..=nit {
            self.stage_states(start, h);
            self.residual(sys, start.t, h)?;
            // After a correction, an iterate whose residual is round-off is the solution: the
            // iteration ends there where it would otherwise be given up (below).
            let at_round_off = newt > 1 && self.at_round_off();
            self.round_off_level = match self.stage_jacobians && self.constraints_at_round_off() {
                true => self.noise_level(h, test.scale),
                false => 0.0,
            };
            self.matrix.solve_stages(&mut self.res);
            pin_redundant(&self.rows, &self.mult, (self.n, self.r), &mut self.res);
            self.counters.iterations += 1;
            let dyno = correction_norm(&self.tab, self.n, &self.res, h, test.scale);
            // The round-off level an acceptance here would carry (`stall_noise`).
            self.stall_noise = match !at_round_off && newt > 1 && self.stalled(dyno, dynold) {
                true => dyno.max(dynold),
                false => 0.0,
            };
            let settled = at_round_off || self.stall_noise > 0.0;
            if !dyno.is_finite() {
                return Ok(Outcome::Failed(NewtonDiagnosis::NonFinite, newt, dyno));
            }
            if newt > 1 && newt < nit {
                let thq = dyno / dynold;
                self.theta = if newt == 2 {
                    thq
                } else {
                    (thq * thqold).sqrt()
                };
                thqold = thq;
                if self.theta >= 0.99 {
                    return Ok(match settled {
                        true => Outcome::Converged,
                        false => Outcome::Failed(NewtonDiagnosis::Diverging, newt, dyno),
                    });
                }
                self.faccon = self.theta / (1.0 - self.theta);
                let left = (nit - 1 - newt) as i32;
                let dyth = self.faccon * dyno * self.theta.powi(left) / test.kappa;
                if test.predict && dyth >= 1.0 {
                    let qnewt = dyth.clamp(1e-4, 20.0);
                    return Ok(match settled {
                        true => Outcome::Converged,
                        false => Outcome::Slow(0.8 * qnewt.powf(-1.0 / (4.0 + left as f64))),
                    });
                }
            }
            if settled && newt == nit {
                return Ok(Outcome::Converged);
            }
            dynold = dyno.max(f64::EPSILON);
            let (n, r) = (self.n, self.r);
            for (a, d) in self.acc.iter_mut().zip(&self.res[..3 * n]) {
                *a -= d;
            }
            for (l, d) in self.mult.iter_mut().zip(&self.res[3 * n..3 * (n + r)]) {
                *l -= d;
            }
            if newt >= test.min_iterations && self.faccon * dyno <= test.kappa {
                self.stall_noise = 0.0;
                self.stage_states(start, h);
                return Ok(Outcome::Converged);
            }
        }
        let rate = self.theta;
        Ok(Outcome::Failed(
            NewtonDiagnosis::IterationLimit { rate },
            nit,
            dynold,
        ))
    }

    /// Have the next tangent evaluation check the sparse path's pattern again (a failed or
    /// crawling solve, see [`TangentStore::distrust`]).
    pub(crate) fn distrust_tangents(&mut self) {
        self.tangents.distrust();
    }

    /// Forget the contraction of the last solve (θ and η as at the start of a run): after a
    /// solve with the stage Jacobians, whose contraction says nothing of the usual matrix's,
    /// the next step's first correction must not pass on that η.
    pub(crate) fn forget_contraction(&mut self) {
        (self.theta, self.faccon) = (1.0, 1.0);
    }

    /// max(‖Φ‖∞, ‖A v + b‖∞) over the stages at the last residual evaluation.
    pub(crate) fn constraint_residual(&self) -> f64 {
        self.phi_max
    }

    /// The embedded error estimate of `radau5.f` for the stages held (`stepper.rs` docs):
    /// (e_q, e_v) into `eq`, `ev` (length n each).
    pub(crate) fn estimate(&mut self, start: &Start<'_>, h: f64, eq: &mut [f64], ev: &mut [f64]) {
        let n = self.n;
        let (q0, v0) = start.z.split_at(n);
        let gh = self.tab.gamma0 * h;
        // r_q = v0 + Σ d_i (Q_i − q0)/h and r_v = a0 + Σ d_i (V_i − v0)/h, in eq and ev.
        for k in 0..n {
            let (mut rq, mut rv) = (v0[k], start.a[k]);
            for i in 0..3 {
                let d = self.tab.d[i] / h;
                rq += d * (self.q[i * n + k] - q0[k]);
                rv += d * (self.v[i * n + k] - v0[k]);
            }
            (eq[k], ev[k]) = (rq, rv);
        }
        self.rhs.fill(0.0);
        self.estimate_rhs(gh, eq, ev);
        self.matrix.solve_estimate(&mut self.rhs);
        for k in 0..n {
            let e = self.rhs[k];
            ev[k] = e / gh - eq[k];
            eq[k] = e;
        }
    }

    /// The estimate's right side γh M (γh e_v + e_q) + (γh)² C e_q (the rows of `rhs`, zeroed).
    fn estimate_rhs(&mut self, gh: f64, eq: &[f64], ev: &[f64]) {
        match (&self.start_point, &self.tangents) {
            (PointMatrices::Dense { mass, .. }, TangentStore::Dense { c, .. }) => {
                for row in 0..self.n {
                    let mut x = 0.0;
                    for col in 0..self.n {
                        let m = mass[(row, col)];
                        x += gh * gh * m * ev[col] + (gh * m + gh * gh * c[(row, col)]) * eq[col];
                    }
                    self.rhs[row] = x;
                }
            }
            (point, TangentStore::Sparse(t)) => {
                if let Some((mass, _)) = point.nonzeros() {
                    for (&(i, j), &m) in mass.entries().iter().zip(&mass.values) {
                        self.rhs[i] += gh * gh * m * ev[j] + gh * m * eq[j];
                    }
                }
                for (&(i, j), &c) in t.pattern.entries().iter().zip(&t.c) {
                    self.rhs[i] += gh * gh * c * eq[j];
                }
            }
            (PointMatrices::Sparse(_), TangentStore::Dense { .. }) => {}
        }
    }

    /// Ψ and the exact Jacobian ∂Ψ/∂x (unfactored; block row i with M, G, K, C at stage i, so
    /// the iteration matrix is this Jacobian with every stage's tangents moved to the step
    /// start) at the unknowns `x` of the step `start` → t + h: the diagnostic behind
    /// [`super::radau_system`]. Allocates (cold path); overwrites the frozen tangents.
    pub(crate) fn probe<S: ConstrainedSystem + ?Sized, T: Tangents<S>>(
        &mut self,
        sys: &S,
        tangents: &mut T,
        start: &Start<'_>,
        h: f64,
        x: &[f64],
    ) -> Result<(Vec<f64>, DMatrix<f64>), SimError> {
        let (n, r) = (self.n, self.r);
        self.acc.copy_from_slice(&x[..3 * n]);
        self.mult.copy_from_slice(&x[3 * n..]);
        self.stage_states(start, h);
        self.residual(sys, start.t, h)?;
        let res = self.res.clone();
        let mut j = DMatrix::zeros(3 * (n + r), 3 * (n + r));
        let every_row: Vec<usize> = (0..r).collect();
        for si in 0..3 {
            let t = start.t + self.tab.c[si] * h;
            let (q, v) = (&self.q[si * n..(si + 1) * n], &self.v[si * n..(si + 1) * n]);
            self.start_point.eval(sys, t, q)?;
            self.g_stage[si].copy_from(self.start_point.jac());
            let point = Point {
                t,
                q,
                v,
                qdd: &self.acc[si * n..(si + 1) * n],
                lambda: &self.mult[si * r..(si + 1) * r],
            };
            self.tangents.eval(tangents, sys, &point)?;
            self.nh_work.eval(sys, self.dims, t, q, v, &mut self.nh0)?;
            let held = (&self.start_point, &self.tangents, &self.g_stage, &self.nh0);
            if let Some(blocks) = dense_blocks(&self.tab, held, self.dims.m) {
                blocks.stage_rows(&mut j, h, si, &every_row);
            }
        }
        self.factored_h = None;
        Ok((res, j))
    }
}

/// Zero the multiplier corrections in `x` (a solution of J) of the rows `rows` leaves out as
/// redundant, at the stage multipliers `mult`.
fn pin_redundant(rows: &RowSelection, mult: &[f64], (n, r): (usize, usize), x: &mut [f64]) {
    if rows.is_empty() {
        return;
    }
    for s in 0..3 {
        let stage = (3 * n + s * r)..(3 * n + (s + 1) * r);
        rows.pin_corrections(&mult[s * r..(s + 1) * r], &mut x[stage]);
    }
}

/// The RMS of the stage corrections of q and v a solution `x` of J (accelerations first)
/// makes, in the weights `scale`.
fn correction_norm(tab: &RadauTableau, n: usize, x: &[f64], h: f64, scale: &[f64]) -> f64 {
    let mut sum = 0.0;
    for i in 0..3 {
        for k in 0..n {
            let (mut dq, mut dv) = (0.0, 0.0);
            for j in 0..3 {
                let d = x[j * n + k];
                dq += tab.a2[i][j] * d;
                dv += tab.a[i][j] * d;
            }
            sum += (h * h * dq / scale[k]).powi(2) + (h * dv / scale[n + k]).powi(2);
        }
    }
    (sum / (6 * n) as f64).sqrt()
}

/// The dense blocks of the dense path (`None` on the sparse path): the tableau, then M and G
/// at the step start, K and C, each stage's G and N.
fn dense_blocks<'a>(
    tab: &'a RadauTableau,
    (start, tangents, g_stage, nh0): (
        &'a PointMatrices,
        &'a TangentStore,
        &'a [JacobianStore; 3],
        &'a DMatrix<f64>,
    ),
    m: usize,
) -> Option<DenseBlocks<'a>> {
    let (PointMatrices::Dense { mass, jac }, TangentStore::Dense { k, c }) = (start, tangents)
    else {
        return None;
    };
    Some(DenseBlocks {
        tab,
        m0: mass,
        k0: k,
        c0: c,
        nh0,
        g0: jac,
        g_stage: g_stage.each_ref().map(|g| &g.dense),
        m,
    })
}
