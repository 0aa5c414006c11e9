//! Hand-written models with hand-written tangent kernels ([`TangentSystem`]) for the implicit
//! methods' tests: the ME451 pendulum (P15, the same choices as `mbsim-models`), a cart
//! driven along a rheonomic constraint carrying a pendulum (q-dependent mass matrix,
//! velocity-dependent forces), two decoupled oscillators of very different frequency (numerical
//! damping), a blow-up ODE (step-size underflow), a negative spring (singular iteration
//! matrix at one step size), and the tangents of the knife edge (nonholonomic, from `common`).
#![allow(dead_code)] // each test binary uses a different subset

pub mod chain;

use std::f64::consts::PI;

use crate::common::{Model, Sys};
use mbsim_runtime::{Dims, MatOut, TangentSystem};

/// The tangent methods a model supplies; outputs arrive zero-filled.
pub trait Tangent: Model {
    /// ∂Q/∂q.
    fn force_q(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut MatOut<'_>) {}
    /// ∂Q/∂v.
    fn force_v(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut MatOut<'_>) {}
    /// ∂(M w)/∂q.
    fn mass_w_q(&self, _t: f64, _q: &[f64], _w: &[f64], _out: &mut MatOut<'_>) {}
    /// ∂(Φ_qᵀ λ)/∂q.
    fn phi_q_t_lambda_q(&self, _t: f64, _q: &[f64], _l: &[f64], _out: &mut MatOut<'_>) {}
    /// ∂(Aᵀ λ)/∂q (nonholonomic models).
    fn nh_t_lambda_q(&self, _t: f64, _q: &[f64], _l: &[f64], _out: &mut MatOut<'_>) {}
    /// Φ_tt.
    fn phi_tt(&self, _t: f64, _q: &[f64], _out: &mut [f64]) {}
}

impl<T: Tangent> TangentSystem for Sys<T> {
    fn force_q_into(&self, t: f64, q: &[f64], v: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
        self.0.force_q(t, q, v, &mut out);
    }
    fn force_v_into(&self, t: f64, q: &[f64], v: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
        self.0.force_v(t, q, v, &mut out);
    }
    fn mass_w_q_into(&self, t: f64, q: &[f64], w: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
        self.0.mass_w_q(t, q, w, &mut out);
    }
    fn phi_q_t_lambda_q_into(&self, t: f64, q: &[f64], l: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
        self.0.phi_q_t_lambda_q(t, q, l, &mut out);
    }
    fn nh_matrix_t_lambda_q_into(&self, t: f64, q: &[f64], l: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
        self.0.nh_t_lambda_q(t, q, l, &mut out);
    }
    fn phi_qt_into(&self, _t: f64, _q: &[f64], mut out: MatOut<'_>) {
        out.fill(0.0);
    }
    fn phi_tt_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out.fill(0.0);
        self.0.phi_tt(t, q, out);
    }
}

/// The ME451 pendulum (digest P15): q = (x, y, φ) of the centre of mass of a rod of mass m and
/// length L pinned at the origin, tip force f0 sin(2πt) along x, RSDA −k(φ − φ0) − c φ̇,
/// gravity g along −y; hanging at rest is φ = φ0 = 3π/2.
#[derive(Clone, Copy, Debug)]
pub struct Me451 {
    pub m: f64,
    pub len: f64,
    pub f0: f64,
    pub k: f64,
    pub phi0: f64,
    pub c: f64,
    pub g: f64,
}

impl Me451 {
    pub const PUBLISHED: Me451 = Me451 {
        m: 20.0,
        len: 2.0,
        f0: 30.0,
        k: 45.0,
        phi0: 1.5 * PI,
        c: 10.0,
        g: 9.81,
    };

    /// Hanging at rest.
    pub fn initial(&self) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, -self.len / 2.0, self.phi0], vec![0.0; 3])
    }

    fn tip_force(&self, t: f64) -> f64 {
        self.f0 * (2.0 * PI * t).sin()
    }
}

impl Model for Me451 {
    fn name(&self) -> &'static str {
        "me451"
    }
    fn dims(&self) -> Dims {
        Dims { n: 3, m: 2, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        let r = self.len / 2.0;
        out[0] = q[0] - r * q[2].cos();
        out[1] = q[1] - r * q[2].sin();
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let r = self.len / 2.0;
        out[(0, 0)] = 1.0;
        out[(0, 2)] = r * q[2].sin();
        out[(1, 1)] = 1.0;
        out[(1, 2)] = -r * q[2].cos();
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let r = self.len / 2.0;
        out[0] = -r * q[2].cos() * v[2] * v[2];
        out[1] = -r * q[2].sin() * v[2] * v[2];
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        let r = self.len / 2.0;
        out[(0, 2)] = r * q[2].cos() * v[2];
        out[(1, 2)] = r * q[2].sin() * v[2];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.m;
        out[(1, 1)] = self.m;
        out[(2, 2)] = self.m * self.len * self.len / 12.0;
    }
    fn force(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let f = self.tip_force(t);
        out[0] = f;
        out[1] = -self.m * self.g;
        out[2] = -self.len / 2.0 * q[2].sin() * f - self.k * (q[2] - self.phi0) - self.c * v[2];
    }
}

impl Tangent for Me451 {
    fn force_q(&self, t: f64, q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        out[(2, 2)] = -self.len / 2.0 * q[2].cos() * self.tip_force(t) - self.k;
    }
    fn force_v(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        out[(2, 2)] = -self.c;
    }
    fn phi_q_t_lambda_q(&self, _t: f64, q: &[f64], l: &[f64], out: &mut MatOut<'_>) {
        let r = self.len / 2.0;
        out[(2, 2)] = r * q[2].cos() * l[0] + r * q[2].sin() * l[1];
    }
}

/// A cart (mass m1) driven along s = a sin(ωt) carrying a pendulum (point mass m2 on a
/// massless rod of length ℓ, angle θ from the downward vertical): q = (s, θ),
/// M(θ) = [[m1 + m2, m2 ℓ cos θ], [m2 ℓ cos θ, m2 ℓ²]], Q = (m2 ℓ sin θ θ̇², −m2 g ℓ sin θ).
#[derive(Clone, Copy, Debug)]
pub struct DrivenCart {
    pub m1: f64,
    pub m2: f64,
    pub ell: f64,
    pub a: f64,
    pub omega: f64,
    pub g: f64,
}

impl DrivenCart {
    pub const DEFAULT: DrivenCart = DrivenCart {
        m1: 2.0,
        m2: 0.5,
        ell: 0.8,
        a: 0.2,
        omega: 3.0,
        g: 9.81,
    };

    /// On the drive at t = 0 (s = 0, ṡ = aω), pendulum at θ0 at rest.
    pub fn initial(&self, theta0: f64) -> (Vec<f64>, Vec<f64>) {
        (vec![0.0, theta0], vec![self.a * self.omega, 0.0])
    }
}

impl Model for DrivenCart {
    fn name(&self) -> &'static str {
        "driven-cart"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 1, k: 0 }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = q[0] - self.a * (self.omega * t).sin();
    }
    fn phi_q(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
    }
    fn phi_t(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        out[0] = -self.a * self.omega * (self.omega * t).cos();
    }
    fn gamma(&self, t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = -self.a * self.omega * self.omega * (self.omega * t).sin();
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let coupling = self.m2 * self.ell * q[1].cos();
        out[(0, 0)] = self.m1 + self.m2;
        out[(0, 1)] = coupling;
        out[(1, 0)] = coupling;
        out[(1, 1)] = self.m2 * self.ell * self.ell;
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        out[0] = self.m2 * self.ell * q[1].sin() * v[1] * v[1];
        out[1] = -self.m2 * self.g * self.ell * q[1].sin();
    }
}

impl Tangent for DrivenCart {
    fn force_q(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 1)] = self.m2 * self.ell * q[1].cos() * v[1] * v[1];
        out[(1, 1)] = -self.m2 * self.g * self.ell * q[1].cos();
    }
    fn force_v(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 1)] = 2.0 * self.m2 * self.ell * q[1].sin() * v[1];
    }
    fn mass_w_q(&self, _t: f64, q: &[f64], w: &[f64], out: &mut MatOut<'_>) {
        let d = -self.m2 * self.ell * q[1].sin();
        out[(0, 1)] = d * w[1];
        out[(1, 1)] = d * w[0];
    }
    fn phi_tt(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        out[0] = self.a * self.omega * self.omega * (self.omega * t).sin();
    }
}

/// Two decoupled unit-mass oscillators q̈_i = −ω_i² q_i (no constraints).
#[derive(Clone, Copy, Debug)]
pub struct TwoModes {
    pub omega: [f64; 2],
}

impl TwoModes {
    /// Energy ½ v_i² + ½ ω_i² q_i² of mode i.
    pub fn energy(&self, i: usize, q: &[f64], v: &[f64]) -> f64 {
        0.5 * v[i] * v[i] + 0.5 * self.omega[i].powi(2) * q[i] * q[i]
    }
}

impl Model for TwoModes {
    fn name(&self) -> &'static str {
        "two-modes"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 0, k: 0 }
    }
    fn gamma(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
        out[(1, 1)] = 1.0;
    }
    fn force(&self, _t: f64, q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = -self.omega[0].powi(2) * q[0];
        out[1] = -self.omega[1].powi(2) * q[1];
    }
}

impl Tangent for TwoModes {
    fn force_q(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = -self.omega[0].powi(2);
        out[(1, 1)] = -self.omega[1].powi(2);
    }
}

/// q̈ = 2 q³ from q = v = 1: q = 1/(1 − t), which blows up at t = 1.
#[derive(Clone, Copy, Debug)]
pub struct BlowUp;

impl Model for BlowUp {
    fn name(&self) -> &'static str {
        "blow-up"
    }
    fn dims(&self) -> Dims {
        Dims { n: 1, m: 0, k: 0 }
    }
    fn gamma(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
    }
    fn force(&self, _t: f64, q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = 2.0 * q[0].powi(3);
    }
}

impl Tangent for BlowUp {
    fn force_q(&self, _t: f64, q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 6.0 * q[0].powi(2);
    }
}

/// q̈ = κ q (a negative spring): the iteration matrix is 1 − β h² c κ, exactly 0 for
/// β = 1/4 (Newmark γ = 1/2), h = 1/2, κ = 16.
#[derive(Clone, Copy, Debug)]
pub struct NegativeSpring {
    pub kappa: f64,
}

impl Model for NegativeSpring {
    fn name(&self) -> &'static str {
        "negative-spring"
    }
    fn dims(&self) -> Dims {
        Dims { n: 1, m: 0, k: 0 }
    }
    fn gamma(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
    }
    fn force(&self, _t: f64, q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[0] = self.kappa * q[0];
    }
}

impl Tangent for NegativeSpring {
    fn force_q(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.kappa;
    }
}

/// The knife edge on an incline (`common::models::KnifeEdge`): constant M and Q, so its only
/// tangent is ∂(Aᵀλ)/∂q with A = (sin φ, −cos φ, 0): column φ = λ (cos φ, sin φ, 0).
impl Tangent for crate::common::models::KnifeEdge {
    fn nh_t_lambda_q(&self, _t: f64, q: &[f64], l: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = q[2].sin_cos();
        out[(0, 2)] = l[0] * c;
        out[(1, 2)] = l[0] * s;
    }
}
