//! Stabilization options and the post-stabilization driver shared by all integrators.
//!
//! [`Stabilization`] names the method; [`Stabilizer`] owns the preallocated workspace, the
//! DATOL test, the counters (NSTAB) and the CPU time spent stabilizing. The projection family
//! (PStab, S-both, velocity-only, GGᵀ, nonholonomic (3.75)) lives in `projection.rs`, S-full
//! (Algorithm 3.2) in `sfull.rs`, generalized coordinate partitioning and Haug's hybrid
//! algorithm (\[HAUG\] §7.3.2, §7.3.5) in `partition.rs` (options in `partition_options.rs`,
//! the sparse path's banded blocks in `partition_sparse.rs`).
//! Baumgarte is not a post-step correction: it changes γ in the KKT solve
//! ([`crate::Baumgarte`]), and [`Stabilizer::apply`] does nothing for it; nor are Chin's
//! continuous stabilizations ([`crate::Continuous`]), which correct the field itself.
//!
//! Conventions (\[CHIN\] Ch. 3, digest §2.3):
//! - the invariant is h(t, q, v) = (Φ(t, q); G v + [Φ_t; b]) (ambiguity 21: the rheonomic
//!   velocity residual includes Φ_t; nonholonomic rows contribute only to the velocity part);
//! - the drift measure (ambiguity 10) is `max(‖Φ‖∞, ‖G v + [Φ_t; b]‖∞)`, unscaled;
//! - with DATOL > 0 a correction is applied only when that drift exceeds DATOL; DATOL = 0
//!   stabilizes every step without measuring.
//!
//! # Round-off floor
//!
//! The stabilized state cannot be computed more accurately than the round-off of the residuals
//! Φ and G v + Φ_t, amplified by P = W⁻¹Gᵀ(GW⁻¹Gᵀ)⁻¹ (and fed from the positions into the
//! velocity residual through L). Near a singular configuration ‖P‖ grows like 1/σ_min(G), and
//! at tight tolerances that noise exceeds the tolerance for every step size, so an integrator
//! that includes the correction in its error estimate collapses. Measured on the 40-window
//! four-bar chain (`runtime/tests/suite/four_bar_chain.rs`, rtol 1e-12, atol 1e-13): at every
//! collapsing attempt h Σ E_j k_j is ≤ 1e-2 of the tolerance while the correction is 4…13 times
//! it, for h from 9e-4 down to 6e-15; the KKT solve agrees with a 60-digit solve to 4e-12
//! relative, so equilibration or iterative refinement of the solve cannot remove it (the
//! noise is in the residuals, 3.8e-16 in Φ, not in the factorization), and they were not
//! adopted.
//!
//! The two PStab (or GGᵀ) passes measure that noise for free. A second pass that does not
//! contract the position correction quadratically (‖δq₂‖∞ ≥ [`STAGNATION`] ‖δq₁‖∞) and is
//! round-off sized (‖δq₂‖∞ ≤ [`ROUND_OFF_RELATIVE`] ε ‖q‖∞) is noise, of one of two kinds:
//! - **own bits**: every component within its coordinate's last bits, |δq₂,c| ≤ R ε |q_c|.
//!   Then the pass itself, component by component, is the noise ([`Stabilizer::round_off`]);
//! - **mixed**: some coordinate at or near 0 got more than that. P spreads Φ's round-off (that
//!   of its largest terms) over coordinates whose own size is no scale of it — the couplers'
//!   angles of the A02 chain in body coordinates stay 0, as does one coordinate of the
//!   slider-crank with a spring-damper — and the pattern over the components changes from pass
//!   to pass: only the size is a property of the state. Its noise level is the size per block,
//!   N = (‖δq₂‖∞, ‖δv₂‖∞) for the positions and for the velocities.
//!
//! The integrator weights component c of its error norm with [`Stabilizer::floored_scale`] =
//! max(sk_c, κ |δ₂,c|) for own-bits noise and max(sk_c, κ N) for a noise level (κ =
//! [`NOISE_SAFETY`]). N is the larger of the attempt's own level and the one near the accepted
//! state the attempt starts from: the accepted attempt's and every later attempt's from that
//! state ([`Stabilizer::note_accepted`]). An attempt's error contains the correction at its
//! end point, whose noise for short steps is that near z_n, even when this attempt's passes
//! happened to round to little. The level's share of the weight is at most J max(sk_c, κ N_n)
//! (J = [`NOISE_JUMP`], N_n the level near z_n): an end point whose noise jumps more than J
//! above the tolerance and above the level near its start has landed much nearer the singular
//! position (the noise grows like 1/σ_min(G) in q and 1/σ_min² in v), and is rejected once —
//! the next attempt ends before it or steps over it rather than taking that noise into the
//! solution; its level then counts as one near z_n, so a state inside such a zone is not
//! stuck.
//!
//! With it RKSTAB runs the 40-window chain 20 s at rtol 1e-11, 1e-12 and 1e-13 in crank angles
//! (also with the unstabilized estimate) and at rtol 1e-9 … 1e-12 in body coordinates, and
//! Andrews at rtol 1e-13. `mbsim repro all` prints the same numbers as with the floor of own
//! bits alone and writes the same CSV files, except for the reference run of the slider-crank
//! with a spring-damper at rtol 1e-12 (`mbsim repro continuous`; one of its coordinates stays
//! at 1e-32), which moved by 3e-16: the errors against it, ~1e-11, in their fifth digit.
//! A run that still cannot meet its tolerance near a singular configuration stops with a step
//! size underflow that the run loop names ([`SimError::SingularConfiguration`],
//! `crate::analysis::singular`): the four-bar's change point at tight tolerances. Whether a
//! step carries such a run over the point depends on where its step points fall: at the change
//! point the reaction of the collinear row grows like 1/(π − t); the motion (0 DOF, crank
//! driven) continues on the crossing branch, which the runs that pass follow.

mod partition;
mod partition_options;
mod partition_sparse;
mod passage;
mod projection;
mod sfull;
mod sfull_sparse;
mod signature;

pub use partition::ROUND_OFF_STEP;
pub use partition_options::{
    HybridOptions, PartitionLevel, PartitionOptions, Repartition, RepartitionReason,
};
pub(crate) use passage::SpreadGrowth;
pub use passage::{PASSAGE_GROWTH, S_BOTH_GROWTH};

use std::time::{Duration, Instant};

use crate::baumgarte::Baumgarte;
use crate::continuous::Continuous;
pub use crate::drift::Drift;
use crate::drift::DriftMeter;
pub(crate) use crate::drift::inf_norm;
use crate::error::SimError;
use crate::kkt::{KktSolver, KktWorkspace};
use crate::output::Stats;
use crate::sparse::JacobianStore;
use crate::system::{ConstrainedSystem, Dims};
pub(crate) use signature::NoiseSignature;

/// How the constraint drift is controlled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stabilization {
    /// Direct integration of the index-1 form: the drift grows freely. This is also Haug's
    /// direct integration (\[HAUG\] §7.3.3): integrate q' = v, v' = q̈ from 7.2.1 and monitor
    /// Φ and Φ' without controlling them.
    None,
    /// Baumgarte: γ is replaced by γ̂ in every KKT solve (see [`Baumgarte`] for the mapping of
    /// Chin's B(g1, g2) and Haug/Wu's (α, β)). No post-step correction.
    Baumgarte(Baumgarte),
    /// PStab = "S-both2" (Algorithm 3.3) in the augmented-matrix form (4.15): M and G frozen at
    /// the unstabilized point, factored once; two passes, each correcting positions and
    /// velocities from residuals evaluated at the current point (Jacobi style, ambiguity 12).
    /// Drift O(h^{2(p+1)}).
    PStab,
    /// S-both (3.66): one pass of the PStab correction. Drift O(h^{p+1}) with a nilpotent
    /// amplification matrix.
    SBoth,
    /// S-full (Algorithm 3.2): F = Hᵀ(HHᵀ)⁻¹ with H = [[G, 0], [L, G]]; uses L(q, v).
    SFull,
    /// Velocity-only (Remark 3.5): one pass correcting v; q is left alone.
    VelocityOnly,
    /// The GGᵀ variant of PStab (Remark 3.4): P' = Gᵀ(GGᵀ)⁻¹ in both passes, i.e. the identity
    /// in the (1,1) block of the augmented matrix. Better conditioned with very uneven masses.
    GGt,
    /// Generalized coordinate partitioning (\[HAUG\] §7.3.2): after each step, Newton for the
    /// dependent positions and a linear solve for the dependent velocities, the partition from
    /// an LU with complete pivoting of Φ_q, re-chosen on ill-conditioning or Newton failure;
    /// error control on the independent components only. See `partition.rs`.
    Partitioned(PartitionOptions),
    /// Haug's hybrid algorithm (\[HAUG\] §7.3.5): Baumgarte's γ̂ in every KKT solve, the GCP
    /// correction only when the drift exceeds a constraint tolerance (and every step near
    /// singular configurations). See `partition.rs` for the reading of the text.
    Hybrid(HybridOptions),
    /// Chin's continuous stabilizations (\[CHIN\] (2.58), (2.63)–(2.64)): the field corrected
    /// along Gᵀ in every evaluation, λ from the unstabilized solve; gain γ. No post-step
    /// correction. See [`Continuous`].
    Continuous(Continuous),
}

impl Stabilization {
    /// The Baumgarte gains, if this is Baumgarte.
    pub fn baumgarte(&self) -> Option<&Baumgarte> {
        match self {
            Stabilization::Baumgarte(b) => Some(b),
            Stabilization::Hybrid(h) => Some(&h.baumgarte),
            _ => None,
        }
    }

    /// The continuous stabilization, if this is one.
    pub fn continuous(&self) -> Option<&Continuous> {
        match self {
            Stabilization::Continuous(c) => Some(c),
            _ => None,
        }
    }

    /// True for the methods that correct the state after a step.
    pub fn is_post_step(&self) -> bool {
        !matches!(
            self,
            Stabilization::None | Stabilization::Baumgarte(_) | Stabilization::Continuous(_)
        )
    }

    /// True for the drift controls that change the vector field (γ̂ or a correction of the
    /// accelerations), which an index-3 method (Newmark family, Radau) never evaluates.
    pub fn modifies_field(&self) -> bool {
        matches!(
            self,
            Stabilization::Baumgarte(_) | Stabilization::Continuous(_)
        )
    }

    /// A short name for reports and snapshots.
    pub fn name(&self) -> &'static str {
        match self {
            Stabilization::None => "none",
            Stabilization::Baumgarte(_) => "baumgarte",
            Stabilization::PStab => "pstab",
            Stabilization::SBoth => "s-both",
            Stabilization::SFull => "s-full",
            Stabilization::VelocityOnly => "velocity-only",
            Stabilization::GGt => "ggt",
            Stabilization::Partitioned(_) => "gcp",
            Stabilization::Hybrid(_) => "hybrid",
            Stabilization::Continuous(c) => c.name(),
        }
    }
}

/// Post-stabilization workspace and bookkeeping. Allocated once; `apply` allocates nothing.
#[derive(Clone, Debug)]
pub struct Stabilizer {
    kind: Stabilization,
    dims: Dims,
    /// M and G frozen at the unstabilized point, and their augmented factorization.
    kkt: KktWorkspace,
    /// G at the current point (for residuals).
    jac_r: JacobianStore,
    /// The DATOL test's drift (the one drift evaluator, [`DriftMeter`]).
    meter: DriftMeter,
    /// The drift the last `apply` measured at a state it then left alone (DATOL), else `None`.
    unchanged: Option<Drift>,
    pos_res: Vec<f64>,
    vel_res: Vec<f64>,
    tmp: Vec<f64>,
    dq: Vec<f64>,
    dv: Vec<f64>,
    /// S-full's workspace (`sfull.rs`).
    sfull: sfull::SFullWork,
    /// Whether `dq`, `dv` hold the last pass of a two-pass correction that stagnated at
    /// round-off within every coordinate's last bits (module docs, "Round-off floor").
    floor_active: bool,
    /// The noise level (positions, velocities) of the last correction if it stagnated at
    /// round-off mixed into other coordinates: the sizes ‖δq₂‖∞, ‖δv₂‖∞ of its second pass.
    noise: [f64; 2],
    /// The largest such level of the last accepted state and of the attempts since
    /// ([`Stabilizer::note_accepted`]).
    carried: [f64; 2],
    /// Whether the projections drop a round-off Φ's correction and end after a pass with a
    /// gain above 10³ near rank loss, and end a first pass that meets a round-off Φ and
    /// amplifies it more than 8× without its position correction (`projection.rs`,
    /// "Rank-loss guard"; constant-step methods).
    rank_loss_guard: bool,
    /// The factors lent to the current correction were made at a nearby point, not at the
    /// unstabilized one: the first pass evaluates G at the point itself.
    factors_elsewhere: bool,
    /// GCP / hybrid: partitions, Newton workspace, events.
    gcp: Option<partition::Gcp>,
    /// The singular-passage guard (`passage.rs`).
    passage: passage::PassageGuard,
    /// Number of corrections applied (NSTAB).
    pub applications: usize,
    /// CPU (wall-clock) time spent in `apply`, including DATOL tests.
    pub time: Duration,
}

impl Stabilizer {
    /// Workspace for `kind` on a model of dimensions `dims`.
    pub fn new(kind: Stabilization, dims: Dims) -> Self {
        let (n, r) = (dims.n, dims.constraint_rows());
        Self {
            kind,
            dims,
            kkt: KktWorkspace::new(dims),
            jac_r: JacobianStore::new(r, n),
            meter: DriftMeter::new(dims),
            unchanged: None,
            pos_res: vec![0.0; r],
            vel_res: vec![0.0; r],
            tmp: vec![0.0; r],
            dq: vec![0.0; n],
            dv: vec![0.0; n],
            sfull: sfull::SFullWork::new(kind, dims),
            floor_active: false,
            noise: [0.0; 2],
            rank_loss_guard: false,
            factors_elsewhere: false,
            carried: [0.0; 2],
            gcp: partition::Gcp::for_kind(kind, dims),
            passage: passage::PassageGuard::default(),
            applications: 0,
            time: Duration::ZERO,
        }
    }

    /// The same stabilizer factoring its projections with `solver` (default
    /// [`KktSolver::Auto`]).
    pub fn with_kkt_solver(mut self, solver: KktSolver) -> Self {
        self.kkt = KktWorkspace::with_solver(self.dims, solver);
        self
    }

    /// The method.
    pub fn kind(&self) -> Stabilization {
        self.kind
    }

    /// GCP / hybrid: the factorizations of a banded dependent block their sparse path made
    /// (`partition_sparse.rs`); 0 on the dense path and for the other methods. Not in
    /// [`Stats`], so the runs' reports stay those of the dense path.
    pub fn banded_block_factorizations(&self) -> u64 {
        self.gcp.as_ref().map_or(0, |g| g.banded_factorizations)
    }

    /// The drift at (t, q, v).
    pub fn drift<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<Drift, SimError> {
        self.meter.measure(sys, t, q, v)
    }

    /// Post-stabilize (q, v) at time t in place, if the method is a post-step one and (for
    /// `datol > 0`) the drift exceeds `datol`. Returns whether a correction was applied.
    /// `h` only labels errors.
    #[allow(clippy::too_many_arguments)] // state, time, step label and DATOL are all needed
    pub fn apply<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
    ) -> Result<bool, SimError> {
        self.apply_with(sys, t, h, q, v, datol, None)
    }

    /// The drift of the state the last [`Stabilizer::apply`] left alone because it was within
    /// DATOL, as its test measured it; `None` after a correction or without a test.
    pub fn unchanged_drift(&self) -> Option<Drift> {
        self.unchanged
    }

    /// Whether the correction is a projection with the dynamics' own augmented matrix
    /// K = [M G0ᵀ; G0 0] (PStab, S-both, velocity-only), which [`Stabilizer::apply_factored`]
    /// can take from a right-hand side evaluated at the unstabilized point.
    pub fn projects_with_dynamics_matrix(&self) -> bool {
        matches!(
            self.kind,
            Stabilization::PStab | Stabilization::SBoth | Stabilization::VelocityOnly
        )
    }

    /// [`Stabilizer::apply`] at an unstabilized point (t, q, v) where `factored` holds the
    /// dynamics' K factored at (t, q), as a right-hand side evaluated there leaves it: when
    /// [`Stabilizer::projects_with_dynamics_matrix`], the passes reuse those factors (\[CHIN\]
    /// (4.15)) instead of assembling and factoring K again; otherwise as `apply`.
    #[allow(clippy::too_many_arguments)] // `apply`'s arguments and the factors
    pub fn apply_factored<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
        factored: &mut KktWorkspace,
    ) -> Result<bool, SimError> {
        let reuse = self.projects_with_dynamics_matrix();
        self.apply_with(sys, t, h, q, v, datol, reuse.then_some(factored))
    }

    /// [`Stabilizer::apply_factored`] with `factored` holding K factored at a point *near*
    /// (t, q) (an Adams step's predicted point): the passes solve with those factors and
    /// evaluate every residual, G v included, at the point being corrected.
    #[allow(clippy::too_many_arguments)] // `apply`'s arguments and the factors
    pub fn apply_nearby_factored<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
        factored: &mut KktWorkspace,
    ) -> Result<bool, SimError> {
        // Only where the factors are lent (`apply_factored`): own factors are at the point.
        self.factors_elsewhere = self.projects_with_dynamics_matrix();
        let result = self.apply_factored(sys, t, h, q, v, datol, factored);
        self.factors_elsewhere = false;
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_with<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
        factored: Option<&mut KktWorkspace>,
    ) -> Result<bool, SimError> {
        // The last attempt's noise was a sample of the noise near the accepted state.
        for (kept, level) in self.carried.iter_mut().zip(self.noise) {
            *kept = kept.max(level);
        }
        self.floor_active = false;
        self.noise = [0.0; 2];
        self.unchanged = None;
        if !self.kind.is_post_step() || self.dims.constraint_rows() == 0 {
            return Ok(false);
        }
        let start = Instant::now();
        let result = self.apply_timed(sys, t, h, q, v, datol, factored);
        self.time += start.elapsed();
        result
    }

    #[allow(clippy::too_many_arguments)]
    fn apply_timed<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        datol: f64,
        factored: Option<&mut KktWorkspace>,
    ) -> Result<bool, SimError> {
        if datol > 0.0 {
            // With the dynamics' factors at (t, q), their G serves the test (no evaluation).
            let drift = match factored.as_deref() {
                Some(k) if !self.factors_elsewhere => {
                    self.meter.measure_with(sys, t, q, v, k.jacobian())?
                }
                _ => self.drift(sys, t, q, v)?,
            };
            if drift.max() <= datol {
                self.unchanged = Some(drift);
                return Ok(false);
            }
        }
        if let (Some(gcp), Stabilization::Hybrid(_)) = (&mut self.gcp, self.kind) {
            let meter = &mut self.meter;
            let drift = || meter.measure(sys, t, q, v).map(|d| d.max());
            if !gcp.hybrid_due(sys, t, h, q, drift)? {
                return Ok(false);
            }
        }
        self.applications += 1;
        match self.kind {
            Stabilization::SFull => self.s_full(sys, t, h, q, v)?,
            Stabilization::PStab => {
                self.project(sys, t, h, q, v, projection::Variant::PSTAB, factored)?
            }
            Stabilization::SBoth => {
                self.project(sys, t, h, q, v, projection::Variant::S_BOTH, factored)?
            }
            Stabilization::VelocityOnly => {
                let variant = projection::Variant::VELOCITY_ONLY;
                self.project(sys, t, h, q, v, variant, factored)?
            }
            Stabilization::GGt => self.project(sys, t, h, q, v, projection::Variant::GGT, None)?,
            Stabilization::Partitioned(_) | Stabilization::Hybrid(_) => {
                if let Some(gcp) = &mut self.gcp {
                    gcp.correct(sys, t, h, q, v)?
                }
            }
            Stabilization::None | Stabilization::Baumgarte(_) | Stabilization::Continuous(_) => {}
        }
        Ok(true)
    }
}

impl Stabilizer {
    /// The round-off noise of component `c` of z = (q, v) (positions first) at the last
    /// stabilized state (module docs, "Round-off floor"): the component's own second pass
    /// |δ₂,c| if the last PStab/GGᵀ correction stagnated within the last bits of every
    /// coordinate; the noise level of c's block (positions or velocities) if it stagnated at
    /// round-off mixed into other coordinates, or if the accepted state's (or an attempt's
    /// from it) did and that is larger; `0.0` when none did.
    pub fn round_off(&self, c: usize) -> f64 {
        self.own_round_off(c).max(self.noise_level(c))
    }

    /// The error weight of component `c` with the round-off floor, where `sk = atol_c + rtol_c
    /// max(|z_n,c|, |z_n+1,c|)` is the integrator's weight: `max(sk, κ |δ₂,c|)` with κ =
    /// [`NOISE_SAFETY`] for the own-bits noise, and at least `κ N` for a block noise level N,
    /// that share at most `J max(sk, κ N_n)` with J = [`NOISE_JUMP`] and N_n the level near
    /// the accepted state (module docs). Equal to `sk` bit for bit whenever no correction
    /// stagnated, so step sequences and counters do not change there.
    ///
    /// Under [`Stabilization::Partitioned`] and [`Stabilization::Hybrid`] the weight is ∞ for
    /// the dependent components (error control on the independent ones only, \[HAUG\] §7.3.2)
    /// and sk √(N_i / 2n) for the N_i independent ones, so that an RMS norm over all 2n
    /// components is the RMS over the independent ones (`partition.rs`, item 5).
    pub fn floored_scale(&self, c: usize, sk: f64) -> f64 {
        if let Some(gcp) = &self.gcp {
            return gcp.scale(c, sk);
        }
        let near_start = self.carried[self.block(c)];
        let mixed = (NOISE_SAFETY * self.noise_level(c))
            .min(NOISE_JUMP * sk.max(NOISE_SAFETY * near_start));
        sk.max(NOISE_SAFETY * self.own_round_off(c)).max(mixed)
    }

    /// The integrator accepted the last attempt: its state's block noise level is the one
    /// near the next attempts' start ([`Stabilizer::floored_scale`]).
    pub fn note_accepted(&mut self) {
        self.carried = self.noise;
    }

    /// |δ₂,c| of the last correction if it stagnated within every coordinate's last bits.
    fn own_round_off(&self, c: usize) -> f64 {
        let n = self.dims.n;
        match (self.floor_active, c < n) {
            (false, _) => 0.0,
            (true, true) => self.dq[c].abs(),
            (true, false) => self.dv[c - n].abs(),
        }
    }

    /// The block noise level of component `c`: the last correction's or the one near the
    /// accepted state, whichever is larger.
    fn noise_level(&self, c: usize) -> f64 {
        let b = self.block(c);
        self.noise[b].max(self.carried[b])
    }

    /// 0 for a position component of z = (q, v), 1 for a velocity one.
    fn block(&self, c: usize) -> usize {
        usize::from(c >= self.dims.n)
    }

    /// Copy the partitioned stabilizations' record into `stats`: the events
    /// ([`Stats::partitions`]) and the counters `newton_iterations` and `repartitions` in
    /// [`Stats::extra`]. Nothing for the other methods.
    pub fn report_into(&self, stats: &mut Stats) {
        if self.passage.projections > 0 {
            stats
                .extra
                .set("passage_projections", self.passage.projections);
        }
        if let Some(gcp) = &self.gcp {
            stats.partitions.clone_from(&gcp.events);
            stats.extra.set("newton_iterations", gcp.newton_iterations);
            stats.extra.set("repartitions", gcp.repartitions);
        }
    }
}

/// Safety factor κ of the round-off floor ([`Stabilizer::floored_scale`]). Measured on the
/// 40-window chain (20 s): κ = 4 still collapses at rtol 1e-12 (t ≈ 3.21), κ = 16 runs rtol
/// 1e-11, 1e-12 and 1e-13 to the end.
pub const NOISE_SAFETY: f64 = 16.0;

/// Position contraction ‖δq₂‖∞ / ‖δq₁‖∞ of the two passes at or above which the second pass
/// counts as stagnation (a converging Newton pass contracts quadratically). Measured: genuine
/// second passes (Andrews rtol 1e-4/1e-5, two-link case II) contract to 3e-8…1e-5, one
/// two-link attempt to 0.11; noise-dominated ones (chain, Andrews at 1e-13) 7e-5…3.
pub const STAGNATION: f64 = 1e-3;

/// Largest second position pass that counts as round-off, in units of ε: R = 2²⁰ ≈ 1e6, for
/// each component against its coordinate |q_c| (own-bits noise) and for ‖δq₂‖∞ against ‖q‖∞
/// (either kind). Measured: own-bits noise 1…3e3 ε |q_c| (chain at rtol 1e-12/1e-13, Andrews at
/// 1e-13); mixed noise of the A02 chain in body coordinates ≤ 9.3e3 ε ‖q‖∞ (99 % below 34;
/// RKSTAB at rtol 1e-9 … 1e-12); the two-link attempt that passes [`STAGNATION`] has
/// 6e12 ε |q_c|, a real remainder, six decades above the bound for any ‖q‖∞ < 6e6 |q_c|.
pub const ROUND_OFF_RELATIVE: f64 = 1_048_576.0;

/// Largest jump J of a noise level, over the tolerance and over the level near the accepted
/// state, that the floor covers at once: 2⁷ = 128 ([`Stabilizer::floored_scale`]). Measured on
/// the A02 chain in body coordinates (RKSTAB over 20 s at rtol 1e-9, 5e-10, 2e-10, 1e-10,
/// 5e-11, 2e-11, 1e-11, 5e-12, 2e-12, 1e-12): the levels of successive attempts from one state
/// near a passage spread over 1.5 decades (‖δv₂‖∞ 4.9e-10 … 1.6e-8), so J must exceed ~30;
/// without the cap one step end at rtol 1e-12 took in a velocity noise of 1.5e-5, 3.7e5 times
/// the level near its start, and the run ended 2.5e-4 rad off the reduction. Every J from 32 to
/// 1024 runs all ten tolerances; the largest errors are 3.4e-6 (J = 32), 4.0e-7 (64),
/// 1.4e-7 (128, at rtol 1e-9: the method's own error), 1.3e-7 (256), 2.3e-6 (512), 3.3e-6
/// (1024).
pub const NOISE_JUMP: f64 = 128.0;
