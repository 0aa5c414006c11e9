//! Baumgarte stabilization: the modified acceleration right side γ̂.
//!
//! The position-level form replaces Φ̈ = 0 by Φ̈ + 2α Φ̇ + β² Φ = 0 (\[HAUG\] 7.3.8, \[WU\] (33)):
//!
//! ```text
//! γ̂_Φ = γ_Φ − 2α (Φ_q v + Φ_t) − β² Φ
//! ```
//!
//! Chin's `B(g1, g2)` means g̈ + g1 ġ + g2 g = 0, so `g1 = 2α` and `g2 = β²`
//! ([`Baumgarte::from_chin`]); critical damping is `g1² = 4 g2`, i.e. `α = β`. \[WU\]'s
//! `α = β = 5` is `B(10, 25)`; `B(0, 0)` is no stabilization.
//!
//! Nonholonomic rows (index 2) have only a velocity-level invariant A v + b = 0; they get the
//! one-parameter form of \[CHIN\] §2.2, `d/dt(A v + b) + g1 (A v + b) = 0`, i.e.
//! `γ̂_A = γ_A − 2α (A v + b)`. The rolling disc's "γ = 20" is therefore `α = 10`.

/// Baumgarte gains in Haug/Wu form: Φ̈ + 2α Φ̇ + β² Φ = 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Baumgarte {
    /// Damping gain α (the velocity residual is weighted by 2α).
    pub alpha: f64,
    /// Position gain β (the position residual is weighted by β²).
    pub beta: f64,
}

impl Baumgarte {
    /// From Chin's `B(g1, g2)`: g̈ + g1 ġ + g2 g = 0, so α = g1/2, β = √g2.
    pub fn from_chin(g1: f64, g2: f64) -> Self {
        Self {
            alpha: 0.5 * g1,
            beta: g2.sqrt(),
        }
    }

    /// The velocity gain `g1 = 2α`.
    pub fn g1(&self) -> f64 {
        2.0 * self.alpha
    }

    /// The position gain `g2 = β²`.
    pub fn g2(&self) -> f64 {
        self.beta * self.beta
    }

    /// Overwrite γ (length m + k) with γ̂, given Φ (length m) and the velocity residual
    /// G v + [Φ_t; b] (length m + k).
    pub fn modify_gamma(&self, phi: &[f64], velocity_residual: &[f64], gamma: &mut [f64]) {
        let (g1, g2) = (self.g1(), self.g2());
        for (i, g) in gamma.iter_mut().enumerate() {
            *g -= g1 * velocity_residual[i];
            if i < phi.len() {
                *g -= g2 * phi[i];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chin_and_haug_parameterisations_agree() {
        // B(20, 100) is the critically damped α = β = 10 (\[CHIN\] P6).
        let b = Baumgarte::from_chin(20.0, 100.0);
        assert_eq!((b.alpha, b.beta), (10.0, 10.0));
        assert_eq!((b.g1(), b.g2()), (20.0, 100.0));
        // γ̂ = γ − g1 r_v − g2 Φ on the holonomic row, γ − g1 r_v on the nonholonomic one.
        let mut gamma = [1.0, 2.0];
        b.modify_gamma(&[0.5], &[0.1, 0.2], &mut gamma);
        assert_eq!(gamma, [1.0 - 2.0 - 50.0, 2.0 - 4.0]);
    }
}
