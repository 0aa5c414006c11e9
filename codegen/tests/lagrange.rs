//! Lagrangian derivation (`mbsim_codegen::lagrange`): the planar pendulum's closed form, symbolically
//! exact; a Lagrangian whose kinetic energy is not quadratic, and a velocity in the potential,
//! as error values; and the front end's Lagrangian mode agreeing with hand-written M and Q.

use mbsim_codegen::lagrange::{self, LagrangeError, Lagrangian};
use mbsim_codegen::{Func, ModelBuilder, frontend};
use quote::quote;

/// The planar pendulum in its angle: T = ½ m l² θ̇², V = −m g l cos θ. Closed form
/// M = m l², Q = −m g l sin θ, compared as canonical expressions (exact, not numerically).
#[test]
fn planar_pendulum_closed_form() {
    let mut b = ModelBuilder::new("Pendulum");
    let (theta, omega) = b.coordinate("theta");
    let (m, l, g) = (b.parameter("m"), b.parameter("l"), b.parameter("g"));
    let t = b.time();
    let pool = b.pool();
    let (l2, w2) = (pool.powi(l, 2), pool.powi(omega, 2));
    let half = pool.rational(1, 2);
    let kinetic = pool.mul(&[half, m, l2, w2]);
    let cos = pool.func(Func::Cos, theta);
    let mgl = pool.mul(&[m, g, l]);
    let v0 = pool.mul2(mgl, cos);
    let potential = pool.neg(v0);
    let zero = pool.zero();
    let eom = lagrange::derive(
        pool,
        &Lagrangian {
            time: t,
            q: &[theta],
            v: &[omega],
            kinetic,
            potential,
            nonconservative: &[zero],
        },
    )
    .expect("a mechanical Lagrangian");
    let expected_m = pool.mul2(m, l2);
    let sin = pool.func(Func::Sin, theta);
    let f0 = pool.mul2(mgl, sin);
    let expected_q = pool.neg(f0);
    assert_eq!(pool.to_sexpr(eom.mass[0][0]), pool.to_sexpr(expected_m));
    assert_eq!(eom.mass[0][0], expected_m);
    assert_eq!(
        eom.force[0],
        expected_q,
        "Q = {}",
        pool.to_sexpr(eom.force[0])
    );
}

/// T = v⁴ gives ∂²T/∂v² = 12 v², which still depends on v.
#[test]
fn kinetic_energy_must_be_quadratic() {
    let mut b = ModelBuilder::new("Bad");
    let (x, v) = b.coordinate("x");
    let t = b.time();
    let pool = b.pool();
    let kinetic = pool.powi(v, 4);
    let zero = pool.zero();
    let err = lagrange::derive(
        pool,
        &Lagrangian {
            time: t,
            q: &[x],
            v: &[v],
            kinetic,
            potential: zero,
            nonconservative: &[zero],
        },
    )
    .expect_err("not quadratic");
    assert!(matches!(err, LagrangeError::NotQuadratic { .. }), "{err:?}");
    assert!(err.to_string().contains("x_dot"), "{err}");
}

#[test]
fn potential_must_not_depend_on_velocity() {
    let mut b = ModelBuilder::new("Bad");
    let (x, v) = b.coordinate("x");
    let t = b.time();
    let pool = b.pool();
    let kinetic = pool.powi(v, 2);
    let potential = pool.mul2(x, v);
    let zero = pool.zero();
    let err = lagrange::derive(
        pool,
        &Lagrangian {
            time: t,
            q: &[x],
            v: &[v],
            kinetic,
            potential,
            nonconservative: &[zero],
        },
    )
    .expect_err("velocity in V");
    assert_eq!(
        err,
        LagrangeError::VelocityInPotential {
            velocity: "x_dot".into()
        }
    );
}

/// A cart (x) with a pendulum (θ) written once as a Lagrangian and once with M and Q by hand:
/// the derived kernels are the same canonical expressions (hash-consing makes this exact).
/// T = ½ (M₀+m) ẋ² + m l ẋ θ̇ cos θ + ½ m l² θ̇², V = −m g l cos θ, Q_nc = (F, 0).
#[test]
fn lagrangian_mode_matches_hand_written_cart_pendulum() {
    let item = quote!(
        struct Cart {
            m0: f64,
            m: f64,
            l: f64,
            g: f64,
            f: f64,
        }
    );
    let lagrangian = quote!(
        coordinates: [x, th],
        kinetic: (m0 + m) / 2.0 * x_dot.powi(2) + m * l * x_dot * th_dot * th.cos() + m * l.powi(2) / 2.0 * th_dot.powi(2),
        potential: -m * g * l * th.cos(),
        force: [f, 0.0],
    );
    let by_hand = quote!(
        coordinates: [x, th],
        mass: [[m0 + m, m * l * th.cos()], [m * l * th.cos(), m * l.powi(2)]],
        force: [f + m * l * th_dot.powi(2) * th.sin(), -m * g * l * th.sin()],
    );
    let a = frontend::model(lagrangian, item.clone()).expect("Lagrangian model");
    let b = frontend::model(by_hand, item).expect("hand-written model");
    let show = |m: &mbsim_codegen::Model, ids: &[mbsim_codegen::ExprId]| {
        ids.iter().map(|&e| m.pool.to_sexpr(e)).collect::<Vec<_>>()
    };
    assert_eq!(show(&a, &a.mass), show(&b, &b.mass));
    assert_eq!(show(&a, &a.force), show(&b, &b.force));
}
