//! Hand-written test models (kernels derived by hand, checked against finite differences in
//! `kernels_fd.rs`): the Cartesian pendulum, the two-link manipulator ([CHIN] P7, cases I and
//! II), the Andrews squeezer ([CHIN] P6 with the Hairer–Wanner data), the knife edge on an
//! inclined plane and the rolling disc (nonholonomic, in `models/nonholonomic.rs`), the
//! singular slider-crank ([CHIN] P10 and its reformulation, Remark 4.4) and deliberately
//! broken models that provoke each failure (in `models/singular.rs`).

use mbsim_runtime::{Dims, MatOut};

use super::Model;

mod four_bar_bodies;
mod four_bar_chain;
mod nonholonomic;
mod singular;

// Each test binary uses a different subset of the models.
#[allow(unused_imports)]
pub use four_bar_bodies::FourBarBodies;
#[allow(unused_imports)]
pub use four_bar_chain::FourBarChain;
#[allow(unused_imports)]
pub use nonholonomic::{KnifeEdge, RollingDisc, SlavedKnifeEdge};
#[allow(unused_imports)]
pub use singular::{Broken, Defect, SliderCrank};

// ---------------------------------------------------------------------------------------------
// Cartesian pendulum
// ---------------------------------------------------------------------------------------------

/// A point mass on a massless rod of length ℓ, q = (x, y), Φ = (x² + y² − ℓ²)/2, gravity −g ŷ.
///
/// λ in closed form: with Φ_q = (x, y), M = m I, the equations are m ẍ = −x λ,
/// m ÿ = −m g − y λ. Differentiating Φ twice, x ẍ + y ÿ + |v|² = 0, so
/// −ℓ² λ/m − g y + |v|² = 0, i.e. **λ = m (|v|² − g y)/ℓ²** on the manifold (the rod tension
/// is λ ℓ). Energy conservation from rest at height y0 gives |v|² = 2 g (y0 − y).
#[derive(Clone, Copy, Debug)]
pub struct Pendulum {
    pub mass: f64,
    pub len: f64,
    pub g: f64,
}

impl Pendulum {
    pub const UNIT: Pendulum = Pendulum {
        mass: 1.0,
        len: 1.0,
        g: 9.81,
    };

    /// At rest at angle θ0 from the downward vertical.
    pub fn at_rest(&self, theta0: f64) -> (Vec<f64>, Vec<f64>) {
        (
            vec![self.len * theta0.sin(), -self.len * theta0.cos()],
            vec![0.0, 0.0],
        )
    }

    /// λ = m (|v|² − g y)/ℓ² (see the type docs).
    pub fn lambda_exact(&self, q: &[f64], v: &[f64]) -> f64 {
        self.mass * (v[0] * v[0] + v[1] * v[1] - self.g * q[1]) / (self.len * self.len)
    }

    /// Exact period from rest at amplitude θ0: T = 4 √(ℓ/g) K(sin(θ0/2)), with the complete
    /// elliptic integral K(k) = π / (2 AGM(1, √(1 − k²))) (the AGM converges quadratically;
    /// 30 iterations are far more than the ~6 needed for full precision).
    pub fn period(&self, theta0: f64) -> f64 {
        let k = (0.5 * theta0).sin();
        let (mut a, mut b) = (1.0_f64, (1.0 - k * k).sqrt());
        for _ in 0..30 {
            (a, b) = (0.5 * (a + b), (a * b).sqrt());
        }
        4.0 * (self.len / self.g).sqrt() * std::f64::consts::PI / (2.0 * a)
    }

    /// Total energy (kinetic + potential).
    pub fn energy(&self, q: &[f64], v: &[f64]) -> f64 {
        0.5 * self.mass * (v[0] * v[0] + v[1] * v[1]) + self.mass * self.g * q[1]
    }
}

impl Model for Pendulum {
    fn name(&self) -> &'static str {
        "Pendulum"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 1, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = 0.5 * (q[0] * q[0] + q[1] * q[1] - self.len * self.len);
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = q[0];
        out[(0, 1)] = q[1];
    }
    fn gamma(&self, _t: f64, _q: &[f64], v: &[f64], out: &mut [f64]) {
        out[0] = -(v[0] * v[0] + v[1] * v[1]);
    }
    fn l(&self, _t: f64, _q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = v[0];
        out[(0, 1)] = v[1];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.mass;
        out[(1, 1)] = self.mass;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[1] = -self.mass * self.g;
    }
}

/// The same pendulum in mixed coordinates q = (x, y, θ) with a **singular** mass matrix
/// M = diag(m, m, 0) (the angle carries no inertia) and Φ = (x − ℓ sin θ, y + ℓ cos θ). The
/// augmented KKT matrix is still nonsingular ([CHIN] Lemma 4.1): ker Φ_q is spanned by
/// a = (ℓ cos θ, ℓ sin θ, 1) and aᵀ M a = m ℓ² > 0. The motion equals [`Pendulum`]'s.
#[derive(Clone, Copy, Debug)]
pub struct MixedPendulum(pub Pendulum);

impl MixedPendulum {
    /// At rest at angle θ0 from the downward vertical.
    pub fn at_rest(&self, theta0: f64) -> (Vec<f64>, Vec<f64>) {
        let l = self.0.len;
        (
            vec![l * theta0.sin(), -l * theta0.cos(), theta0],
            vec![0.0; 3],
        )
    }
}

impl Model for MixedPendulum {
    fn name(&self) -> &'static str {
        "MixedPendulum"
    }
    fn dims(&self) -> Dims {
        Dims { n: 3, m: 2, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        let (s, c) = q[2].sin_cos();
        out[0] = q[0] - self.0.len * s;
        out[1] = q[1] + self.0.len * c;
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = q[2].sin_cos();
        out[(0, 0)] = 1.0;
        out[(0, 2)] = -self.0.len * c;
        out[(1, 1)] = 1.0;
        out[(1, 2)] = -self.0.len * s;
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // Φ̈ = ẍ − ℓ cos θ θ̈ + ℓ sin θ θ̇², ÿ − ℓ sin θ θ̈ − ℓ cos θ θ̇².
        let (s, c) = q[2].sin_cos();
        let w2 = v[2] * v[2];
        out[0] = -self.0.len * s * w2;
        out[1] = self.0.len * c * w2;
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = q[2].sin_cos();
        out[(0, 2)] = self.0.len * s * v[2];
        out[(1, 2)] = -self.0.len * c * v[2];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.0.mass;
        out[(1, 1)] = self.0.mass;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[1] = -self.0.mass * self.0.g;
    }
}

// ---------------------------------------------------------------------------------------------
// Two-link manipulator ([CHIN] P7)
// ---------------------------------------------------------------------------------------------

/// Which tip constraint the manipulator carries.
#[derive(Clone, Copy, Debug)]
pub enum TipPath {
    /// Case I: the parabola y2 = x2² − b, Φ = y2 − x2² + b (scleronomic).
    Parabola { b: f64 },
    /// Case II: y2 = sin²(ω t), Φ = y2 − sin²(ω t) (rheonomic, Φ_t ≠ 0).
    Sine { omega: f64 },
}

/// Uniform links, link 1 pinned at the origin, q = (θ1, θ2) with θ2 relative ([CHIN] P7).
#[derive(Clone, Copy, Debug)]
pub struct TwoLink {
    pub m1: f64,
    pub m2: f64,
    pub l1: f64,
    pub l2: f64,
    pub g: f64,
    pub path: TipPath,
}

impl TwoLink {
    /// θ1 = 70°, θ2 = −140°, at rest: the tip starts at (2 cos 70°, 0).
    pub fn initial_state() -> (Vec<f64>, Vec<f64>) {
        (
            vec![70f64.to_radians(), -140f64.to_radians()],
            vec![0.0, 0.0],
        )
    }

    /// Case I with m1 = m2 = 30 kg ([AMBIG-16]), l1 = l2 = 1 m, g = 9.81, b = x2(0)².
    pub fn case_one() -> Self {
        let x2 = 2.0 * 70f64.to_radians().cos();
        Self {
            m1: 30.0,
            m2: 30.0,
            l1: 1.0,
            l2: 1.0,
            g: 9.81,
            path: TipPath::Parabola { b: x2 * x2 },
        }
    }

    /// Case II with ω = 0.5 (the thesis' figures).
    pub fn case_two() -> Self {
        Self {
            path: TipPath::Sine { omega: 0.5 },
            ..Self::case_one()
        }
    }

    /// Tip kinematics: (x2, y2, ∇x2, ∇y2, ẍ2_vv, ÿ2_vv, H_x v, H_y v), where the _vv terms are
    /// the velocity-quadratic parts of the tip acceleration and H v the Hessian times v.
    #[allow(clippy::type_complexity)]
    fn tip(
        &self,
        q: &[f64],
        v: &[f64],
    ) -> (f64, f64, [f64; 2], [f64; 2], f64, f64, [f64; 2], [f64; 2]) {
        let (l1, l2) = (self.l1, self.l2);
        let (s1, c1) = q[0].sin_cos();
        let (s12, c12) = (q[0] + q[1]).sin_cos();
        let (w1, w12) = (v[0], v[0] + v[1]);
        let x2 = l1 * c1 + l2 * c12;
        let y2 = l1 * s1 + l2 * s12;
        let gx = [-l1 * s1 - l2 * s12, -l2 * s12];
        let gy = [l1 * c1 + l2 * c12, l2 * c12];
        let axx = -l1 * c1 * w1 * w1 - l2 * c12 * w12 * w12;
        let ayy = -l1 * s1 * w1 * w1 - l2 * s12 * w12 * w12;
        let hxv = [-l1 * c1 * w1 - l2 * c12 * w12, -l2 * c12 * w12];
        let hyv = [-l1 * s1 * w1 - l2 * s12 * w12, -l2 * s12 * w12];
        (x2, y2, gx, gy, axx, ayy, hxv, hyv)
    }
}

impl Model for TwoLink {
    fn name(&self) -> &'static str {
        "TwoLink"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 1, k: 0 }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let (x2, y2, ..) = self.tip(q, &[0.0, 0.0]);
        out[0] = match self.path {
            TipPath::Parabola { b } => y2 - x2 * x2 + b,
            TipPath::Sine { omega } => y2 - (omega * t).sin().powi(2),
        };
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (x2, _, gx, gy, ..) = self.tip(q, &[0.0, 0.0]);
        for j in 0..2 {
            out[(0, j)] = match self.path {
                TipPath::Parabola { .. } => gy[j] - 2.0 * x2 * gx[j],
                TipPath::Sine { .. } => gy[j],
            };
        }
    }
    fn phi_t(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        if let TipPath::Sine { omega } = self.path {
            out[0] = -omega * (2.0 * omega * t).sin();
        }
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (x2, _, gx, _, axx, ayy, ..) = self.tip(q, v);
        let xd = gx[0] * v[0] + gx[1] * v[1];
        out[0] = match self.path {
            // Φ̈ = ÿ2 − 2 ẋ2² − 2 x2 ẍ2; γ is minus its velocity-quadratic part.
            TipPath::Parabola { .. } => -(ayy - 2.0 * xd * xd - 2.0 * x2 * axx),
            // Φ̈ = ÿ2 − 2ω² cos(2ωt): γ = −ÿ2_vv − Φ_tt.
            TipPath::Sine { omega } => -ayy + 2.0 * omega * omega * (2.0 * omega * t).cos(),
        };
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        let (x2, _, gx, _, _, _, hxv, hyv) = self.tip(q, v);
        let xd = gx[0] * v[0] + gx[1] * v[1];
        for j in 0..2 {
            out[(0, j)] = match self.path {
                TipPath::Parabola { .. } => hyv[j] - 2.0 * xd * gx[j] - 2.0 * x2 * hxv[j],
                TipPath::Sine { .. } => hyv[j],
            };
        }
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (m1, m2, l1, l2) = (self.m1, self.m2, self.l1, self.l2);
        let c2 = q[1].cos();
        out[(0, 0)] = m1 * l1 * l1 / 3.0 + m2 * (l1 * l1 + l2 * l2 / 3.0 + l1 * l2 * c2);
        out[(0, 1)] = m2 * (l2 * l2 / 3.0 + l1 * l2 * c2 / 2.0);
        out[(1, 0)] = out[(0, 1)];
        out[(1, 1)] = m2 * l2 * l2 / 3.0;
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (m1, m2, l1, l2, g) = (self.m1, self.m2, self.l1, self.l2, self.g);
        let (c1, c12, s2) = (q[0].cos(), (q[0] + q[1]).cos(), q[1].sin());
        let k = m2 * l1 * l2 * s2 / 2.0;
        out[0] = -m1 * g * l1 * c1 / 2.0 - m2 * g * (l1 * c1 + l2 * c12 / 2.0)
            + k * (2.0 * v[0] * v[1] + v[1] * v[1]);
        out[1] = -m2 * g * l2 * c12 / 2.0 - k * v[0] * v[0];
    }
}

// ---------------------------------------------------------------------------------------------
// Andrews squeezer ([CHIN] P6; data of Hairer–Wanner II §VII.7, digest [EXT])
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
enum Trig {
    Cos,
    Sin,
}

/// One constraint term `coef · trig(Σ_{j ∈ idx} q_j)`.
type Term = (f64, Trig, &'static [usize]);

const M: [f64; 7] = [
    0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498,
];
const I: [f64; 7] = [
    2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5,
];
const XA: f64 = -0.06934;
const YA: f64 = -0.00227;
const XB: f64 = -0.03635;
const YB: f64 = 0.03273;
const XC: f64 = 0.014;
const YC: f64 = 0.072;
const D: f64 = 28e-3;
const DA: f64 = 115e-4;
const E: f64 = 2e-2;
const EA: f64 = 1421e-5;
const RR: f64 = 7e-3;
const RA: f64 = 92e-5;
const SS: f64 = 35e-3;
const SA: f64 = 1874e-5;
const SB: f64 = 1043e-5;
const SC: f64 = 18e-3;
const SD: f64 = 2e-2;
const TA: f64 = 2308e-5;
const TB: f64 = 916e-5;
const U: f64 = 4e-2;
const UA: f64 = 1228e-5;
const UB: f64 = 449e-5;
const ZF: f64 = 2e-2;
const ZT: f64 = 4e-2;
const FA: f64 = 1421e-5;
const MOM: f64 = 0.033;
const C0: f64 = 4530.0;
const L0: f64 = 0.07785;

/// Coordinates q = (β, Θ, γ, Φ, δ, Ω, ε) = indices 0..6.
const BETH: &[usize] = &[0, 1];
/// Constraint rows as sums of trigonometric terms plus a constant (digest P6, g1..g6).
const ANDREWS_ROWS: [(&[Term], f64); 6] = [
    (
        &[
            (RR, Trig::Cos, &[0]),
            (-D, Trig::Cos, BETH),
            (-SS, Trig::Sin, &[2]),
        ],
        -XB,
    ),
    (
        &[
            (RR, Trig::Sin, &[0]),
            (-D, Trig::Sin, BETH),
            (SS, Trig::Cos, &[2]),
        ],
        -YB,
    ),
    (
        &[
            (RR, Trig::Cos, &[0]),
            (-D, Trig::Cos, BETH),
            (-E, Trig::Sin, &[3, 4]),
            (-ZT, Trig::Cos, &[4]),
        ],
        -XA,
    ),
    (
        &[
            (RR, Trig::Sin, &[0]),
            (-D, Trig::Sin, BETH),
            (E, Trig::Cos, &[3, 4]),
            (-ZT, Trig::Sin, &[4]),
        ],
        -YA,
    ),
    (
        &[
            (RR, Trig::Cos, &[0]),
            (-D, Trig::Cos, BETH),
            (-ZF, Trig::Cos, &[5, 6]),
            (-U, Trig::Sin, &[6]),
        ],
        -XA,
    ),
    (
        &[
            (RR, Trig::Sin, &[0]),
            (-D, Trig::Sin, BETH),
            (-ZF, Trig::Sin, &[5, 6]),
            (U, Trig::Cos, &[6]),
        ],
        -YA,
    ),
];

/// The seven-body Andrews squeezing mechanism, n = 7, m = 6.
///
/// Each constraint term c·cos(θ_S) (θ_S = Σ_{j∈S} q_j, ω_S = Σ_{j∈S} v_j) contributes
/// ∂/∂q_j = −c sin θ_S, L_j = ∂(Φ_q v)/∂q_j = −c cos θ_S ω_S and γ = −L v = c cos θ_S ω_S²
/// (j ∈ S); a term c·sin(θ_S) contributes c cos θ_S, −c sin θ_S ω_S and c sin θ_S ω_S².
#[derive(Clone, Copy, Debug)]
pub struct Andrews;

// The published values are kept with all their printed digits (provenance), more than f64 holds.
#[allow(clippy::excessive_precision)]
impl Andrews {
    /// Published consistent initial values (digest P6).
    pub const Q0: [f64; 7] = [
        -0.0617138900142764496358948458001,
        0.0,
        0.455279819163070380255912382449,
        0.222668390165885884674473185609,
        0.487364979543842550225598953530,
        -0.222668390165885884674473185609,
        1.23054744454982119249735015568,
    ];
    /// Published q0''.
    pub const QDD0: [f64; 7] = [
        14222.4439199541138705911625887,
        -10666.8329399655854029433719415,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
    /// Published λ0.
    pub const LAMBDA0: [f64; 6] = [
        98.5668703962410896057654982170,
        -6.12268834425566265503114393122,
        0.0,
        0.0,
        0.0,
        0.0,
    ];
}

/// θ_S and ω_S of a term.
fn angle(idx: &[usize], x: &[f64]) -> f64 {
    idx.iter().map(|&j| x[j]).sum()
}

impl Model for Andrews {
    fn name(&self) -> &'static str {
        "Andrews"
    }
    fn dims(&self) -> Dims {
        Dims { n: 7, m: 6, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        for (i, (terms, c)) in ANDREWS_ROWS.iter().enumerate() {
            out[i] = *c;
            for &(coef, trig, idx) in terms.iter() {
                let th = angle(idx, q);
                out[i] += coef
                    * match trig {
                        Trig::Cos => th.cos(),
                        Trig::Sin => th.sin(),
                    };
            }
        }
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        for (i, (terms, _)) in ANDREWS_ROWS.iter().enumerate() {
            for &(coef, trig, idx) in terms.iter() {
                let th = angle(idx, q);
                let d = match trig {
                    Trig::Cos => -coef * th.sin(),
                    Trig::Sin => coef * th.cos(),
                };
                for &j in idx {
                    out[(i, j)] += d;
                }
            }
        }
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (i, (terms, _)) in ANDREWS_ROWS.iter().enumerate() {
            for &(coef, trig, idx) in terms.iter() {
                let (th, w) = (angle(idx, q), angle(idx, v));
                out[i] += coef
                    * w
                    * w
                    * match trig {
                        Trig::Cos => th.cos(),
                        Trig::Sin => th.sin(),
                    };
            }
        }
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        for (i, (terms, _)) in ANDREWS_ROWS.iter().enumerate() {
            for &(coef, trig, idx) in terms.iter() {
                let (th, w) = (angle(idx, q), angle(idx, v));
                let d = -coef
                    * w
                    * match trig {
                        Trig::Cos => th.cos(),
                        Trig::Sin => th.sin(),
                    };
                for &j in idx {
                    out[(i, j)] += d;
                }
            }
        }
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (c_th, s_ph, s_om) = (q[1].cos(), q[3].sin(), q[5].sin());
        let (e1, f1) = (E - EA, ZF - FA);
        out[(0, 0)] =
            M[0] * RA * RA + M[1] * (RR * RR - 2.0 * DA * RR * c_th + DA * DA) + I[0] + I[1];
        out[(0, 1)] = M[1] * (DA * DA - DA * RR * c_th) + I[1];
        out[(1, 1)] = M[1] * DA * DA + I[1];
        out[(2, 2)] = M[2] * (SA * SA + SB * SB) + I[2];
        out[(3, 3)] = M[3] * e1 * e1 + I[3];
        out[(3, 4)] = M[3] * (e1 * e1 + ZT * e1 * s_ph) + I[3];
        out[(4, 4)] = M[3] * (ZT * ZT + 2.0 * ZT * e1 * s_ph + e1 * e1)
            + M[4] * (TA * TA + TB * TB)
            + I[3]
            + I[4];
        out[(5, 5)] = M[5] * f1 * f1 + I[5];
        out[(5, 6)] = M[5] * (f1 * f1 - U * f1 * s_om) + I[5];
        out[(6, 6)] = M[5] * (f1 * f1 - 2.0 * U * f1 * s_om + U * U)
            + M[6] * (UA * UA + UB * UB)
            + I[5]
            + I[6];
        for (r, c) in [(0, 1), (3, 4), (5, 6)] {
            out[(c, r)] = out[(r, c)];
        }
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let (s_th, c_ga, s_ga) = (q[1].sin(), q[2].cos(), q[2].sin());
        let (c_ph, c_om) = (q[3].cos(), q[5].cos());
        let xd = SD * c_ga + SC * s_ga + XB;
        let yd = SD * s_ga - SC * c_ga + YB;
        let len = ((xd - XC).powi(2) + (yd - YC).powi(2)).sqrt();
        let f = -C0 * (len - L0) / len;
        let (fx, fy) = (f * (xd - XC), f * (yd - YC));
        let (e1, f1) = (E - EA, ZF - FA);
        out[0] = MOM - M[1] * DA * RR * v[1] * (v[1] + 2.0 * v[0]) * s_th;
        out[1] = M[1] * DA * RR * v[0] * v[0] * s_th;
        out[2] = fx * (SC * c_ga - SD * s_ga) + fy * (SD * c_ga + SC * s_ga);
        out[3] = M[3] * ZT * e1 * v[4] * v[4] * c_ph;
        out[4] = -M[3] * ZT * e1 * v[3] * (v[3] + 2.0 * v[4]) * c_ph;
        out[5] = -M[5] * U * f1 * v[6] * v[6] * c_om;
        out[6] = M[5] * U * f1 * v[5] * (v[5] + 2.0 * v[6]) * c_om;
    }
}
