//! Spatial bodies placed by expressions of the coordinates (`body(m, J′, position, rotation)`,
//! `frontend/placed_spatial.rs`, `spatial_tree.rs`): a gimbal-mounted body (rotation
//! Rz(a) Ry(b), centre of mass h along its z axis) must give every kernel of the same body
//! written as a Lagrangian by hand (T from the body-frame angular velocity
//! ω′ = (−sin b ȧ, ḃ, cos b ȧ) and |ṙ|² = h² (ḃ² + sin² b ȧ²)), with gravity and with each
//! load kind (their generalized forces written by hand); its rotation written as a matrix, as
//! `rot(axis, angle)` factors or with `orientation`/`point` must give the same kernels; a
//! general axis's Rodrigues factor must agree with the same matrix given entry by entry (the
//! rate from vee(Ḟ Fᵀ)). The serial arm against recursive Newton–Euler is in
//! `models/tests/suite/serial_arm.rs`. Then the mistakes, each on its tokens.

mod common;

use common::{Rng, State, assert_entry, magnitude, run_python_oracle, same_kernels};
use mbsim_codegen::frontend;
use quote::quote;
use serde_json::{Value, json};

/// Structured against hand-written: the same sums of O(1) terms in another order (a few
/// products of six trigonometric factors), a few ulps of O(10): 1e-12 · (1 + |w|).
const REARRANGED: f64 = 1e-12;

fn item() -> proc_macro2::TokenStream {
    quote!(
        pub struct Gimbal {
            pub m: f64,
            pub j1: f64,
            pub j2: f64,
            pub j3: f64,
            pub h: f64,
            pub g: f64,
            pub tau: f64,
        }
    )
}

fn lagrangian(force: proc_macro2::TokenStream) -> proc_macro2::TokenStream {
    quote!(
        coordinates: [a, b],
        kinetic: m / 2.0 * h.powi(2) * (b_dot.powi(2) + (b.sin() * a_dot).powi(2))
            + (j1 * (b.sin() * a_dot).powi(2) + j2 * b_dot.powi(2) + j3 * (b.cos() * a_dot).powi(2)) / 2.0,
        potential: m * g * h * b.cos(),
        force: #force,
    )
}

#[test]
fn gimbal_matches_its_lagrangian() {
    let placed = quote!(
        coordinates: [a, b],
        bodies: [top = body(m, [j1, j2, j3], rot_z(a) * rot_y(b) * [0.0, 0.0, h], rot_z(a) * rot_y(b))],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let mut bodies = frontend::model(placed, item()).expect("placed spatial body");
    let mut hand = frontend::model(lagrangian(quote!([0.0, 0.0])), item()).expect("T − V");
    assert!(bodies.energy.is_some(), "gravity alone: energies emitted");
    same_kernels(&mut bodies, &mut hand, 21, REARRANGED);
}

#[test]
fn rotation_spellings_give_the_same_kernels() {
    let factors = quote!(
        coordinates: [a, b],
        bodies: [top = body(m, [j1, j2, j3], rot_z(a) * rot_y(b) * [0.0, 0.0, h], rot_z(a) * rot_y(b))],
        loads: [gravity([0.0, 0.0, -g])],
    );
    // The same rotation as a matrix expression (rates from vee(Ḟ Fᵀ)), as `rot(axis, angle)`
    // about scaled coordinate axes, and through `orientation` and `point` of a massless frame.
    let matrix = quote!(
        coordinates: [a, b],
        let ca = a.cos(), let sa = a.sin(), let cb = b.cos(), let sb = b.sin(),
        bodies: [top = body(m, [j1, j2, j3],
            [[ca * cb, -sa, ca * sb], [sa * cb, ca, sa * sb], [-sb, 0.0, cb]] * [0.0, 0.0, h],
            [[ca * cb, -sa, ca * sb], [sa * cb, ca, sa * sb], [-sb, 0.0, cb]])],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let axes = quote!(
        coordinates: [a, b],
        bodies: [
            yoke = body(0.0, [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], rot([0.0, 0.0, 2.0], a)),
            top = body(m, [j1, j2, j3],
                point(yoke, [0.0, 0.0, 0.0]) + orientation(yoke) * rot([0.0, 3.0, 0.0], b) * [0.0, 0.0, h] / 1.0,
                orientation(yoke) * rot([0.0, 3.0, 0.0], b)),
        ],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let mut reference = frontend::model(factors, item()).expect("factors");
    for (k, other) in [matrix, axes].into_iter().enumerate() {
        let mut model = frontend::model(other, item()).expect("another spelling");
        same_kernels(&mut model, &mut reference, 30 + k as u64, REARRANGED);
    }
}

#[test]
fn general_axis_matches_its_matrix() {
    // Rodrigues' matrix about u = (1, 2, 2)/3 entry by entry: c 1 + s ũ + (1 − c) u uᵀ.
    let by_axis = quote!(
        coordinates: [a, b],
        bodies: [top = body(m, [j1, j2, j3], rot_x(b) * rot([1.0, 2.0, 2.0], a) * [0.0, h, h],
            rot_x(b) * rot([1.0, 2.0, 2.0], a))],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let by_matrix = quote!(
        coordinates: [a, b],
        let c = a.cos(), let s = a.sin(), let k = 1.0 - a.cos(),
        let u0 = 1.0 / 3.0, let u1 = 2.0 / 3.0, let u2 = 2.0 / 3.0,
        bodies: [top = body(m, [j1, j2, j3],
            rot_x(b) * [[c + k * u0 * u0, k * u0 * u1 - s * u2, k * u0 * u2 + s * u1],
                [k * u1 * u0 + s * u2, c + k * u1 * u1, k * u1 * u2 - s * u0],
                [k * u2 * u0 - s * u1, k * u2 * u1 + s * u0, c + k * u2 * u2]] * [0.0, h, h],
            rot_x(b) * [[c + k * u0 * u0, k * u0 * u1 - s * u2, k * u0 * u2 + s * u1],
                [k * u1 * u0 + s * u2, c + k * u1 * u1, k * u1 * u2 - s * u0],
                [k * u2 * u0 - s * u1, k * u2 * u1 + s * u0, c + k * u2 * u2]])],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let mut axis = frontend::model(by_axis, item()).expect("axis");
    let mut matrix = frontend::model(by_matrix, item()).expect("matrix");
    same_kernels(&mut matrix, &mut axis, 40, REARRANGED);
}

#[test]
fn loads_match_their_generalized_forces() {
    // A world force (tau, 0, 0) at the centre of mass: Q = (∂r/∂q)ᵀ f with
    // r = h (sin b cos a, sin b sin a, cos b); a world torque (0, 0, tau): Q_a += tau; a body
    // torque (tau, 0, 0), in the world R e_x tau = (…, …, −sin b tau): Q_a += −sin b tau,
    // Q_b += (Ry e_x)·e_y tau = 0; a body force (0, tau, 0) at the body point (0, 0, 1): the
    // world force R e_y tau = Rz e_y tau = (−sin a, cos a, 0) tau at (h + 1) R e_z, whose
    // virtual work gives Q_a += (h + 1) sin b tau, Q_b += 0.
    let placed = quote!(
        coordinates: [a, b],
        bodies: [top = body(m, [j1, j2, j3], rot_z(a) * rot_y(b) * [0.0, 0.0, h], rot_z(a) * rot_y(b))],
        loads: [
            gravity([0.0, 0.0, -g]),
            force(top, [0.0, 0.0, 0.0], [tau, 0.0, 0.0]),
            torque(top, [0.0, 0.0, tau]),
            torque_local(top, [tau, 0.0, 0.0]),
            force_local(top, [0.0, 0.0, 1.0], [0.0, tau, 0.0]),
        ],
    );
    let generalized = quote!([
        -tau * h * b.sin() * a.sin() + tau - b.sin() * tau + (h + 1.0) * b.sin() * tau,
        tau * h * b.cos() * a.cos(),
    ]);
    let mut bodies = frontend::model(placed, item()).expect("placed with loads");
    assert!(bodies.energy.is_none(), "not conservative: no energies");
    let mut hand = frontend::model(lagrangian(generalized), item()).expect("hand");
    hand.energy = None;
    same_kernels(&mut bodies, &mut hand, 22, REARRANGED);
}

#[test]
fn tsda_matches_its_potential() {
    // A spring of stiffness tau and free length g between the body point (0, 0, h) (2h from the
    // gimbal centre) and the world point (0, 0, 3h): the distance is |2h R e_z − 3h e_z|,
    // l² = 13 h² − 12 h² cos b; V = tau (l − g)² / 2 (no damping, no preload).
    let placed = quote!(
        coordinates: [a, b],
        bodies: [top = body(m, [j1, j2, j3], rot_z(a) * rot_y(b) * [0.0, 0.0, h], rot_z(a) * rot_y(b))],
        loads: [spring = tsda(top, [0.0, 0.0, h], ground, [0.0, 0.0, 3.0 * h], tau, 0.0, g, 0.0)],
    );
    let hand = quote!(
        coordinates: [a, b],
        kinetic: m / 2.0 * h.powi(2) * (b_dot.powi(2) + (b.sin() * a_dot).powi(2))
            + (j1 * (b.sin() * a_dot).powi(2) + j2 * b_dot.powi(2) + j3 * (b.cos() * a_dot).powi(2)) / 2.0,
        potential: tau / 2.0 * ((13.0 * h.powi(2) - 12.0 * h.powi(2) * b.cos()).sqrt() - g).powi(2),
        force: [0.0, 0.0],
    );
    let mut bodies = frontend::model(placed, item()).expect("placed with a TSDA");
    let mut hand = frontend::model(hand, item()).expect("hand");
    hand.energy = None;
    same_kernels(&mut bodies, &mut hand, 23, REARRANGED);
}

#[test]
fn a_family_of_links_matches_the_links_written_out() {
    // `if` on the loop index picks the first link's placement; later links hang from the
    // previous one by `point` and `orientation`.
    let family = quote!(
        const N = 3,
        coordinates: [q[0..N]],
        bodies: [for i in 0..N {
            link = body(m, [j1, j2, j3],
                if i == 0 { [0.0, 0.0, 0.0] } else { point(link[i - 1], [h, 0.0, 0.0]) }
                    + (if i == 0 { rot_z(q[0]) } else { orientation(link[i - 1]) * rot_y(q[i]) }) * [h, 0.0, 0.0],
                if i == 0 { rot_z(q[0]) } else { orientation(link[i - 1]) * rot_y(q[i]) })
        }],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let written = quote!(
        coordinates: [q[0..3]],
        bodies: [
            a = body(m, [j1, j2, j3], rot_z(q[0]) * [h, 0.0, 0.0], rot_z(q[0])),
            b = body(m, [j1, j2, j3], point(a, [h, 0.0, 0.0]) + orientation(a) * rot_y(q[1]) * [h, 0.0, 0.0],
                orientation(a) * rot_y(q[1])),
            c = body(m, [j1, j2, j3], point(b, [h, 0.0, 0.0]) + orientation(b) * rot_y(q[2]) * [h, 0.0, 0.0],
                orientation(b) * rot_y(q[2])),
        ],
        loads: [gravity([0.0, 0.0, -g])],
    );
    let mut family = frontend::model(family, item()).expect("a family");
    let mut written = frontend::model(written, item()).expect("written out");
    same_kernels(&mut family, &mut written, 50, REARRANGED);
}

/// The composite-rigid-body form rests on shared columns: in a serial chain of n bodies in
/// relative coordinates (alternating joint axes, links along x, a sideways centre of mass)
/// every body beyond joint j has the same column for q_j, so there are n distinct columns, not
/// n (n + 1) / 2, and M_ij is one composite sum per (i, j).
#[test]
fn a_chain_shares_one_column_per_joint() {
    use mbsim_codegen::pool::{Pool, SymbolKind};
    use mbsim_codegen::spatial_tree::{
        Orientation, Segment, SpatialBodies, SpatialBody, derive, identity,
    };
    let mut pool = Pool::new();
    let time = pool.symbol("t", SymbolKind::Time);
    let n = 6;
    let q: Vec<_> = (0..n)
        .map(|i| pool.symbol(&format!("q{i}"), SymbolKind::Coordinate(i)))
        .collect();
    let v: Vec<_> = (0..n)
        .map(|i| pool.symbol(&format!("q{i}_dot"), SymbolKind::Velocity(i)))
        .collect();
    let (zero, half, one) = (pool.zero(), pool.rational(1, 2), pool.one());
    let mut orientation = Orientation::identity(&mut pool);
    let mut joint: Vec<Segment> = Vec::new();
    let mut bodies = Vec::new();
    for (k, &qk) in q.iter().enumerate() {
        let factor = Orientation::elementary(&mut pool, [2, 1, 0][k % 3], qk);
        orientation = orientation.then(&mut pool, &factor);
        let mut position = joint.clone();
        position.push(Segment {
            rotation: orientation.clone(),
            local: [half, half, zero],
        });
        joint.push(Segment {
            rotation: orientation.clone(),
            local: [one, zero, zero],
        });
        bodies.push(SpatialBody {
            name: format!("link{k}"),
            mass: one,
            inertia: identity(&mut pool),
            orientation: orientation.clone(),
            position,
            force: [zero; 3],
            torque: [zero; 3],
        });
    }
    let extra = vec![zero; n];
    let system = SpatialBodies {
        time,
        q: &q,
        v: &v,
        bodies: &bodies,
        extra: &extra,
    };
    let structured = derive(&mut pool, &system).expect("a chain");
    assert_eq!(structured.columns, n, "one shared column per joint");
}

/// The oracle's model `chain` (see `tests/oracle/tree.py`): a driven base (rheonomic), an arm
/// turning about a general axis, a slider on it (prismatic `s`) rolling about its x axis, with
/// every load kind.
fn chain() -> mbsim_codegen::Model {
    frontend::model(
        quote!(
            coordinates: [a, b, c, s],
            bodies: [
                base = body(m1, [j1x, j1y, j1z], [0.0, 0.0, h], rot_z(a + spin * t)),
                arm = body(m2, [[j2x, p2, 0.0], [p2, j2y, 0.0], [0.0, 0.0, j2z]],
                    point(base, [0.0, ey, h]) + orientation(base) * rot([1.0, 2.0, 2.0], b) * [l / 2.0, 0.0, 0.0],
                    orientation(base) * rot([1.0, 2.0, 2.0], b)),
                slider = body(m3, [j3x, j3y, j3z],
                    point(arm, [l / 2.0, 0.0, 0.0]) + orientation(arm) * [s, 0.0, 0.0]
                        + orientation(arm) * rot_x(c) * [0.0, d, 0.0],
                    orientation(arm) * rot_x(c)),
            ],
            loads: [
                gravity([0.0, 0.0, -g]),
                force(slider, [0.0, 0.0, 0.1], [f, -f, 2.0 * f]),
                torque_local(arm, [0.3, -0.2, 0.5]),
                spring = tsda(slider, [0.1, 0.0, 0.0], ground, [0.5, 0.5, 2.0], k, cd, l0, 0.0),
            ],
        ),
        quote!(
            struct Chain {
                m1: f64, m2: f64, m3: f64,
                j1x: f64, j1y: f64, j1z: f64,
                j2x: f64, j2y: f64, j2z: f64, p2: f64,
                j3x: f64, j3y: f64, j3z: f64,
                h: f64, ey: f64, l: f64, d: f64, spin: f64, g: f64, f: f64, k: f64, cd: f64, l0: f64,
            }
        ),
    )
    .expect("the oracle's chain builds")
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

/// M and Q against SymPy's Lagrange equations (ω from Rᵀ Ṙ, loads by virtual work) at four
/// seeded states. Tolerance per entry: 1e-12 · max(|ref|, S), S the largest intermediate
/// magnitude of the kernel's own graph at the state (the size of the terms whose rounding our
/// f64 evaluation carries); the oracle errs by half an ulp, and the general axis (1, 2, 2)/3
/// enters our model rounded to f64 (a relative 1e-16).
#[test]
fn chain_agrees_with_the_sympy_oracle() {
    let mut model = chain();
    let kernels = mbsim_codegen::kernels::derive(&mut model);
    let mut rng = Rng::new(0x7472_6565);
    let params = [
        2.0, 1.5, 0.8, 0.05, 0.06, 0.04, 0.02, 0.09, 0.1, 0.015, 0.01, 0.02, 0.03, 0.4, 0.1, 0.7,
        0.05, 0.8, 9.81, 1.2, 30.0, 0.5, 1.1,
    ];
    let states: Vec<State> = (0..4)
        .map(|_| State {
            t: rng.unit(),
            q: rng.vec(4, -1.5, 1.5),
            v: rng.vec(4, -2.0, 2.0),
            p: params.to_vec(),
        })
        .collect();
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    assert_eq!(names.len(), params.len());
    let input = json!({
        "model": "chain",
        "params": names.iter().zip(params).map(|(n, x)| (n.clone(), json!(x))).collect::<serde_json::Map<_, _>>(),
        "points": states.iter().map(|s| json!({"t": s.t, "q": s.q, "v": s.v})).collect::<Vec<_>>(),
    });
    let output = run_python_oracle("tree.py", &input, "tree-chain");
    let refs = output["points"].as_array().expect("points");
    assert_eq!(refs.len(), states.len());
    let mut worst: f64 = 0.0;
    for (point, (s, r)) in states.iter().zip(refs).enumerate() {
        let env = s.env(&model);
        for (name, entries) in [("mass", &kernels.mass.entries), ("force", &kernels.force)] {
            let got = model.pool.eval_many(entries, &env);
            let want = flatten(&r[name]);
            assert_eq!(got.len(), want.len(), "{name}: shape");
            let size = magnitude(&model.pool, entries, &env);
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                worst = worst.max((g - w).abs() / w.abs().max(size));
                assert_entry(
                    &format!("point {point} {name}"),
                    i,
                    g,
                    w,
                    1e-12 * w.abs().max(size),
                );
            }
        }
    }
    eprintln!("placed spatial chain vs SymPy: worst |Δ| / max(|ref|, S) = {worst:.2e}");
}

/// The message and the source text its span covers (the attribute parsed from text, so the
/// spans have locations; `quote!` would give them all the call site).
fn error_of(attr: &str) -> (String, String) {
    let attr: proc_macro2::TokenStream = attr.parse().expect("attribute tokens");
    let e = frontend::model(attr, item()).expect_err("a mistake");
    let text = e.span().source_text().unwrap_or_default();
    (e.to_string(), text)
}

macro_rules! mistakes {
    ($($name:ident: $attr:literal => $message:literal on $tokens:literal;)*) => {$(
        #[test]
        fn $name() {
            let (msg, text) = error_of($attr);
            assert!(msg.contains($message), "message: {msg}");
            assert_eq!(text, $tokens, "span of: {msg}");
        }
    )*};
}

mistakes! {
    a_position_of_two_entries:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, h], rot_z(a))]"
        => "three entries `[x, y, z]`, found 2" on "[0.0, h]";
    a_vector_as_the_rotation:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], [0.0, 0.0, a])]"
        => "must be a rotation" on "[0.0, 0.0, a]";
    a_rotation_as_the_position:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], rot_z(a), rot_z(a))]"
        => "must be a vector" on "rot_z(a)";
    rotations_do_not_add:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a) + rot_x(a))]"
        => "does not combine a rotation and a rotation" on "rot_z(a) + rot_x(a)";
    an_unknown_body_in_point:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], point(arm, [0.0, 0.0, h]), rot_z(a))]"
        => "unknown body `arm`" on "arm";
    a_later_body_in_orientation:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], orientation(tip)), tip = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a))]"
        => "the bodies listed before it" on "tip";
    a_parametric_axis:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot([0.0, a, 1.0], a))]"
        => "an axis is three numbers known at generation time" on "a";
    a_wrong_arity_of_a_rotation:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a, a))]"
        => "`rot_z` takes 1 arguments" on "rot_z(a, a)";
    a_matrix_of_two_rows:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], [[1.0, 0.0], [0.0, 1.0]])]"
        => "a rotation matrix is 3 × 3" on "[[1.0, 0.0], [0.0, 1.0]]";
    a_constant_matrix_that_is_no_rotation:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a) * [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]])]"
        => "this matrix is not a rotation" on "[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]";
    a_velocity_in_the_placement:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h * a_dot], rot_z(a))]"
        => "placement of body `top` depends on the velocity `a_dot`" on "body(m, [j1, j2, j3], [0.0, 0.0, h * a_dot], rot_z(a))";
    a_body_without_placement:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a)), bob = body(m, [j1, j2, j3])]"
        => "body `bob` has no placement" on "body(m, [j1, j2, j3])";
    placed_bodies_without_coordinates:
        "bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a))]"
        => "declare them, `coordinates" on "bodies";
    joints_between_placed_bodies:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a))], joints: [pin = spherical(top, [0.0, 0.0, 0.0], ground, [0.0, 0.0, 0.0])]"
        => "joints between bodies placed by expressions are not offered" on "joints";
    an_unknown_load:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a))], loads: [rsda(top, 1.0, 0.0, 0.0, 0.0)]"
        => "unknown load `rsda`" on "rsda(top, 1.0, 0.0, 0.0, 0.0)";
    a_load_point_of_two_entries:
        "coordinates: [a], bodies: [top = body(m, [j1, j2, j3], [0.0, 0.0, h], rot_z(a))], loads: [force(top, [0.0, 1.0], [1.0, 0.0, 0.0])]"
        => "three entries `[x, y, z]`, found 2" on "[0.0, 1.0]";
}
