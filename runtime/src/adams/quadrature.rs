//! Adams weights for arbitrary (variable-step) nodes: the integrals of the Lagrange basis
//! polynomials over part of a step, by Gauss–Legendre quadrature.
//!
//! An Adams formula advances z' = f by z(t_n + θh) = z_n + h Σ_j w_j f(τ_j), where τ_j are the
//! nodes of the interpolated values, scaled as τ = (t − t_n)/h, and w_j = ∫_0^θ ℓ_j(s) ds with
//! ℓ_j the Lagrange basis on the nodes. With 8 Gauss points the quadrature is exact for
//! polynomials of degree ≤ 15, i.e. for up to 16 nodes (orders far beyond [`super::MAX_ORDER`]);
//! evaluating ℓ_j at the Gauss points in product form avoids the Vandermonde matrix and its
//! conditioning. For equally spaced nodes the weights are the classical ones (AB3 =
//! (23, −16, 5)/12, …), checked against the exact rationals of `coefficients.rs` in the tests.

/// Gauss–Legendre abscissae on [−1, 1] (the positive half; the rule is symmetric).
const GAUSS_X: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];
/// The matching Gauss–Legendre weights.
const GAUSS_W: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// The largest number of nodes the quadrature integrates exactly.
pub(crate) const MAX_NODES: usize = 16;

/// `weights[j] = ∫_0^θ ℓ_j(s) ds` for the Lagrange basis on `nodes` (distinct, scaled by the
/// step). `weights` has the length of `nodes` (≤ [`MAX_NODES`]). The Gauss points lie strictly
/// inside (0, θ) with θ ∈ (0, 1] and no node does (the nodes are the step's end, 1, and past
/// points, ≤ 0), so ℓ_j(s) = P(s) / ((s − τ_j) d_j) with P(s) = Π_i (s − τ_i) and the
/// denominators d_j = Π_{i≠j} (τ_j − τ_i) computed once: O(k²) + O(8 k) per call.
pub(crate) fn lagrange_integrals(nodes: &[f64], theta: f64, weights: &mut [f64]) {
    let count = nodes.len();
    debug_assert!(count <= MAX_NODES && weights.len() == count);
    let mut denominators = [1.0; MAX_NODES];
    for (j, d) in denominators[..count].iter_mut().enumerate() {
        for (i, ti) in nodes.iter().enumerate() {
            if i != j {
                *d *= nodes[j] - ti;
            }
        }
    }
    weights.iter_mut().for_each(|w| *w = 0.0);
    let half = 0.5 * theta;
    for (x, w) in GAUSS_X.iter().zip(GAUSS_W) {
        for s in [half * (1.0 - x), half * (1.0 + x)] {
            let product: f64 = nodes.iter().map(|ti| s - ti).product();
            let scale = w * half * product;
            for ((wj, tj), dj) in weights.iter_mut().zip(nodes).zip(&denominators) {
                *wj += scale / ((s - tj) * dj);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Equally spaced backward nodes 0, −1, …, −(k−1) over [0, 1] give AB_k.
    fn ab(k: usize) -> Vec<f64> {
        let nodes: Vec<f64> = (0..k).map(|j| -(j as f64)).collect();
        let mut w = vec![0.0; k];
        lagrange_integrals(&nodes, 1.0, &mut w);
        w
    }

    #[test]
    fn constant_step_weights_are_the_classical_ones() {
        let cases: [(&[f64], f64); 4] = [
            (&[3.0, -1.0], 2.0),
            (&[23.0, -16.0, 5.0], 12.0),
            (&[55.0, -59.0, 37.0, -9.0], 24.0),
            (&[1901.0, -2774.0, 2616.0, -1274.0, 251.0], 720.0),
        ];
        for (num, den) in cases {
            let w = ab(num.len());
            for (j, (&got, &n)) in w.iter().zip(num).enumerate() {
                let want = n / den;
                assert!(
                    (got - want).abs() <= 4.0 * f64::EPSILON * want.abs().max(1.0),
                    "AB{} w{j}: {got} vs {want}",
                    num.len()
                );
            }
        }
        // AM 3-step (order 4) through t_{n+1}, t_n, t_{n−1}, t_{n−2}: (9, 19, −5, 1)/24.
        let mut w = [0.0; 4];
        lagrange_integrals(&[1.0, 0.0, -1.0, -2.0], 1.0, &mut w);
        for (got, n) in w.iter().zip([9.0, 19.0, -5.0, 1.0]) {
            assert!(
                (got - n / 24.0).abs() <= 4.0 * f64::EPSILON,
                "{got} vs {}",
                n / 24.0
            );
        }
    }

    #[test]
    fn weights_integrate_polynomials_exactly_on_uneven_nodes() {
        let nodes = [1.0, 0.0, -0.7, -1.9, -2.2, -3.5];
        let mut w = [0.0; 6];
        for theta in [0.3, 1.0] {
            lagrange_integrals(&nodes, theta, &mut w);
            for p in 0..6 {
                let got: f64 = nodes.iter().zip(&w).map(|(x, wj)| wj * x.powi(p)).sum();
                let want = theta.powi(p + 1) / (p + 1) as f64;
                assert!(
                    (got - want).abs() <= 1e-13,
                    "θ = {theta}, s^{p}: {got} vs {want}"
                );
            }
        }
    }
}
