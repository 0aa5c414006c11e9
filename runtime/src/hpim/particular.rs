//! Particular integrals of v' = H v + r(t) by undetermined coefficients (\[HPIM\] eqs. 19–23,
//! digest §2.10, with the corrected harmonic formulas of \[AMBIG-38\]); the forcing lives in the
//! lower block, r = [0; b φ(t)].
//!
//! - polynomial Σ rᵢ tⁱ: x = Σ aᵢ tⁱ, a_m = −H⁻¹ r_m, aᵢ = H⁻¹((i+1) a_{i+1} − rᵢ);
//! - harmonic r₁ sin θt + r₂ cos θt: x = a₁ sin θt + a₂ cos θt,
//!   a₁ = (θ²I + H²)⁻¹(θ r₂ − H r₁), a₂ = −(θ²I + H²)⁻¹(θ r₁ + H r₂);
//! - exponential r e^{bt}: x = (bI − H)⁻¹ r e^{bt}.
//!
//! A load without such a form ([`TimeFunction::General`]) and a singular H (no damping and a
//! singular K: a rigid-body mode, \[AMBIG-39\]) or resonant harmonic are typed errors.

use nalgebra::{DMatrix, DVector, LU};

use crate::error::SimError;
use crate::structural::{Load, TimeFunction};

/// The particular integral of one load term, in absolute time.
#[derive(Clone, Debug)]
pub enum LoadIntegral {
    /// x(t) = Σ aᵢ tⁱ.
    Polynomial(Vec<DVector<f64>>),
    /// x(t) = a₁ sin ωt + a₂ cos ωt.
    Harmonic {
        /// ω.
        omega: f64,
        /// a₁.
        a1: DVector<f64>,
        /// a₂.
        a2: DVector<f64>,
    },
    /// x(t) = a e^{bt}.
    Exponential {
        /// b.
        rate: f64,
        /// a.
        a: DVector<f64>,
    },
}

impl LoadIntegral {
    /// out += x(t).
    pub fn add_into(&self, t: f64, out: &mut DVector<f64>) {
        match self {
            LoadIntegral::Polynomial(a) => {
                let mut power = 1.0;
                for ai in a {
                    out.axpy(power, ai, 1.0);
                    power *= t;
                }
            }
            LoadIntegral::Harmonic { omega, a1, a2 } => {
                out.axpy((omega * t).sin(), a1, 1.0);
                out.axpy((omega * t).cos(), a2, 1.0);
            }
            LoadIntegral::Exponential { rate, a } => out.axpy((rate * t).exp(), a, 1.0),
        }
    }
}

impl LoadIntegral {
    /// out += scale · T x(t), with no allocation.
    pub fn add_t_into(&self, t_mat: &DMatrix<f64>, t: f64, scale: f64, out: &mut DVector<f64>) {
        match self {
            LoadIntegral::Polynomial(a) => {
                let mut power = scale;
                for ai in a {
                    out.gemv(power, t_mat, ai, 1.0);
                    power *= t;
                }
            }
            LoadIntegral::Harmonic { omega, a1, a2 } => {
                out.gemv(scale * (omega * t).sin(), t_mat, a1, 1.0);
                out.gemv(scale * (omega * t).cos(), t_mat, a2, 1.0);
            }
            LoadIntegral::Exponential { rate, a } => {
                out.gemv(scale * (rate * t).exp(), t_mat, a, 1.0)
            }
        }
    }
}

/// H⁻¹ applied to b (the LU of H, checked invertible by the caller).
fn solve(lu: &LU<f64, nalgebra::Dyn, nalgebra::Dyn>, b: &DVector<f64>) -> DVector<f64> {
    lu.solve(b).unwrap_or_else(|| DVector::zeros(b.len()))
}

/// The lower-block forcing [0; b] of length 2n.
fn lift(b: &DVector<f64>) -> DVector<f64> {
    let n = b.len();
    let mut r = DVector::zeros(2 * n);
    r.rows_mut(n, n).copy_from(b);
    r
}

fn no_integral(what: String) -> SimError {
    SimError::InvalidProblem {
        what: format!("hpim: no particular integral: {what}"),
    }
}

/// The particular integral of `load` for x' = H x + [0; b φ(t)]; `h_lu` is H's LU if H is
/// invertible.
pub fn load_integral(
    h: &DMatrix<f64>,
    h_lu: Option<&LU<f64, nalgebra::Dyn, nalgebra::Dyn>>,
    load: &Load,
    index: usize,
) -> Result<LoadIntegral, SimError> {
    let dim = h.nrows();
    match &load.time {
        TimeFunction::Polynomial(c) => {
            let lu = h_lu.ok_or_else(|| {
                no_integral(format!(
                    "load {index} is polynomial and H is singular (undamped structure with \
                     singular K: a rigid-body mode)"
                ))
            })?;
            let r = lift(&load.shape);
            let mut a = vec![DVector::zeros(dim); c.len()];
            for i in (0..c.len()).rev() {
                let next = if i + 1 < c.len() {
                    &a[i + 1] * (i + 1) as f64
                } else {
                    DVector::zeros(dim)
                };
                a[i] = solve(lu, &(next - &r * c[i]));
            }
            Ok(LoadIntegral::Polynomial(a))
        }
        &TimeFunction::Harmonic {
            omega,
            sin_amp,
            cos_amp,
        } => {
            let (r1, r2) = (lift(&load.shape) * sin_amp, lift(&load.shape) * cos_amp);
            let eye = DMatrix::<f64>::identity(dim, dim);
            let lu = (h * h + eye * (omega * omega)).lu();
            if !lu.is_invertible() {
                return Err(no_integral(format!(
                    "load {index} resonates: θ² I + H² is singular for θ = {omega}"
                )));
            }
            let a1 = solve(&lu, &(&r2 * omega - h * &r1));
            let a2 = -solve(&lu, &(&r1 * omega + h * &r2));
            Ok(LoadIntegral::Harmonic { omega, a1, a2 })
        }
        &TimeFunction::Exponential { amp, rate } => {
            let eye = DMatrix::<f64>::identity(dim, dim);
            let lu = (eye * rate - h).lu();
            if !lu.is_invertible() {
                return Err(no_integral(format!(
                    "load {index}: bI − H is singular for b = {rate} (b is an eigenvalue of H)"
                )));
            }
            let a = solve(&lu, &(lift(&load.shape) * amp));
            Ok(LoadIntegral::Exponential { rate, a })
        }
        TimeFunction::General(_) => Err(no_integral(format!(
            "load {index} has a general time function; HPIM needs a polynomial, harmonic or \
             exponential load (integrate it with RKSTAB or HHT instead)"
        ))),
    }
}

/// Coefficients (a₀, a₁, a₂) of the particular integral x(s) = a₀ + a₁ s + a₂ s² of
/// x' = H x + [0; g₀ + g₁ s + g₂ s²/2] in local time s (all g of length n).
pub fn quadratic_into(
    lu: &LU<f64, nalgebra::Dyn, nalgebra::Dyn>,
    g: [&[f64]; 3],
    a: &mut [DVector<f64>; 3],
) {
    let n = g[0].len();
    // r₂ = g₂/2: a₂ = −H⁻¹ r₂; a₁ = H⁻¹(2 a₂ − r₁); a₀ = H⁻¹(a₁ − r₀).
    let mut rhs = DVector::zeros(2 * n);
    for i in 0..n {
        rhs[n + i] = -0.5 * g[2][i];
    }
    a[2] = solve(lu, &rhs);
    rhs.copy_from(&a[2]);
    rhs *= 2.0;
    for i in 0..n {
        rhs[n + i] -= g[1][i];
    }
    a[1] = solve(lu, &rhs);
    rhs.copy_from(&a[1]);
    for i in 0..n {
        rhs[n + i] -= g[0][i];
    }
    a[0] = solve(lu, &rhs);
}
