//! Models that are singular or broken on purpose: the singular slider-crank ([CHIN] P10) and
//! the [`Broken`] pendulum variants that provoke each failure kind.

use mbsim_runtime::{Dims, MatOut};

use super::super::Model;
use super::Pendulum;

// ---------------------------------------------------------------------------------------------
// Singular slider-crank ([CHIN] P10)
// ---------------------------------------------------------------------------------------------

/// Crank and rod of unit length with unit point masses, q = (θ1, θ2), θ_d = θ2 − θ1
/// ([CHIN] (4.27), velocity signs per [AMBIG-22]). With `linear` set, the constraint is the
/// reformulation θ1 + θ2 − π = 0 of Remark 4.4 (no singularity); otherwise
/// Φ = −cos θ1 − cos θ2, whose Jacobian (sin θ1, sin θ2) vanishes at (0, π).
#[derive(Clone, Copy, Debug)]
pub struct SliderCrank {
    pub linear: bool,
}

impl SliderCrank {
    /// Initial state (the thesis omits it, [AMBIG-23]): θ1 = π/2 − 0.5 on the branch
    /// θ2 = π − θ1, at rest; gravity then swings θ1 through 0 (the singular configuration).
    pub fn initial_state() -> (Vec<f64>, Vec<f64>) {
        let th1 = std::f64::consts::FRAC_PI_2 - 0.5;
        (vec![th1, std::f64::consts::PI - th1], vec![0.0, 0.0])
    }
}

impl Model for SliderCrank {
    fn name(&self) -> &'static str {
        "SliderCrank"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 1, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = if self.linear {
            q[0] + q[1] - std::f64::consts::PI
        } else {
            -q[0].cos() - q[1].cos()
        };
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        for j in 0..2 {
            out[(0, j)] = if self.linear { 1.0 } else { q[j].sin() };
        }
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        if !self.linear {
            out[0] = -(q[0].cos() * v[0] * v[0] + q[1].cos() * v[1] * v[1]);
        }
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        if !self.linear {
            out[(0, 0)] = q[0].cos() * v[0];
            out[(0, 1)] = q[1].cos() * v[1];
        }
    }
    fn mass(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let c = (q[1] - q[0]).cos();
        out[(0, 0)] = 2.0;
        out[(0, 1)] = c;
        out[(1, 0)] = c;
        out[(1, 1)] = 1.0;
    }
    fn force(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let sd = (q[1] - q[0]).sin();
        out[0] = sd * v[1] * v[1] + 19.6 * q[0].sin();
        out[1] = -sd * v[0] * v[0] + 9.8 * q[1].sin();
    }
}

// ---------------------------------------------------------------------------------------------
// Broken models: each provokes one failure kind
// ---------------------------------------------------------------------------------------------

/// How a [`Broken`] pendulum misbehaves.
#[derive(Clone, Copy, Debug)]
pub enum Defect {
    /// The constraint is stated twice (m = 2): rows dependent everywhere.
    RedundantConstraint,
    /// The force is NaN in its y entry from time `from` on.
    NanForce { from: f64 },
    /// γ is +∞ from time `from` on.
    InfiniteGamma { from: f64 },
    /// The mass vanishes from time `from` on: M = 0 is not positive definite on ker G.
    MassVanishes { from: f64 },
    /// An unconstrained particle (the pendulum's coordinates, no rod) pushed by a force
    /// 1/(1 − t)³ along x: the solution has a pole at t = 1.
    Blowup,
}

/// The unit pendulum with a [`Defect`].
#[derive(Clone, Copy, Debug)]
pub struct Broken(pub Defect);

impl Model for Broken {
    fn name(&self) -> &'static str {
        "Broken"
    }
    fn dims(&self) -> Dims {
        match self.0 {
            Defect::RedundantConstraint => Dims { n: 2, m: 2, k: 0 },
            Defect::Blowup => Dims { n: 2, m: 0, k: 0 },
            _ => Dims { n: 2, m: 1, k: 0 },
        }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        for i in 0..out.len() {
            Pendulum::UNIT.phi(t, q, &mut out[i..i + 1]);
        }
    }
    fn phi_q(&self, t: f64, q: &[f64], out: &mut MatOut<'_>) {
        for i in 0..out.nrows() {
            let mut row = out.rows_mut(i, 1);
            Pendulum::UNIT.phi_q(t, q, &mut row);
        }
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        for i in 0..out.len() {
            Pendulum::UNIT.gamma(t, q, v, &mut out[i..i + 1]);
        }
        if let Defect::InfiniteGamma { from } = self.0
            && t >= from
        {
            out[0] = f64::INFINITY;
        }
    }
    fn l(&self, t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        for i in 0..out.nrows() {
            let mut row = out.rows_mut(i, 1);
            Pendulum::UNIT.l(t, q, v, &mut row);
        }
    }
    fn mass(&self, t: f64, q: &[f64], out: &mut MatOut<'_>) {
        Pendulum::UNIT.mass(t, q, out);
        if let Defect::MassVanishes { from } = self.0
            && t >= from
        {
            out.fill(0.0);
        }
    }
    fn force(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        match self.0 {
            Defect::Blowup => out[0] = 1.0 / (1.0 - t).powi(3),
            Defect::NanForce { from } if t >= from => out[1] = f64::NAN,
            _ => Pendulum::UNIT.force(t, q, v, out),
        }
    }
}
