//! The N-four-bar chain (the IFToMM multibody benchmark "N-four-bar mechanism"): N + 1 cranks
//! of length ℓ pivoted on the ground every ℓ, N coupler rods of length ℓ joining neighbouring
//! crank tips, all uniform rods of mass m, gravity −g ŷ. Coordinates are the crank angles
//! θ_0 … θ_N from the +x axis; the N holonomic rows are the coupler lengths.
//!
//! On the assembled (parallelogram) branch every θ_i equals the same θ(t) and the chain moves
//! like one compound pendulum. Every row's Jacobian is proportional to sin θ there (see
//! [`FourBarChain`]), so at the horizontal positions θ ∈ {0, π} all of Φ_q vanishes at once:
//! the parallelogram and anti-parallelogram branches cross (a bifurcation), and positions are
//! determined by Φ = 0 only to O(√ε) there. The benchmark drives the chain through these
//! singular configurations on purpose.

use mbsim_runtime::{Dims, MatOut};

use super::super::Model;

/// The chain with `windows` = N four-bar windows (N + 1 cranks, N couplers).
///
/// Tip of crank i: P_i = (iℓ + ℓ cos θ_i, ℓ sin θ_i). Row i (0 ≤ i < N) with a = θ_i,
/// b = θ_{i+1}, dx = ℓ + ℓ cos b − ℓ cos a, dy = ℓ sin b − ℓ sin a:
///
/// - Φ_i = dx² + dy² − ℓ² (= 2ℓ²(1 + cos b − cos a − cos(b − a)));
/// - ∂Φ_i/∂a = 2ℓ²(sin a − sin(b − a)), ∂Φ_i/∂b = 2ℓ²(−sin b + sin(b − a)); on the branch
///   a = b = θ these are ±2ℓ² sin θ;
/// - L_ia = 2ℓ²(cos a v_a − cos(b − a)(v_b − v_a)), L_ib = 2ℓ²(−cos b v_b + cos(b − a)(v_b − v_a));
/// - γ_i = −(L v)_i = −2ℓ²(cos a v_a² − cos b v_b² + cos(b − a)(v_b − v_a)²); Φ_t = 0.
///
/// Kinetic energy: crank i contributes ½(mℓ²/3)v_i²; coupler i, a uniform rod with end points
/// P_i, P_{i+1}, contributes (m/6)(|Ṗ_i|² + Ṗ_i·Ṗ_{i+1} + |Ṗ_{i+1}|²)
/// = (mℓ²/6)(v_a² + cos(b − a) v_a v_b + v_b²). Hence M is tridiagonal with
/// M_ii = (mℓ²/3)(1 + number of couplers at crank i), M_{i,i+1} = (mℓ²/6) cos(θ_{i+1} − θ_i),
/// and Lagrange's equations put the velocity terms +k sin(b − a) v_b² into Q_a and
/// −k sin(b − a) v_a² into Q_b (k = mℓ²/6). Potential: crank i's centre at height (ℓ/2) sin θ_i,
/// coupler i's at (ℓ/2)(sin a + sin b), so Q_i = −(mgℓ/2) cos θ_i (1 + couplers at crank i).
/// [`FourBarChain::energy`] is T + V, conserved by the exact motion (tested).
#[derive(Clone, Copy, Debug)]
pub struct FourBarChain {
    /// Number of windows N (N + 1 coordinates, N constraints).
    pub windows: usize,
    /// Rod length ℓ.
    pub len: f64,
    /// Rod mass m.
    pub mass: f64,
    /// Gravity g.
    pub g: f64,
}

impl FourBarChain {
    /// The IFToMM benchmark data: unit lengths and masses, g = 9.81.
    pub fn unit(windows: usize) -> Self {
        Self {
            windows,
            len: 1.0,
            mass: 1.0,
            g: 9.81,
        }
    }

    /// All cranks vertical (θ = π/2) turning at ω0: a consistent state on the parallelogram
    /// branch. With ω0 = 1 rad/s the chain rotates over the top and crosses the singular
    /// horizontal positions twice per revolution.
    pub fn initial_state(&self, omega0: f64) -> (Vec<f64>, Vec<f64>) {
        let n = self.windows + 1;
        (vec![std::f64::consts::FRAC_PI_2; n], vec![omega0; n])
    }

    /// Couplers attached to crank i (1 at the ends, 2 inside; 0 for a lone crank).
    fn couplers_at(&self, i: usize) -> f64 {
        f64::from(u8::from(i > 0)) + f64::from(u8::from(i < self.windows))
    }

    /// T + V.
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let (ml2, mgl) = (
            self.mass * self.len * self.len,
            self.mass * self.g * self.len,
        );
        let mut e = 0.0;
        for i in 0..=self.windows {
            e += ml2 / 6.0 * v[i] * v[i] + mgl / 2.0 * q[i].sin();
        }
        for i in 0..self.windows {
            let (va, vb) = (v[i], v[i + 1]);
            e += ml2 / 6.0 * (va * va + (q[i + 1] - q[i]).cos() * va * vb + vb * vb);
            e += mgl / 2.0 * (q[i].sin() + q[i + 1].sin());
        }
        e
    }
}

impl Model for FourBarChain {
    fn name(&self) -> &'static str {
        "FourBarChain"
    }
    fn dims(&self) -> Dims {
        Dims {
            n: self.windows + 1,
            m: self.windows,
            k: 0,
        }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        let l = self.len;
        for i in 0..self.windows {
            let (a, b) = (q[i], q[i + 1]);
            let dx = l + l * b.cos() - l * a.cos();
            let dy = l * b.sin() - l * a.sin();
            out[i] = dx * dx + dy * dy - l * l;
        }
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let k = 2.0 * self.len * self.len;
        for i in 0..self.windows {
            let (a, b) = (q[i], q[i + 1]);
            let sba = (b - a).sin();
            out[(i, i)] = k * (a.sin() - sba);
            out[(i, i + 1)] = k * (sba - b.sin());
        }
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let k = 2.0 * self.len * self.len;
        for i in 0..self.windows {
            let (a, b, va, vb) = (q[i], q[i + 1], v[i], v[i + 1]);
            let w = vb - va;
            out[i] = -k * (a.cos() * va * va - b.cos() * vb * vb + (b - a).cos() * w * w);
        }
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        let k = 2.0 * self.len * self.len;
        for i in 0..self.windows {
            let (a, b, va, vb) = (q[i], q[i + 1], v[i], v[i + 1]);
            let cw = (b - a).cos() * (vb - va);
            out[(i, i)] = k * (a.cos() * va - cw);
            out[(i, i + 1)] = k * (cw - b.cos() * vb);
        }
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let ml2 = self.mass * self.len * self.len;
        for i in 0..=self.windows {
            out[(i, i)] = ml2 / 3.0 * (1.0 + self.couplers_at(i));
        }
        for i in 0..self.windows {
            let c = ml2 / 6.0 * (q[i + 1] - q[i]).cos();
            out[(i, i + 1)] = c;
            out[(i + 1, i)] = c;
        }
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (k, mgl) = (
            self.mass * self.len * self.len / 6.0,
            self.mass * self.g * self.len,
        );
        for i in 0..=self.windows {
            out[i] = -mgl / 2.0 * q[i].cos() * (1.0 + self.couplers_at(i));
        }
        for i in 0..self.windows {
            let s = (q[i + 1] - q[i]).sin();
            out[i] += k * s * v[i + 1] * v[i + 1];
            out[i + 1] -= k * s * v[i] * v[i];
        }
    }
}
