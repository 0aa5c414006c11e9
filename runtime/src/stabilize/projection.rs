//! The projection family of post-stabilizations: PStab, S-both, velocity-only, GGᵀ, and the
//! nonholonomic correction (3.75).
//!
//! All of them are `z ← z − F h(z)` with F built from P = W⁻¹Gᵀ(G W⁻¹ Gᵀ)⁻¹, computed through
//! the augmented matrix K = [W G0ᵀ; G0 0] of \[CHIN\] (4.15): solving K [δ; μ] = [0; r] gives
//! δ = P r, for a singular positive-semidefinite W = M too (Lemma 4.1). W = M for PStab,
//! S-both and velocity-only, W = I for the GGᵀ variant (Remark 3.4).
//!
//! K is assembled and factored **once**, at the unstabilized point (q~, v~), and reused by
//! every pass (ambiguity 12: frozen matrix). In each pass both residuals, Φ(t, q) and
//! G(q) v + [Φ_t; b], are evaluated at the current point before either correction is applied
//! (Jacobi style). G = [Φ_q; A] includes the nonholonomic rows: their position residual is
//! zero, so the position correction also satisfies A δq = 0, and their velocity residual gives
//! exactly (3.75) (q unchanged, v ← v − P (A v + b)) when the model is purely nonholonomic.
//! The first pass's G v uses the frozen G, which *is* G at the point, except when the factors
//! were lent from a nearby point (ABM's predicted point, `Stabilizer::apply_nearby_factored`):
//! then every pass evaluates G at the current point.
//!
//! # Rank-loss guard (constant-step methods)
//!
//! Near a position where G loses rank, P's gain in the directions G loses grows like
//! 1/σ_min(G). A residual that G's range explains (an integration error G e) is corrected by
//! e's own component there, whatever the gain; residuals outside that range are amplified: Φ's
//! round-off, and in the second pass G(q) v against the factors of the frozen G (the first
//! pass moved q along the lost directions, which changes G v at first order there). On the
//! IFToMM A02 chain with RK4 at h = 1e-5 (2·10⁶ step points, some within ~1e-7 rad of the
//! horizontal position) pass gains reached 3e4…8e4: a round-off Φ of 8e-13 moved q by 6e-8,
//! the second pass then met a velocity residual of 8e-8 and corrected v by 6.6e-3 rad/s, and
//! after a few such steps the cranks folded (5.9 rad error at t = 20). The error-controlled
//! methods reject such step ends (the round-off floor's noise jump, `mod.rs`); a constant-step
//! method cannot, so with [`Stabilizer::with_rank_loss_guard`] (fixed-step RK and the
//! constant-step Adams methods) two rules hold:
//!
//! 1. **Round-off residual, amplified.** A first pass that finds Φ at round-off, ‖Φ‖∞ ≤
//!    [`RANK_LOSS_TIGHT`] ε ‖q‖∞ (2: a few half-ulps of Φ's largest terms, what the evaluation
//!    cannot tell from 0), and amplifies it, A = ‖δq‖∞ max|g_ij| / ‖Φ‖∞ above
//!    [`RANK_LOSS_AMPLIFIED`], drops its position correction and is the last pass (its velocity
//!    correction is applied). A is dimensionless (Φ's units cancel against G's) and is O(1) for a
//!    well-conditioned G, whose correction of a residual r is about r / g: ≤ 3.3 on Wu's
//!    crank-slider (`repro pstab-adams`, the only reproduction whose constant-step runs meet a
//!    first-pass round-off Φ at all), while on the IFToMM A02 crank-angle chain it is 20.0 at every
//!    such step (RK4, h = 1e-3, 20 s): G = 2ℓ² sin θ D there (D the 40×41 difference matrix), so A
//!    is D⁺'s amplification, the same at every θ. The threshold 8 lies between, a factor 2.4 from
//!    both. Why this matters: the noise the projections mix into the lost directions *away* from a
//!    passage is what the passage amplifies. A relative offset δ of the crank angles makes G(q) v =
//!    O(v δ) for the common motion, so the consistent relative velocity is O(v δ / σ_min); the step
//!    whose end lies nearest the singular time t* (|t − t*| ≤ h/2, where the relative modes' field
//!    has an eigenvalue ~ 1/(t − t*), so hλ ≥ 2, beyond RK4's stability interval for hλ > 2.8)
//!    amplifies it, and the phase of the common motion takes the error. σ_min at the step point
//!    nearest t* falls ∝ h, so the error grew as h fell: RK4 2.4e-2 at h = 1e-5 against 6.6e-9 at
//!    1e-4 over 20 s (MAMPC4 2.6e-5, 9.1e-11). With the amplified noise dropped the cranks keep
//!    bit-identical angles (δ = 0): RK4 4.4e-11 and 8.8e-11 at h = 1e-5 and 1e-4, MAMPC4 3.9e-11
//!    and 1.3e-10. The rule is confined on purpose: without the amplification test (every
//!    first-pass round-off Φ dropped) the drifts of `repro pstab-adams` changed (MAMPC3 PStab at h
//!    = 0.001: 2.2e-16 → 1.8e-15, there Φ ≤ 2 ε ‖q‖∞ is real and the correction removes it); a
//!    former guard that judged every pass, with near rank loss from the pivot spread (one pass),
//!    also changed Table 3.1 and left the triple crank's velocity drift at 2.6e-7 (Heun, N = 320).
//! 2. **Near rank loss** a pass whose gain ‖δ‖∞/‖r‖∞ exceeds [`RANK_LOSS_GAIN`] in either
//!    block is the last one (the second pass's residual G(q) v against the frozen factors is
//!    amplified), and its position correction is dropped when Φ holds to round-off
//!    (‖Φ‖∞ ≤ [`RANK_LOSS_ROUND_OFF`] ε ‖q‖∞). Away from rank loss the gain is ‖P‖ on
//!    residuals in G's range, O(1…10²) on the models of the suite, and nothing changes.
//!
//! # Limit: body coordinates
//!
//! The guard does not carry the A02 chain in body coordinates (`four-bar-chain-bodies`) to
//! small constant steps: RK4 over 2 s 1.0e-9 at h = 1e-4, 1.8e-4 at 1e-5 (and a singular KKT
//! matrix at t = 18.93 over 20 s). Measured with a per-step probe of these passes: the cranks
//! agree to 1e-14 rad up to each passage, but Φ stays at 7e-15…2e-14, the round-off of the
//! bodies' x coordinates (up to 39.5), which no projection can go below. On the level set Φ = a
//! the relative crank offset is δ ≈ a / sin θ with δ̇ ≈ a θ̇ / sin²θ, consistent with G v = 0
//! (the velocity residual stays at 1e-15): the relative modes' homogeneous motion, ∝ 1/(t − t*)²
//! near the singular time t*. Its size at the step point nearest t* decides the damage: at
//! h = 1e-5 that point fell at sin θ = 4.9e-6 and −3.1e-6 in the first two passages, the next RK4
//! steps ended with relative crank velocities of 7e-3 and 2.5e-2 rad/s before any projection, and
//! removing them (gains 2e4…4e4) moved the cranks' mean velocity by up to 5.5e-5 per step: the
//! common phase error afterwards is 1.8e-4 at t = 2. At h = 1e-4 the nearest points were at
//! |sin θ| ≥ 3.8e-4. Re-projecting v with K factored afresh at the corrected q after such a pass
//! made it worse (9.3e-4), the damage being done inside the step across t*. A cure needs Φ's
//! round-off relative to the state (as on the crank-angle form, where the cranks stay
//! bit-identical) or step points kept away from t*; it is no projection rule.

use super::{Stabilizer, inf_norm};
use crate::error::SimError;
use crate::kkt::{KktWorkspace, Metric};
use crate::sparse::Jac;
use crate::system::ConstrainedSystem;

/// The gain ‖δ‖∞/‖r‖∞ of a projection pass above which the rank-loss guard calls a
/// round-off-sized residual's correction amplified noise (module docs).
pub(crate) const RANK_LOSS_GAIN: f64 = 1e3;

/// Φ's round-off in units of ε ‖q‖∞ below which the rank-loss guard calls Φ converged.
pub(crate) const RANK_LOSS_ROUND_OFF: f64 = 64.0;

/// Φ at round-off for the guard's first-pass rule: ‖Φ‖∞ ≤ this many ε ‖q‖∞ (module docs,
/// "Round-off residual, amplified").
pub(crate) const RANK_LOSS_TIGHT: f64 = 2.0;

/// The amplification ‖δq‖∞ max|g_ij| / ‖Φ‖∞ of a first pass above which the guard calls a
/// round-off Φ's correction amplified noise (module docs, "Round-off residual, amplified").
pub(crate) const RANK_LOSS_AMPLIFIED: f64 = 8.0;

/// A member of the projection family: metric, number of passes, whether q is corrected.
#[derive(Clone, Copy, Debug)]
pub(super) struct Variant {
    metric: Metric,
    passes: usize,
    positions: bool,
}

impl Variant {
    /// Algorithm 3.3 / (4.15).
    pub(super) const PSTAB: Variant = Variant {
        metric: Metric::Mass,
        passes: 2,
        positions: true,
    };
    /// (3.66).
    pub(super) const S_BOTH: Variant = Variant {
        metric: Metric::Mass,
        passes: 1,
        positions: true,
    };
    /// Remark 3.5.
    pub(super) const VELOCITY_ONLY: Variant = Variant {
        metric: Metric::Mass,
        passes: 1,
        positions: false,
    };
    /// Remark 3.4 (3.69).
    pub(super) const GGT: Variant = Variant {
        metric: Metric::Identity,
        passes: 2,
        positions: true,
    };
}

impl Stabilizer {
    /// The same stabilizer with the rank-loss guard (module docs) on: for the constant-step
    /// methods, which have no error test to reject a step end that took in amplified noise.
    pub fn with_rank_loss_guard(mut self) -> Self {
        self.rank_loss_guard = true;
        self
    }

    /// Whether the pass just solved (residuals `pos_res`, `vel_res` → corrections `dq`, `dv`)
    /// has a gain ‖δ‖∞/‖r‖∞ above [`RANK_LOSS_GAIN`] in either block.
    fn near_rank_loss(&self, positions: bool) -> bool {
        let gain = |r: &[f64], d: &[f64]| inf_norm(d) > RANK_LOSS_GAIN * inf_norm(r);
        (positions && gain(&self.pos_res, &self.dq)) || gain(&self.vel_res, &self.dv)
    }

    /// Whether the first pass just solved met a round-off Φ (‖Φ‖∞ ≤ [`RANK_LOSS_TIGHT`]
    /// ε ‖q‖∞) and amplified it: ‖δq‖∞ max|g_ij| / ‖Φ‖∞ > [`RANK_LOSS_AMPLIFIED`].
    fn round_off_amplified(&self, q: &[f64]) -> bool {
        let phi = inf_norm(&self.pos_res);
        if phi == 0.0 || !self.phi_within(q, RANK_LOSS_TIGHT) {
            return false;
        }
        let g = match self.kkt.jacobian() {
            Jac::Dense(g) => g.amax(),
            Jac::Sparse(g) => g.values[..g.entries().len()]
                .iter()
                .fold(0.0_f64, |a, x| a.max(x.abs())),
        };
        inf_norm(&self.dq) * g > RANK_LOSS_AMPLIFIED * phi
    }

    /// Whether ‖Φ‖∞ ≤ r ε ‖q‖∞ (`pos_res`).
    fn phi_within(&self, q: &[f64], r: f64) -> bool {
        inf_norm(&self.pos_res) <= r * f64::EPSILON * inf_norm(q)
    }

    /// Apply the projection `variant` to (q, v) at time t. With `factored`, a KKT workspace
    /// that holds K = [M G0ᵀ; G0 0] already factored at (t, q) (the dynamics' matrix of a
    /// right-hand side just evaluated there; mass metric only), the passes use it instead of
    /// assembling and factoring K again (\[CHIN\] (4.15): "it reuses the matrix of the
    /// Section 2.1 solve").
    #[allow(clippy::too_many_arguments)] // state, time, step label, variant and the factors
    pub(super) fn project<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
        q: &mut [f64],
        v: &mut [f64],
        variant: Variant,
        factored: Option<&mut KktWorkspace>,
    ) -> Result<(), SimError> {
        let Some(factored) = factored else {
            // Frozen matrix at the unstabilized point.
            if variant.metric == Metric::Mass {
                self.kkt.eval_mass(sys, t, q)?;
            }
            self.kkt.eval_jacobian(sys, t, q)?;
            self.kkt.factor(sys, variant.metric, t, h)?;
            return self.passes(sys, t, q, v, variant);
        };
        debug_assert!(
            variant.metric == Metric::Mass,
            "the dynamics' K has the mass metric"
        );
        // Borrow the caller's factors for the passes (a swap of buffers, no copy).
        std::mem::swap(&mut self.kkt, factored);
        let result = self.passes(sys, t, q, v, variant);
        std::mem::swap(&mut self.kkt, factored);
        result
    }

    /// The passes of `variant` with K factored at the unstabilized point in `self.kkt`.
    fn passes<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        q: &mut [f64],
        v: &mut [f64],
        variant: Variant,
    ) -> Result<(), SimError> {
        let (n, m) = (self.dims.n, self.dims.m);
        self.jac_r.prepare(sys);
        let correct_positions = variant.positions && m > 0;
        if !correct_positions {
            self.dq.fill(0.0);
        }
        let mut first = 0.0;
        for pass in 0..variant.passes {
            // Residuals at the current point (pass 0: the unstabilized point, whose G is frozen).
            let frozen = pass == 0 && !self.factors_elsewhere;
            if !frozen {
                self.jac_r.eval(sys, t, q)?;
            }
            self.residuals(sys, (t, q, v), frozen, correct_positions)?;
            if correct_positions {
                // Both corrections in one sweep over the factors (each as its own solve).
                self.kkt.solve_projection_pair(&self.pos_res, &self.vel_res);
                self.dq.copy_from_slice(&self.kkt.rhs[..n]);
                self.dv.copy_from_slice(&self.kkt.rhs_pair[..n]);
            } else {
                self.kkt.solve_projection(&self.vel_res);
                self.dv.copy_from_slice(&self.kkt.rhs[..n]);
            }
            if pass == 0 {
                first = inf_norm(&self.dq);
            }
            let near_rank_loss = self.rank_loss_guard && self.near_rank_loss(correct_positions);
            // The first pass met a round-off Φ and amplified it (module docs, rule 1).
            let amplified_noise = self.rank_loss_guard
                && correct_positions
                && pass == 0
                && self.round_off_amplified(q);
            if amplified_noise
                || (near_rank_loss && correct_positions && self.phi_within(q, RANK_LOSS_ROUND_OFF))
            {
                // Rank-loss guard (module docs): Φ holds to round-off; its correction is noise.
                self.dq.fill(0.0);
            }
            for i in 0..n {
                if correct_positions {
                    q[i] -= self.dq[i];
                }
                v[i] -= self.dv[i];
            }
            if near_rank_loss || amplified_noise {
                // The next pass's residuals would be G(q) against the frozen factors (rule 2),
                // or Φ(q)'s round-off amplified again (rule 1).
                break;
            }
        }
        // Round-off floor (module docs): the last (second) pass stagnated (no quadratic
        // contraction of the position correction) at a round-off-sized position correction,
        // ‖δq₂‖∞ ≤ R ε ‖q‖∞ (norm-wise: Φ's round-off is that of its largest terms).
        let second = inf_norm(&self.dq);
        let bound = super::ROUND_OFF_RELATIVE * f64::EPSILON;
        let stagnated = variant.passes >= 2
            && correct_positions
            && second >= super::STAGNATION * first
            && second <= bound * inf_norm(q);
        // Every component within the last bits of its own coordinate: its pass is its noise.
        self.floor_active = stagnated && (0..n).all(|i| self.dq[i].abs() <= bound * q[i].abs());
        // Otherwise P has mixed Φ's round-off into coordinates at or near 0 (the couplers'
        // angles of the A02 chain in body coordinates): the pattern over the components is no
        // property of the state, the size per block is its noise level.
        self.noise = if stagnated && !self.floor_active {
            [second, inf_norm(&self.dv)]
        } else {
            [0.0; 2]
        };
        Ok(())
    }
}
