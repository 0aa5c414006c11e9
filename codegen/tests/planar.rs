//! Planar bodies, joints and loads (`frontend/planar.rs`): Haug's pendulum, the ME451 pendulum
//! with its RSDA and the slider-crank with a TSDA re-expressed as bodies + joints + loads must
//! give the kernels of the hand-written models of `models/src/` (their annotated sources are
//! read here), at random states and parameters, for every kernel of the table (core, tangent).
//! Then every joint kind's row against its definition evaluated by hand, and the row names.

mod common;

use common::{Rng, State, assert_entry, same_kernels};
use mbsim_codegen::Model;
use mbsim_codegen::frontend::{self, file};
use mbsim_codegen::kernels::derive;
use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

/// The annotated model `name` of a source file, and its struct's tokens.
fn original(source: &str, name: &str) -> (Model, TokenStream) {
    let models = file::models_in_source(source).expect("the source parses");
    let m = models
        .iter()
        .find(|m| m.name == name)
        .expect("the model is in its file");
    (
        m.build().expect("the original builds"),
        m.item.to_token_stream(),
    )
}

/// `same_kernels` tolerance for the planar re-expressions: a hand-written row
/// `x1 - x2 + theta2.cos()` against the joint's P_i − P_j sums its terms in another order, so a
/// value may differ by a few ulps of its largest term. Terms are O(10²) at most here (the
/// TSDA's k = 1000 is drawn in [0.5, 2) too), so 1e-13 · (1 + |w|) bounds that and is orders
/// below any wrong term.
const REORDERED: f64 = 1e-13;

#[test]
fn haug_pendulum_as_a_body() {
    let (mut hand, item) = original(
        include_str!("../../models/src/haug_pendulum.rs"),
        "HaugPendulum",
    );
    let attr = quote!(
        bodies: [pendulum = body(m, j)],
        joints: [pin = revolute(pendulum, [-1.0, 0.0], ground, [0.0, 0.0])],
        loads: [gravity([0.0, -g])],
    );
    let mut planar = frontend::model(attr, item).expect("planar model");
    same_kernels(&mut planar, &mut hand, 16, REORDERED);
    assert_eq!(planar.constraint_names(), ["pin_x", "pin_y"]);
}

#[test]
fn me451_pendulum_as_a_body() {
    let (mut hand, item) = original(
        include_str!("../../models/src/me451_pendulum.rs"),
        "Me451Pendulum",
    );
    let attr = quote!(
        tangents: true,
        bodies: [rod = body(m, m * len.powi(2) / 12.0)],
        let f = f0 * (2.0 * PI * t).sin(),
        joints: [pin = revolute(rod, [-len / 2.0, 0.0], ground, [0.0, 0.0])],
        loads: [
            gravity([0.0, -g]),
            force(rod, [len / 2.0, 0.0], [f, 0.0]),
            spring = rsda(ground, rod, k, c, phi0, 0.0),
        ],
    );
    let mut planar = frontend::model(attr, item).expect("planar model");
    same_kernels(&mut planar, &mut hand, 15, REORDERED);
}

#[test]
fn slider_crank_tsda_as_bodies() {
    let (mut hand, item) = original(
        include_str!("../../models/src/slider_crank_tsda.rs"),
        "SliderCrankTsda",
    );
    let attr = quote!(
        tangents: true,
        bodies: [
            frame = body(m1, j1),
            crank = body(m2, j2),
            rod = body(m3, j3),
            slider = body(m4, j4),
        ],
        joints: [
            base = fixed(frame, ground),
            crank_pin = revolute(frame, [0.0, 0.0], crank, [-1.0, 0.0]),
            rod_pin = revolute(crank, [2.0, 0.0], rod, [-2.5, 0.0]),
            slider_pin = revolute(rod, [2.5, 0.0], slider, [0.0, 0.0]),
            slide = translational(frame, [0.0, 0.0], slider, [0.0, 0.0]),
        ],
        loads: [
            gravity([0.0, -g]),
            torque(crank, torque),
            spring = tsda(frame, [12.0, 0.0], slider, [2.0, 0.0], k, c, l0, 0.0),
        ],
    );
    let mut planar = frontend::model(attr, item).expect("planar model");
    same_kernels(&mut planar, &mut hand, 44, REORDERED);
    assert_eq!(
        planar.constraint_names(),
        [
            "base_x",
            "base_y",
            "base_phi",
            "crank_pin_x",
            "crank_pin_y",
            "rod_pin_x",
            "rod_pin_y",
            "slider_pin_x",
            "slider_pin_y",
            "slide_n",
            "slide_phi"
        ]
    );
}

/// Each joint kind's rows at a random state against its definition computed here from
/// P = r + A(φ) s': two bodies `a`, `b` with a driver of t in the last rows.
#[test]
fn joint_rows_follow_their_definitions() {
    let mut model = frontend::model(
        quote!(
            bodies: [a = body(1.0, 1.0), b = body(1.0, 1.0)],
            joints: [
                rev = revolute(a, [0.3, -0.2], b, [-0.5, 0.1]),
                tra = translational(a, [0.3, -0.2], b, [-0.5, 0.1]),
                rt = revolute_translational(a, [0.3, -0.2], b, [-0.5, 0.1], 0.7),
                dist = distance(a, [0.3, -0.2], b, [-0.5, 0.1], 0.7),
                fix = fixed(a, b),
                drive = absolute(a, y, 0.5 * t.sin()),
                turn = relative(a, b, 2.0 * t),
            ],
        ),
        quote!(
            struct Two {}
        ),
    )
    .expect("model");
    assert_eq!(
        model.constraint_names(),
        [
            "rev_x", "rev_y", "tra_n", "tra_phi", "rt", "dist", "fix_x", "fix_y", "fix_phi",
            "drive", "turn"
        ]
    );
    let kernels = derive(&mut model);
    let mut rng = Rng::new(7);
    let state = State {
        t: rng.unit(),
        q: rng.vec(6, -2.0, 2.0),
        v: rng.vec(6, -1.0, 1.0),
        p: Vec::new(),
    };
    let got = model.pool.eval_many(&kernels.phi, &state.env(&model));
    let (q, t) = (&state.q, state.t);
    let point = |r: usize, s: [f64; 2]| {
        let (c, sn) = (q[r + 2].cos(), q[r + 2].sin());
        [q[r] + c * s[0] - sn * s[1], q[r + 1] + sn * s[0] + c * s[1]]
    };
    let (pa, pb) = (point(0, [0.3, -0.2]), point(3, [-0.5, 0.1]));
    let na = [-q[2].sin(), q[2].cos()];
    let (ub, nb) = ([q[5].cos(), q[5].sin()], [-q[5].sin(), q[5].cos()]);
    let dot = |x: [f64; 2], y: [f64; 2]| x[0] * y[0] + x[1] * y[1];
    let d = [pa[0] - pb[0], pa[1] - pb[1]];
    let want = [
        d[0],
        d[1],
        -dot(na, d),
        dot(na, ub),
        dot(nb, d) - 0.7,
        dot(d, d) - 0.49,
        q[0] - q[3],
        q[1] - q[4],
        q[2] - q[5],
        q[1] - 0.5 * t.sin(),
        q[5] - q[2] - 2.0 * t,
    ];
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        // Rows of O(1) terms, evaluated in another order: a few ulps.
        assert_entry("phi", i, *g, *w, 1e-14);
    }
}

/// Mistakes in planar entries are located errors with a diagnosis.
#[test]
fn planar_errors() {
    let item = quote!(
        struct P {
            m: f64,
        }
    );
    let cases: Vec<(TokenStream, &str)> = vec![
        (
            quote!(bodies: [a = body(m, m)], joints: [revolute(a, [0.0, 0.0], bb, [0.0, 0.0])]),
            "unknown body `bb`",
        ),
        (
            quote!(bodies: [a = body(m, m)], joints: [revolut(a, [0.0, 0.0], ground, [0.0, 0.0])]),
            "unknown joint `revolut`; did you mean `revolute`?",
        ),
        (
            quote!(bodies: [a = body(m, m)], joints: [revolute(a, [0.0, 0.0], ground)]),
            "`revolute` takes 4 arguments",
        ),
        (quote!(bodies: [body(m, m)]), "a body needs a name"),
        (
            quote!(bodies: [a = body(m, m)], mass: diag(m, m, m)),
            "with `bodies`, M comes from the bodies",
        ),
        (
            quote!(bodies: [a = body(m, m)], loads: [gravty([0.0, -1.0])]),
            "unknown load `gravty`; did you mean `gravity`?",
        ),
        (
            quote!(bodies: [a = body(m, m)], joints: [pin = revolute(a, [0.0, a_x_dot], ground, [0.0, 0.0])]),
            "the velocity `a_x_dot` appears in a holonomic constraint",
        ),
    ];
    for (attr, want) in cases {
        let msg = frontend::model(attr, item.clone())
            .expect_err("rejected")
            .to_string();
        assert!(msg.contains(want), "got `{msg}`, want `{want}`");
    }
}
