//! Derived constraint kernels against independent numerical constructions, at seeded random
//! states: Φ_q and Φ_t against central differences of Φ, γ against −d²/ds² Φ(t+s, q+s·v) at
//! s = 0 (5-point stencil), L against central differences of Φ_q·v; the nonholonomic kernels
//! A, b and γ_A of a knife-edge sled against their closed forms; and the size of Φ_q of the
//! closed chain, which must grow about linearly with the number of links.

mod common;

use common::{
    EVAL_ULPS, Rng, State, assert_entry, central_diff, eval_with, magnitude, second_diff,
};
use mbsim_codegen::kernels::{Kernels, derive};
use mbsim_codegen::{Env, ExprId, Model, ModelBuilder, Pool, SymbolKind};

/// Random states per model.
const POINTS: usize = 8;

/// Check Φ_q, Φ_t, γ and L of `model` at `POINTS` states drawn by `state`. `rate` bounds how fast
/// Φ varies along the state's motion (see [`second_diff`]).
fn check(label: &str, mut model: Model, state: fn(&mut Rng) -> State, rate: fn(&State) -> f64) {
    let k = derive(&mut model);
    let mut rng = Rng::new(0x006b_6572_6e65_6c73);
    for point in 0..POINTS {
        let s = state(&mut rng);
        let env = s.env(&model);
        let ctx = format!("{label}, point {point}");
        check_phi_q(&ctx, &model, &k, &s, &env);
        check_phi_t(&ctx, &model, &k, &env);
        check_gamma(&ctx, &model, &k, &s, &env, rate(&s));
        check_l(&ctx, &model, &k, &s, &env);
    }
}

/// Absolute evaluation error of `roots` at `env` (see [`EVAL_ULPS`]).
fn noise(pool: &Pool, roots: &[ExprId], env: &Env) -> f64 {
    EVAL_ULPS * f64::EPSILON * magnitude(pool, roots, env)
}

fn check_phi_q(ctx: &str, model: &Model, k: &Kernels, s: &State, env: &Env) {
    let pool = &model.pool;
    let got = pool.eval_many(&k.phi_q.entries, env);
    let phi_noise = noise(pool, &k.phi, env);
    for (j, c) in model.coordinates.iter().enumerate() {
        for i in 0..k.phi.len() {
            let fd = central_diff(
                |x| eval_with(pool, &k.phi, env, c.q, x)[i],
                s.q[j],
                s.q[j].abs().max(1.0),
                phi_noise,
            );
            assert!(
                fd.smooth,
                "{ctx}: Φ[{i}] not smooth in {} (unexpected for these models)",
                c.name
            );
            let tol = fd.tol + noise(pool, &[k.phi_q.get(i, j)], env);
            assert_entry(
                &format!("{ctx}, Φ_q"),
                format!("{i},{j}"),
                got[i * k.phi_q.cols + j],
                fd.value,
                tol,
            );
        }
    }
}

fn check_phi_t(ctx: &str, model: &Model, k: &Kernels, env: &Env) {
    let pool = &model.pool;
    let got = pool.eval_many(&k.phi_t, env);
    let t = env.get(pool.as_symbol(model.time).expect("t is a symbol"));
    let phi_noise = noise(pool, &k.phi, env);
    for i in 0..k.phi.len() {
        let fd = central_diff(
            |x| eval_with(pool, &k.phi, env, model.time, x)[i],
            t,
            t.abs().max(1.0),
            phi_noise,
        );
        assert!(fd.smooth, "{ctx}: Φ[{i}] not smooth in t");
        let tol = fd.tol + noise(pool, &[k.phi_t[i]], env);
        assert_entry(&format!("{ctx}, Φ_t"), i.to_string(), got[i], fd.value, tol);
    }
}

/// γ = −d²/ds² Φ(t + s, q + s·v) at s = 0, velocities fixed: the definition of γ, computed
/// without any symbolic derivative.
fn check_gamma(ctx: &str, model: &Model, k: &Kernels, s: &State, env: &Env, rate: f64) {
    let pool = &model.pool;
    let got = pool.eval_many(&k.gamma, env);
    let along = |step: f64| -> Vec<f64> {
        let mut moved = s.clone();
        moved.t += step;
        for j in 0..s.q.len() {
            moved.q[j] += step * s.v[j];
        }
        pool.eval_many(&k.phi, &moved.env(model))
    };
    let size = magnitude(pool, &k.phi, env);
    for i in 0..k.phi.len() {
        let (value, tol) = second_diff(
            |step| along(step)[i],
            rate,
            size,
            EVAL_ULPS * f64::EPSILON * size,
        );
        let tol = tol + noise(pool, &[k.gamma[i]], env);
        assert_entry(&format!("{ctx}, γ"), i.to_string(), got[i], -value, tol);
    }
}

/// L = ∂(Φ_q·v)/∂q, with Φ_q·v evaluated numerically from the (already checked) Φ_q.
fn check_l(ctx: &str, model: &Model, k: &Kernels, s: &State, env: &Env) {
    let pool = &model.pool;
    let got = pool.eval_many(&k.l.entries, env);
    let n = model.n();
    let v_sum: f64 = s.v.iter().map(|v| v.abs()).sum();
    let w_noise = noise(pool, &k.phi_q.entries, env) * v_sum.max(1.0);
    for (j, c) in model.coordinates.iter().enumerate() {
        for i in 0..k.phi.len() {
            let w = |x: f64| -> f64 {
                let row = eval_with(pool, &k.phi_q.entries[i * n..(i + 1) * n], env, c.q, x);
                row.iter().zip(&s.v).map(|(a, v)| a * v).sum()
            };
            let fd = central_diff(w, s.q[j], s.q[j].abs().max(1.0), w_noise);
            assert!(fd.smooth, "{ctx}: Φ_q·v row {i} not smooth in {}", c.name);
            let tol = fd.tol + noise(pool, &[k.l.get(i, j)], env);
            assert_entry(
                &format!("{ctx}, L"),
                format!("{i},{j}"),
                got[i * n + j],
                fd.value,
                tol,
            );
        }
    }
}

/// Angular rate bound for the purely trigonometric models: 1 + Σ|v|.
fn rate_q(s: &State) -> f64 {
    1.0 + s.v.iter().map(|v| v.abs()).sum::<f64>()
}

/// The rheonomic slider also moves with ω (its second parameter) in t.
fn rate_rheonomic(s: &State) -> f64 {
    rate_q(s) + s.p[1].abs()
}

macro_rules! cases {
    ($($name:ident: $model:expr, $state:expr, $rate:expr;)*) => {
        $(#[test] fn $name() { check(stringify!($name), $model, $state, $rate); })*
    };
}

cases! {
    chain_1: common::chain(1), |r| common::chain_state(r, 1), rate_q;
    chain_3: common::chain(3), |r| common::chain_state(r, 3), rate_q;
    chain_10: common::chain(10), |r| common::chain_state(r, 10), rate_q;
    andrews: common::andrews(), common::andrews_state, rate_q;
    rheonomic: common::rheonomic(), common::rheonomic_state, rate_rheonomic;
    spatial_joints: spatial_fixture(), spatial_state, rate_spatial;
}

/// Two spatial bodies (Euler parameters) with every joint kind and the drivers of t
/// (`frontend/spatial_joints.rs`): 14 coordinates, 37 rows.
fn spatial_fixture() -> Model {
    mbsim_codegen::frontend::model(
        quote::quote!(
            bodies: [a = body(1.0, [1.0, 2.0, 3.0]), b = body(2.0, [1.0, 1.0, 1.0])],
            joints: [
                sph = spherical(a, [0.3, -0.2, 0.1], b, [-0.5, 0.1, 0.4]),
                rev = revolute(a, [0.3, -0.2, 0.1], [0.0, 0.0, 1.0], b, [-0.5, 0.1, 0.4], [0.0, 0.0, 1.0]),
                uni = universal(a, [0.3, -0.2, 0.1], [1.0, 0.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                cyl = cylindrical(a, [0.3, -0.2, 0.1], [1.0, 1.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                tra = translational(a, [0.3, -0.2, 0.1], [0.0, 1.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                pla = planar(a, [0.3, -0.2, 0.1], [0.0, 0.0, 1.0], b, [-0.5, 0.1, 0.4], [1.0, 0.0, 0.0]),
                fix = fixed(a, [0.3, -0.2, 0.1], b, [-0.5, 0.1, 0.4]),
                ss = spherical_spherical(a, [0.3, -0.2, 0.1], ground, [1.0, 2.0, 3.0], 0.7),
                spin = rotation(rev, 2.0 * t),
                slide = translation(tra, 0.5 * t.sin()),
            ],
        ),
        quote::quote!(
            struct Two {}
        ),
    )
    .expect("the spatial fixture builds")
}

/// Coordinates in [−1, 1) (Euler parameters not normalized: the kernels hold off the
/// normalization manifold too), velocities in [−1, 1), time in [0, 1).
fn spatial_state(rng: &mut Rng) -> State {
    State {
        t: rng.unit(),
        q: rng.vec(14, -1.0, 1.0),
        v: rng.vec(14, -1.0, 1.0),
        p: Vec::new(),
    }
}

/// The rows are quadratic in p (A(p) = E Gᵀ) and the rotation driver turns at 2 rad/s.
fn rate_spatial(s: &State) -> f64 {
    rate_q(s) + 2.0
}

/// Knife-edge sled: q = (x, y, th), parameters (w, c). One holonomic row y − c·sin t and two
/// nonholonomic rows, the knife edge with a rheonomic offset and a factored row whose offset is
/// identically zero:
///   e0 = −sin th·ẋ + cos th·ẏ + w·cos t·th,   e1 = (ẋ + ẏ)·sin th.
/// Closed forms (D = ∂_t + Σ q̇ ∂_q, velocities fixed; γ_A = −D e):
///   A0 = [−sin th, cos th, 0], b0 = w cos t·th,
///   γ0 = cos th·ẋ·θ̇ + sin th·ẏ·θ̇ + w sin t·th − w cos t·θ̇;
///   A1 = [sin th, sin th, 0], b1 = 0, γ1 = −(ẋ + ẏ)·cos th·θ̇;
///   and for the holonomic row Φ_t = −c cos t, γ_Φ = −c sin t (listed first in γ).
fn sled() -> Model {
    let mut b = ModelBuilder::new("Sled");
    for name in ["x", "y", "th"] {
        b.coordinate(name);
    }
    b.parameter("w");
    b.parameter("c");
    let phi = b.parse("(- y (* c (sin t)))", "phi");
    let e0 = b.parse(
        "(+ (* -1 (sin th) x_dot) (* (cos th) y_dot) (* w (cos t) th))",
        "e0",
    );
    let e1 = b.parse("(* (+ x_dot y_dot) (sin th))", "e1");
    let one = b.pool().one();
    let zero = b.pool().zero();
    b.holonomic(&[phi])
        .nonholonomic(&[e0, e1])
        .mass_diagonal(&[one; 3])
        .force(&[zero; 3]);
    b.build().expect("sled builds")
}

/// Compare one nonholonomic kernel entry with its closed form; `terms` are the magnitudes of
/// the closed form's terms, so the tolerance is 16 ulps of their sum (a few roundings each).
fn check_closed(ctx: &str, index: &str, got: f64, terms: &[f64]) {
    let want: f64 = terms.iter().sum();
    let tol = 16.0 * f64::EPSILON * terms.iter().map(|x| x.abs()).sum::<f64>();
    assert_entry(ctx, index, got, want, tol);
}

#[test]
fn nonholonomic_sled() {
    let mut model = sled();
    let k = derive(&mut model);
    assert_eq!(
        (k.nh_matrix.rows, k.nh_matrix.cols, k.gamma.len()),
        (2, 3, 3)
    );
    let mut rng = Rng::new(0x736c_6564);
    for point in 0..POINTS {
        let s = State {
            t: rng.uniform(0.0, 3.0),
            q: rng.vec(3, -2.0, 2.0),
            v: rng.vec(3, -1.0, 1.0),
            p: rng.vec(2, 0.5, 2.0),
        };
        let env = s.env(&model);
        let pool = &model.pool;
        let (t, th, (xd, yd, thd), (w, c)) =
            (s.t, s.q[2], (s.v[0], s.v[1], s.v[2]), (s.p[0], s.p[1]));
        let ctx = format!("sled, point {point}");
        let a = pool.eval_many(&k.nh_matrix.entries, &env);
        for (i, want) in [-th.sin(), th.cos(), 0.0, th.sin(), th.sin(), 0.0]
            .into_iter()
            .enumerate()
        {
            check_closed(&format!("{ctx}, A"), &i.to_string(), a[i], &[want]);
        }
        let b = pool.eval_many(&k.nh_offset, &env);
        check_closed(&format!("{ctx}, b"), "0", b[0], &[w * t.cos() * th]);
        // b1 = (ẋ + ẏ)·sin th − ẋ·sin th − ẏ·sin th = 0: the terms cancel exactly.
        check_closed(
            &format!("{ctx}, b"),
            "1",
            b[1],
            &[(xd + yd) * th.sin(), -xd * th.sin(), -yd * th.sin()],
        );
        let g = pool.eval_many(&k.gamma, &env);
        check_closed(&format!("{ctx}, γ"), "0 (holonomic)", g[0], &[-c * t.sin()]);
        let gamma0 = [
            th.cos() * xd * thd,
            th.sin() * yd * thd,
            w * t.sin() * th,
            -w * t.cos() * thd,
        ];
        check_closed(&format!("{ctx}, γ"), "1", g[1], &gamma0);
        check_closed(
            &format!("{ctx}, γ"),
            "2",
            g[2],
            &[-xd * th.cos() * thd, -yd * th.cos() * thd],
        );
        let phi_t = pool.eval_many(&k.phi_t, &env);
        check_closed(&format!("{ctx}, Φ_t"), "0", phi_t[0], &[-c * t.cos()]);
    }
}

/// b(t, q) must not depend on v (the runtime evaluates it without velocities), also for the
/// factored row e1 = (ẋ + ẏ)·sin th, where e − A·v would mention ẋ and ẏ structurally: b is
/// computed as e with v ↦ 0.
#[test]
fn nonholonomic_offset_is_velocity_free() {
    let mut model = sled();
    let k = derive(&mut model);
    let is_velocity = |s: &mbsim_codegen::Symbol| matches!(s.kind, SymbolKind::Velocity(_));
    let mentions: Vec<bool> = k
        .nh_offset
        .iter()
        .map(|&b| model.pool.mentions(b, is_velocity))
        .collect();
    let shown: Vec<String> = k
        .nh_offset
        .iter()
        .map(|&b| model.pool.to_sexpr(b))
        .collect();
    assert_eq!(
        mentions,
        [false, false],
        "b = {shown:?} must be velocity-free"
    );
}

/// Distinct nodes reachable from Φ_q of the closed n-link chain.
fn phi_q_nodes(n: usize) -> usize {
    let mut model = common::chain(n);
    let k = derive(&mut model);
    model.pool.reachable(&k.phi_q.entries).len()
}

/// Φ_q of the chain has 2n entries, each a suffix sum of the shared terms l_i·sin a_i or
/// l_i·cos a_i: the n-ary sums are distinct nodes but share every term, so the node count is
/// linear in n. Measured: 10 → 88, 20 → 178, 30 → 268, 60 → 538 (9n − 2). The child lists
/// are quadratic (total arity 232, 767, 1602, 5907): turning them into a linear number of
/// operations is CSE's job (nested-sum reuse), not checked here. Linear growth doubles the count from 30 to 60
/// links, quadratic growth would quadruple it; the bound 2.2 allows a small per-link overhead
/// and fails as soon as anything super-linear appears.
#[test]
fn chain_phi_q_size_is_linear() {
    let counts: Vec<usize> = [10, 20, 30, 60].iter().map(|&n| phi_q_nodes(n)).collect();
    eprintln!("Φ_q reachable nodes for n = 10, 20, 30, 60: {counts:?}");
    assert!(
        counts[3] as f64 <= 2.2 * counts[2] as f64,
        "Φ_q nodes {counts:?} grow faster than linearly"
    );
    assert!(
        counts[1] as f64 <= 2.2 * counts[0] as f64,
        "Φ_q nodes {counts:?} grow faster than linearly"
    );
}
