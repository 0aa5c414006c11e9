//! The tangent kernels (`tangents: true`) against central finite differences of already checked
//! kernels, evaluated by the interpreter at seeded random states: ∂Q/∂q and ∂Q/∂v of Q,
//! ∂(M w)/∂q of M·w, ∂(Φ_qᵀ λ)/∂q of Φ_qᵀ·λ_Φ, ∂(Aᵀ λ)/∂q of Aᵀ·λ_A, Φ_qt of Φ_t in q and Φ_tt
//! of Φ_t in t. The products are formed numerically from the kernels' values, so no symbolic
//! step of the tangent derivation is reused. Models: Andrews (full dynamics), the rheonomic
//! slider (Φ_t ≠ 0), the Cartesian pendulum, and a skate with q-dependent M, forces in q and v,
//! a rheonomic holonomic row and a rheonomic nonholonomic row.
//!
//! Tolerances come from `common::central_diff` (Richardson estimate of the truncation plus the
//! round-off of the difference quotient, from the evaluation noise of the differenced function)
//! plus the evaluation noise of the kernel entry itself (`EVAL_ULPS` ulps of the largest
//! intermediate); a product Σ a_j x_j carries the noise of the a_j times Σ|x_j|.

mod common;

use common::{EVAL_ULPS, Rng, assert_entry, central_diff, magnitude};
use mbsim_codegen::kernels::{Kernels, derive};
use mbsim_codegen::{Env, ExprId, Model, Pool, fixtures};

/// Random states per model.
const POINTS: usize = 6;

/// A random state with λ and w; `adjust` moves parameters into the model's domain.
struct Point {
    env: Env,
    q: Vec<f64>,
    v: Vec<f64>,
    t: f64,
    lambda: Vec<f64>,
    w: Vec<f64>,
}

fn point(model: &Model, k: &Kernels, rng: &mut Rng, adjust: fn(&mut [f64])) -> Point {
    let tangents = k.tangents.as_ref().expect("derived with tangents");
    let n = model.n();
    let mut p = rng.vec(model.parameters.len(), 0.5, 1.5);
    adjust(&mut p);
    let (q, v, t) = (
        rng.vec(n, -1.0, 1.0),
        rng.vec(n, -1.0, 1.0),
        rng.uniform(0.0, 2.0),
    );
    let (lambda, w) = (
        rng.vec(tangents.lambda.len(), -1.0, 1.0),
        rng.vec(n, -1.0, 1.0),
    );
    let mut env = Env::new();
    let pool = &model.pool;
    env.set(pool, model.time, t);
    for (i, c) in model.coordinates.iter().enumerate() {
        env.set(pool, c.q, q[i]).set(pool, c.v, v[i]);
    }
    for (s, &x) in model.parameters.iter().zip(&p) {
        env.set(pool, s.sym, x);
    }
    for (&s, &x) in tangents
        .lambda
        .iter()
        .zip(&lambda)
        .chain(tangents.w.iter().zip(&w))
    {
        env.set(pool, s, x);
    }
    Point {
        env,
        q,
        v,
        t,
        lambda,
        w,
    }
}

/// Absolute evaluation error of `roots` (see `EVAL_ULPS`).
fn noise(pool: &Pool, roots: &[ExprId], env: &Env) -> f64 {
    EVAL_ULPS * f64::EPSILON * magnitude(pool, roots, env)
}

/// `got` (row-major, one column per variable) against central differences of `f` (a vector
/// function of the environment) in each variable `vars[j]` at `values[j]`.
struct Jacobian<'a> {
    ctx: String,
    model: &'a Model,
    env: &'a Env,
    got: &'a [ExprId],
    f_noise: f64,
}

impl Jacobian<'_> {
    fn check(&self, f: &dyn Fn(&Env) -> Vec<f64>, vars: &[ExprId], values: &[f64]) {
        let pool = &self.model.pool;
        let got = pool.eval_many(self.got, self.env);
        let cols = vars.len();
        let rows = got.len() / cols.max(1);
        for (j, (&var, &x0)) in vars.iter().zip(values).enumerate() {
            for i in 0..rows {
                let g = |x: f64| {
                    let mut env = self.env.clone();
                    env.set(pool, var, x);
                    f(&env)[i]
                };
                let fd = central_diff(g, x0, x0.abs().max(1.0), self.f_noise);
                assert!(
                    fd.smooth,
                    "{}: row {i} not smooth in variable {j}",
                    self.ctx
                );
                let tol = fd.tol + noise(pool, &[self.got[i * cols + j]], self.env);
                assert_entry(
                    &self.ctx,
                    format!("{i},{j}"),
                    got[i * cols + j],
                    fd.value,
                    tol,
                );
            }
        }
    }
}

/// `mat · x` (or `matᵀ · x`) with `mat` evaluated at `env`, row-major `rows × cols`.
fn times(
    pool: &Pool,
    mat: &[ExprId],
    cols: usize,
    x: &[f64],
    env: &Env,
    transpose: bool,
) -> Vec<f64> {
    let a = pool.eval_many(mat, env);
    let rows = a.len() / cols.max(1);
    match transpose {
        false => (0..rows)
            .map(|i| (0..cols).map(|j| a[i * cols + j] * x[j]).sum())
            .collect(),
        true => (0..cols)
            .map(|j| (0..rows).map(|i| a[i * cols + j] * x[i]).sum())
            .collect(),
    }
}

fn check(label: &str, mut model: Model, adjust: fn(&mut [f64])) {
    model.tangents = true;
    let k = derive(&mut model);
    let t = k.tangents.clone().expect("derived");
    let (q_syms, v_syms) = (model.q(), model.v());
    let (n, m) = (model.n(), k.phi.len());
    let mut rng = Rng::new(0x7461_6e67_656e_7473);
    for index in 0..POINTS {
        let p = point(&model, &k, &mut rng, adjust);
        let pool = &model.pool;
        let env = &p.env;
        let jac = |name: &str, got, f_noise| Jacobian {
            ctx: format!("{label}, point {index}, {name}"),
            model: &model,
            env,
            got,
            f_noise,
        };
        let sum = |x: &[f64]| x.iter().map(|a| a.abs()).sum::<f64>().max(1.0);
        let force = |e: &Env| pool.eval_many(&k.force, e);
        let q_noise = noise(pool, &k.force, env);
        jac("∂Q/∂q", &t.force_q.entries, q_noise).check(&force, &q_syms, &p.q);
        jac("∂Q/∂v", &t.force_v.entries, q_noise).check(&force, &v_syms, &p.v);
        let mw = |e: &Env| times(pool, &k.mass.entries, n, &p.w, e, false);
        let mw_noise = noise(pool, &k.mass.entries, env) * sum(&p.w);
        jac("∂(Mw)/∂q", &t.mass_w_q.entries, mw_noise).check(&mw, &q_syms, &p.q);
        let (lam_phi, lam_nh) = p.lambda.split_at(m);
        let gl = |e: &Env| times(pool, &k.phi_q.entries, n, lam_phi, e, true);
        let gl_noise = noise(pool, &k.phi_q.entries, env) * sum(lam_phi);
        jac("∂(Φ_qᵀλ)/∂q", &t.phi_q_t_lambda_q.entries, gl_noise).check(&gl, &q_syms, &p.q);
        let al = |e: &Env| times(pool, &k.nh_matrix.entries, n, lam_nh, e, true);
        let al_noise = noise(pool, &k.nh_matrix.entries, env) * sum(lam_nh);
        let ids = &t.nh_matrix_t_lambda_q.entries;
        jac("∂(Aᵀλ)/∂q", ids, al_noise).check(&al, &q_syms, &p.q);
        let phi_t = |e: &Env| pool.eval_many(&k.phi_t, e);
        let pt_noise = noise(pool, &k.phi_t, env);
        jac("Φ_qt", &t.phi_qt.entries, pt_noise).check(&phi_t, &q_syms, &p.q);
        jac("Φ_tt", &t.phi_tt, pt_noise).check(&phi_t, &[model.time], &[p.t]);
    }
}

fn keep(_: &mut [f64]) {}

#[test]
fn andrews() {
    check("andrews", fixtures::andrews(), keep);
}

#[test]
fn rheonomic() {
    // (r, omega, Lb, ell): Lb > r keeps the square root real.
    check("rheonomic", fixtures::rheonomic(), |p| p[2] = p[0] + 1.0);
}

#[test]
fn cartesian_pendulum() {
    check("cartesian_pendulum", fixtures::cartesian_pendulum(), keep);
}

#[test]
fn skate_nonholonomic() {
    check("skate", common::skate(), keep);
}
