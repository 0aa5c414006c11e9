//! The examples of \[CHIN\] ch. 2–3 as [`SemiExplicit`] problems (digest P2, P3, P4).
//!
//! - [`Example23`]: Example 2.3 (from Ascher–Chin–Reich 1994), the linear index-2 DAE with
//!   B = ((2 − t)ν, ν − 1)ᵀ ≠ Gᵀ behind Table 2.1, and (`second_order: true`) its index-3
//!   variant x'' = … behind Table 2.2. The OCR garbles q₂; the exact solution forces
//!   q₂ = (1 + (ν − 1)/(2 − t)) eᵗ (ambiguity 13), the reading used here.
//! - [`Example31`]: Example 3.1, z' = 3t² + y, 0 = z − t³ (closed-form drift laws of forward
//!   Euler with Baumgarte).

use nalgebra::DMatrix;

use crate::error::DaeError;
use crate::euler::{EulerOptions, backward_euler};
use crate::field::{Field, Stabilization};
use crate::problem::SemiExplicit;

/// \[CHIN\] Example 2.3: for 0 ≤ t ≤ 1,
/// x₁^(k) = (2 − t)ν y + q₁(t), x₂^(k) = (ν − 1) y + q₂(t), 0 = (t + 2)x₁ + (t² − 4)x₂ + r(t),
/// k = 1 (index 2, Table 2.1) or k = 2 (index 3, Table 2.2), with q₁ = (1 + ν)eᵗ,
/// q₂ = (1 + (ν − 1)/(2 − t))eᵗ, r = −(t² + t − 2)eᵗ. Exact solution x₁ = x₂ = eᵗ,
/// y = −eᵗ/(2 − t); GB = 4 − t².
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Example23 {
    /// ν (the thesis takes 1000, so hν = 10 at h = 0.01).
    pub nu: f64,
    /// The index-3 variant (x'' instead of x').
    pub second_order: bool,
}

impl Example23 {
    /// The exact solution (x₁, x₂, y) at t.
    pub fn exact(t: f64) -> ([f64; 2], f64) {
        let e = t.exp();
        ([e, e], -e / (2.0 - t))
    }

    /// The initial state: x(0) = (1, 1), and x'(0) = (1, 1) for the index-3 variant.
    pub fn initial(&self) -> Vec<f64> {
        if self.second_order {
            vec![1.0; 4]
        } else {
            vec![1.0; 2]
        }
    }

    /// The thesis' measures of Tables 2.1 and 2.2 after backward Euler with `steps` steps of
    /// h = 1/`steps` on [0, 1]: (error, drift) at the final time, with error = the largest
    /// |zᵢ(1) − e| over the whole first-order state z (x, and x' for the index-3 variant) and
    /// drift = |g(x(1), 1)|. For Table 2.2 the velocities matter: with positions only
    /// (the digest's reading, P3) Baumgarte's errors at γ = 10, 100, 1000 come out 7.1e-3,
    /// 6.2e-3, 1.7e62 against the printed .16e-1, .19e-1, .20e65; over (x, x') they are
    /// 1.63e-2, 1.93e-2, 2.05e64, and every other entry is unchanged (the velocity error is the
    /// smaller there).
    pub fn backward_euler_at_one(
        &self,
        stabilization: Stabilization,
        steps: usize,
    ) -> Result<(f64, f64), DaeError> {
        let mut field = Field::new(self, stabilization)?;
        let options = EulerOptions::new(1.0 / steps as f64, steps);
        let run = backward_euler(self, &mut field, 0.0, &self.initial(), &options)?;
        let (z, t) = (run.last(), run.t[steps]);
        // Every component of the exact z is eᵗ (x = x' = eᵗ).
        let error = z.iter().map(|zi| (zi - t.exp()).abs()).fold(0.0, f64::max);
        let x = &z[..2];
        let mut g = [0.0];
        self.g_into(t, x, &mut g);
        Ok((error, g[0].abs()))
    }

    /// r(t) and its first two derivatives.
    fn r(t: f64) -> [f64; 3] {
        let e = t.exp();
        [
            -(t * t + t - 2.0) * e,
            -(t * t + 3.0 * t - 1.0) * e,
            -(t * t + 5.0 * t + 2.0) * e,
        ]
    }
}

impl SemiExplicit for Example23 {
    fn dims(&self) -> (usize, usize) {
        (2, 1)
    }

    fn second_order(&self) -> bool {
        self.second_order
    }

    fn f_into(&self, t: f64, _x: &[f64], _v: &[f64], out: &mut [f64]) {
        let e = t.exp();
        out[0] = (1.0 + self.nu) * e;
        out[1] = (1.0 + (self.nu - 1.0) / (2.0 - t)) * e;
    }

    fn b_into(&self, t: f64, _x: &[f64], _v: &[f64], out: &mut DMatrix<f64>) {
        out[(0, 0)] = (2.0 - t) * self.nu;
        out[(1, 0)] = self.nu - 1.0;
    }

    fn g_into(&self, t: f64, x: &[f64], out: &mut [f64]) {
        out[0] = (t + 2.0) * x[0] + (t * t - 4.0) * x[1] + Self::r(t)[0];
    }

    fn g_x_into(&self, t: f64, _x: &[f64], out: &mut DMatrix<f64>) {
        out[(0, 0)] = t + 2.0;
        out[(0, 1)] = t * t - 4.0;
    }

    fn g_t_into(&self, t: f64, x: &[f64], out: &mut [f64]) {
        out[0] = x[0] + 2.0 * t * x[1] + Self::r(t)[1];
    }

    /// z = g_tt + 2 g_xt v + g_xx(v, v) = 2x₂ + r'' + 2(v₁ + 2t v₂) (g is linear in x).
    fn curvature_into(&self, t: f64, x: &[f64], v: &[f64], out: &mut [f64]) {
        out[0] = 2.0 * x[1] + Self::r(t)[2] + 2.0 * (v[0] + 2.0 * t * v[1]);
    }

    /// ∂(G v + g_t)/∂x = (1, 2t).
    fn velocity_jacobian_into(&self, t: f64, _x: &[f64], _v: &[f64], out: &mut DMatrix<f64>) {
        out[(0, 0)] = 1.0;
        out[(0, 1)] = 2.0 * t;
    }
}

/// \[CHIN\] Example 3.1: z' = 3t² + y, 0 = z − t³ (index 2, B = G = 1). Baumgarte gives the
/// underlying ODE z' = 3t² − γ(z − t³) (3.5).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Example31;

impl SemiExplicit for Example31 {
    fn dims(&self) -> (usize, usize) {
        (1, 1)
    }

    fn second_order(&self) -> bool {
        false
    }

    fn f_into(&self, t: f64, _x: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = 3.0 * t * t;
    }

    fn b_into(&self, _t: f64, _x: &[f64], _v: &[f64], out: &mut DMatrix<f64>) {
        out[(0, 0)] = 1.0;
    }

    fn g_into(&self, t: f64, x: &[f64], out: &mut [f64]) {
        out[0] = x[0] - t * t * t;
    }

    fn g_x_into(&self, _t: f64, _x: &[f64], out: &mut DMatrix<f64>) {
        out[(0, 0)] = 1.0;
    }

    fn g_t_into(&self, t: f64, _x: &[f64], out: &mut [f64]) {
        out[0] = -3.0 * t * t;
    }
}
