//! The N-four-bar chain (IFToMM "N-four-bar mechanism") in body coordinates: every rod is a
//! planar body (x, y, φ) of its centre, joined by revolute joints, as DADS would write it. With
//! N windows there are 2N + 1 bodies (N + 1 cranks, N couplers), 3(2N + 1) coordinates and
//! 2(N + 1) + 4N = 6N + 2 joint rows (one DOF). M is diagonal and every row touches at most two
//! bodies, so the KKT matrix is a chain: the banded path's test and benchmark model.
//!
//! Body b's point at arc length s from its centre is P = (x + s cos φ, y + s sin φ), so
//! ∂P/∂(x, y, φ) = [1 0 −s sin φ; 0 1 s cos φ], the velocity-term of the acceleration is
//! (−s cos φ, −s sin φ) φ̇², giving γ = +(s cos φ, s sin φ) φ̇² per point term and
//! L = ∂(Φ_q v)/∂φ = (−s cos φ, −s sin φ) φ̇. Bodies are ordered crank 0, coupler 0, crank 1, …
//! (crank i = body 2i, coupler i = body 2i + 1). Crank i: pivot P(−ℓ/2) at the ground point
//! (iℓ, 0), tip P(+ℓ/2); coupler i: P(−ℓ/2) on crank i's tip, P(+ℓ/2) on crank i + 1's tip.

use mbsim_runtime::{Dims, MatOut};

use super::super::Model;

/// One term ± P_c(body, s) of a joint row (c = 0: x, 1: y).
#[derive(Clone, Copy, Debug)]
struct Term {
    sign: f64,
    body: usize,
    s: f64,
}

/// One joint row: Σ terms' component `axis` minus `offset`.
#[derive(Clone, Debug)]
struct Row {
    axis: usize,
    terms: Vec<Term>,
    offset: f64,
}

/// The chain with `windows` = N windows, in body coordinates.
#[derive(Clone, Debug)]
pub struct FourBarBodies {
    /// Number of windows N.
    pub windows: usize,
    /// Rod length ℓ.
    pub len: f64,
    /// Rod mass m.
    pub mass: f64,
    /// Gravity g.
    pub g: f64,
    rows: Vec<Row>,
}

impl FourBarBodies {
    /// The IFToMM benchmark data: unit lengths and masses, g = 9.81.
    pub fn unit(windows: usize) -> Self {
        let (len, half) = (1.0, 0.5);
        let mut rows = Vec::new();
        let mut joint = |terms: Vec<Term>, at: (f64, f64)| {
            for (axis, offset) in [(0, at.0), (1, at.1)] {
                rows.push(Row {
                    axis,
                    terms: terms.clone(),
                    offset,
                });
            }
        };
        let term = |sign: f64, body: usize, s: f64| Term { sign, body, s };
        for i in 0..=windows {
            joint(vec![term(1.0, 2 * i, -half)], (i as f64 * len, 0.0));
        }
        for i in 0..windows {
            let coupler = 2 * i + 1;
            joint(
                vec![term(1.0, coupler, -half), term(-1.0, 2 * i, half)],
                (0.0, 0.0),
            );
            joint(
                vec![term(1.0, coupler, half), term(-1.0, 2 * i + 2, half)],
                (0.0, 0.0),
            );
        }
        Self {
            windows,
            len,
            mass: 1.0,
            g: 9.81,
            rows,
        }
    }

    /// Number of bodies 2N + 1.
    pub fn bodies(&self) -> usize {
        2 * self.windows + 1
    }

    /// All cranks at angle θ turning at ω, couplers horizontal: the parallelogram branch (the
    /// state of `FourBarChain::initial_state` in body coordinates).
    pub fn state_at(&self, theta: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (l, half) = (self.len, self.len / 2.0);
        let (mut q, mut v) = (Vec::new(), Vec::new());
        for b in 0..self.bodies() {
            let i = (b / 2) as f64 * l;
            if b % 2 == 0 {
                q.extend([i + half * theta.cos(), half * theta.sin(), theta]);
                v.extend([
                    -half * theta.sin() * omega,
                    half * theta.cos() * omega,
                    omega,
                ]);
            } else {
                q.extend([i + l * theta.cos() + half, l * theta.sin(), 0.0]);
                v.extend([-l * theta.sin() * omega, l * theta.cos() * omega, 0.0]);
            }
        }
        (q, v)
    }

    /// The structural pattern of Φ_q, row-major.
    pub fn phi_q_pattern(&self) -> Vec<(usize, usize)> {
        let mut nz = Vec::new();
        for (r, row) in self.rows.iter().enumerate() {
            let mut cols: Vec<usize> = row
                .terms
                .iter()
                .flat_map(|t| [3 * t.body + row.axis, 3 * t.body + 2])
                .collect();
            cols.sort_unstable();
            cols.dedup();
            nz.extend(cols.into_iter().map(|c| (r, c)));
        }
        nz
    }

    /// The structural pattern of M (its diagonal), row-major.
    pub fn mass_pattern(&self) -> Vec<(usize, usize)> {
        (0..3 * self.bodies()).map(|i| (i, i)).collect()
    }
}

/// `(cos φ, sin φ)` of body `b`.
fn angle(q: &[f64], b: usize) -> (f64, f64) {
    (q[3 * b + 2].cos(), q[3 * b + 2].sin())
}

impl Model for FourBarBodies {
    fn name(&self) -> &'static str {
        "FourBarBodies"
    }
    fn dims(&self) -> Dims {
        Dims {
            n: 3 * self.bodies(),
            m: self.rows.len(),
            k: 0,
        }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        for (r, row) in self.rows.iter().enumerate() {
            let mut value = -row.offset;
            for t in &row.terms {
                let (c, s) = angle(q, t.body);
                let along = if row.axis == 0 { c } else { s };
                value += t.sign * (q[3 * t.body + row.axis] + t.s * along);
            }
            out[r] = value;
        }
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        for (r, row) in self.rows.iter().enumerate() {
            for t in &row.terms {
                let (c, s) = angle(q, t.body);
                let d_phi = if row.axis == 0 { -t.s * s } else { t.s * c };
                out[(r, 3 * t.body + row.axis)] += t.sign;
                out[(r, 3 * t.body + 2)] += t.sign * d_phi;
            }
        }
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        for (r, row) in self.rows.iter().enumerate() {
            let mut value = 0.0;
            for t in &row.terms {
                let (c, s) = angle(q, t.body);
                let w = v[3 * t.body + 2];
                let along = if row.axis == 0 { c } else { s };
                value += t.sign * t.s * along * w * w;
            }
            out[r] = value;
        }
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        for (r, row) in self.rows.iter().enumerate() {
            for t in &row.terms {
                let (c, s) = angle(q, t.body);
                let w = v[3 * t.body + 2];
                let along = if row.axis == 0 { c } else { s };
                out[(r, 3 * t.body + 2)] -= t.sign * t.s * along * w;
            }
        }
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        let inertia = self.mass * self.len * self.len / 12.0;
        for b in 0..self.bodies() {
            out[(3 * b, 3 * b)] = self.mass;
            out[(3 * b + 1, 3 * b + 1)] = self.mass;
            out[(3 * b + 2, 3 * b + 2)] = inertia;
        }
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        for b in 0..self.bodies() {
            out[3 * b + 1] = -self.mass * self.g;
        }
    }
    fn phi_q_pattern(&self) -> Option<Vec<(usize, usize)>> {
        Some(FourBarBodies::phi_q_pattern(self))
    }
    fn mass_pattern(&self) -> Option<Vec<(usize, usize)>> {
        Some(FourBarBodies::mass_pattern(self))
    }
}
