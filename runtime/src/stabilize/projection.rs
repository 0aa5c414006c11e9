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
//!
//! # Rank-loss guard (constant-step methods)
//!
//! Near a position where G loses rank, P's gain in the directions G loses grows like
//! 1/σ_min(G). A residual that G's range explains (an integration error G e) is corrected by
//! e's own component there, whatever the gain; residuals outside that range are amplified: Φ's
//! round-off (set by the size of Φ's terms, not by σ_min), and in the second pass G(q) v
//! against the factors of the frozen G (the first pass moved q along the lost directions,
//! which changes G v at first order there). The error-controlled methods reject such step ends
//! (the round-off floor's noise jump, `mod.rs`); a constant-step method cannot, so with
//! [`Stabilizer::with_rank_loss_guard`] (fixed-step RK and the constant-step Adams methods):
//!
//! 1. **Noise.** A pass that finds Φ at round-off drops its position correction (noise,
//!    whatever the gain) and is the last pass; its velocity correction is applied. Φ is at
//!    round-off when ‖Φ‖∞ ≤ [`RANK_LOSS_TIGHT`] ε ‖q‖∞ (2: a few half-ulps of Φ's largest
//!    terms, of q's size for position constraints; what the evaluation cannot tell from 0),
//!    and near rank loss (rule 2) already at [`RANK_LOSS_ROUND_OFF`] ε ‖q‖∞, where even such
//!    a Φ's correction is amplified beyond the state's own bits. The tight test holds at every
//!    step, not only near rank loss: the noise the projections mix into the lost directions
//!    *away* from a passage is what the passage amplifies. On the IFToMM A02 chain a relative
//!    offset δ of the crank angles makes G(q) v = O(v δ) for the common motion, so the
//!    consistent relative velocity is O(v δ / σ_min); the step whose end lies nearest the
//!    singular time t* (|t − t*| ≤ h/2, where the relative modes' field has an eigenvalue
//!    ~ 1/(t − t*), so hλ ≥ 2, beyond RK4's stability interval for hλ > 2.8) amplifies it,
//!    and the phase of the common motion takes the error. σ_min at the step point nearest t*
//!    falls ∝ h, so the error grew as h fell: RK4 2.4e-2 at h = 1e-5 against 6.6e-9 at 1e-4
//!    over 20 s. With the noise dropped at every step the crank form's cranks keep
//!    bit-identical angles (δ = 0): RK4 4.4e-11 at h = 1e-5; dropping it only near rank loss
//!    (spread ≥ 16 times the best) left 2.2e-8 at t = 1.5 s against 1.5e-13. The looser level
//!    64 at every step let real Φ up to ~6e-13 stand on the body form (x up to 40 m), and
//!    RK4 at h = 1e-4 stopped at t = 11.06 (singular configuration), MAMPC4 5.6e-4; dropping
//!    only corrections within 16 ε of every coordinate lost the crank form's fix (2.4e-7).
//! 2. **Near rank loss** (pivot spread of the factored augmented matrix above
//!    [`RANK_LOSS_SPREAD`] times the smallest spread of the run) every pass is the last one:
//!    the second pass's frozen-matrix iteration contracts by ~‖P‖ ‖G'‖ ‖δq₁‖, which the
//!    growth of ‖P‖ spoils (measured with the level 64 of rule 1 at every step, body form,
//!    RK4 at h = 1e-3: 1.3e-4 without a one-pass rule, 1.1e-7 with the former gain rule).
//!
//! **The threshold, derived.** The augmented matrix K = [W Gᵀ; G 0] is factored anyway; its
//! LU's pivot spread max|u_jj| / min|u_jj| ([`crate::kkt::Conditioning`]) costs O(N). Its
//! pivots are those of W (O(‖W‖), unchanged by rank loss) and those of the Schur complement
//! G W⁻¹ Gᵀ, O(σ_i(G)² / ‖W‖); once the latter are the smallest, the spread grows like
//! σ_min⁻² and P's gain, ~σ_min⁻¹, like its square root (measured on the A02 chain near a
//! passage: a 21-fold spread for a 4.6-fold closer approach, 4.6² = 21). Measured against the
//! smallest spread of the same run (the best-conditioned configuration it has met), no scale
//! of the model enters: a badly scaled M or G raises both. [`RANK_LOSS_SPREAD`] = 2¹⁰: the
//! gain has grown ≥ 32-fold over the run's best, so the second pass's contraction factor has
//! lost that margin. (The former absolute gain threshold 10³ corresponded on the crank-angle
//! chain, gain ≈ 6.5/|sin θ|, to a spread of ≈ 800 against the best 1.54, a ratio ≈ 2⁹.)
//! Limits: W's own pivot spread hides the growth until the Schur pivots fall below W's
//! smallest, so with a badly conditioned M the rule trips later (then the projection is
//! plain PStab there, the behaviour before the guard); a run that starts at a singular
//! position takes its reference from the better configurations it meets later.

use super::{Stabilizer, inf_norm};
use crate::error::SimError;
use crate::kkt::{KktWorkspace, Metric};
use crate::system::ConstrainedSystem;

/// The growth of the projection matrix's pivot spread over the smallest of the run above
/// which the rank-loss guard calls it near rank loss (module docs, "The threshold, derived").
pub(crate) const RANK_LOSS_SPREAD: f64 = 1024.0;

/// Φ at round-off for the rank-loss guard away from rank loss: ‖Φ‖∞ ≤ this many ε ‖q‖∞
/// (module docs, rule 1).
pub(crate) const RANK_LOSS_TIGHT: f64 = 2.0;

/// Φ at round-off for the rank-loss guard near rank loss: ‖Φ‖∞ ≤ this many ε ‖q‖∞.
pub(crate) const RANK_LOSS_ROUND_OFF: f64 = 64.0;

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

    /// Whether the augmented matrix just factored is near rank loss: its pivot spread above
    /// [`RANK_LOSS_SPREAD`] times the smallest spread of this stabilizer's run (updated here).
    fn near_rank_loss(&mut self) -> bool {
        let spread = self.kkt.factors.as_ref().map_or(1.0, |f| f.pivot_spread());
        self.best_spread = self.best_spread.min(spread);
        spread > RANK_LOSS_SPREAD * self.best_spread
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
        let near_rank_loss = self.rank_loss_guard && self.near_rank_loss();
        let mut first = 0.0;
        for pass in 0..variant.passes {
            // Residuals at the current point (pass 0: the unstabilized point, whose G is frozen).
            if pass > 0 {
                self.jac_r.eval(sys, t, q)?;
            }
            self.residuals(sys, (t, q, v), pass == 0, correct_positions)?;
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
            // Guard of the constant-step methods (module docs): with Φ at round-off its
            // correction is noise and this pass is the last; near rank loss every pass is.
            let level = if near_rank_loss {
                RANK_LOSS_ROUND_OFF
            } else {
                RANK_LOSS_TIGHT
            };
            let noise = self.rank_loss_guard && correct_positions && self.phi_within(q, level);
            if noise {
                self.dq.fill(0.0);
            }
            for i in 0..n {
                if correct_positions {
                    q[i] -= self.dq[i];
                }
                v[i] -= self.dv[i];
            }
            if noise || near_rank_loss {
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
