//! `body_energy(m, j, [x, y, phi])` in a Lagrangian's `kinetic` (`frontend/body_energy.rs`): the
//! same mechanism written (a) with body_energy terms, which take the structured form of
//! `bodies.rs`, and (b) with T expanded by hand, ½ m (ẋ² + ẏ²) + ½ j φ̇² with the velocities
//! written out, which takes today's Hessian path, must give every kernel (Φ…, M, Q, T, V and the
//! tangents) alike at random states: the n-link pendulum for n = 1…6, a mixed model (bodies, a
//! cart's own ½ m ẋ², a rotor, a spring potential, forces and a constraint), a rheonomic one (a
//! pivot driven in t), and the uses that are not a plain sum (a term counted twice through a
//! `let`, a factor depending on q, a nonlinear function of a term). Then the mistakes, each on
//! its tokens.

mod common;

use common::same_kernels;
use mbsim_codegen::frontend;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// Structured M, Q against the Hessian of the hand-expanded T: both are exact rearrangements of
/// the same sums evaluated in f64, so they differ by the rounding of reordered sums, a few ulps
/// of the largest term. With masses and lengths in [0.5, 2), coordinates in [−2, 2), velocities
/// in [−1, 1) and at most 6 bodies, the terms are below ~1e2 and the entries up to ~1e2, so the
/// reordering costs ~1e-14 · (1 + |w|): every case here passes at 1e-14 (measured while writing
/// them; 1e-15 fails on a few entries, deltas 3e-15 to 1e-14). The tolerance of the brief,
/// 1e-12 · (1 + |w|), keeps a 100× margin and is eleven orders below a missing or wrong term
/// (dropping the remainder's M, or a sign in a local partial of the gradient, moves entries by
/// O(1)).
const REARRANGED: f64 = 1e-12;

/// The n-link pendulum in relative angles (uniform rods, gravity −g ŷ): T as `body_energy`
/// terms summed over the chain.
fn pendulum_bodies(n: usize) -> TokenStream {
    let n = Literal::usize_unsuffixed(n);
    quote!(
        const N = #n,
        coordinates: [q[0..N]],
        let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
        let cx[i in 0..N] = sum(for k in 0..i { l[k] * a[k].cos() }) + l[i] / 2.0 * a[i].cos(),
        let cy[i in 0..N] = sum(for k in 0..i { l[k] * a[k].sin() }) + l[i] / 2.0 * a[i].sin(),
        kinetic: sum(for i in 0..N {
            body_energy(m[i], m[i] * l[i].powi(2) / 12.0, [cx[i], cy[i], a[i]])
        }),
        potential: sum(for i in 0..N { m[i] * g * cy[i] }),
    )
}

/// The same pendulum with T expanded by hand: the centre-of-mass velocities written out.
fn pendulum_expanded(n: usize) -> TokenStream {
    let n = Literal::usize_unsuffixed(n);
    quote!(
        const N = #n,
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
    )
}

fn pendulum_struct(n: usize) -> TokenStream {
    let n = Literal::usize_unsuffixed(n);
    quote!(
        pub struct Chain {
            pub m: [f64; #n],
            pub l: [f64; #n],
            pub g: f64,
        }
    )
}

/// (a) against (b) for the n-link pendulum; (a) is structured and has its energies.
fn pendulum_case(n: usize) {
    let mut bodies = frontend::model(pendulum_bodies(n), pendulum_struct(n)).expect("bodies");
    let mut hand = frontend::model(pendulum_expanded(n), pendulum_struct(n)).expect("hand");
    assert!(
        bodies.structured,
        "body_energy terms take the structured form"
    );
    assert!(!hand.structured, "an expanded T takes the Hessian path");
    assert!(
        bodies.energy.is_some(),
        "a Lagrangian model has its energies"
    );
    same_kernels(&mut bodies, &mut hand, 40 + n as u64, REARRANGED);
}

macro_rules! pendulum_cases {
    ($($name:ident: $n:expr,)*) => {$(
        #[test]
        fn $name() { pendulum_case($n); }
    )*};
}

pendulum_cases! {
    pendulum_1_link_matches_expanded: 1,
    pendulum_2_links_match_expanded: 2,
    pendulum_3_links_match_expanded: 3,
    pendulum_4_links_match_expanded: 4,
    pendulum_5_links_match_expanded: 5,
    pendulum_6_links_match_expanded: 6,
}

/// The same chain as placed bodies (`bodies: [body(…)]`, gravity as a load): the two structured
/// forms agree on every kernel too (gravity as a load against −∂V/∂q of the potential).
#[test]
fn pendulum_matches_placed_bodies() {
    let placed = quote!(
        const N = 4,
        coordinates: [q[0..N]],
        let a[i in 0..N] = sum(for k in 0..=i { q[k] }),
        let cx[i in 0..N] = sum(for k in 0..i { l[k] * a[k].cos() }) + l[i] / 2.0 * a[i].cos(),
        let cy[i in 0..N] = sum(for k in 0..i { l[k] * a[k].sin() }) + l[i] / 2.0 * a[i].sin(),
        bodies: [for i in 0..N { rod = body(m[i], m[i] * l[i].powi(2) / 12.0, [cx[i], cy[i], a[i]]) }],
        loads: [gravity([0.0, -g])],
    );
    let mut bodies = frontend::model(pendulum_bodies(4), pendulum_struct(4)).expect("bodies");
    let mut placed = frontend::model(placed, pendulum_struct(4)).expect("placed");
    same_kernels(&mut bodies, &mut placed, 15, REARRANGED);
}

/// A cart on a spring (its own ½ mc ẋ², not a body_energy term) carrying a two-rod pendulum
/// (body_energy terms through a `let` family) and a rotor on the second rod (½ jr ḃ², a plain
/// term), gravity and the spring as `potential`, damping and a driving torque as `force`, the
/// tip held on a vertical line as a holonomic row.
const MIXED_STRUCT: &str = "pub struct Mixed { pub mc: f64, pub m1: f64, pub m2: f64, pub l1: f64, pub l2: f64, pub jr: f64, pub k: f64, pub c: f64, pub tau: f64, pub g: f64, pub d: f64 }";

#[test]
fn mixed_bodies_coordinate_terms_potential_and_force_match_expanded() {
    let bodies = quote!(
        coordinates: [x, a, b],
        let ke[i in 0..2] = if i == 0 {
            body_energy(m1, m1 * l1.powi(2) / 12.0, [x + l1 / 2.0 * a.sin(), -l1 / 2.0 * a.cos(), a])
        } else {
            body_energy(m2, m2 * l2.powi(2) / 12.0,
                [x + l1 * a.sin() + l2 / 2.0 * b.sin(), -l1 * a.cos() - l2 / 2.0 * b.cos(), b])
        },
        holonomic: [tip = x + l1 * a.sin() + l2 * b.sin() - d],
        kinetic: mc / 2.0 * x_dot.powi(2) + sum(for i in 0..2 { ke[i] }) + jr / 2.0 * b_dot.powi(2),
        potential: k / 2.0 * x.powi(2) - g * (m1 * l1 / 2.0 * a.cos() + m2 * (l1 * a.cos() + l2 / 2.0 * b.cos())),
        force: [-c * x_dot, tau * t.cos(), -c * (b_dot - a_dot)],
    );
    let hand = quote!(
        coordinates: [x, a, b],
        let v1x = x_dot + l1 / 2.0 * a.cos() * a_dot,
        let v1y = l1 / 2.0 * a.sin() * a_dot,
        let v2x = x_dot + l1 * a.cos() * a_dot + l2 / 2.0 * b.cos() * b_dot,
        let v2y = l1 * a.sin() * a_dot + l2 / 2.0 * b.sin() * b_dot,
        holonomic: [tip = x + l1 * a.sin() + l2 * b.sin() - d],
        kinetic: mc / 2.0 * x_dot.powi(2)
            + m1 / 2.0 * (v1x.powi(2) + v1y.powi(2)) + m1 * l1.powi(2) / 24.0 * a_dot.powi(2)
            + m2 / 2.0 * (v2x.powi(2) + v2y.powi(2)) + m2 * l2.powi(2) / 24.0 * b_dot.powi(2)
            + jr / 2.0 * b_dot.powi(2),
        potential: k / 2.0 * x.powi(2) - g * (m1 * l1 / 2.0 * a.cos() + m2 * (l1 * a.cos() + l2 / 2.0 * b.cos())),
        force: [-c * x_dot, tau * t.cos(), -c * (b_dot - a_dot)],
    );
    let item: TokenStream = MIXED_STRUCT.parse().expect("struct tokens");
    let mut bodies = frontend::model(bodies, item.clone()).expect("bodies");
    let mut hand = frontend::model(hand, item).expect("hand");
    assert!(bodies.structured);
    assert_eq!(bodies.constraint_names(), ["tip"]);
    same_kernels(&mut bodies, &mut hand, 11, REARRANGED);
}

#[test]
fn rheonomic_pivot_matches_expanded() {
    // A two-rod pendulum whose pivot is driven: (r sin ωt, r cos ωt · ½) — x and y depend on t.
    let bodies = quote!(
        coordinates: [a, b],
        let px = r * (w * t).sin(),
        let py = r / 2.0 * (w * t).cos(),
        kinetic: body_energy(m1, j1, [px + l1 / 2.0 * a.sin(), py - l1 / 2.0 * a.cos(), a])
            + body_energy(m2, j2, [px + l1 * a.sin() + l2 / 2.0 * b.sin(),
                py - l1 * a.cos() - l2 / 2.0 * b.cos(), b + w * t]),
        potential: g * (m1 * (py - l1 / 2.0 * a.cos()) + m2 * (py - l1 * a.cos() - l2 / 2.0 * b.cos())),
    );
    let hand = quote!(
        coordinates: [a, b],
        let py = r / 2.0 * (w * t).cos(),
        let pvx = r * w * (w * t).cos(),
        let pvy = -r / 2.0 * w * (w * t).sin(),
        let v1x = pvx + l1 / 2.0 * a.cos() * a_dot,
        let v1y = pvy + l1 / 2.0 * a.sin() * a_dot,
        let v2x = pvx + l1 * a.cos() * a_dot + l2 / 2.0 * b.cos() * b_dot,
        let v2y = pvy + l1 * a.sin() * a_dot + l2 / 2.0 * b.sin() * b_dot,
        kinetic: m1 / 2.0 * (v1x.powi(2) + v1y.powi(2)) + j1 / 2.0 * a_dot.powi(2)
            + m2 / 2.0 * (v2x.powi(2) + v2y.powi(2)) + j2 / 2.0 * (b_dot + w).powi(2),
        potential: g * (m1 * (py - l1 / 2.0 * a.cos()) + m2 * (py - l1 * a.cos() - l2 / 2.0 * b.cos())),
    );
    let item = quote!(
        pub struct Driven {
            pub m1: f64,
            pub m2: f64,
            pub j1: f64,
            pub j2: f64,
            pub l1: f64,
            pub l2: f64,
            pub r: f64,
            pub w: f64,
            pub g: f64,
        }
    );
    let mut bodies = frontend::model(bodies, item.clone()).expect("bodies");
    let mut hand = frontend::model(hand, item).expect("hand");
    assert!(bodies.structured);
    same_kernels(&mut bodies, &mut hand, 12, REARRANGED);
}

/// Beside structured bodies, −∂V/∂q comes from a reverse-mode gradient (`lagrange::gradient`);
/// the hand form differentiates V forward, one coordinate at a time. A V through every node kind
/// (atan2, min, max, a select, a variable exponent, the unary functions) must give the same Q
/// and tangents.
#[test]
fn potential_of_every_node_kind_matches_forward_derivatives() {
    let v = quote!(
        k * (a.atan2(b + 3.0)
            + a.max(b)
            + a.min(0.5 * b)
            + if a > b { a * b } else { b.sin() }
            + (a.powi(2) + 1.0).powf(b / 3.0)
            + (a / 3.0).asin()
            + (b / 3.0).acos()
            + b.tanh()
            + (a.exp() + 2.0).ln()
            + (b.powi(2) + 1.0).sqrt()
            + (a - b).abs()
            + (a / 3.0).tan()
            + (a / 2.0).atan()
            + b.sinh()
            + (a * b).cosh() / 10.0
            + (1.0 + a.cos().powi(2)).recip())
    );
    let bodies = quote!(
        coordinates: [a, b],
        kinetic: body_energy(m1, j1, [a, b, a]) + body_energy(m1, j1, [l1 * b.cos(), l1 * b.sin(), b]),
        potential: #v,
    );
    let hand = quote!(
        coordinates: [a, b],
        kinetic: m1 / 2.0 * (a_dot.powi(2) + b_dot.powi(2)) + j1 / 2.0 * a_dot.powi(2)
            + (m1 * l1.powi(2) + j1) / 2.0 * b_dot.powi(2),
        potential: #v,
    );
    let item = quote!(
        pub struct Kinds {
            pub m1: f64,
            pub j1: f64,
            pub l1: f64,
            pub k: f64,
        }
    );
    let mut bodies = frontend::model(bodies, item.clone()).expect("bodies");
    let mut hand = frontend::model(hand, item).expect("hand");
    assert!(bodies.structured);
    same_kernels(&mut bodies, &mut hand, 14, REARRANGED);
}

/// `e` counted twice (a body of 1.5 times the mass), a factor depending on q (expanded in
/// place), a plain term (structured), and with `quartic` a term inside `powi` (expanded; T is
/// then quartic in v).
fn uses(quartic: bool) -> (TokenStream, TokenStream) {
    let (extra_bodies, extra_hand) = match quartic {
        true => (
            quote!(+ body_energy(m2, j1, [a.sin(), b.cos(), a + b]).powi(2) / 8.0),
            quote!(+ h.powi(2) / 8.0),
        ),
        false => (quote!(), quote!()),
    };
    let bodies = quote!(
        coordinates: [a, b],
        let e = body_energy(m1, j1, [l1 * a.cos(), l1 * a.sin(), a]),
        kinetic: e + e / 2.0 + (1.0 + b.powi(2) / 4.0) * body_energy(m2, j2, [b, l2 * a.sin(), b])
            + body_energy(m1, j2, [a + b, a * b, b]) #extra_bodies,
    );
    let hand = quote!(
        coordinates: [a, b],
        let e = m1 / 2.0 * l1.powi(2) * a_dot.powi(2) + j1 / 2.0 * a_dot.powi(2),
        let f = m2 / 2.0 * (b_dot.powi(2) + (l2 * a.cos() * a_dot).powi(2)) + j2 / 2.0 * b_dot.powi(2),
        let h = m2 / 2.0 * ((a.cos() * a_dot).powi(2) + (b.sin() * b_dot).powi(2))
            + j1 / 2.0 * (a_dot + b_dot).powi(2),
        let p = m1 / 2.0 * ((a_dot + b_dot).powi(2) + (b * a_dot + a * b_dot).powi(2))
            + j2 / 2.0 * b_dot.powi(2),
        kinetic: 1.5 * e + (1.0 + b.powi(2) / 4.0) * f + p #extra_hand,
    );
    (bodies, hand)
}

const USES_STRUCT: &str = "pub struct Uses { pub m1: f64, pub m2: f64, pub j1: f64, pub j2: f64, pub l1: f64, pub l2: f64 }";

#[test]
fn factors_mean_the_same_as_expanded() {
    let item: TokenStream = USES_STRUCT.parse().expect("struct tokens");
    let (bodies, hand) = uses(false);
    let mut bodies = frontend::model(bodies, item.clone()).expect("bodies");
    let mut hand = frontend::model(hand, item).expect("hand");
    assert!(bodies.structured, "`e` and the last term are structured");
    same_kernels(&mut bodies, &mut hand, 13, REARRANGED);
}

#[test]
fn a_term_inside_a_function_is_expanded_and_checked_like_any_term() {
    // h² is quartic in v: T is not quadratic, which both forms report.
    let item: TokenStream = USES_STRUCT.parse().expect("struct tokens");
    let (bodies, hand) = uses(true);
    let bodies_err = frontend::model(bodies, item.clone()).expect_err("quartic");
    let hand_err = frontend::model(hand, item).expect_err("quartic");
    assert!(
        bodies_err.to_string().contains("not quadratic"),
        "{bodies_err}"
    );
    assert!(hand_err.to_string().contains("not quadratic"), "{hand_err}");
}

/// The message and the source text its span covers, for an attribute parsed from text (so its
/// spans have locations; `quote!` would give them all the call site).
fn error_of(attr: &str) -> (String, String) {
    let item = quote!(
        pub struct Bad {
            pub m: f64,
            pub l: f64,
        }
    );
    let attr: TokenStream = attr.parse().expect("attribute tokens");
    let e = frontend::model(attr, item).expect_err("a mistake");
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
    velocity_in_placement_is_an_error_on_the_velocity:
        "coordinates: [a], kinetic: body_energy(m, m, [l * a.cos(), l * a_dot, a])"
        => "depend on the velocity `a_dot`" on "a_dot";
    velocity_in_a_let_is_reported_at_its_use:
        "coordinates: [a], let s = l * a_dot, kinetic: body_energy(m, m, [s, l, a])"
        => "depend on the velocity `a_dot`" on "s";
    velocity_in_a_loop_names_the_iteration:
        "coordinates: [q[0..3]], kinetic: sum(for i in 0..3 { body_energy(m, m, [q[i], q_dot[i], q[i]]) })"
        => "(for i = 0)" on "q_dot[i]";
    two_arguments_are_an_error_on_the_call:
        "coordinates: [a], kinetic: body_energy(m, [l * a.cos(), l * a.sin(), a])"
        => "takes three arguments" on "body_energy(m, [l * a.cos(), l * a.sin(), a])";
    a_placement_of_two_entries_is_an_error_on_it:
        "coordinates: [a], kinetic: body_energy(m, m, [l * a.cos(), a])"
        => "three entries `[x, y, phi]`" on "[l * a.cos(), a]";
    outside_kinetic_is_an_error_on_the_use:
        "coordinates: [a], let e = body_energy(m, m, [l * a.cos(), l * a.sin(), a]), kinetic: m * a_dot.powi(2), potential: e"
        => "may appear only in `kinetic`" on "e";
    in_a_constraint_is_an_error_on_the_call:
        "coordinates: [a], holonomic: [body_energy(m, m, [a, a, a])], kinetic: m * a_dot.powi(2)"
        => "may appear only in `kinetic`" on "body_energy";
    nested_terms_are_an_error:
        "coordinates: [a], kinetic: body_energy(m, m, [body_energy(m, m, [a, a, a]), a, a])"
        => "cannot be an argument of another one" on "body_energy(m, m, [a, a, a])";
}

#[test]
fn in_a_drawn_point_is_an_error_on_the_use() {
    // The drawing is lowered by the expansion, after the model is built.
    let attr = "coordinates: [a], let e = body_energy(m, m, [a, a, a]), kinetic: e, draw: { points: [P = (e, a)], segments: [] }";
    let item = quote!(
        pub struct Bad {
            pub m: f64,
        }
    );
    let attr: TokenStream = attr.parse().expect("attribute tokens");
    let e = frontend::expand(attr, item).expect_err("a mistake");
    let msg = e.to_string();
    assert!(msg.contains("may appear only in `kinetic`"), "{msg}");
    assert_eq!(e.span().source_text().unwrap_or_default(), "e", "{msg}");
}

#[test]
fn a_kinetic_energy_without_terms_is_unchanged() {
    // The placeholder path is taken only when T mentions a term: an unused `let` of one leaves
    // the model exactly as the plain Lagrangian (same M and Q nodes, Hessian path).
    let with_let = quote!(
        coordinates: [a],
        let e = body_energy(m, m, [l * a.cos(), l * a.sin(), a]),
        kinetic: m / 2.0 * a_dot.powi(2),
        potential: m * l * a.cos(),
    );
    let plain = quote!(
        coordinates: [a],
        kinetic: m / 2.0 * a_dot.powi(2),
        potential: m * l * a.cos(),
    );
    let item = quote!(
        pub struct Plain {
            pub m: f64,
            pub l: f64,
        }
    );
    let with_let = frontend::model(with_let, item.clone()).expect("unused let");
    let plain = frontend::model(plain, item).expect("plain");
    assert!(!with_let.structured);
    let show = |m: &mbsim_codegen::Model, e: &[mbsim_codegen::ExprId]| -> Vec<String> {
        e.iter().map(|&x| m.pool.to_sexpr(x)).collect()
    };
    assert_eq!(
        show(&with_let, &with_let.mass),
        show(&plain, &plain.mass),
        "M"
    );
    assert_eq!(
        show(&with_let, &with_let.force),
        show(&plain, &plain.force),
        "Q"
    );
}
