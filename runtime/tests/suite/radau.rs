//! Radau IIA (s = 3) on the index-3 DAE: the stage Jacobian against finite differences of the
//! stage residual, convergence orders in h against a tight RKSTAB reference, the ME451
//! pendulum (P15), the knife edge (nonholonomic rows, index 2), L-stability on two modes of
//! very different frequency, adaptive steps, finite-difference tangents, dense output and
//! typed failures.

use crate::common;
use crate::implicit_models;

use common::models::KnifeEdge;
use common::{Model, Sys, assert_below, assert_close, assert_within};
use implicit_models::{BlowUp, DrivenCart, Me451, TwoModes};
use mbsim_runtime::{
    Baumgarte, ConstrainedSystem, Integrator, Problem, Radau, RadauOptions, RadauProbe, Recorder,
    Rkstab, SimError, Solution, Stabilization, TangentSystem, integrate, radau_system,
};
use mbsim_testkit::Rng;

/// RKSTAB at rtol = atol = 1e-12: global error ~1e-11 over these spans, 100× below the
/// smallest error an order is measured at here (~1e-9).
fn reference<S: ConstrainedSystem>(sys: &S, problem: &Problem) -> (Recorder, Solution) {
    integrate(sys, &Rkstab::new(1e-12), problem).expect("reference run")
}

fn max_diff(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .fold(0.0_f64, |s, (x, y)| s.max((x - y).abs()))
}

// ---------------------------------------------------------------------------------------------
// The stage Jacobian against finite differences of the stage residual.

/// ∂Ψ/∂x (exact tangents, block row i at stage i) against central differences of Ψ in
/// x = (A_1..3, Λ_1..3) at a random start and random unknowns. δ = 1e-6 (1 + |x_j|): truncation
/// δ² |Ψ'''| ≲ 1e-12 · 1e3 and round-off ε |Ψ| / δ ≈ 1e-16 · 1e4 / 1e-6 = 1e-6 for |Ψ| ≲ 1e4
/// (m g = 196 in P15; the constraint rows Φ/h² with h = 0.05 are 400 Φ); tolerance 1e-4 abs +
/// 1e-6 rel, a margin of 100 over the round-off.
fn stage_jacobian_matches_fd<T>(model: T, seed: u64)
where
    T: Model + implicit_models::Tangent,
{
    let sys = Sys(model);
    let d = sys.dims();
    let (n, r) = (d.n, d.constraint_rows());
    let mut rng = Rng::new(seed);
    let z = rng.vec(2 * n, -1.0, 1.0);
    let a = rng.vec(n, -2.0, 2.0);
    let x = rng.vec(3 * (n + r), -3.0, 3.0);
    let probe = RadauProbe {
        t: 0.3,
        h: 0.05,
        z: &z,
        a: &a,
    };
    let (_, jac) = radau_system(&sys, &probe, &x).expect("probe");
    let len = 3 * (n + r);
    for j in 0..len {
        let delta = 1e-6 * (1.0 + x[j].abs());
        let at = |s: f64| {
            let mut xs = x.clone();
            xs[j] += s;
            radau_system(&sys, &probe, &xs).expect("probe").0
        };
        let (plus, minus) = (at(delta), at(-delta));
        let fd: Vec<f64> = (0..len)
            .map(|i| (plus[i] - minus[i]) / (2.0 * delta))
            .collect();
        let col: Vec<f64> = jac.column(j).iter().copied().collect();
        assert_close(
            &format!("{} radau J column {j}", sys.name()),
            &col,
            &fd,
            1e-4,
            1e-6,
        );
    }
}

const KNIFE: KnifeEdge = KnifeEdge {
    mass: 1.0,
    inertia: 0.2,
    slope_force: 2.0,
};

#[test]
fn stage_jacobian_matches_finite_differences_of_the_residual() {
    stage_jacobian_matches_fd(Me451::PUBLISHED, 41);
    stage_jacobian_matches_fd(DrivenCart::DEFAULT, 42);
    // Nonholonomic rows (A V + b)/h, with N = ∂(A v + b)/∂q by central differences (ε^{1/3}
    // steps: ~1e-10 relative, far inside the tolerance).
    stage_jacobian_matches_fd(KNIFE, 43);
}

// ---------------------------------------------------------------------------------------------
// Convergence orders.

/// Errors in q, v and the sampled λ at t = 1 for h = 1/10, 1/20, 1/40 and the observed orders.
fn observed_orders<S: ConstrainedSystem + TangentSystem>(
    sys: &S,
    problem: &Problem,
) -> [Vec<f64>; 3] {
    let problem = problem.clone().with_uniform_output(0.5);
    let (exact_rec, exact) = reference(sys, &problem);
    let mut errors = [vec![], vec![], vec![]];
    for steps in [10.0, 20.0, 40.0] {
        let (rec, sol) = Radau::fixed(1.0 / steps)
            .integrate_exact(sys, &problem)
            .expect("fixed-step run");
        errors[0].push(max_diff(&sol.q, &exact.q));
        errors[1].push(max_diff(&sol.v, &exact.v));
        let last = rec.lambda.len() - 1;
        errors[2].push(max_diff(&rec.lambda[last], &exact_rec.lambda[last]));
    }
    let orders = errors
        .clone()
        .map(|e| e.windows(2).map(|w| (w[0] / w[1]).log2()).collect());
    println!(
        "{} radau: errors q/v/λ {errors:?}, orders {orders:.2?}",
        sys.name()
    );
    orders
}

#[test]
fn positions_converge_at_order_five_velocities_at_order_three() {
    let pendulum = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let p1 = Problem::new(0.0, 1.0, &q0, &v0);
    let cart = Sys(DrivenCart::DEFAULT);
    let (q0, v0) = DrivenCart::DEFAULT.initial(0.5);
    let p2 = Problem::new(0.0, 1.0, &q0, &v0);
    // Index-3 orders of Radau IIA s = 3 (Hairer–Lubich–Roche): q 2s − 1 = 5, v s = 3. The
    // sampled λ comes from the KKT solve at the computed (q, v); the method's own Λ_3 is not
    // exposed. h ≤ 1/10 keeps h ω ≤ 0.3 for these ≈ 3 rad/s motions; h = 1/80 is not used: the
    // q error there (~1e-11) reaches the reference's. The mean order over 1/10 → 1/40 must lie
    // within [−0.5, +1] of the theory (the next term, one order higher, and its sign changes
    // along the orbit move single ratios: measured 5.0 and 6.3 on P15, 4.95 and 4.99 on the
    // cart); the velocity ratios within ±0.4 (measured 2.9–3.4).
    for (sys_orders, name) in [
        (observed_orders(&pendulum, &p1), "me451"),
        (observed_orders(&cart, &p2), "cart"),
    ] {
        let q_order = 0.5 * (sys_orders[0][0] + sys_orders[0][1]);
        assert_within(&format!("{name} q order"), q_order, 4.5, 6.0);
        for (i, v_order) in sys_orders[1].iter().enumerate() {
            assert_within(&format!("{name} v order {i}"), *v_order, 2.6, 3.4);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The ME451 pendulum (P15).

/// The knife edge on an incline (\[CHIN\] P10, closed form `KnifeEdge::exact`): a model with
/// nonholonomic rows only, so the system is of index 2 in (q, v) and Radau IIA s = 3 keeps
/// order 2s − 1 = 5 in q and v (Hairer–Wanner II §VII.4, Thm 4.6 for index 2; λ order s = 3).
/// ω = 1.5 rad/s over [0, 4] with 40, 80, 160 steps (h ω ≤ 0.15; measured errors 9.0e-7,
/// 2.8e-8, 1.1e-9: orders 5.0, 4.7). At 20 steps (h ω = 0.3) the simplified Newton iteration,
/// with A frozen at the step start, contracts by θ ≈ 0.28 and misses the constant-step κ in its
/// 15 iterations: a typed `NewtonDiverged` (measured), where adaptive runs shorten the step.
/// A v + b = 0 is a stage row: held at every step point (stage 3 = the step's end) to the
/// Newton tolerance.
#[test]
fn nonholonomic_rows_keep_order_five_and_hold_a_v() {
    let omega = 1.5;
    let (q0, v0) = KNIFE.exact(omega, 0.0);
    let problem = Problem::new(0.0, 4.0, &q0, &v0).with_uniform_output(0.5);
    let (q_end, v_end) = KNIFE.exact(omega, 4.0);
    let mut errors = Vec::new();
    for steps in [40.0, 80.0, 160.0] {
        let (rec, sol) = Radau::fixed(4.0 / steps)
            .integrate_exact(&Sys(KNIFE), &problem)
            .expect("knife-edge run");
        let error = max_diff(&sol.q, &q_end).max(max_diff(&sol.v, &v_end));
        let drift = rec.max_drift().velocity;
        println!("knife edge radau N = {steps}: error {error:.3e}, max |A v| {drift:.1e}");
        // The Newton test κ bounds the corrections of (q, v) relative to 1e-10-ish weights
        // (constant-step runs: `radau/mod.rs`): A v held to 1e-10 (1 + |v| ≤ 2.5).
        assert_below(&format!("N = {steps} max |A v|"), drift, 2.5e-10);
        errors.push(error);
    }
    for w in errors.windows(2) {
        assert_within("knife edge order", (w[0] / w[1]).log2(), 4.5, 6.0);
    }
}

#[test]
fn me451_pendulum_holds_phi_and_matches_rkstab() {
    let model = Me451::PUBLISHED;
    let sys = Sys(model);
    let (q0, v0) = model.initial();
    let problem = Problem::new(0.0, 10.0, &q0, &v0).with_uniform_output(0.01);
    let (rec, sol) = Radau::fixed(0.01)
        .integrate_exact(&sys, &problem)
        .expect("P15 run");
    let stats = sol.stats.clone();
    let per_step = stats.extra.get("newton_iterations").unwrap() as f64 / stats.naccpt as f64;
    println!("P15 Radau h = 0.01: {stats}, {per_step:.2} Newton iterations per step");
    // Simplified Newton from the extrapolated collocation polynomial: the start is O(h⁴) off,
    // the contraction θ = O(h) ≈ 1e-2, so κ = 1e-12 takes 2–5 corrections.
    assert_within("P15 Newton iterations per step", per_step, 1.0, 6.0);
    assert_eq!(stats.failed, 0, "no failed step");
    // Φ at every step point: the Newton test leaves a position error ≤ κ (1 + |q|) per
    // coordinate (κ = 1e-12 on the RMS, so ≤ √(6n) κ per entry, |q| ≤ 3π/2 + 1); |Φ| ≤ ‖G‖∞
    // that, ‖G‖∞ ≤ 1 + ℓ = 3.
    assert_below(
        "P15 max |Φ|",
        stats.max_drift.position,
        3.0 * 18f64.sqrt() * 1e-12 * (2.0 + 1.5 * std::f64::consts::PI),
    );
    // Settles about φ0 (as Newmark in `implicit.rs`).
    let tail: Vec<f64> = (0..rec.t.len())
        .filter(|&i| rec.t[i] >= 8.0)
        .map(|i| rec.q[i][2])
        .collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    let amplitude = tail
        .iter()
        .fold(0.0_f64, |s, p| s.max((p - model.phi0).abs()));
    assert_below(
        "P15 |mean φ − φ0| over [8, 10]",
        (mean - model.phi0).abs(),
        0.1 * amplitude,
    );
    // Against RKSTAB at t = 10: q is fifth order (the order study's error at h = 1/40, 2e-10
    // at t = 1, scaled by (0.4)⁵ ≈ 1e-2 and by ten times the span: ≲ 2e-11, bound 1e-9 for
    // the reference's own ~1e-11 and the accumulation), v third order (1.4e-5 at h = 1/40,
    // scaled by (0.4)³ ≈ 0.064: ≈ 1e-6 at t = 1; the damping keeps it from growing, bound
    // 3e-6).
    let (_, exact) = reference(&sys, &Problem::new(0.0, 10.0, &q0, &v0));
    let (eq, ev) = (max_diff(&sol.q, &exact.q), max_diff(&sol.v, &exact.v));
    println!("P15 Radau vs RKSTAB at t = 10: q {eq:.3e}, v {ev:.3e}");
    assert_below("P15 Radau q vs RKSTAB at t = 10", eq, 1e-9);
    assert_below("P15 Radau v vs RKSTAB at t = 10", ev, 3e-6);
}

// ---------------------------------------------------------------------------------------------
// L-stability.

#[test]
fn the_stiff_mode_is_damped_and_the_soft_one_kept() {
    let model = TwoModes {
        omega: [1.0, 1000.0],
    };
    let sys = Sys(model);
    let (q0, v0) = ([1.0, 1e-3], [0.0, 0.0]);
    let problem = Problem::new(0.0, 1.0, &q0, &v0);
    let (_, sol) = Radau::fixed(0.01)
        .integrate_exact(&sys, &problem)
        .expect("two modes");
    let e = |i| model.energy(i, &sol.q, &sol.v) / model.energy(i, &q0, &v0);
    println!("radau: energy kept (ω = 1, ω = 1000): {} {}", e(0), e(1));
    // ωh = 10: |R(10 i)| of Radau IIA s = 3 (R(∞) = 0) is |P(10i)/Q(10i)| with
    // P(z) = 1 + 2z/5 + z²/20, Q(z) = 1 − 3z/5 + 3z²/20 − z³/60: ≈ 0.3, so 100 steps leave
    // ≲ 0.3²⁰⁰ of the energy. The soft mode (ωh = 0.01) loses O((ωh)⁶) per step.
    assert_below("radau high mode energy", e(1), 1e-20);
    assert_within("radau low mode energy", e(0), 1.0 - 1e-9, 1.0 + 1e-9);
}

// ---------------------------------------------------------------------------------------------
// Adaptive steps, finite-difference tangents, dense output.

/// The q error at t = 2 on P15 of an adaptive run at `rtol`, with its statistics.
fn adaptive_error(rtol: f64) -> (f64, mbsim_runtime::Stats) {
    let sys = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, 2.0, &q0, &v0);
    let (_, sol) = Radau::adaptive(rtol)
        .integrate_exact(&sys, &problem)
        .expect("adaptive run");
    let (_, exact) = reference(&sys, &problem);
    let error = max_diff(&sol.q, &exact.q);
    let ev = max_diff(&sol.v, &exact.v);
    println!(
        "P15 radau rtol {rtol:e}: q error {error:.3e}, v error {ev:.3e}, {}",
        sol.stats
    );
    (error, sol.stats)
}

#[test]
fn adaptive_steps_follow_the_tolerance() {
    let (e1, s1) = adaptive_error(1e-4);
    let (e2, s2) = adaptive_error(1e-7);
    // Tolerance proportionality in q (velocities count with the factor h in the estimate, the
    // index-2 scaling, so their error is not held to tol): the error falls with the tolerance
    // (by at least 30× over three decades) and stays within 100 tol (tens of local errors,
    // each ≤ tol); the steps grow like tol^(−1/4) (order 3 estimate): ×5.6 over three
    // decades, at least ×3.
    assert_below("radau error at 1e-4", e1, 100.0 * 1e-4);
    assert_below("radau error at 1e-7", e2, 100.0 * 1e-7);
    assert_below("radau error ratio", e2 / e1, 1.0 / 30.0);
    assert!(
        s2.naccpt as f64 >= 3.0 * s1.naccpt as f64,
        "steps {} -> {}",
        s1.naccpt,
        s2.naccpt
    );
}

#[test]
fn finite_difference_tangents_reproduce_the_exact_tangent_run() {
    let sys = Sys(DrivenCart::DEFAULT);
    let (q0, v0) = DrivenCart::DEFAULT.initial(0.5);
    let problem = Problem::new(0.0, 1.0, &q0, &v0);
    let method = Radau::adaptive(1e-6);
    let (_, exact) = method.integrate_exact(&sys, &problem).expect("exact");
    let (_, fd) = integrate(&sys, &method, &problem).expect("fd");
    // Both converge the same stage equations to κ; the matrices differ by ~1e-10 relative,
    // which changes only the Newton path: the results agree to a few κ sk ≈ 1e-8.
    let diff = max_diff(&exact.q, &fd.q).max(max_diff(&exact.v, &fd.v));
    println!(
        "radau exact vs FD tangents: {diff:.3e}; {} / {}",
        exact.stats, fd.stats
    );
    assert_below("radau exact vs FD tangents", diff, 1e-6);
}

#[test]
fn dense_output_follows_the_collocation_polynomial() {
    let sys = Sys(Me451::PUBLISHED);
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, 1.0, &q0, &v0).with_uniform_output(0.013);
    let (exact, _) = reference(&sys, &problem);
    let error = |h: f64| {
        let (rec, _) = Radau::fixed(h)
            .integrate_exact(&sys, &problem)
            .expect("run");
        let mut e = 0.0_f64;
        for (q, r) in rec.q.iter().zip(&exact.q) {
            e = e.max(max_diff(q, r));
        }
        e
    };
    let (e1, e2) = (error(0.05), error(0.025));
    let order = (e1 / e2).log2();
    println!("radau dense output: {e1:.3e} -> {e2:.3e}, order {order:.2}");
    // The collocation polynomial has order s = 3 between the step points (the step points
    // themselves are of order 5): the ratio shows at least order 3 (−0.4 for the higher terms).
    assert_within("radau dense output order", order, 2.6, 5.6);
}

// ---------------------------------------------------------------------------------------------
// Bad input and failure.

#[test]
fn bad_input_and_failures_are_typed_errors() {
    let (q0, v0) = Me451::PUBLISHED.initial();
    let problem = Problem::new(0.0, 0.1, &q0, &v0);
    let sys = Sys(Me451::PUBLISHED);
    let option = |r: Result<(Recorder, Solution), SimError>| match r {
        Err(SimError::InvalidOption { option, .. }) => option,
        other => panic!("expected InvalidOption, got {other:?}"),
    };
    let baumgarte = Radau::fixed(0.01)
        .with_stabilization(Stabilization::Baumgarte(Baumgarte::from_chin(20.0, 100.0)));
    assert_eq!(
        option(integrate(&sys, &baumgarte, &problem)),
        "stabilization"
    );
    let few = Radau::fixed(0.01).with_options(RadauOptions {
        max_iterations: Some(1),
        ..RadauOptions::default()
    });
    assert_eq!(option(integrate(&sys, &few, &problem)), "max_iterations");
    // q̈ = 2q³ from q = v = 1 blows up at t = 1: one constant step of 0.9 cannot converge.
    let blow = Sys(BlowUp);
    let bp = Problem::new(0.0, 0.9, &[1.0], &[1.0]);
    match Radau::fixed(0.9).integrate_exact(&blow, &bp) {
        Err(SimError::NewtonDiverged { t, h, .. }) => {
            assert_eq!((t, h), (0.9, 0.9), "the failed step's end and size")
        }
        other => panic!("expected NewtonDiverged, got {other:?}"),
    }
    // Adaptive up to t = 1.5 cannot pass the singularity: a typed error, never a panic.
    let bp = Problem::new(0.0, 1.5, &[1.0], &[1.0]);
    let result = Radau::adaptive(1e-6).integrate_exact(&blow, &bp);
    println!("blow-up adaptive: {result:?}");
    assert!(
        matches!(
            result,
            Err(SimError::StepSizeUnderflow { .. }
                | SimError::NewtonDiverged { .. }
                | SimError::NonFiniteKernel { .. }
                | SimError::TooManySteps { .. })
        ),
        "{result:?}"
    );
    assert_eq!(Radau::fixed(0.1).name(), "radau");
}
