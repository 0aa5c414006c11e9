//! The coefficients of the 3-stage Radau IIA method (order 5) and of its collocation
//! polynomials, computed from the nodes alone.
//!
//! Nodes c = ((4 − √6)/10, (4 + √6)/10, 1) (the zeros of the Radau polynomial). With L_j the
//! Lagrange basis on c (degree 2) and I_j(θ) = ∫₀^θ L_j, the Radau matrix is a_ij = I_j(c_i)
//! (collocation, Hairer–Wanner II §IV.5). Applied to the first-order form q' = v, v' = a, the
//! stage values are V_i = v0 + h Σ_j a_ij A_j and Q_i = q0 + h Σ_k a_ik V_k =
//! q0 + c_i h v0 + h² Σ_j (𝒜²)_ij A_j. The two collocation polynomials give the dense output:
//! v(t0 + θh) = v0 + h Σ_j I_j(θ) A_j and q(t0 + θh) = q0 + h Σ_k I_k(θ) V_k =
//! q0 + θ h v0 + h² Σ_j P_j(θ) A_j with P_j(θ) = Σ_k I_k(θ) a_kj (so P_j(c_i) = (𝒜²)_ij).
//! The unit tests compare 𝒜 with its closed form.
//!
//! The error-estimate constants are those of `radau5.f`: γ₀ = 1/u₁ with u₁ the real eigenvalue
//! of 𝒜⁻¹, and the weights d = (−(13 + 7√6)/3, (−13 + 7√6)/3, −1/3) of the stage increments.

/// Radau IIA s = 3: nodes, 𝒜, 𝒜², the Lagrange coefficients of the collocation polynomial and
/// the error-estimate constants.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RadauTableau {
    /// The nodes c_i.
    pub(crate) c: [f64; 3],
    /// The Radau matrix 𝒜.
    pub(crate) a: [[f64; 3]; 3],
    /// 𝒜² (the position weights of the stages).
    pub(crate) a2: [[f64; 3]; 3],
    /// `basis[j][k]`: the coefficient of θ^k in L_j(θ).
    basis: [[f64; 3]; 3],
    /// γ₀ = 1/u₁ (u₁ ≈ 3.6378, the real eigenvalue of 𝒜⁻¹).
    pub(crate) gamma0: f64,
    /// The weights d_i of the stage increments in the error estimate.
    pub(crate) d: [f64; 3],
}

impl RadauTableau {
    /// The tableau, computed from the nodes.
    pub(crate) fn new() -> Self {
        let sq6 = 6.0_f64.sqrt();
        let c = [(4.0 - sq6) / 10.0, (4.0 + sq6) / 10.0, 1.0];
        let basis = lagrange_basis(&c);
        let mut t = Self {
            c,
            a: [[0.0; 3]; 3],
            a2: [[0.0; 3]; 3],
            basis,
            gamma0: (6.0 + 81.0_f64.cbrt() - 9.0_f64.cbrt()) / 30.0,
            d: [
                -(13.0 + 7.0 * sq6) / 3.0,
                (-13.0 + 7.0 * sq6) / 3.0,
                -1.0 / 3.0,
            ],
        };
        for i in 0..3 {
            t.a[i] = t.integrated(c[i]);
        }
        for i in 0..3 {
            for j in 0..3 {
                t.a2[i][j] = (0..3).map(|k| t.a[i][k] * t.a[k][j]).sum();
            }
        }
        t
    }

    /// I_j(θ) = ∫₀^θ L_j for j = 1..3.
    fn integrated(&self, theta: f64) -> [f64; 3] {
        let mut once = [0.0; 3];
        for (j, o) in once.iter_mut().enumerate() {
            let mut power = theta;
            for k in 0..3 {
                *o += self.basis[j][k] * power / (k as f64 + 1.0);
                power *= theta;
            }
        }
        once
    }

    /// (I_j(θ), P_j(θ)) for j = 1..3: the velocity and position weights of the stage
    /// accelerations at θ (module docs).
    pub(crate) fn weights(&self, theta: f64) -> ([f64; 3], [f64; 3]) {
        let once = self.integrated(theta);
        let mut position = [0.0; 3];
        for (j, p) in position.iter_mut().enumerate() {
            *p = (0..3).map(|k| once[k] * self.a[k][j]).sum();
        }
        (once, position)
    }

    /// L_j(θ) for j = 1..3 (the collocation acceleration's weights; extrapolated outside
    /// [0, 1] for the Newton start of the next step).
    pub(crate) fn lagrange(&self, theta: f64) -> [f64; 3] {
        let mut l = [0.0; 3];
        for (j, lj) in l.iter_mut().enumerate() {
            let b = self.basis[j];
            *lj = b[0] + theta * (b[1] + theta * b[2]);
        }
        l
    }
}

/// The coefficients of the degree-2 Lagrange basis on the nodes `c`:
/// L_j(θ) = Π_{m≠j} (θ − c_m)/(c_j − c_m) expanded in powers of θ.
fn lagrange_basis(c: &[f64; 3]) -> [[f64; 3]; 3] {
    let mut basis = [[0.0; 3]; 3];
    for (j, b) in basis.iter_mut().enumerate() {
        let (m1, m2) = ((j + 1) % 3, (j + 2) % 3);
        let denom = (c[j] - c[m1]) * (c[j] - c[m2]);
        *b = [c[m1] * c[m2] / denom, -(c[m1] + c[m2]) / denom, 1.0 / denom];
    }
    basis
}

#[cfg(test)]
mod tests {
    use super::RadauTableau;

    /// 𝒜 against its closed form (Hairer–Wanner II, Table IV.5.6); 𝒜² and the dense-output
    /// weights at the nodes against the product of the closed forms.
    #[test]
    fn radau_matrix_matches_its_closed_form() {
        let t = RadauTableau::new();
        let s = 6.0_f64.sqrt();
        let exact = [
            [
                (88.0 - 7.0 * s) / 360.0,
                (296.0 - 169.0 * s) / 1800.0,
                (-2.0 + 3.0 * s) / 225.0,
            ],
            [
                (296.0 + 169.0 * s) / 1800.0,
                (88.0 + 7.0 * s) / 360.0,
                (-2.0 - 3.0 * s) / 225.0,
            ],
            [(16.0 - s) / 36.0, (16.0 + s) / 36.0, 1.0 / 9.0],
        ];
        for i in 0..3 {
            for j in 0..3 {
                // Round-off of the Lagrange expansion: a few ε of entries of size ≤ 1.
                assert!(
                    (t.a[i][j] - exact[i][j]).abs() < 1e-14,
                    "a[{i}][{j}] = {} vs {}",
                    t.a[i][j],
                    exact[i][j]
                );
                let product: f64 = (0..3).map(|k| exact[i][k] * exact[k][j]).sum();
                assert!((t.a2[i][j] - product).abs() < 1e-14, "a2[{i}][{j}]");
                let (once, position) = t.weights(t.c[i]);
                assert!((once[j] - exact[i][j]).abs() < 1e-14, "I_{j}(c_{i})");
                assert!((position[j] - product).abs() < 1e-14, "P_{j}(c_{i})");
            }
        }
        // u₁ = 1/γ₀ is an eigenvalue of 𝒜⁻¹: det(𝒜 − γ₀ I) = 0.
        let m = |i: usize, j: usize| exact[i][j] - if i == j { t.gamma0 } else { 0.0 };
        let det = m(0, 0) * (m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1))
            - m(0, 1) * (m(1, 0) * m(2, 2) - m(1, 2) * m(2, 0))
            + m(0, 2) * (m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0));
        assert!(det.abs() < 1e-14, "det(A - gamma0 I) = {det}");
    }
}
