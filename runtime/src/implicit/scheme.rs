//! The three implicit schemes as one family: Newmark (\[ME451\]), HHT-α and generalized-α
//! (Chung–Hulbert) are all generalized-α methods in the form of Arnold & Brüls (2007) for
//! index-3 DAEs, differing only in the four coefficients (α_m, α_f, β, γ).
//!
//! With the pseudo-acceleration a (a_0 = q̈_0):
//! ```text
//! (1 − α_m) a_{n+1} + α_m a_n = (1 − α_f) q̈_{n+1} + α_f q̈_n
//! q_{n+1} = q_n + h v_n + h² (1/2 − β) a_n + h² β a_{n+1}
//! v_{n+1} = v_n + h (1 − γ) a_n + h γ a_{n+1}
//! M(q_{n+1}) q̈_{n+1} + Gᵀ λ_{n+1} = Q(t_{n+1}, q_{n+1}, v_{n+1}),  Φ(t_{n+1}, q_{n+1}) = 0
//! ```
//! - Newmark: α_m = α_f = 0, so a = q̈ and this is the ME451 slide exactly (defaults β = 0.3025,
//!   γ = 0.6: first order; γ = 1/2 gives the second-order trapezoidal family).
//! - HHT-α, α ∈ [−1/3, 0]: α_m = 0, α_f = −α, γ = 1/2 − α, β = (1 − α)²/4 (the HHT member of
//!   Chung–Hulbert's family; for linear problems its spectrum is HHT's).
//! - Generalized-α with spectral radius at infinity ρ∞ ∈ [0, 1]: α_m = (2ρ∞ − 1)/(ρ∞ + 1),
//!   α_f = ρ∞/(ρ∞ + 1), γ = 1/2 − α_m + α_f, β = (1 − α_m + α_f)²/4 (Chung & Hulbert 1993).
//!
//! Since q̈_{n+1} is the Newton unknown, ∂a_{n+1}/∂q̈_{n+1} = c = (1 − α_f)/(1 − α_m), so
//! ∂q_{n+1}/∂q̈_{n+1} = β h² c and ∂v_{n+1}/∂q̈_{n+1} = γ h c: the ME451 scaling with β c for β.

use crate::error::SimError;
use crate::integrator::common::invalid;

/// Which implicit scheme, with its parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scheme {
    /// Newmark on the index-3 DAE (\[ME451\], digest §2.9). ME451: β = 0.3025, γ = 0.6
    /// (first order, "very good stability"); γ = 1/2 is second order. Requires β ∈ (0, 1],
    /// γ ∈ [1/2, 1] (γ < 1/2 amplifies oscillations).
    Newmark {
        /// β of the position update.
        beta: f64,
        /// γ of the velocity update.
        gamma: f64,
    },
    /// HHT-α (Hilber–Hughes–Taylor), α ∈ [−1/3, 0]: α = 0 is the trapezoidal rule (no
    /// damping), α = −1/3 the most numerical damping of high frequencies. Second order.
    Hht {
        /// α ∈ [−1/3, 0].
        alpha: f64,
    },
    /// Generalized-α (Chung–Hulbert) with spectral radius ρ∞ ∈ [0, 1] of the amplification
    /// matrix at infinite frequency: ρ∞ = 1 keeps every frequency (trapezoidal), ρ∞ = 0
    /// annihilates the highest in one step. Second order.
    GeneralizedAlpha {
        /// ρ∞ ∈ [0, 1].
        rho_inf: f64,
    },
}

impl Scheme {
    /// ME451's Newmark: β = 0.3025, γ = 0.6.
    pub const ME451: Scheme = Scheme::Newmark {
        beta: 0.3025,
        gamma: 0.6,
    };

    /// The short name of the scheme (`newmark`, `hht`, `generalized-alpha`).
    pub fn name(&self) -> &'static str {
        match self {
            Scheme::Newmark { .. } => "newmark",
            Scheme::Hht { .. } => "hht",
            Scheme::GeneralizedAlpha { .. } => "generalized-alpha",
        }
    }

    /// The parameter's domain ([`SimError::InvalidOption`] outside it).
    pub fn validate(&self) -> Result<(), SimError> {
        let within = |name, x: f64, lo: f64, hi: f64, open_lo: bool, reason| {
            let ok = x.is_finite() && x <= hi && if open_lo { x > lo } else { x >= lo };
            if ok {
                Ok(())
            } else {
                Err(invalid(name, &x.to_string(), reason))
            }
        };
        match *self {
            Scheme::Newmark { beta, gamma } => {
                within("newmark.beta", beta, 0.0, 1.0, true, "must lie in (0, 1]")?;
                within(
                    "newmark.gamma",
                    gamma,
                    0.5,
                    1.0,
                    false,
                    "must lie in [1/2, 1]",
                )
            }
            Scheme::Hht { alpha } => within(
                "hht.alpha",
                alpha,
                -1.0 / 3.0,
                0.0,
                false,
                "must lie in [-1/3, 0]",
            ),
            Scheme::GeneralizedAlpha { rho_inf } => within(
                "generalized_alpha.rho_inf",
                rho_inf,
                0.0,
                1.0,
                false,
                "must lie in [0, 1]",
            ),
        }
    }

    /// The coefficients (α_m, α_f, β, γ) of the module docs.
    pub fn coefficients(&self) -> Coefficients {
        match *self {
            Scheme::Newmark { beta, gamma } => Coefficients {
                alpha_m: 0.0,
                alpha_f: 0.0,
                beta,
                gamma,
            },
            Scheme::Hht { alpha } => Coefficients {
                alpha_m: 0.0,
                alpha_f: -alpha,
                beta: 0.25 * (1.0 - alpha).powi(2),
                gamma: 0.5 - alpha,
            },
            Scheme::GeneralizedAlpha { rho_inf } => {
                let alpha_m = (2.0 * rho_inf - 1.0) / (rho_inf + 1.0);
                let alpha_f = rho_inf / (rho_inf + 1.0);
                Coefficients {
                    alpha_m,
                    alpha_f,
                    beta: 0.25 * (1.0 - alpha_m + alpha_f).powi(2),
                    gamma: 0.5 - alpha_m + alpha_f,
                }
            }
        }
    }

    /// The order of convergence of q and v: 2 when γ = 1/2 − α_m + α_f, else 1.
    pub fn order(&self) -> usize {
        let c = self.coefficients();
        if (c.gamma - (0.5 - c.alpha_m + c.alpha_f)).abs() < 1e-12 {
            2
        } else {
            1
        }
    }
}

/// The generalized-α coefficients of a [`Scheme`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coefficients {
    /// Weight of a_n in the pseudo-acceleration recurrence.
    pub alpha_m: f64,
    /// Weight of q̈_n in the pseudo-acceleration recurrence.
    pub alpha_f: f64,
    /// Newmark β.
    pub beta: f64,
    /// Newmark γ.
    pub gamma: f64,
}

impl Coefficients {
    /// c = ∂a_{n+1}/∂q̈_{n+1} = (1 − α_f)/(1 − α_m).
    pub fn c(&self) -> f64 {
        (1.0 - self.alpha_f) / (1.0 - self.alpha_m)
    }

    /// The pseudo-acceleration a_{n+1} from q̈_{n+1} and (q̈_n, a_n), component-wise.
    pub fn pseudo_acceleration(&self, qdd_new: f64, qdd_old: f64, a_old: f64) -> f64 {
        ((1.0 - self.alpha_f) * qdd_new + self.alpha_f * qdd_old - self.alpha_m * a_old)
            / (1.0 - self.alpha_m)
    }

    /// The weight of (q̈_{n+1} − q̈_n) h in the velocity's local error: γ − (1/2 − α_m + α_f),
    /// zero for the second-order members.
    pub fn velocity_error_weight(&self) -> f64 {
        self.gamma - (0.5 - self.alpha_m + self.alpha_f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The local error of the position update on q̈ = eᵗ (q = v = eᵗ), after the
    /// pseudo-acceleration's start-up transient has decayed (400 steps of the recurrence from
    /// a_0 = q̈_0): one step from the exact (q, v) at t_n with the recurrence's a_n against the
    /// exact end, divided by the predicted leading term h³ q⃛ (β + δ/2 − 1/6) of the estimate.
    /// The next terms are O(h) relative to it: with h = 1e-3 the ratio is 1 ± 1e-2.
    #[test]
    fn leading_term_of_the_position_error_matches_a_smooth_motion() {
        let h = 1e-3;
        for scheme in [
            Scheme::Hht { alpha: -0.05 },
            Scheme::Hht { alpha: -0.3 },
            Scheme::GeneralizedAlpha { rho_inf: 0.8 },
            Scheme::GeneralizedAlpha { rho_inf: 0.0 },
        ] {
            let c = scheme.coefficients();
            let (mut a, mut qdd) = (1.0_f64, 1.0_f64);
            let steps = 400;
            for n in 1..=steps {
                let next = (n as f64 * h).exp();
                a = c.pseudo_acceleration(next, qdd, a);
                qdd = next;
            }
            let t = steps as f64 * h;
            let (q, v) = (t.exp(), t.exp());
            let next = (t + h).exp();
            let a_new = c.pseudo_acceleration(next, qdd, a);
            let q_new = q + h * v + h * h * ((0.5 - c.beta) * a + c.beta * a_new);
            let delta = c.alpha_m - c.alpha_f;
            let eq = (q_new - next) / (h.powi(3) * t.exp() * (c.beta + delta / 2.0 - 1.0 / 6.0));
            assert!((eq - 1.0).abs() < 1e-2, "{scheme:?}: position ratio {eq}");
        }
    }
}
