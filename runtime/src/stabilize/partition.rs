//! Generalized coordinate partitioning (GCP, \[HAUG\] §7.3.2) and Haug's hybrid algorithm
//! (§7.3.5) as drift controls of the layer: [`Stabilization::Partitioned`] and
//! [`Stabilization::Hybrid`], driven by [`Stabilizer::apply`] after each step, so they work
//! with every method that calls it. Direct integration (§7.3.3) is [`Stabilization::None`].
//!
//! # GCP (digest §2.6), as done here
//!
//! 1. The integrator integrates the whole z = (q, v); the dependent part of its result is only
//!    a predictor (Haug's step 4).
//! 2. The partition: LU with complete pivoting of Φ_q ([`FullPivLu`]) at the first predicted
//!    state; its m pivot columns are the dependent positions u, the others the independent
//!    ones. Kept until Φ_u becomes ill-conditioned or Newton fails (step 7).
//! 3. After each step: Newton on Φ(u, v_indep, t) = 0 for u from the predictor, stopping at
//!    ‖Φ‖∞ ≤ [`PartitionOptions::newton_tolerance`] (or when the Newton step is at the
//!    round-off of u, [`ROUND_OFF_STEP`]), at most [`PartitionOptions::max_newton_iterations`]
//!    iterations (step 5).
//! 4. Then the dependent velocities from G_dep v_dep' = −G_indep v_indep' − [Φ_t; b], one
//!    linear solve, exact up to round-off (step 5). The accelerations come from the next KKT
//!    solve, as for every method.
//! 5. Error control only on the independent components ("with error control only on v, v'"):
//!    [`Stabilizer::floored_scale`] returns ∞ for the dependent ones, so they contribute 0 to
//!    the integrator's error norm. The layer's norm (RKSTAB) is Hairer's RMS over all 2n
//!    components, Σ (e_c/sk_c)² / 2n; with the dependent terms at 0 that would be the RMS over
//!    the N_i independent components times √(N_i / 2n), i.e. a tolerance loosened by
//!    √(2n / N_i) (√7 on Andrews). So the independent weights are sk_c √(N_i / 2n): the norm
//!    is then exactly the RMS over the independent components at the requested tolerance.
//!    (A max-norm method would be tightened by that factor instead, which is harmless.)
//!
//! **Re-partitioning.** At each correction, at the predictor (also when it already meets the
//! Newton tolerance: the velocity solve uses the same block), the conditioning estimate
//! ρ = |u_mm(Φ_u)| / max|Φ_q| — the smallest pivot of the complete-pivoting LU of Φ_u against
//! the largest entry of the whole Φ_q, so 1/ρ ≤ ‖Φ_q‖₂ ‖Φ_u⁻¹‖₂, a lower bound of the
//! amplification from the independent to the dependent coordinates (see [`FullPivLu`]) — is
//! compared with its value when the partition was chosen, ρ₀ = the pivot ratio of the LU of
//! Φ_q (the best choice's). Below [`PartitionOptions::repartition_ratio`] · ρ₀ the predictor
//! is re-partitioned and Newton restarts from it; the velocity block is tested the same way at
//! the corrected state. Measuring against Φ_q and not Φ_u alone matters: for m = 1 Φ_u's own
//! pivot ratio is always 1, and the Cartesian pendulum with x dependent passed the bottom,
//! where Φ_u = x vanishes, unnoticed (measured: 39 times the error of PStab at rtol 1e-8).
//! A Newton failure also re-partitions once; if that gives the same partition, or fails
//! again, [`SimError::PartitionNewtonFailed`] is returned (retryable: the driver retries the
//! step with h/4, a better predictor). A rank-deficient Φ_q is [`SimError::SingularPartition`].
//! Every choice is recorded ([`Repartition`], in [`crate::Stats::partitions`]; the first with
//! [`RepartitionReason::Initial`]) at the time of the step attempt that made it (a rejected
//! attempt's re-partition stands: it was chosen at a state near the solution).
//!
//! **Measured** (RKSTAB on Andrews [0, 0.03], `runtime/tests/suite/partition.rs` and a one-off
//! sweep): at rtol 1e-4, 1e-6, 1e-8, 1e-10 GCP takes 248, 470, 1088, 2564 evaluations against
//! PStab's 362, 770, 1754, 4142 (error control on 2 of 14 components), with errors against an
//! rtol 1e-13 reference of 6.4e-3, 1.0e-5, 5.3e-8, 3.8e-10 against PStab's 3.3e-5, 5.2e-7,
//! 4.6e-9, 3.4e-11 — about the same work for the same error from 1e-6 on; ‖Φ‖ ≤ 1e-12 at every
//! step. The dependent coordinates inherit the independent ones' error amplified by up to
//! 1/ρ: on the slider-crank with a TSDA (ρ₀ = 0.06) the error is 16 times PStab's at rtol
//! 1e-8, on the pendulum 2.4 times.
//!
//! **Sparse path** (`partition_sparse.rs`): on a model with the sparse kernel forms and at
//! least 40 constraint rows, G is kept as its nonzeros and the block (Φ_u or G_dep) is factored
//! by a banded LU with partial pivoting under RCM instead of [`FullPivLu`]; ρ is then its
//! smallest pivot over the same max|G|, and ρ₀ that value at the choice (the same rule, an
//! estimate from other pivots, so a re-partition can come at another step). The choice itself
//! stays the dense complete-pivoting LU above.
//!
//! **Redundant rows** (over-constrained mechanisms, [`crate::redundancy`]): a pivot of the
//! choosing LU at or below [`RANK_TOLERANCE`] (√ε, the tolerance of `mbsim check`) times the
//! largest marks the rows from it on as combinations of the pivot rows. The partition then
//! uses the kept rows only: as many dependent coordinates as the rank, Newton's step and the
//! velocity solve on the kept rows' square block, while Newton's convergence test still takes
//! ‖Φ‖∞ over all rows — so a left-out row that is not implied by the kept ones (the rank came
//! back) stops Newton's progress, which re-partitions and chooses the rows again. Only a rank
//! of 0 is [`SimError::SingularPartition`].
//!
//! Rank: a pivot counts as zero below max(r, c) ε max(|u_11|, 1 + ‖q‖∞): the entries of Φ_q
//! are of the size of the coordinates (lengths) or of 1 (angles) where it does not vanish, so
//! a Φ_q that is zero up to round-off is rank-deficient, not scaled up.
//!
//! **Nonholonomic models.** Newton runs on the m holonomic rows (positions); the velocities
//! have their own partition over G = [Φ_q; A] ((m + k) × n, also complete pivoting), checked
//! and re-chosen the same way ([`PartitionLevel::Velocities`]); with k = 0 it is the position
//! partition. The rolling disc (m = 0, k = 2) corrects only velocities.
//!
//! # The hybrid algorithm: my reading of §7.3.5
//!
//! Haug (Park's algorithm in DADS): partition as in GCP; integrate all of (q, q') with error
//! control on the independent components only; after a step, (a) if the constraint error is
//! within the constraint tolerance accept the state, and from then on add the Baumgarte terms
//! to γ in 7.2.1; (b) otherwise correct as GCP does (Newton for u, the linear solve for u'),
//! check conditioning and re-partition if needed; fall back to pure GCP near singular
//! configurations. Small fixed α, β (no values given). What is done here:
//! - γ̂ with [`HybridOptions::baumgarte`] in **every** KKT solve. Haug switches the terms on
//!   after the first accepted check; they are −β²Φ − 2α(Φ_q q' + Φ_t), which vanish on a
//!   consistent start, so the difference is only in the solves after a correction, where
//!   Φ ≤ the Newton tolerance and the velocity residual is at round-off.
//! - The check (a) is DATOL-style: max(‖Φ‖∞, ‖G v + [Φ_t; b]‖∞) ≤
//!   [`HybridOptions::tolerance`]. Haug names Φ only; the velocity level is included because
//!   the correction (b) restores both and an unchecked velocity residual would feed Φ.
//! - "Fall back to pure GCP": the correction (b) measures the smallest pivot of the factored
//!   block (Φ_u, or G_dep with nonholonomic rows) at the corrected state against max|G|, now
//!   or at the first partition, whichever is larger (near a singular configuration every
//!   partition is ill-conditioned and the entries that matter shrink, so the relative
//!   re-partition measure ρ need not fall: for m = 1 it stays 1); while it is below
//!   [`HybridOptions::fallback_ratio`], every step is corrected without the check (a).
//! - The partition is chosen at the first step even when no correction is due (Haug's step 2
//!   precedes the loop), so error control is on the independent components from the start.
//! - Haug checks conditioning in (b) only. Here the check (a) also tests the position
//!   partition's block at the predictor (one Φ_q and an m × m LU per step, the cost of the
//!   drift test's Φ_q) and corrects, re-partitioning, when it has degraded: the error weights
//!   rest on the partition, and a stale one would leave coordinates that now carry the
//!   motion without error control while the drift stays within tolerance.

use super::partition_options::{PartitionLevel, PartitionOptions, Repartition, RepartitionReason};
use super::partition_sparse::{BandedBlock, jac_rows_max, takes_sparse_path};
use super::{Stabilization, inf_norm};
use crate::analysis::RANK_TOLERANCE;
use crate::error::{Coordinate, SimError, ViolatedRow};
use crate::kernels;
use crate::lu::FullPivLu;
use crate::sparse::JacobianStore;
use crate::system::{ConstrainedSystem, Dims};

/// Largest Newton step, in units of ε (1 + ‖u‖∞), that counts as round-off: Newton stops
/// there even above the tolerance, since Φ cannot be resolved further (its residual is then
/// at the round-off of the model's constraint evaluation).
pub const ROUND_OFF_STEP: f64 = 64.0;

/// One partition: the dependent columns and its conditioning when chosen.
#[derive(Clone, Debug)]
struct Choice {
    /// Dependent columns, in pivot order (one per kept row).
    dependent: Vec<usize>,
    /// The rows of the partitioned matrix that the block uses, in pivot order: all of them,
    /// or, for a rank-deficient matrix, the independent ones (module docs, "Redundant rows").
    rows: Vec<usize>,
    /// Membership, indexed by coordinate.
    is_dependent: Vec<bool>,
    /// ρ of the block when chosen (its best value).
    ratio: f64,
    /// Whether a choice was made yet.
    made: bool,
}

impl Choice {
    fn new(rows: usize, n: usize) -> Self {
        Self {
            dependent: vec![0; rows],
            rows: (0..rows).collect(),
            is_dependent: vec![false; n],
            ratio: f64::NAN,
            made: false,
        }
    }

    /// The independent coordinates, ascending (empty before the first choice). Cold path.
    fn independent(&self) -> Vec<usize> {
        if !self.made {
            return Vec::new();
        }
        (0..self.is_dependent.len())
            .filter(|&i| !self.is_dependent[i])
            .collect()
    }
}

/// How a Newton solve ended.
enum Newton {
    Converged,
    IllConditioned(f64),
    Failed {
        iterations: usize,
        residual: f64,
        reason: &'static str,
    },
}

/// The workspace and state of GCP / the hybrid algorithm, owned by the [`super::Stabilizer`].
#[derive(Clone, Debug)]
pub(super) struct Gcp {
    opts: PartitionOptions,
    /// (tolerance, fallback ratio) for the hybrid algorithm.
    hybrid: Option<(f64, f64)>,
    dims: Dims,
    pos: Choice,
    vel: Choice,
    /// Complete-pivoting LU of Φ_q (m × n) and of G (r × n) for choosing.
    choose_pos: FullPivLu,
    choose_vel: FullPivLu,
    /// Complete-pivoting LU of Φ_u (m × m) and of G_dep (r × r) for solving.
    block_pos: FullPivLu,
    block_vel: FullPivLu,
    /// G = [Φ_q; A] at the current point (its nonzeros on the sparse path).
    jac: JacobianStore,
    /// The sparse path's banded blocks (`partition_sparse.rs`) of the position partition and
    /// of the velocity solve's partition; `None`: the dense `block_pos`, `block_vel`.
    band_pos: Option<BandedBlock>,
    band_vel: Option<BandedBlock>,
    phi: Vec<f64>,
    q_pred: Vec<f64>,
    delta: Vec<f64>,
    /// The velocity residual G v + [Φ_t; b], then the dependent velocities' correction.
    res: Vec<f64>,
    tmp: Vec<f64>,
    /// Error weights of the components of z = (q, v): ∞ dependent, √(N_i / 2n) independent.
    weight: Vec<f64>,
    /// Hybrid: correct every step (pure GCP) while set.
    fallback: bool,
    /// The rank floor 1 + ‖q‖∞ of the current state (module docs).
    floor: f64,
    /// max|G| at the first partition (the hybrid's fallback measure).
    scale0: f64,
    pub(super) events: Vec<Repartition>,
    pub(super) newton_iterations: u64,
    pub(super) repartitions: u64,
    /// Factorizations of a banded block (the sparse path's evidence; 0 on the dense path).
    pub(super) banded_factorizations: u64,
}

impl Gcp {
    /// The workspace for `kind`, if it is a partitioned one.
    pub(super) fn for_kind(kind: Stabilization, dims: Dims) -> Option<Gcp> {
        let (opts, hybrid) = match kind {
            Stabilization::Partitioned(o) => (o, None),
            Stabilization::Hybrid(h) => (h.partition, Some((h.tolerance, h.fallback_ratio))),
            Stabilization::None
            | Stabilization::Baumgarte(_)
            | Stabilization::Continuous(_)
            | Stabilization::PStab
            | Stabilization::SBoth
            | Stabilization::SFull
            | Stabilization::VelocityOnly
            | Stabilization::GGt => return None,
        };
        let (n, m, r) = (dims.n, dims.m, dims.constraint_rows());
        Some(Gcp {
            opts,
            hybrid,
            dims,
            pos: Choice::new(m, n),
            vel: Choice::new(r, n),
            choose_pos: FullPivLu::new(m, n.max(m)),
            choose_vel: FullPivLu::new(r, n.max(r)),
            block_pos: FullPivLu::new(m, m),
            block_vel: FullPivLu::new(r, r),
            jac: JacobianStore::new(r, n),
            band_pos: None,
            band_vel: None,
            phi: vec![0.0; m],
            q_pred: vec![0.0; n],
            delta: vec![0.0; r],
            res: vec![0.0; r],
            tmp: vec![0.0; r],
            weight: vec![1.0; 2 * n],
            fallback: false,
            floor: 1.0,
            scale0: 1.0,
            events: Vec::new(),
            newton_iterations: 0,
            repartitions: 0,
            banded_factorizations: 0,
        })
    }

    /// The error weight of component `c` of z = (q, v) scaled from `sk` (module docs, 5).
    pub(super) fn scale(&self, c: usize, sk: f64) -> f64 {
        if self.weight[c].is_infinite() {
            f64::INFINITY
        } else {
            sk * self.weight[c]
        }
    }

    /// Hybrid only: whether the step must be corrected (the check (a) failed, or the fallback
    /// to pure GCP is on). Chooses the first partition if none was made.
    pub(super) fn hybrid_due(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        q: &[f64],
        drift: impl FnOnce() -> Result<f64, SimError>,
    ) -> Result<bool, SimError> {
        self.ensure_chosen(sys, t, h, q)?;
        let Some((tolerance, _)) = self.hybrid else {
            return Ok(true);
        };
        if self.fallback || self.positions_degraded(sys, t, q)? {
            return Ok(true);
        }
        Ok(drift()? > tolerance)
    }

    /// Whether the position partition's block at q is singular or below the re-partition
    /// threshold (m > 0).
    fn positions_degraded(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        q: &[f64],
    ) -> Result<bool, SimError> {
        let m = self.dims.m;
        if m == 0 {
            return Ok(false);
        }
        let regular = self.factor_position_block(sys, t, q)?;
        let ratio = self.position_pivot() / jac_rows_max(&self.jac, m);
        Ok(!regular || ratio < self.opts.repartition_ratio * self.pos.ratio)
    }

    /// The GCP correction of (q, v) at time t (module docs, 3 and 4).
    pub(super) fn correct(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
    ) -> Result<(), SimError> {
        self.ensure_chosen(sys, t, h, q)?;
        if self.dims.m > 0 {
            self.positions(sys, t, h, q)?;
        }
        self.velocities(sys, t, h, q, v)?;
        if let Some((_, fallback_ratio)) = self.hybrid {
            // The block just factored at the corrected state, against G's scale at the first
            // partition too: near a singular configuration every entry that matters shrinks.
            let scale = jac_rows_max(&self.jac, self.dims.constraint_rows()).max(self.scale0);
            self.fallback = self.velocity_pivot() / scale < fallback_ratio;
        }
        Ok(())
    }

    /// The first partition(s), at the first state seen.
    fn ensure_chosen(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        q: &[f64],
    ) -> Result<(), SimError> {
        self.floor = 1.0 + inf_norm(q);
        if !self.pos.made {
            if takes_sparse_path(sys, self.dims) {
                self.jac.prepare(sys);
            }
            self.jac.eval(sys, t, q)?;
            self.scale0 = jac_rows_max(&self.jac, self.dims.constraint_rows());
            let initial = (RepartitionReason::Initial, f64::NAN);
            self.choose(sys, t, h, PartitionLevel::Positions, initial)?;
            if self.dims.k > 0 {
                self.choose(sys, t, h, PartitionLevel::Velocities, initial)?;
            }
        }
        Ok(())
    }

    /// Newton for the dependent positions, with at most one re-partition.
    fn positions(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        q: &mut [f64],
    ) -> Result<(), SimError> {
        self.q_pred.copy_from_slice(q);
        let (reason, trigger, first) = match self.newton(sys, t, q, true)? {
            Newton::Converged => return Ok(()),
            Newton::IllConditioned(r) => (RepartitionReason::IllConditioned, r, None),
            failed @ Newton::Failed { .. } => {
                (RepartitionReason::NewtonFailed, f64::NAN, Some(failed))
            }
        };
        q.copy_from_slice(&self.q_pred);
        self.jac.eval(sys, t, q)?;
        let level = PartitionLevel::Positions;
        let changed = self.choose(sys, t, h, level, (reason, trigger))?;
        let outcome = match first {
            // The same partition again: retrying Newton would repeat the failure.
            Some(failed) if !changed => failed,
            Some(_) | None => self.newton(sys, t, q, false)?,
        };
        match outcome {
            Newton::Converged | Newton::IllConditioned(_) => Ok(()),
            Newton::Failed {
                iterations,
                residual,
                reason,
            } => Err(self.newton_error(sys, t, h, iterations, residual, reason)),
        }
    }

    /// Newton on Φ(u, v, t) = 0 for u = the dependent positions, from q.
    fn newton(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        q: &mut [f64],
        may_repartition: bool,
    ) -> Result<Newton, SimError> {
        let (m, opts) = (self.dims.m, self.opts);
        let (mut previous, mut it) = (f64::INFINITY, 0);
        loop {
            kernels::phi(sys, t, q, &mut self.phi)?;
            let residual = inf_norm(&self.phi);
            let converged = residual <= opts.newton_tolerance;
            // The conditioning is checked at the predictor even when it already satisfies
            // the tolerance: the velocity solve uses the same block.
            let regular = if it == 0 || !converged {
                self.factor_position_block(sys, t, q)?
            } else {
                true
            };
            if it == 0 && may_repartition {
                let ratio = self.position_pivot() / jac_rows_max(&self.jac, m);
                if !regular || ratio < opts.repartition_ratio * self.pos.ratio {
                    return Ok(Newton::IllConditioned(ratio));
                }
            }
            // (`positions_degraded` is the same test, for the hybrid's check (a).)
            if converged {
                return Ok(Newton::Converged);
            }
            let failed = |reason| Newton::Failed {
                iterations: it,
                residual,
                reason,
            };
            if it == opts.max_newton_iterations {
                return Ok(failed("the iteration cap was reached"));
            }
            if residual.is_nan() || residual >= previous {
                return Ok(failed("the residual stopped decreasing"));
            }
            if !regular {
                return Ok(failed("Φ_u is singular"));
            }
            previous = residual;
            let kept = self.pos.rows.len();
            for (j, &row) in self.pos.rows.iter().enumerate() {
                self.delta[j] = self.phi[row];
            }
            match &mut self.band_pos {
                Some(band) => band.solve_in_place(&mut self.delta[..kept]),
                None => self.block_pos.solve_in_place(&mut self.delta[..kept]),
            }
            let (step, mut size) = (inf_norm(&self.delta[..kept]), 0.0_f64);
            if !step.is_finite() {
                return Ok(failed("the Newton step is not finite"));
            }
            for (j, &col) in self.pos.dependent.iter().enumerate() {
                q[col] -= self.delta[j];
                size = size.max(q[col].abs());
            }
            self.newton_iterations += 1;
            it += 1;
            if step <= ROUND_OFF_STEP * f64::EPSILON * (1.0 + size) {
                return Ok(Newton::Converged);
            }
        }
    }

    /// Φ_q at q into `self.jac`, Φ_u gathered and factored; whether it has full rank.
    fn factor_position_block(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        q: &[f64],
    ) -> Result<bool, SimError> {
        self.jac.eval(sys, t, q)?;
        if let (Some(band), Some(g)) = (&mut self.band_pos, &self.jac.sparse) {
            self.banded_factorizations += 1;
            return Ok(band.factor(g, self.floor));
        }
        let jac = self.jac.dense();
        for (j, &col) in self.pos.dependent.iter().enumerate() {
            for (i, &row) in self.pos.rows.iter().enumerate() {
                self.block_pos.matrix_mut()[(i, j)] = jac[(row, col)];
            }
        }
        Ok(self.block_pos.factor_with_floor(self.floor) == self.pos.rows.len())
    }

    /// The dependent velocities from G_dep v_dep = −G_indep v_indep − [Φ_t; b] at the
    /// corrected q (re-partitioning first if G_dep has degraded); leaves G_dep factored.
    fn velocities(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        q: &[f64],
        v: &mut [f64],
    ) -> Result<(), SimError> {
        self.jac.eval(sys, t, q)?;
        let level = match self.dims.k {
            0 => PartitionLevel::Positions,
            _ => PartitionLevel::Velocities,
        };
        let ratio = self.factor_velocity_block(level);
        let best = self.choice(level).ratio;
        // The positions were checked at the predictor; at the corrected point the block may
        // still have degraded (k = 0), or it is the velocities' own partition (k > 0).
        if ratio < self.opts.repartition_ratio * best {
            let why = (RepartitionReason::IllConditioned, ratio);
            self.choose(sys, t, h, level, why)?;
            self.factor_velocity_block(level);
        }
        let choice = self.choice(level);
        let regular = match &self.band_vel {
            Some(band) => band.regular(),
            None => self.block_vel.rank() == choice.rows.len(),
        };
        if !regular {
            // The best partition's block is singular: G itself has lost rank here.
            if self.band_vel.is_some() {
                self.gather_dense_velocity_block(level);
                self.block_vel.factor_with_floor(self.floor);
            }
            return Err(self.singular(sys, t, h, level, true));
        }
        let (res, jac) = (&mut self.res, self.jac.get());
        kernels::velocity_residual(sys, t, q, v, jac, &mut self.tmp, res)?;
        let choice = match level {
            PartitionLevel::Positions => &self.pos,
            PartitionLevel::Velocities => &self.vel,
        };
        let kept = choice.rows.len();
        for (j, &row) in choice.rows.iter().enumerate() {
            self.delta[j] = self.res[row];
        }
        match &mut self.band_vel {
            Some(band) => band.solve_in_place(&mut self.delta[..kept]),
            None => self.block_vel.solve_in_place(&mut self.delta[..kept]),
        }
        for (j, &col) in choice.dependent.iter().enumerate() {
            v[col] -= self.delta[j];
        }
        Ok(())
    }

    /// Gather and factor the block of the dependent velocity columns of G; its ρ.
    fn factor_velocity_block(&mut self, level: PartitionLevel) -> f64 {
        let r = self.dims.constraint_rows();
        if let (Some(band), Some(g)) = (&mut self.band_vel, &self.jac.sparse) {
            self.banded_factorizations += 1;
            band.factor(g, self.floor);
        } else {
            self.gather_dense_velocity_block(level);
            self.block_vel.factor_with_floor(self.floor);
        }
        self.velocity_pivot() / jac_rows_max(&self.jac, r)
    }

    /// The block of the dependent velocity columns of G into the dense `block_vel` (the dense
    /// path, and the sparse path's diagnosis of a singular block).
    fn gather_dense_velocity_block(&mut self, level: PartitionLevel) {
        let choice = match level {
            PartitionLevel::Positions => &self.pos,
            PartitionLevel::Velocities => &self.vel,
        };
        if self.block_vel.matrix_mut().nrows() != choice.rows.len() {
            self.block_vel = FullPivLu::new(choice.rows.len(), choice.rows.len());
        }
        let jac = self.jac.dense();
        for (j, &col) in choice.dependent.iter().enumerate() {
            for (i, &row) in choice.rows.iter().enumerate() {
                self.block_vel.matrix_mut()[(i, j)] = jac[(row, col)];
            }
        }
    }

    /// The smallest pivot of the position block's last factorization (either path).
    fn position_pivot(&self) -> f64 {
        match &self.band_pos {
            Some(band) => band.smallest_pivot(),
            None => self.block_pos.smallest_pivot(),
        }
    }

    /// The smallest pivot of the velocity block's last factorization (either path).
    fn velocity_pivot(&self) -> f64 {
        match &self.band_vel {
            Some(band) => band.smallest_pivot(),
            None => self.block_vel.smallest_pivot(),
        }
    }

    fn choice(&self, level: PartitionLevel) -> &Choice {
        match level {
            PartitionLevel::Positions => &self.pos,
            PartitionLevel::Velocities => &self.vel,
        }
    }

    /// Choose the partition of `level` from `self.jac` (G at the current q) for `reason`
    /// (`trigger`: the estimate that made the old one ill-conditioned) and record it if
    /// it differs from the current one (the first choice is always recorded); returns whether
    /// it changed. An unchanged choice refreshes the reference ratio ρ₀.
    fn choose(
        &mut self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        level: PartitionLevel,
        (reason, trigger): (RepartitionReason, f64),
    ) -> Result<bool, SimError> {
        let (n, m) = (self.dims.n, self.dims.m);
        let rows = match level {
            PartitionLevel::Positions => m,
            PartitionLevel::Velocities => self.dims.constraint_rows(),
        };
        let lu = match level {
            PartitionLevel::Positions => &mut self.choose_pos,
            PartitionLevel::Velocities => &mut self.choose_vel,
        };
        lu.matrix_mut().fill(0.0);
        lu.matrix_mut()
            .view_mut((0, 0), (rows, n))
            .copy_from(&self.jac.dense().view((0, 0), (rows, n)));
        let rank = match self.jac.sparse {
            // The same factors, without the dense scans (`FullPivLu::factor_with_floor_sparse`).
            Some(_) => lu.factor_with_floor_sparse(self.floor),
            None => lu.factor_with_floor(self.floor),
        };
        // Redundant rows (module docs): pivots at or below the rank tolerance of `check`
        // relative to the largest are rows that depend on the pivot rows.
        let kept = (0..rank)
            .take_while(|&k| lu.pivot(k) > RANK_TOLERANCE * lu.pivot(0))
            .count();
        if kept == 0 && rows > 0 {
            return Err(self.singular(sys, t, h, level, false));
        }
        let mut ratio = if kept < rows {
            lu.pivot(kept - 1) / lu.pivot(0)
        } else {
            lu.pivot_ratio()
        };
        let columns = &lu.pivot_columns()[..kept];
        // The sparse path: the block's banded factorization, and ρ₀ re-based to its pivots
        // (`partition_sparse.rs`); a block whose band does not pay stays dense.
        let mut band = (self.jac.sparse.as_ref())
            .and_then(|g| BandedBlock::for_choice(g, n, &lu.pivot_rows()[..kept], columns));
        if let (Some(block), Some(g)) = (&mut band, &self.jac.sparse) {
            match block.factor(g, self.floor) {
                true => ratio = block.smallest_pivot() / jac_rows_max(&self.jac, rows),
                false => band = None,
            }
        }
        match level {
            PartitionLevel::Positions if self.dims.k == 0 => {
                (self.band_pos, self.band_vel) = (band.clone(), band);
            }
            PartitionLevel::Positions => self.band_pos = band,
            PartitionLevel::Velocities => self.band_vel = band,
        }
        let choice = match level {
            PartitionLevel::Positions => &mut self.pos,
            PartitionLevel::Velocities => &mut self.vel,
        };
        // Same set of dependent columns (maybe in another pivot order): no re-partition.
        let changed = !choice.made
            || choice.dependent.len() != kept
            || !columns.iter().all(|&c| choice.is_dependent[c]);
        choice.dependent.clear();
        choice.dependent.extend_from_slice(columns);
        choice.rows.clear();
        choice.rows.extend_from_slice(&lu.pivot_rows()[..kept]);
        if level == PartitionLevel::Positions && self.block_pos.matrix_mut().nrows() != kept {
            self.block_pos = FullPivLu::new(kept, kept);
        }
        if !changed {
            choice.ratio = ratio;
            return Ok(false);
        }
        let old_independent = choice.independent();
        choice.is_dependent.fill(false);
        for &c in columns {
            choice.is_dependent[c] = true;
        }
        (choice.ratio, choice.made) = (ratio, true);
        let new_independent = choice.independent();
        if reason != RepartitionReason::Initial {
            self.repartitions += 1;
        }
        self.events.push(Repartition {
            t,
            level,
            old_independent,
            new_independent,
            reason,
            ratio: (trigger, ratio),
        });
        self.update_weights();
        Ok(true)
    }

    /// ∞ for the dependent components of z = (q, v), √(N_i / 2n) for the N_i independent.
    fn update_weights(&mut self) {
        let n = self.dims.n;
        let vel = match self.dims.k {
            0 => &self.pos,
            _ => &self.vel,
        };
        for c in 0..2 * n {
            let dependent = if c < n {
                self.pos.is_dependent[c]
            } else {
                vel.is_dependent[c - n]
            };
            self.weight[c] = if dependent { f64::INFINITY } else { 1.0 };
        }
        let independent = self.weight.iter().filter(|w| w.is_finite()).count();
        let s = (independent as f64 / (2 * n) as f64).sqrt();
        for w in self.weight.iter_mut().filter(|w| w.is_finite()) {
            *w = s;
        }
    }

    /// [`SimError::SingularPartition`] from the choosing LU of `level` (or, with `block`, from
    /// the factored velocity block). Cold path: it allocates.
    fn singular(
        &self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        level: PartitionLevel,
        block: bool,
    ) -> SimError {
        let lu = match (block, level) {
            (true, _) => &self.block_vel,
            (false, PartitionLevel::Positions) => &self.choose_pos,
            (false, PartitionLevel::Velocities) => &self.choose_vel,
        };
        let rows = lu.pivot_rows().len();
        let names = sys.constraint_names();
        let dependent = (lu.rank()..rows)
            .map(|k| {
                let row = lu.pivot_rows()[k];
                ViolatedRow {
                    row,
                    name: names
                        .get(row)
                        .cloned()
                        .unwrap_or_else(|| format!("row {row}")),
                    residual: lu.remainder(k),
                }
            })
            .collect();
        SimError::SingularPartition {
            t,
            h,
            matrix: match level {
                PartitionLevel::Positions => "Φ_q",
                PartitionLevel::Velocities => "[Φ_q; A]",
            },
            rank: lu.rank(),
            rows,
            dependent,
        }
    }

    /// [`SimError::PartitionNewtonFailed`] naming the dependent positions. Cold path.
    fn newton_error(
        &self,
        sys: &(impl ConstrainedSystem + ?Sized),
        t: f64,
        h: f64,
        iterations: usize,
        residual: f64,
        reason: &'static str,
    ) -> SimError {
        let names = sys.coordinate_names();
        SimError::PartitionNewtonFailed {
            t,
            h,
            iterations,
            residual: if residual.is_finite() {
                residual
            } else {
                f64::NAN
            },
            tolerance: self.opts.newton_tolerance,
            reason,
            dependent: self
                .pos
                .dependent
                .iter()
                .map(|&i| Coordinate::named(i, names))
                .collect(),
        }
    }
}
