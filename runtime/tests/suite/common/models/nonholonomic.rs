//! Nonholonomic test models: the knife edge on an incline (closed form), the knife edge with
//! a slaved mass (mixed holonomic + nonholonomic), and the rolling disc ([CHIN] P11).

use mbsim_runtime::{Dims, MatOut};

use super::super::Model;

// ---------------------------------------------------------------------------------------------
// Knife edge on an inclined plane (nonholonomic)
// ---------------------------------------------------------------------------------------------

/// A knife edge (skate) on an inclined plane: q = (x, y, φ), M = diag(m, m, J), the downhill
/// force `slope_force = m g sin α` along +x, and the nonholonomic constraint "no sideways
/// velocity" A v = sin φ ẋ − cos φ ẏ = 0 (n = 3, m = 0, k = 1).
///
/// Closed form (Neimark–Fufaev): the constraint force is normal to the blade and passes
/// through the centre of mass, so φ̇ = ω stays constant; the speed u along the blade obeys
/// m u̇ = slope_force cos φ. From x = y = 0, φ = 0, u = 0, with a = slope_force/m:
/// x = a/(2ω²) sin²(ωt), y = a/(2ω²) (ωt − sin ωt cos ωt).
#[derive(Clone, Copy, Debug)]
pub struct KnifeEdge {
    pub mass: f64,
    pub inertia: f64,
    pub slope_force: f64,
}

impl KnifeEdge {
    /// The exact state (q, v) at time t from x = y = φ = 0, ẋ = ẏ = 0, φ̇ = ω.
    pub fn exact(&self, omega: f64, t: f64) -> (Vec<f64>, Vec<f64>) {
        let a = self.slope_force / self.mass;
        let (s, c) = (omega * t).sin_cos();
        let k = a / (2.0 * omega * omega);
        let q = vec![k * s * s, k * (omega * t - s * c), omega * t];
        let u = a / omega * s;
        (q, vec![u * c, u * s, omega])
    }
}

impl Model for KnifeEdge {
    fn name(&self) -> &'static str {
        "KnifeEdge"
    }
    fn dims(&self) -> Dims {
        Dims { n: 3, m: 0, k: 1 }
    }
    fn nh(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = q[2].sin();
        out[(0, 1)] = -q[2].cos();
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // d/dt(A v) = A v̇ + φ̇ (cos φ ẋ + sin φ ẏ), so γ = −φ̇ (cos φ ẋ + sin φ ẏ).
        let (s, c) = q[2].sin_cos();
        out[0] = -v[2] * (c * v[0] + s * v[1]);
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.mass;
        out[(1, 1)] = self.mass;
        out[(2, 2)] = self.inertia;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = self.slope_force;
    }
}

/// A knife edge carrying a slave mass on a rail: q = (x, y, φ, z) with the holonomic
/// constraint Φ = z − x (the slave moves with x) and the knife-edge constraint A v = 0
/// (m = 1, k = 1: mixed G = [Φ_q; A]). M = diag(m, m, J, m_z), force `slope_force` on x.
/// Invariant: the energy ½ vᵀ M v − slope_force · x (ideal constraints do no work).
#[derive(Clone, Copy, Debug)]
pub struct SlavedKnifeEdge {
    pub knife: KnifeEdge,
    pub slave_mass: f64,
}

impl SlavedKnifeEdge {
    /// Energy ½ vᵀ M v − slope_force · x.
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let k = &self.knife;
        0.5 * (k.mass * (v[0] * v[0] + v[1] * v[1])
            + k.inertia * v[2] * v[2]
            + self.slave_mass * v[3] * v[3])
            - k.slope_force * q[0]
    }
}

impl Model for SlavedKnifeEdge {
    fn name(&self) -> &'static str {
        "SlavedKnifeEdge"
    }
    fn dims(&self) -> Dims {
        Dims { n: 4, m: 1, k: 1 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = q[3] - q[0];
    }
    fn phi_q(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = -1.0;
        out[(0, 3)] = 1.0;
    }
    fn nh(&self, t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let mut a = out.columns_mut(0, 3);
        self.knife.nh(t, q, &mut a);
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // Linear Φ: γ_Φ = 0; the knife-edge row as in `KnifeEdge`.
        self.knife.gamma(t, q, v, &mut out[1..]);
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.knife.mass;
        out[(1, 1)] = self.knife.mass;
        out[(2, 2)] = self.knife.inertia;
        out[(3, 3)] = self.slave_mass;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = self.knife.slope_force;
    }
}

// ---------------------------------------------------------------------------------------------
// Rolling disc ([CHIN] P11)
// ---------------------------------------------------------------------------------------------

/// A disc rolling without slipping ([CHIN] §4.6): q = (x, y, φ, θ, ψ) (contact point, heading,
/// tilt from the vertical, spin), rolling constraint ẋ = −r cos φ ψ̇, ẏ = −r sin φ ψ̇
/// (n = 5, m = 0, k = 2). Data per [AMBIG-24]: r = 1, m = 1, thin uniform disc A = m r²/4,
/// C = m r²/2, g = 9.81.
///
/// M(q) is read off the printed kinetic energy T = ½ vᵀ M v; Q = −Ṁ v + ½ ∂(vᵀ M v)/∂q − ∂V/∂q
/// with V = m g r cos θ, computed from the analytic ∂M/∂φ and ∂M/∂θ (M depends on no other
/// coordinate). The rolling contact does no work, so T + V is conserved.
#[derive(Clone, Copy, Debug)]
pub struct RollingDisc {
    pub r: f64,
    pub m: f64,
    pub a: f64,
    pub c: f64,
    pub g: f64,
}

impl RollingDisc {
    /// The [AMBIG-24] data.
    pub const THESIS: RollingDisc = RollingDisc {
        r: 1.0,
        m: 1.0,
        a: 0.25,
        c: 0.5,
        g: 9.81,
    };

    /// The reconstructed initial values q(0) = (0, 0, π/2, 0, 0), v(0) = (0, 0.1, 0.1, −0.1, −0.1).
    pub fn initial_state() -> (Vec<f64>, Vec<f64>) {
        (
            vec![0.0, 0.0, std::f64::consts::FRAC_PI_2, 0.0, 0.0],
            vec![0.0, 0.1, 0.1, -0.1, -0.1],
        )
    }

    /// Height of the disc centre, r cos θ.
    pub fn height(&self, q: &[f64]) -> f64 {
        self.r * q[3].cos()
    }

    /// Mass matrix (`k = None`) or its derivative ∂M/∂q_k (k = 2: φ, k = 3: θ; others zero).
    fn mass_or_derivative(&self, q: &[f64], k: Option<usize>) -> [[f64; 5]; 5] {
        let (m, r, a, c) = (self.m, self.r, self.a, self.c);
        let (sp, cp) = q[2].sin_cos();
        let (st, ct) = q[3].sin_cos();
        let mut out = [[0.0; 5]; 5];
        let mut set = |i: usize, j: usize, x: f64| {
            out[i][j] = x;
            out[j][i] = x;
        };
        match k {
            None => {
                set(0, 0, m);
                set(1, 1, m);
                set(0, 2, -m * r * st * cp);
                set(1, 2, -m * r * st * sp);
                set(0, 3, -m * r * ct * sp);
                set(1, 3, m * r * ct * cp);
                set(2, 2, m * r * r * st * st + a * ct * ct + c * st * st);
                set(2, 4, c * st);
                set(3, 3, m * r * r + a);
                set(4, 4, c);
            }
            Some(2) => {
                set(0, 2, m * r * st * sp);
                set(1, 2, -m * r * st * cp);
                set(0, 3, -m * r * ct * cp);
                set(1, 3, -m * r * ct * sp);
            }
            Some(3) => {
                set(0, 2, -m * r * ct * cp);
                set(1, 2, -m * r * ct * sp);
                set(0, 3, m * r * st * sp);
                set(1, 3, -m * r * st * cp);
                set(2, 2, 2.0 * st * ct * (m * r * r - a + c));
                set(2, 4, c * ct);
            }
            Some(_) => {}
        }
        out
    }

    /// Kinetic plus potential energy.
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let mm = self.mass_or_derivative(q, None);
        let t: f64 = (0..5)
            .flat_map(|i| (0..5).map(move |j| (i, j)))
            .map(|(i, j)| 0.5 * v[i] * mm[i][j] * v[j])
            .sum();
        t + self.m * self.g * self.r * q[3].cos()
    }
}

impl Model for RollingDisc {
    fn name(&self) -> &'static str {
        "RollingDisc"
    }
    fn dims(&self) -> Dims {
        Dims { n: 5, m: 0, k: 2 }
    }
    fn nh(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (sp, cp) = q[2].sin_cos();
        out[(0, 0)] = 1.0;
        out[(0, 4)] = self.r * cp;
        out[(1, 1)] = 1.0;
        out[(1, 4)] = self.r * sp;
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // d/dt(ẋ + r cos φ ψ̇) = A v̇ − r sin φ φ̇ ψ̇, d/dt(ẏ + r sin φ ψ̇) = A v̇ + r cos φ φ̇ ψ̇.
        let (sp, cp) = q[2].sin_cos();
        out[0] = self.r * sp * v[2] * v[4];
        out[1] = -self.r * cp * v[2] * v[4];
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let mm = self.mass_or_derivative(q, None);
        for i in 0..5 {
            for j in 0..5 {
                out[(i, j)] = mm[i][j];
            }
        }
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // Q_i = −Σ_k (∂M/∂q_k v)_i v_k + ½ vᵀ (∂M/∂q_i) v − ∂V/∂q_i.
        for k in [2, 3] {
            let dm = self.mass_or_derivative(q, Some(k));
            let quad: f64 = (0..5)
                .flat_map(|i| (0..5).map(move |j| (i, j)))
                .map(|(i, j)| v[i] * dm[i][j] * v[j])
                .sum();
            out[k] += 0.5 * quad;
            for i in 0..5 {
                let dmv: f64 = (0..5).map(|j| dm[i][j] * v[j]).sum();
                out[i] -= dmv * v[k];
            }
        }
        out[3] += self.m * self.g * self.r * q[3].sin();
    }
}
