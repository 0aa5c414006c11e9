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
//! round-off, and in the second pass G(q) v against the factors of the frozen G (the first
//! pass moved q along the lost directions, which changes G v at first order there). On the
//! IFToMM A02 chain with RK4 at h = 1e-5 (2·10⁶ step points, some within ~1e-7 rad of the
//! horizontal position) pass gains reached 3e4…8e4: a round-off Φ of 8e-13 moved q by 6e-8,
//! the second pass then met a velocity residual of 8e-8 and corrected v by 6.6e-3 rad/s, and
//! after a few such steps the cranks folded (5.9 rad error at t = 20). The error-controlled
//! methods reject such step ends (the round-off floor's noise jump, `mod.rs`); a constant-step
//! method cannot, so with [`Stabilizer::with_rank_loss_guard`] (fixed-step RK and the
//! constant-step Adams methods) a pass whose gain ‖δ‖∞/‖r‖∞ exceeds [`RANK_LOSS_GAIN`] in
//! either block is the last one, and its position correction is dropped when Φ holds to
//! round-off (‖Φ‖∞ ≤ [`RANK_LOSS_ROUND_OFF`] ε ‖q‖∞). Away from rank loss the gain is ‖P‖ on
//! residuals in G's range, O(1…10²) on the models of the suite, and nothing changes.

use super::{Stabilizer, inf_norm};
use crate::error::SimError;
use crate::kkt::{KktWorkspace, Metric};
use crate::system::ConstrainedSystem;

/// The gain ‖δ‖∞/‖r‖∞ of a projection pass above which the rank-loss guard calls a
/// round-off-sized residual's correction amplified noise (module docs).
pub(crate) const RANK_LOSS_GAIN: f64 = 1e3;

/// Φ's round-off in units of ε ‖q‖∞ below which the rank-loss guard calls Φ converged.
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

    /// Whether the pass just solved (residuals `pos_res`, `vel_res` → corrections `dq`, `dv`)
    /// has a gain ‖δ‖∞/‖r‖∞ above [`RANK_LOSS_GAIN`] in either block.
    fn near_rank_loss(&self, positions: bool) -> bool {
        let gain = |r: &[f64], d: &[f64]| inf_norm(d) > RANK_LOSS_GAIN * inf_norm(r);
        (positions && gain(&self.pos_res, &self.dq)) || gain(&self.vel_res, &self.dv)
    }

    /// Whether ‖Φ‖∞ ≤ [`RANK_LOSS_ROUND_OFF`] ε ‖q‖∞ (`pos_res`).
    fn phi_at_round_off(&self, q: &[f64]) -> bool {
        inf_norm(&self.pos_res) <= RANK_LOSS_ROUND_OFF * f64::EPSILON * inf_norm(q)
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
            let near_rank_loss = self.rank_loss_guard && self.near_rank_loss(correct_positions);
            if near_rank_loss && correct_positions && self.phi_at_round_off(q) {
                // Rank-loss guard (module docs): Φ holds to round-off; its correction is noise.
                self.dq.fill(0.0);
            }
            for i in 0..n {
                if correct_positions {
                    q[i] -= self.dq[i];
                }
                v[i] -= self.dv[i];
            }
            if near_rank_loss {
                // The next pass's residuals would be G(q) against the frozen factors.
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
