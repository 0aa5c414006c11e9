//! T = exp(H τ) by Zhong's 2^N algorithm (\[HPIM\] eqs. 14–16, digest §2.10), keeping the
//! small increment R = T − I through the doublings so that round-off does not swamp it:
//!
//! ```text
//! Δt = τ / 2^N,   R₀ = HΔt + (HΔt)²/2! + (HΔt)³/3! + (HΔt)⁴/4!,   R_{i} = 2 R_{i−1} + R_{i−1}²,
//! T = I + R_N.
//! ```
//!
//! The truncation error per eigenvalue μ is about (μΔt)⁵/5!, which is below ε when
//! `|μ| τ < 2^N (120 ε)^{1/5}` ((18) with T_i = 2π/|μ|: τ/T_i < 2^{N−1}(120 ε)^{1/5}/π; about
//! 322 periods per step for N = 20 and ε = 2.2e-16). [`spectral_bound`] bounds |μ| for the
//! structural H and [`check_truncation`] turns a violation into a typed error.

use nalgebra::DMatrix;

use crate::error::SimError;

/// The accepted range of doublings N (below 1 the Taylor start is the whole step; above 50
/// Δt = τ/2^N underflows the useful range and only adds rounding of the doublings).
pub const DOUBLINGS: std::ops::RangeInclusive<u32> = 1..=50;

/// The increment R = exp(Hτ) − I by N doublings of the fourth-order Taylor start.
pub fn expm_increment(h: &DMatrix<f64>, tau: f64, doublings: u32) -> DMatrix<f64> {
    let n = h.nrows();
    let x = h * (tau / 2f64.powi(doublings as i32));
    let eye = DMatrix::<f64>::identity(n, n);
    // Horner: X (I + X (I/2 + X (I/6 + X/24))).
    let mut r = &x / 24.0 + &eye / 6.0;
    r = &x * r + &eye / 2.0;
    r = &x * r + &eye;
    r = &x * r;
    let mut sq = DMatrix::zeros(n, n);
    for _ in 0..doublings {
        r.mul_to(&r, &mut sq);
        r *= 2.0;
        r += &sq;
    }
    r
}

/// T = exp(Hτ) = I + R.
pub fn expm(h: &DMatrix<f64>, tau: f64, doublings: u32) -> DMatrix<f64> {
    let n = h.nrows();
    expm_increment(h, tau, doublings) + DMatrix::<f64>::identity(n, n)
}

/// The largest τ|μ| allowed by the truncation criterion (18) for N doublings:
/// 2^N (120 ε)^{1/5}.
pub fn max_step_frequency(doublings: u32) -> f64 {
    2f64.powi(doublings as i32) * (120.0 * f64::EPSILON).powf(0.2)
}

/// An upper bound of the eigenvalue moduli |μ| of H for a structure with symmetric positive
/// definite M and symmetric C, K: with c = ρ(M^{-1/2} C M^{-1/2}) and k = ρ(M^{-1/2} K M^{-1/2}),
/// every μ solves μ² m + μ c_x + k_x = 0 with Rayleigh quotients |c_x| ≤ c m, |k_x| ≤ k m, so
/// |μ| ≤ (c + √(c² + 4k)) / 2.
pub fn spectral_bound(
    chol: &nalgebra::Cholesky<f64, nalgebra::Dyn>,
    damping: &DMatrix<f64>,
    stiffness: &DMatrix<f64>,
) -> f64 {
    let l = chol.l();
    let whiten = |a: &DMatrix<f64>| -> f64 {
        let sym = (a + a.transpose()) * 0.5;
        let left = l.solve_lower_triangular(&sym).unwrap_or(sym.clone());
        let both = l
            .solve_lower_triangular(&left.transpose())
            .unwrap_or(left.clone());
        let both = (&both + both.transpose()) * 0.5;
        both.symmetric_eigenvalues().amax()
    };
    let (c, k) = (whiten(damping), whiten(stiffness));
    (c + (c * c + 4.0 * k).sqrt()) / 2.0
}

/// [`SimError::InvalidOption`] for `doublings` outside [`DOUBLINGS`] or too few for τ·|μ|max.
pub fn check_truncation(doublings: u32, tau: f64, mu_max: f64) -> Result<(), SimError> {
    if !DOUBLINGS.contains(&doublings) {
        return Err(SimError::InvalidOption {
            option: "hpim.doublings",
            value: doublings.to_string(),
            reason: "N must lie in 1..=50",
        });
    }
    if tau.abs() * mu_max >= max_step_frequency(doublings) {
        return Err(SimError::InvalidOption {
            option: "hpim.doublings",
            value: format!("{doublings} (tau |mu|max = {:e})", tau.abs() * mu_max),
            reason: "truncation criterion (18) violated: tau |mu|max must stay below \
                     2^N (120 eps)^(1/5); raise N or shorten the step",
        });
    }
    Ok(())
}

/// T = exp(Hτ) and the Duhamel integrals of a lower-block polynomial forcing,
///
/// ```text
/// W_j = ∫₀^τ exp(H(τ − s)) B s^j / j! ds,   B = [0; I_n],   j = 0..=degree,
/// ```
///
/// so that x' = H x + B Σ g_j s^j/j! gives x(τ) = T x(0) + Σ W_j g_j with no H⁻¹ (H may be
/// singular). One 2^N exponential of the augmented matrix (Van Loan 1978)
///
/// ```text
/// A = [[H, B, 0, …, 0], [0, 0, I, …, 0], …, [0, …, 0, I], [0, …, 0]]   (2n + (degree+1) n)
/// ```
///
/// whose top block row of exp(Aτ) is [T, W_0, W_1, …, W_degree]: the chain y₁' = y₂, …,
/// started from the unit block of column j + 2, feeds y₁ = s^j/j! into x. Off the diagonal
/// exp(Aτ) equals the increment R, so the blocks W_j are read from R directly.
pub fn duhamel(
    h: &DMatrix<f64>,
    tau: f64,
    doublings: u32,
    degree: usize,
) -> (DMatrix<f64>, Vec<DMatrix<f64>>) {
    let m = h.nrows();
    let n = m / 2;
    let size = m + (degree + 1) * n;
    let mut a = DMatrix::zeros(size, size);
    a.view_mut((0, 0), (m, m)).copy_from(h);
    for i in 0..n {
        a[(n + i, m + i)] = 1.0;
        for j in 0..degree {
            a[(m + j * n + i, m + (j + 1) * n + i)] = 1.0;
        }
    }
    let r = expm_increment(&a, tau, doublings);
    let t = r.view((0, 0), (m, m)) + DMatrix::<f64>::identity(m, m);
    let w = (0..=degree)
        .map(|j| r.view((0, m + j * n), (m, n)).into_owned())
        .collect();
    (t, w)
}
