//! Bodies placed by expressions of the coordinates (`body(m, j, [x, y, phi])`,
//! `frontend/placed.rs`): written in the model language, they must give every kernel of the same
//! mechanism written as a Lagrangian (`kinetic`, `potential`, `force` by hand) — a 4-link
//! pendulum in relative angles with gravity (structured M and Q, energies), and a four-bar in
//! absolute angles with a revolute joint between placed bodies, a driving torque and an RSDA.
//! Then the mistakes: a body without placement among placed ones, placed bodies without
//! coordinates, `mass` beside them, a velocity in a placement — each on its tokens.

mod common;

use common::same_kernels;
use mbsim_codegen::frontend;
use quote::quote;

/// Structured M, Q against the Hessian of T: both are exact rearrangements of the same sums
/// evaluated in f64; with lengths, masses and velocities O(1) and at most 4 bodies the terms
/// are O(10²), so a reordered sum differs by a few ulps of that: 1e-12 · (1 + |w|).
const REARRANGED: f64 = 1e-12;

#[test]
fn pendulum_in_relative_angles_matches_its_lagrangian() {
    let placed = quote!(
        const N = 4,
        coordinates: [q[0..N]],
        let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
        let jx[i in 0..N] = sum(for k in 0..i { l[k] * a[k].cos() }),
        let jy[i in 0..N] = sum(for k in 0..i { l[k] * a[k].sin() }),
        bodies: [for i in 0..N {
            rod = body(m[i], m[i] * l[i].powi(2) / 12.0,
                [jx[i] + l[i] / 2.0 * a[i].cos(), jy[i] + l[i] / 2.0 * a[i].sin(), a[i]])
        }],
        loads: [gravity([0.0, -g])],
    );
    let lagrangian = quote!(
        const N = 4,
        coordinates: [q[0..N]],
        let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
        let w[i in 0..N] = sum(for k in 0..=i { q_dot[k] }),
        let vx[i in 0..N] = -sum(for k in 0..i { l[k] * a[k].sin() * w[k] })
            - l[i] / 2.0 * a[i].sin() * w[i],
        let vy[i in 0..N] = sum(for k in 0..i { l[k] * a[k].cos() * w[k] })
            + l[i] / 2.0 * a[i].cos() * w[i],
        let cy[i in 0..N] = sum(for k in 0..i { l[k] * a[k].sin() }) + l[i] / 2.0 * a[i].sin(),
        kinetic: sum(for i in 0..N {
            m[i] / 2.0 * (vx[i].powi(2) + vy[i].powi(2)) + m[i] * l[i].powi(2) / 24.0 * w[i].powi(2)
        }),
        potential: sum(for i in 0..N { m[i] * g * cy[i] }),
    );
    let item = quote!(
        pub struct Chain {
            pub m: [f64; 4],
            pub l: [f64; 4],
            pub g: f64,
        }
    );
    let mut bodies = frontend::model(placed, item.clone()).expect("placed bodies");
    let mut hand = frontend::model(lagrangian, item).expect("Lagrangian");
    assert!(
        bodies.energy.is_some(),
        "gravity alone: the energies are emitted"
    );
    same_kernels(&mut bodies, &mut hand, 7, REARRANGED);
}

#[test]
fn four_bar_with_joint_torque_and_rsda_matches_its_lagrangian() {
    let placed = quote!(
        coordinates: [t1, t2, t3],
        bodies: [
            crank = body(m1, j1, [l1 / 2.0 * t1.cos(), l1 / 2.0 * t1.sin(), t1]),
            coupler = body(m2, j2, [l1 * t1.cos() + l2 / 2.0 * t2.cos(),
                l1 * t1.sin() + l2 / 2.0 * t2.sin(), t2]),
            rocker = body(m3, j3, [d + l3 / 2.0 * t3.cos(), l3 / 2.0 * t3.sin(), t3]),
        ],
        joints: [tip = revolute(coupler, [l2 / 2.0, 0.0], rocker, [l3 / 2.0, 0.0])],
        loads: [
            gravity([0.0, -g]),
            torque(crank, tau * t.cos()),
            rsda(ground, rocker, k, c, 0.5, 0.0),
        ],
    );
    let lagrangian = quote!(
        coordinates: [t1, t2, t3],
        holonomic: [
            tip_x = l1 * t1.cos() + l2 * t2.cos() - d - l3 * t3.cos(),
            tip_y = l1 * t1.sin() + l2 * t2.sin() - l3 * t3.sin(),
        ],
        let v2x = -l1 * t1.sin() * t1_dot - l2 / 2.0 * t2.sin() * t2_dot,
        let v2y = l1 * t1.cos() * t1_dot + l2 / 2.0 * t2.cos() * t2_dot,
        kinetic: (m1 * l1.powi(2) / 8.0 + j1 / 2.0) * t1_dot.powi(2)
            + m2 / 2.0 * (v2x.powi(2) + v2y.powi(2)) + j2 / 2.0 * t2_dot.powi(2)
            + (m3 * l3.powi(2) / 8.0 + j3 / 2.0) * t3_dot.powi(2),
        potential: g * (m1 * l1 / 2.0 * t1.sin() + m2 * (l1 * t1.sin() + l2 / 2.0 * t2.sin())
            + m3 * l3 / 2.0 * t3.sin()),
        force: [tau * t.cos(), 0.0, -(k * (t3 - 0.5) + c * t3_dot)],
    );
    let item = quote!(
        pub struct FourBar {
            pub m1: f64,
            pub m2: f64,
            pub m3: f64,
            pub j1: f64,
            pub j2: f64,
            pub j3: f64,
            pub l1: f64,
            pub l2: f64,
            pub l3: f64,
            pub d: f64,
            pub g: f64,
            pub tau: f64,
            pub k: f64,
            pub c: f64,
        }
    );
    let mut bodies = frontend::model(placed, item.clone()).expect("placed bodies");
    let mut hand = frontend::model(lagrangian, item).expect("Lagrangian");
    assert!(
        bodies.energy.is_none(),
        "a torque and an RSDA: no energies claimed"
    );
    hand.energy = None;
    same_kernels(&mut bodies, &mut hand, 9, REARRANGED);
    assert_eq!(bodies.constraint_names(), ["tip_x", "tip_y"]);
}

/// The message and the source text its span covers.
fn error_of(attr: proc_macro2::TokenStream) -> (String, String) {
    let item = quote!(
        pub struct Bad {
            pub m: f64,
            pub l: f64,
        }
    );
    let e = frontend::model(attr, item).expect_err("a mistake");
    let text = e.span().source_text().unwrap_or_default();
    (e.to_string(), text)
}

#[test]
fn mistakes_are_reported_on_their_tokens() {
    let (msg, _) = error_of(quote!(
        coordinates: [a],
        bodies: [rod = body(m, m, [l * a.cos(), l * a.sin(), a]), bob = body(m, m)],
    ));
    assert!(msg.contains("body `bob` has no placement"), "{msg}");
    let (msg, _) = error_of(quote!(bodies: [rod = body(m, m, [l, l, l])]));
    assert!(msg.contains("declare them, `coordinates"), "{msg}");
    let (msg, _) = error_of(quote!(
        coordinates: [a],
        bodies: [rod = body(m, m, [l * a.cos(), l * a.sin(), a])],
        mass: [[m]],
    ));
    assert!(msg.contains("remove `mass`"), "{msg}");
    let (msg, _) = error_of(quote!(
        coordinates: [a],
        bodies: [rod = body(m, m, [l * a.cos(), l * a_dot, a])],
    ));
    assert!(
        msg.contains("placement of body `rod` depends on the velocity `a_dot`"),
        "{msg}"
    );
    let (msg, _) = error_of(quote!(
        coordinates: [a],
        bodies: [rod = body(m, m, [l * a.cos(), l * a.sin()])],
    ));
    assert!(msg.contains("three entries `[x, y, phi]`"), "{msg}");
}
