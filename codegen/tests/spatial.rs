//! Spatial bodies, joints and loads (`frontend/spatial.rs`, `spatial_joints.rs`):
//! - M and Q of Euler-parameter bodies (4 Gᵀ J' G and 8 Ġᵀ J' Ġ p) against the Lagrangian of
//!   the same bodies, T = ½ m ṙᵀṙ + ½ ω'ᵀ J' ω', written out by hand and derived by
//!   `lagrange.rs` (Hessian and ∂T/∂q − (∂²T/∂v∂q) v), every kernel of the table;
//! - every joint kind's rows against its definition evaluated here with the unit-quaternion
//!   rotation R = I + 2 e0 [e×] + 2 [e×]² (not the E Gᵀ product the front end builds);
//! - every load's generalized force against the virtual work of the load, by central
//!   differences of the points and angles along random admissible δq (δp ⟂ p);
//! - Φ, Φ_q, γ, M and Q of a two-body model with a revolute joint, a spherical–spherical
//!   link, a rotation driver, gravity, a TSDA, a world force and a body-frame torque against
//!   the SymPy oracle `tests/oracle/spatial.py` (M and Q there from Lagrange's equations of
//!   T = ½ m ṙᵀṙ + ½ ω'ᵀ J' ω', evaluated at 50 digits);
//! - the row names and the located errors.

mod common;

use common::{Rng, State, assert_entry, central_diff, magnitude, run_python_oracle, same_kernels};
use mbsim_codegen::Model;
use mbsim_codegen::frontend;
use mbsim_codegen::kernels::derive;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::{Value, json};

type V = [f64; 3];

fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// R s for the unit quaternion p / |p|: R s = s + 2 e0 (e × s) + 2 e × (e × s).
fn rotate(p: [f64; 4], s: V) -> V {
    let len = p.iter().map(|x| x * x).sum::<f64>().sqrt();
    let (e0, e) = (p[0] / len, [p[1] / len, p[2] / len, p[3] / len]);
    let es = cross(e, s);
    let ees = cross(e, es);
    [0, 1, 2].map(|k| s[k] + 2.0 * e0 * es[k] + 2.0 * ees[k])
}

/// Body k's (r, p) in q (seven coordinates per body).
fn pose(q: &[f64], k: usize) -> (V, [f64; 4]) {
    let b = 7 * k;
    (
        [q[b], q[b + 1], q[b + 2]],
        [q[b + 3], q[b + 4], q[b + 5], q[b + 6]],
    )
}

fn world(q: &[f64], k: usize, s: V) -> V {
    let (r, p) = pose(q, k);
    let a = rotate(p, s);
    [0, 1, 2].map(|c| r[c] + a[c])
}

/// A random state with unit Euler parameters.
fn unit_state(rng: &mut Rng, bodies: usize, parameters: usize) -> State {
    let mut q = rng.vec(7 * bodies, -1.0, 1.0);
    for k in 0..bodies {
        let p = &mut q[7 * k + 3..7 * k + 7];
        let len = p.iter().map(|x| x * x).sum::<f64>().sqrt();
        p.iter_mut().for_each(|x| *x /= len);
    }
    State {
        t: rng.unit(),
        q,
        v: rng.vec(7 * bodies, -1.0, 1.0),
        p: rng.vec(parameters, 0.5, 2.0),
    }
}

/// `same_kernels` tolerance: the Lagrangian's Hessian and the explicit 4 Gᵀ J' G sum the same
/// O(1–10) products in another order (the random states have |q|, |v| ≤ 1 and parameters
/// < 2), so entries agree to a few ulps of their largest term; 1e-13 · (1 + |w|) bounds that
/// with margin and is far below any wrong term.
const REORDERED: f64 = 1e-13;

/// A heavy top with a general (non-diagonal) inertia tensor and an offset tip, in Euler
/// parameters, against its Lagrangian written out by hand.
#[test]
fn euler_parameter_body_matches_its_lagrangian() {
    let item = quote!(
        struct Top {
            m: f64,
            jxx: f64,
            jyy: f64,
            jzz: f64,
            jxy: f64,
            h: f64,
            g: f64,
        }
    );
    let spatial = quote!(
        tangents: true,
        bodies: [top = body(m, [[jxx, jxy, 0.0], [jxy, jyy, 0.0], [0.0, 0.0, jzz]])],
        joints: [tip = spherical(top, [0.0, 0.0, -h], ground, [0.0, 0.0, 0.0])],
        loads: [gravity([0.0, 0.0, -g])],
    );
    // ω' = 2 G ṗ written out; A(p) rows of the unit-quaternion form with e0² − eᵀe.
    let lagrangian = quote!(
        tangents: true,
        coordinates: [top_x, top_y, top_z, top_p0, top_p1, top_p2, top_p3],
        let w1 = 2.0 * (-top_p1 * top_p0_dot + top_p0 * top_p1_dot + top_p3 * top_p2_dot - top_p2 * top_p3_dot),
        let w2 = 2.0 * (-top_p2 * top_p0_dot - top_p3 * top_p1_dot + top_p0 * top_p2_dot + top_p1 * top_p3_dot),
        let w3 = 2.0 * (-top_p3 * top_p0_dot + top_p2 * top_p1_dot - top_p1 * top_p2_dot + top_p0 * top_p3_dot),
        holonomic: [
            top_norm = top_p0.powi(2) + top_p1.powi(2) + top_p2.powi(2) + top_p3.powi(2) - 1.0,
            tip_x = top_x - h * 2.0 * (top_p1 * top_p3 + top_p0 * top_p2),
            tip_y = top_y - h * 2.0 * (top_p2 * top_p3 - top_p0 * top_p1),
            tip_z = top_z - h * (top_p0.powi(2) - top_p1.powi(2) - top_p2.powi(2) + top_p3.powi(2)),
        ],
        kinetic: m / 2.0 * (top_x_dot.powi(2) + top_y_dot.powi(2) + top_z_dot.powi(2))
            + 0.5 * (jxx * w1.powi(2) + jyy * w2.powi(2) + jzz * w3.powi(2) + 2.0 * jxy * w1 * w2),
        potential: m * g * top_z,
    );
    let mut by_bodies = frontend::model(spatial, item.clone()).expect("spatial model");
    let mut by_hand = frontend::model(lagrangian, item).expect("Lagrangian model");
    assert_eq!(
        by_bodies.constraint_names(),
        ["top_norm", "tip_x", "tip_y", "tip_z"]
    );
    assert!(
        by_bodies.energy.is_some(),
        "gravity only: the model has T, V"
    );
    same_kernels(&mut by_bodies, &mut by_hand, 23, REORDERED);
}

/// Two bodies `a`, `b` with every joint kind; rows against their definitions.
#[test]
fn joint_rows_follow_their_definitions() {
    let mut model = frontend::model(
        quote!(
            bodies: [a = body(1.0, [1.0, 2.0, 3.0]), b = body(2.0, [1.0, 1.0, 1.0])],
            joints: [
                sph = spherical(a, [0.3, -0.2, 0.1], b, [-0.5, 0.1, 0.4]),
                rev = revolute(a, [0.3, -0.2, 0.1], [0.0, 0.0, 1.0], b, [-0.5, 0.1, 0.4], [0.0, 0.0, 1.0]),
                uni = universal(a, [0.3, -0.2, 0.1], [1.0, 0.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                cyl = cylindrical(a, [0.3, -0.2, 0.1], [1.0, 1.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                tra = translational(a, [0.3, -0.2, 0.1], [0.0, 1.0, 0.0], b, [-0.5, 0.1, 0.4], [0.0, 1.0, 0.0]),
                pla = planar(a, [0.3, -0.2, 0.1], [0.0, 0.0, 1.0], b, [-0.5, 0.1, 0.4], [1.0, 0.0, 0.0]),
                fix = fixed(a, [0.3, -0.2, 0.1], b, [-0.5, 0.1, 0.4]),
                dist = distance(a, [0.3, -0.2, 0.1], b, [-0.5, 0.1, 0.4], 0.7),
                ss = spherical_spherical(a, [0.3, -0.2, 0.1], ground, [1.0, 2.0, 3.0], 0.7),
                spin = rotation(rev, 2.0 * t),
                slide = translation(tra, 0.5 * t.sin()),
                lift = absolute(b, z, t),
            ],
        ),
        quote!(
            struct Two {}
        ),
    )
    .expect("model");
    #[rustfmt::skip]
    let names = [
        "a_norm", "b_norm",
        "sph_x", "sph_y", "sph_z",
        "rev_x", "rev_y", "rev_z", "rev_f", "rev_g",
        "uni_x", "uni_y", "uni_z", "uni_h",
        "cyl_f", "cyl_g", "cyl_df", "cyl_dg",
        "tra_f", "tra_g", "tra_df", "tra_dg", "tra_rot",
        "pla_f", "pla_g", "pla_n",
        "fix_x", "fix_y", "fix_z", "fix_a", "fix_b", "fix_c",
        "dist", "ss", "spin", "slide", "lift",
    ];
    assert_eq!(model.constraint_names(), names);
    let kernels = derive(&mut model);
    let mut rng = Rng::new(11);
    for _ in 0..3 {
        let state = unit_state(&mut rng, 2, 0);
        let got = model.pool.eval_many(&kernels.phi, &state.env(&model));
        let (q, t) = (&state.q, state.t);
        let (si, sj) = ([0.3, -0.2, 0.1], [-0.5, 0.1, 0.4]);
        let (pi, pj) = (world(q, 0, si), world(q, 1, sj));
        let (pa, pb) = (pose(q, 0).1, pose(q, 1).1);
        let dir_a = |s: V| rotate(pa, s);
        let dir_b = |s: V| rotate(pb, s);
        let d = [0, 1, 2].map(|c| pj[c] - pi[c]);
        let norm = |p: [f64; 4]| p.iter().map(|x| x * x).sum::<f64>() - 1.0;
        let s2 = std::f64::consts::FRAC_1_SQRT_2;
        let (x, y, z) = ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]);
        // The triads of the module doc: h = z → (x, y, z); h = y → (x, −z, y); h = x → (y, z, x);
        // h = (1, 1, 0)/√2 → f = z (the least aligned axis), g = h × z.
        let h_xy = [s2, s2, 0.0];
        let g_xy = cross(h_xy, z);
        let ground_point = [1.0, 2.0, 3.0];
        let dss = [0, 1, 2].map(|c| pi[c] - ground_point[c]);
        let (cos_rev, sin_rev) = (dot(dir_a(x), dir_b(x)), dot(dir_a(y), dir_b(x)));
        let want = [
            norm(pa),
            norm(pb),
            pi[0] - pj[0],
            pi[1] - pj[1],
            pi[2] - pj[2],
            pi[0] - pj[0],
            pi[1] - pj[1],
            pi[2] - pj[2],
            dot(dir_a(x), dir_b(z)),
            dot(dir_a(y), dir_b(z)),
            pi[0] - pj[0],
            pi[1] - pj[1],
            pi[2] - pj[2],
            dot(dir_a(x), dir_b(y)),
            dot(dir_a(z), dir_b(y)),
            dot(dir_a(g_xy), dir_b(y)),
            dot(dir_a(z), d),
            dot(dir_a(g_xy), d),
            dot(dir_a(x), dir_b(y)),
            dot(dir_a([0.0, 0.0, -1.0]), dir_b(y)),
            dot(dir_a(x), d),
            dot(dir_a([0.0, 0.0, -1.0]), d),
            dot(dir_a([0.0, 0.0, -1.0]), dir_b(x)),
            dot(dir_a(x), dir_b(x)),
            dot(dir_a(y), dir_b(x)),
            dot(dir_a(z), d),
            pi[0] - pj[0],
            pi[1] - pj[1],
            pi[2] - pj[2],
            dot(dir_a(x), dir_b(y)),
            dot(dir_a(y), dir_b(z)),
            dot(dir_a(z), dir_b(x)),
            dot(d, d) - 0.49,
            dot(dss, dss) - 0.49,
            sin_rev * (2.0 * t).cos() - cos_rev * (2.0 * t).sin(),
            dot(dir_a(y), d) - 0.5 * t.sin(),
            q[9] - t,
        ];
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            // O(1) terms summed in another order: a few ulps.
            assert_entry(names[i], i, *g, *w, 1e-13);
        }
    }
}

/// The generalized force of each load against its virtual work: for admissible δq (δp ⟂ p,
/// so p stays unit to first order), Q·δq = d/ds W(q + s δq) at s = 0, where W is the load's
/// work function built here from world points (force: F·P, torque: n·(rotation vector), TSDA
/// and RSDA with c = 0 at v = 0: −their potential). A torque's work has no potential: it is
/// checked as n·ω δs with ω from the rotation matrices' difference.
#[test]
fn loads_do_their_virtual_work() {
    let item = quote!(
        struct L {}
    );
    let bodies = quote!(bodies: [a = body(1.0, [1.0, 2.0, 3.0]), b = body(2.0, [1.5, 1.0, 0.5])],);
    let hinge = quote!(
        hinge = revolute(
            a,
            [0.2, 0.1, 0.0],
            [0.0, 1.0, 0.0],
            b,
            [0.0, 0.0, 0.3],
            [0.0, 1.0, 0.0]
        )
    );
    type Work = Box<dyn Fn(&[f64]) -> f64>;
    let s = [0.3, -0.4, 0.2];
    let f = [0.7, -1.1, 0.4];
    let cases: Vec<(TokenStream, Work)> = vec![
        (
            quote!(loads: [force(a, [0.3, -0.4, 0.2], [0.7, -1.1, 0.4])]),
            Box::new(move |q: &[f64]| dot(f, world(q, 0, s))),
        ),
        (
            quote!(loads: [force_local(b, [0.3, -0.4, 0.2], [0.7, -1.1, 0.4])]),
            // F = A F' held at its current value while the point moves: W' = F·δP.
            Box::new(move |q: &[f64]| 0.0 * q[0]),
        ),
        (
            quote!(loads: [spring = tsda(a, [0.3, -0.4, 0.2], b, [0.1, 0.0, -0.2], 3.0, 0.0, 0.5, 0.25)]),
            Box::new(move |q: &[f64]| {
                let (pi, pj) = (world(q, 0, s), world(q, 1, [0.1, 0.0, -0.2]));
                let l = dot(
                    [0, 1, 2].map(|c| pi[c] - pj[c]),
                    [0, 1, 2].map(|c| pi[c] - pj[c]),
                )
                .sqrt();
                -(1.5 * (l - 0.5).powi(2) + 0.25 * l)
            }),
        ),
        (
            quote!(joints: [#hinge], loads: [rsda(hinge, 3.0, 0.0, 0.2, 0.5)]),
            Box::new(move |q: &[f64]| {
                let (pa, pb) = (pose(q, 0).1, pose(q, 1).1);
                let fa = rotate(pa, [1.0, 0.0, 0.0]);
                let ga = rotate(pa, [0.0, 0.0, -1.0]);
                let fb = rotate(pb, [1.0, 0.0, 0.0]);
                let theta = dot(ga, fb).atan2(dot(fa, fb));
                -(1.5 * (theta - 0.2).powi(2) + 0.5 * theta)
            }),
        ),
        (
            quote!(loads: [gravity([0.1, -0.2, -9.0])]),
            Box::new(move |q: &[f64]| {
                let g = [0.1, -0.2, -9.0];
                dot(g, pose(q, 0).0) + 2.0 * dot(g, pose(q, 1).0)
            }),
        ),
    ];
    let mut rng = Rng::new(5);
    for (k, (loads, work)) in cases.into_iter().enumerate() {
        let attr = quote!(#bodies #loads);
        let mut model = frontend::model(attr.clone(), item.clone()).expect("model");
        let kernels = derive(&mut model);
        for _ in 0..3 {
            let mut state = unit_state(&mut rng, 2, 0);
            state.v = vec![0.0; 14]; // the quadratic-velocity forces vanish
            let force = model.pool.eval_many(&kernels.force, &state.env(&model));
            let mut dq = rng.vec(14, -1.0, 1.0);
            for body in 0..2 {
                let (_, p) = pose(&state.q, body);
                let along: f64 = (0..4).map(|c| p[c] * dq[7 * body + 3 + c]).sum();
                (0..4).for_each(|c| dq[7 * body + 3 + c] -= along * p[c]);
            }
            let power: f64 = force.iter().zip(&dq).map(|(a, b)| a * b).sum();
            let expected = if k == 1 {
                // F = A_b F' at the point s of b: W = F·δP with F frozen.
                let (_, pb) = pose(&state.q, 1);
                let world_f = rotate(pb, f);
                let at = |x: f64| {
                    let q: Vec<f64> = state.q.iter().zip(&dq).map(|(a, b)| a + x * b).collect();
                    dot(world_f, world(&q, 1, s))
                };
                central_diff(at, 0.0, 1.0, 1e-15).value
            } else {
                let at = |x: f64| {
                    let q: Vec<f64> = state.q.iter().zip(&dq).map(|(a, b)| a + x * b).collect();
                    work(&q)
                };
                central_diff(at, 0.0, 1.0, 1e-15).value
            };
            // Central differences at h = ε^(1/3): truncation ~ h²·|W'''| ≈ 5e-11·O(10); the
            // loads are O(1–10), so 1e-7 relative separates that from any wrong term.
            assert_entry(&format!("load case {k}"), 0, power, expected, 1e-7);
        }
    }
}

/// Mistakes in spatial entries are located errors with a diagnosis.
#[test]
fn spatial_errors() {
    let item = quote!(
        struct P {
            m: f64,
            h: f64,
        }
    );
    let one = quote!(bodies: [a = body(m, [m, m, m])],);
    let cases: Vec<(TokenStream, &str)> = vec![
        (
            quote!(#one joints: [spherical(a, [0.0, 0.0, 0.0], bb, [0.0, 0.0, 0.0])]),
            "unknown body `bb`",
        ),
        (
            quote!(#one joints: [spherical(a, [0.0, 0.0, 0.0], ground)]),
            "`spherical` takes 4 arguments",
        ),
        (
            quote!(#one joints: [spherical(a, [0.0, 0.0], ground, [0.0, 0.0, 0.0])]),
            "three entries `[x, y, z]`, found 2 (the bodies are spatial",
        ),
        (
            quote!(#one joints: [sphericl(a, [0.0, 0.0, 0.0], ground, [0.0, 0.0, 0.0])]),
            "unknown joint `sphericl`; did you mean `spherical`?",
        ),
        (
            quote!(#one joints: [revolute(a, [0.0, 0.0, 0.0], [0.0, 0.0, h], ground, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0])]),
            "a joint axis must be known when the code is generated",
        ),
        (
            quote!(#one joints: [revolute(a, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], ground, [0.0, 0.0, 0.0], [0.0, 0.0, 1.0])]),
            "a joint axis cannot be zero",
        ),
        (
            quote!(#one joints: [s = spherical(a, [0.0, 0.0, 0.0], ground, [0.0, 0.0, 0.0]), rotation(s, t)]),
            "a rotation driver acts on a revolute or cylindrical joint; `s` is spherical",
        ),
        (
            quote!(#one joints: [rotation(hing, t)]),
            "unknown joint `hing`",
        ),
        (
            quote!(#one loads: [torque(a, [1.0, 0.0])]),
            "three entries `[x, y, z]`, found 2",
        ),
        (
            quote!(#one loads: [gravty([0.0, 0.0, -1.0])]),
            "did you mean `gravity`?",
        ),
        (
            quote!(bodies: [a = body(m, [m, m, m]), b = body(m, m)]),
            "`b` is a planar body",
        ),
        (
            quote!(coordinates: [x], bodies: [a = body(m, [m, m, m])]),
            "with spatial `bodies`, the coordinates are the bodies'",
        ),
        (
            quote!(bodies: [a = body(m, [[m, h, 0.0], [0.0, m, 0.0], [0.0, 0.0, m]])]),
            "the inertia tensor is not symmetric",
        ),
        (
            quote!(bodies: [a = body(m, [m, m])]),
            "a spatial inertia is `[jx, jy, jz]`",
        ),
        (
            quote!(#one joints: [pin = spherical(a, [0.0, 0.0, a_x_dot], ground, [0.0, 0.0, 0.0])]),
            "the velocity `a_x_dot` appears in a holonomic constraint",
        ),
    ];
    for (attr, want) in cases {
        let msg = frontend::model(attr.clone(), item.clone())
            .map(|_| String::from("accepted"))
            .unwrap_or_else(|e| e.to_string());
        assert!(msg.contains(want), "{attr}: got `{msg}`, want `{want}`");
    }
}

/// The coordinates and their order.
#[test]
fn coordinates_are_position_then_euler_parameters() {
    let model: Model = frontend::model(
        quote!(bodies: [for i in 0..2 { link = body(1.0, [1.0, 1.0, 1.0]) }]),
        quote!(
            struct C {}
        ),
    )
    .expect("model");
    let names: Vec<&str> = model.coordinates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "link_x[0]",
            "link_y[0]",
            "link_z[0]",
            "link_p0[0]",
            "link_p1[0]",
            "link_p2[0]",
            "link_p3[0]",
            "link_x[1]",
            "link_y[1]",
            "link_z[1]",
            "link_p0[1]",
            "link_p1[1]",
            "link_p2[1]",
            "link_p3[1]"
        ]
    );
    assert_eq!(model.constraint_names(), ["link_norm[0]", "link_norm[1]"]);
}

/// The oracle's model `pair` (see `tests/oracle/spatial.py`).
fn pair() -> Model {
    frontend::model(
        quote!(
            bodies: [a = body(m1, [jx, jy, jz]), b = body(m2, [[jx, jxy, 0.0], [jxy, jy, 0.0], [0.0, 0.0, jz]])],
            joints: [
                rev = revolute(a, [0.3, -0.2, 0.1], [0.0, 0.0, 1.0], b, [-0.5, 0.1, 0.4], [0.0, 0.0, 1.0]),
                link = spherical_spherical(a, [0.3, -0.2, 0.1], ground, [1.0, 2.0, 3.0], 0.7),
                spin = rotation(rev, 2.0 * t),
            ],
            loads: [
                gravity([0.0, 0.0, -g]),
                spring = tsda(a, [0.0, 0.5, 0.0], b, [0.2, 0.0, -0.3], k, c, l0, 0.0),
                force(a, [0.1, 0.2, 0.3], [1.0, -2.0, 0.5]),
                torque_local(b, [0.2, -0.1, 0.4]),
            ],
        ),
        quote!(
            struct Pair {
                m1: f64,
                m2: f64,
                jx: f64,
                jy: f64,
                jz: f64,
                jxy: f64,
                k: f64,
                c: f64,
                l0: f64,
                g: f64,
            }
        ),
    )
    .expect("the oracle's pair builds")
}

fn flatten(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) if items.iter().all(Value::is_array) => {
            items.iter().flat_map(flatten).collect()
        }
        Value::Array(items) => items
            .iter()
            .map(|x| x.as_f64().expect("a number"))
            .collect(),
        other => panic!("oracle output is not an array: {other}"),
    }
}

/// Φ, Φ_q, γ, M and Q against SymPy at four seeded states (unit and non-unit p alike: the
/// definitions hold off the normalization manifold too). Tolerance per entry:
/// 1e-12 · max(|ref|, S · rate^k), S the largest intermediate magnitude of the kernel's own
/// graph at the state (the size of the terms whose rounding our f64 evaluation carries;
/// cancelling entries are judged against it), rate = 1 + Σ|v| + 2 (the driver's 2 rad/s)
/// and k the time derivatives the kernel carries beyond its graph (none: S is measured on
/// each kernel's graph). The oracle itself errs by half an ulp.
#[test]
fn kernels_agree_with_the_sympy_oracle() {
    let mut model = pair();
    let kernels = derive(&mut model);
    let mut rng = Rng::new(0x7370_6174);
    let params = [1.3, 0.7, 0.4, 0.9, 1.2, 0.15, 3.0, 0.2, 0.6, 9.81];
    let states: Vec<State> = (0..4)
        .map(|_| State {
            t: rng.unit(),
            q: rng.vec(14, -1.0, 1.0),
            v: rng.vec(14, -1.0, 1.0),
            p: params.to_vec(),
        })
        .collect();
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let input = json!({
        "model": "pair",
        "params": names.iter().zip(params).map(|(n, x)| (n.clone(), json!(x))).collect::<serde_json::Map<_, _>>(),
        "points": states.iter().map(|s| json!({"t": s.t, "q": s.q, "v": s.v})).collect::<Vec<_>>(),
    });
    let output = run_python_oracle("spatial.py", &input, "spatial-pair");
    let refs = output["points"].as_array().expect("points");
    assert_eq!(refs.len(), states.len());
    let mut worst: f64 = 0.0;
    for (point, (s, r)) in states.iter().zip(refs).enumerate() {
        let env = s.env(&model);
        let rate = 1.0 + s.v.iter().map(|v| v.abs()).sum::<f64>() + 2.0;
        for (name, entries, time_derivatives) in [
            ("phi", &kernels.phi, 0),
            ("phi_q", &kernels.phi_q.entries, 0),
            ("gamma", &kernels.gamma, 0),
            ("mass", &kernels.mass.entries, 0),
            ("force", &kernels.force, 0),
        ] {
            let got = model.pool.eval_many(entries, &env);
            let want = flatten(&r[name]);
            assert_eq!(got.len(), want.len(), "{name}: shape");
            let size = magnitude(&model.pool, entries, &env) * rate.powi(time_derivatives);
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let tol = 1e-12 * w.abs().max(size);
                worst = worst.max((g - w).abs() / w.abs().max(size));
                assert_entry(&format!("point {point} {name}"), i, g, w, tol);
            }
        }
    }
    eprintln!("spatial kernels vs SymPy: worst |Δ| / max(|ref|, S) = {worst:.2e}");
}

/// A torque's generalized force against its virtual work n · δπ, δπ = vee(δA Aᵀ) with δA the
/// central difference of the rotation along admissible δq: world `torque(b, n)` and body-frame
/// `torque_local(b, n')` (n = A n').
#[test]
fn torques_do_their_virtual_work() {
    let item = quote!(
        struct L {}
    );
    let n = [0.4, -1.3, 0.8];
    let mut rng = Rng::new(9);
    for local in [false, true] {
        let attr = if local {
            quote!(bodies: [a = body(1.0, [1.0, 2.0, 3.0])], loads: [torque_local(a, [0.4, -1.3, 0.8])])
        } else {
            quote!(bodies: [a = body(1.0, [1.0, 2.0, 3.0])], loads: [torque(a, [0.4, -1.3, 0.8])])
        };
        let mut model = frontend::model(attr, item.clone()).expect("model");
        let kernels = derive(&mut model);
        for _ in 0..3 {
            let mut state = unit_state(&mut rng, 1, 0);
            state.v = vec![0.0; 7];
            let force = model.pool.eval_many(&kernels.force, &state.env(&model));
            let mut dq = rng.vec(7, -1.0, 1.0);
            let p = pose(&state.q, 0).1;
            let along: f64 = (0..4).map(|c| p[c] * dq[3 + c]).sum();
            (0..4).for_each(|c| dq[3 + c] -= along * p[c]);
            let power: f64 = force.iter().zip(&dq).map(|(a, b)| a * b).sum();
            // Column c of A(s) is A(s) e_c; δA Aᵀ = Σ_c δ(A e_c) (A e_c)ᵀ.
            let column = |s: f64, c: usize| {
                let q: Vec<f64> = state.q.iter().zip(&dq).map(|(a, b)| a + s * b).collect();
                let mut e = [0.0; 3];
                e[c] = 1.0;
                rotate(pose(&q, 0).1, e)
            };
            let mut w = [[0.0; 3]; 3];
            for c in 0..3 {
                let now = column(0.0, c);
                for r in 0..3 {
                    let rate = central_diff(|s| column(s, c)[r], 0.0, 1.0, 1e-15).value;
                    for k in 0..3 {
                        w[r][k] += rate * now[k];
                    }
                }
            }
            let dpi = [w[2][1], w[0][2], w[1][0]];
            let torque = if local { rotate(p, n) } else { n };
            // Central differences at h = ε^(1/3) of O(1) rotations: ~1e-10; 1e-7 as above.
            assert_entry(
                if local { "torque_local" } else { "torque" },
                0,
                power,
                dot(torque, dpi),
                1e-7,
            );
        }
    }
}
