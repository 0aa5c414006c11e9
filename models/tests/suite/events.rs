//! Events (issue 25) against closed forms, on every method: the bouncing ball (impact times,
//! rebound speeds e·v, the accumulation point where the ball comes to rest and stays), the
//! pendulum striking a wall (impact times from the complete elliptic integral; the impulse
//! solved with the rod constraint), the block lifted off a table (lift-off at t* = m g / rate)
//! and the block on a belt (the stick–slip cycle: breakaway at x_s = μ_s m g / k, the slip
//! phase a harmonic arc about x_k = μ_k m g / k that ends when the block's speed meets the
//! belt's). Every method runs every model, RKSTAB with each drift control; the counters of
//! every run are one statistics snapshot per model, and the elastic wall pendulum against the
//! free swing measures what an event costs in right-hand sides.
//!
//! Bounds: each method's row gives the bound on the relative error of event times; the adaptive
//! methods run at rtol 1e-12 (goal of the issue: 1e-10), the constant-step ones at the step
//! their order needs to be meaningful (their error is that of the trajectory, (ωh)^p).

use mbsim_models::{BeltFriction, BouncingBall, LiftOff, WallPendulum};
use mbsim_runtime::events::{EventKind, EventOptions, EventRun, simulate};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Baumgarte, ConstrainedSystem, Continuous,
    ContinuousChoice, FixedStep, HybridOptions, Implicit, Integrator, PartitionOptions, Problem,
    Radau, Recorder, Rkstab, Scheme, Stabilization, StepSize,
};

/// The complete elliptic integral of the first kind K(k) by the arithmetic–geometric mean.
fn elliptic_k(k: f64) -> f64 {
    // The AGM converges quadratically: 8 steps reach round-off for k < 0.99 (a test on a − b
    // may never be met, a and b alternating in the last bit).
    let (mut a, mut b) = (1.0_f64, (1.0 - k * k).sqrt());
    for _ in 0..8 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    std::f64::consts::FRAC_PI_2 / a
}

/// A method behind one object-safe call.
trait Run {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<EventRun, String>;
}

impl<I: Integrator> Run for I {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<EventRun, String> {
        let mut rec = Recorder::default();
        simulate(sys, self, p, &EventOptions::default(), None, &mut rec).map_err(|e| e.to_string())
    }
}

/// (name, method, bound on the relative error of event times).
fn methods() -> Vec<(&'static str, Box<dyn Run>, f64)> {
    let adams = |kind| Adams::new(AdamsScheme::new(kind, 4, AdamsStart::RungeKutta), 1e-4);
    let implicit = |scheme| {
        Implicit::new(scheme, StepSize::Fixed(1e-4)).with_stabilization(Stabilization::VelocityOnly)
    };
    let mut list: Vec<(&'static str, Box<dyn Run>, f64)> = vec![
        ("rkstab", Box::new(Rkstab::new(1e-12)), 1e-10),
        ("abm", Box::new(Abm::new(1e-12)), 1e-8),
        ("rk4", Box::new(FixedStep::new(RK4, 1e-3)), 1e-10),
        ("ab4", Box::new(adams(AdamsKind::Ab)), 1e-8),
        ("mampc4", Box::new(adams(AdamsKind::Mampc)), 1e-8),
        (
            "newmark",
            Box::new(implicit(Scheme::Newmark {
                beta: 0.25,
                gamma: 0.5,
            })),
            1e-5,
        ),
        ("hht", Box::new(implicit(Scheme::Hht { alpha: -0.1 })), 1e-5),
        (
            "generalized-alpha",
            Box::new(implicit(Scheme::GeneralizedAlpha { rho_inf: 0.8 })),
            1e-5,
        ),
        (
            "radau",
            Box::new(
                Radau::new(Implicit::adaptive(1e-12))
                    .with_stabilization(Stabilization::VelocityOnly),
            ),
            1e-9,
        ),
        ("ampc4", Box::new(adams(AdamsKind::Ampc)), 1e-8),
    ];
    // RKSTAB with every other drift control (PStab is `rkstab` above): the events are located
    // on the same dense output, the drift control only moves the state between steps.
    let drift_controls = [
        ("rkstab-ggt", Stabilization::GGt),
        ("rkstab-sboth", Stabilization::SBoth),
        ("rkstab-sfull", Stabilization::SFull),
        ("rkstab-velocity", Stabilization::VelocityOnly),
        (
            "rkstab-baumgarte",
            Stabilization::Baumgarte(Baumgarte::from_chin(20.0, 100.0)),
        ),
        (
            "rkstab-gcp",
            Stabilization::Partitioned(PartitionOptions::default()),
        ),
        (
            "rkstab-hybrid",
            Stabilization::Hybrid(HybridOptions::default()),
        ),
        (
            "rkstab-continuous",
            Stabilization::Continuous(Continuous::new(ContinuousChoice::GGt, 10.0)),
        ),
        ("rkstab-none", Stabilization::None),
    ];
    for (name, stabilization) in drift_controls {
        let method = Rkstab::new(1e-12).with_stabilization(stabilization);
        list.push((name, Box::new(method), 1e-10));
    }
    list
}

/// One line of the statistics snapshot: the events by kind, the segments, and the counters
/// summed over them (NFCN, steps, rejections, event-function evaluations).
pub(crate) fn statistics(model: &str, method: &str, out: &EventRun) -> String {
    let mut kinds = std::collections::BTreeMap::<&str, usize>::new();
    for r in &out.events {
        *kinds.entry(r.kind.word()).or_default() += 1;
    }
    let s = &out.solution.stats;
    format!(
        "{model}/{method}: events {kinds:?} segments {} nfcn {} nstep {} nrejct {} g-evaluations {}\n",
        out.segments, s.nfcn, s.nstep, s.nrejct, s.event_evaluations
    )
}

/// The worst relative error of `times` against `exact` (compared pairwise).
pub(crate) fn worst(times: &[f64], exact: &[f64]) -> f64 {
    times
        .iter()
        .zip(exact)
        .map(|(t, e)| (t - e).abs() / e)
        .fold(0.0, f64::max)
}

fn impacts(out: &EventRun) -> Vec<(f64, f64, f64)> {
    out.events
        .iter()
        .filter_map(|r| match r.kind {
            EventKind::Impact {
                approach_speed,
                separation_speed,
                ..
            } => Some((r.t, approach_speed, separation_speed)),
            _ => None,
        })
        .collect()
}

/// The ball of the tests dropped from 1 m (e = 0.8) over [0, 5] s, and its first 30 impact
/// times t1 + Σ_{j ≤ k} 2 e^j t1 with t1 = √(2 h0 / g) (shared with the conformance suite).
pub(crate) fn ball() -> (BouncingBall, Problem, Vec<f64>) {
    let (g, e, h0) = (9.81, 0.8, 1.0);
    let ball = BouncingBall {
        m: 1.0,
        g,
        r: 0.1,
        e,
    };
    let t1 = (2.0 * h0 / g).sqrt();
    let mut exact = vec![t1];
    for j in 1..30 {
        exact.push(exact[j - 1] + 2.0 * e.powi(j as i32) * t1);
    }
    (ball, Problem::new(0.0, 5.0, &[h0 + 0.1], &[0.0]), exact)
}

#[test]
fn bouncing_ball_on_every_method() {
    let (ball, problem, exact) = ball();
    let e = ball.e;
    let t_inf = exact[0] * (1.0 + 2.0 * e / (1.0 - e));
    let (mut failures, mut lines) = (Vec::new(), String::new());
    for (name, method, bound) in methods() {
        let out = match method.run(&ball, &problem) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        lines.push_str(&statistics("ball", name, &out));
        let hits = impacts(&out);
        let times: Vec<f64> = hits.iter().map(|h| h.0).take(20).collect();
        let time_error = worst(&times, &exact);
        let rebound = hits
            .iter()
            .map(|&(_, a, s)| (s + e * a).abs() / a.abs())
            .fold(0.0, f64::max);
        let closed = out
            .events
            .iter()
            .find(|r| matches!(r.kind, EventKind::ContactClosed { .. }));
        let rest = closed.map_or(f64::NAN, |r| r.t);
        eprintln!(
            "ball {name:18} impacts {:3} time error {time_error:.1e} rebound {rebound:.1e} rest at {rest:.9} (t_inf {t_inf:.9}) y_end {:.3e} nfcn {}",
            hits.len(),
            out.solution.q[0] - 0.1,
            out.solution.stats.nfcn
        );
        if times.len() < 20 || time_error > bound {
            failures.push(format!(
                "{name}: {} impacts, time error {time_error:e} > {bound:e}",
                times.len()
            ));
        }
        if rebound > 1e-12 {
            failures.push(format!("{name}: rebound speed off e·v by {rebound:e}"));
        }
        // The ball rests where the impacts accumulate (the contact closes once a rebound would
        // rise less than round-off of y, ~2e-13 m: the flights left out then sum to ~2e-6 s)
        // and stays on the floor.
        if !((rest - t_inf).abs() < 1e-5 && (out.solution.q[0] - 0.1).abs() < 1e-12) {
            failures.push(format!(
                "{name}: rest at {rest} (t_inf {t_inf}), y_end {}",
                out.solution.q[0]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    insta::assert_snapshot!("ball_statistics", lines);
}

/// The pendulum released at θ0 = π/2 against the wall (e = 0.8), over its first 8 impacts
/// and 0.05 s beyond, with their times from the complete elliptic integral (shared with the
/// conformance suite).
pub(crate) fn wall() -> (WallPendulum, Problem, Vec<f64>) {
    let (g, len, e) = (9.81, 1.0, 0.8);
    let sys = WallPendulum { m: 1.0, len, g, e };
    let omega0 = (g / len).sqrt();
    // Released at θ0 = π/2 from the vertical; each rebound with speed e times the impact speed
    // (at the bottom, speed² = 2 g len (1 − cos θ_max)) reaches the amplitude θ_j.
    let mut exact = vec![elliptic_k((std::f64::consts::FRAC_PI_4).sin()) / omega0];
    let mut speed = (2.0 * g * len).sqrt();
    for _ in 1..8 {
        speed *= e;
        let amplitude = (1.0 - speed * speed / (2.0 * g * len)).acos();
        let k = (amplitude / 2.0).sin();
        exact.push(exact.last().unwrap() + 2.0 * elliptic_k(k) / omega0);
    }
    let problem = Problem::new(0.0, exact[7] + 0.05, &[len, 0.0], &[0.0, 0.0]);
    (sys, problem, exact)
}

#[test]
fn wall_pendulum_on_every_method() {
    let (sys, problem, exact) = wall();
    let e = sys.e;
    let (mut failures, mut lines) = (Vec::new(), String::new());
    for (name, method, bound) in methods() {
        let out = match method.run(&sys, &problem) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        lines.push_str(&statistics("wall", name, &out));
        let hits = impacts(&out);
        let times: Vec<f64> = hits.iter().map(|h| h.0).collect();
        let time_error = worst(&times, &exact);
        let rebound = hits
            .iter()
            .map(|&(_, a, s)| (s + e * a).abs() / a.abs())
            .fold(0.0, f64::max);
        eprintln!(
            "wall {name:18} impacts {} time error {time_error:.1e} rebound {rebound:.1e} nfcn {} drift {:.1e}",
            hits.len(),
            out.solution.stats.nfcn,
            out.solution.stats.max_drift.max()
        );
        if hits.len() != 8 || time_error > bound {
            failures.push(format!(
                "{name}: {} impacts (8 exact), time error {time_error:e} > {bound:e}",
                hits.len()
            ));
        }
        if rebound > 1e-9 {
            failures.push(format!("{name}: rebound speed off e·v by {rebound:e}"));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // What an event costs: with e = 1 the pendulum rebounds elastically, so |θ(t)| is the free
    // swing's (the wall at θ = 0 mirrors it) and the smooth work per unit time is the same;
    // the free swing (events ignored) against the elastic wall's run over the same span gives
    // the right-hand sides an event adds (the restart: a new initial step and its growth, and
    // the steps cut at the event).
    let elastic = WallPendulum { e: 1.0, ..sys };
    let mut smooth_rkstab = Rkstab::new(1e-12);
    smooth_rkstab.common.event_subsamples = usize::MAX;
    let mut smooth_abm = Abm::new(1e-12);
    smooth_abm.common.event_subsamples = usize::MAX;
    let mut smooth_radau =
        Radau::new(Implicit::adaptive(1e-12)).with_stabilization(Stabilization::VelocityOnly);
    smooth_radau.common.event_subsamples = usize::MAX;
    let smooth: [(&str, Box<dyn Run>); 3] = [
        ("rkstab", Box::new(smooth_rkstab)),
        ("abm", Box::new(smooth_abm)),
        ("radau", Box::new(smooth_radau)),
    ];
    for (name, method) in smooth {
        let free = method.run(&elastic, &problem).expect("free swing");
        assert!(free.events.is_empty(), "{name}: events ignored");
        let with = methods()
            .into_iter()
            .find(|m| m.0 == name)
            .map(|m| m.1.run(&elastic, &problem).expect("elastic wall run"))
            .expect("method");
        let count = with.events.len();
        let (nfcn, free_nfcn) = (with.solution.stats.nfcn, free.solution.stats.nfcn);
        let extra = (nfcn as f64 - free_nfcn as f64) / count as f64;
        eprintln!(
            "wall e = 1 {name}: nfcn {nfcn} with {count} impacts, {free_nfcn} swinging free: {extra:.0} per event"
        );
        lines.push_str(&format!(
            "wall e = 1/{name}: {count} impacts nfcn {nfcn}; swinging free (events ignored) nfcn {free_nfcn}\n"
        ));
    }
    insta::assert_snapshot!("wall_statistics", lines);
}

#[test]
fn lift_off_on_every_method() {
    let sys = LiftOff {
        m: 1.0,
        g: 9.81,
        rate: 4.0,
    };
    let t_star = 9.81 / 4.0;
    let problem = Problem::new(0.0, 3.0, &[0.0], &[0.0]);
    let (mut failures, mut lines) = (Vec::new(), String::new());
    for (name, method, bound) in methods() {
        let out = match method.run(&sys, &problem) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        lines.push_str(&statistics("lift-off", name, &out));
        let kinds: Vec<&str> = out.events.iter().map(|r| r.kind.word()).collect();
        let lift = out
            .events
            .iter()
            .find(|r| r.kind == EventKind::LiftOff)
            .map_or(f64::NAN, |r| r.t);
        let tau: f64 = 3.0 - t_star;
        let y_exact = 4.0 * tau.powi(3) / 6.0;
        let y_error = (out.solution.q[0] - y_exact).abs() / y_exact;
        eprintln!(
            "lift {name:18} events {kinds:?} lift-off {lift:.12} (t* {t_star}) y error {y_error:.1e}"
        );
        if kinds != ["lift-off"]
            || (lift - t_star).abs() / t_star > bound.max(1e-9)
            || y_error > 1e-6
        {
            failures.push(format!(
                "{name}: events {kinds:?}, lift-off at {lift} (t* = {t_star}), y error {y_error:e}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    insta::assert_snapshot!("lift_off_statistics", lines);
}

/// The slip phase from breakaway at x_s with the belt's speed: the smallest τ > 0 at which the
/// block's speed is the belt's again, v(τ) = −ω (x_s − x_k) sin ωτ + v_b cos ωτ = v_b.
fn slip_duration(omega: f64, amplitude: f64, v_belt: f64) -> f64 {
    // v_b (cos ωτ − 1) = ω a sin ωτ  ⇔  tan(ωτ/2) = −ω a / v_b (a > 0), so ωτ = 2(π − atan(ω a / v_b)).
    2.0 * (std::f64::consts::PI - (omega * amplitude / v_belt).atan()) / omega
}

/// The block on the belt from rest on it (sticking) over 3 stick–slip cycles and 0.1 s
/// beyond: the closed-form times of its 7 switches, slip first (shared with the conformance
/// suite).
pub(crate) fn belt() -> (BeltFriction, Problem, Vec<f64>) {
    let sys = BeltFriction {
        m: 1.0,
        k: 10.0,
        v_belt: 0.2,
        mu_s: 0.4,
        mu_k: 0.3,
        g: 9.81,
    };
    let omega = (sys.k / sys.m).sqrt();
    let x_s = sys.mu_s * sys.m * sys.g / sys.k;
    let x_k = sys.mu_k * sys.m * sys.g / sys.k;
    let slip = slip_duration(omega, x_s - x_k, sys.v_belt);
    // Where the slip ends: x − x_k = (x_s − x_k) cos ωτ + (v_b/ω) sin ωτ.
    let x_stick =
        x_k + (x_s - x_k) * (omega * slip).cos() + sys.v_belt / omega * (omega * slip).sin();
    let stick = (x_s - x_stick) / sys.v_belt;
    // Sticking from x = 0 until x_s, then slip, stick, slip, …
    let mut exact = vec![x_s / sys.v_belt];
    for j in 1..7 {
        let last = exact[j - 1];
        exact.push(last + if j % 2 == 1 { slip } else { stick });
    }
    let problem = Problem::new(0.0, exact[6] + 0.1, &[0.0], &[sys.v_belt]);
    (sys, problem, exact)
}

#[test]
fn belt_stick_slip_on_every_method() {
    let (sys, problem, exact) = belt();
    let (mut failures, mut lines) = (Vec::new(), String::new());
    for (name, method, bound) in methods() {
        let out = match method.run(&sys, &problem) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        lines.push_str(&statistics("belt", name, &out));
        let kinds: Vec<&str> = out.events.iter().map(|r| r.kind.word()).collect();
        let times: Vec<f64> = out.events.iter().map(|r| r.t).collect();
        let time_error = worst(&times, &exact);
        eprintln!("belt {name:18} events {kinds:?} time error {time_error:.1e}");
        let expected = ["slip", "stick", "slip", "stick", "slip", "stick", "slip"];
        if kinds != expected || time_error > bound.max(1e-9) {
            failures.push(format!(
                "{name}: events {kinds:?} at {times:?} (exact {exact:?}), error {time_error:e}"
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    insta::assert_snapshot!("belt_statistics", lines);
}

/// A pendulum (angle form) with a `stop` when it passes a level, a `handler` event and an event
/// function that is zero at t0.
#[mbsim::model(
    coordinates: [theta],
    mass: diag(m * len.powi(2)),
    force: [-m * g * len * theta.sin()],
    events: [
        bottom = theta => handler(both),
        start = theta - 0.5 => stop(rising),
        low = theta + 0.3 => stop(falling),
    ],
)]
#[derive(Clone, Debug)]
struct Swing {
    m: f64,
    len: f64,
    g: f64,
}

#[test]
fn stop_handler_and_zero_at_t0() {
    let sys = Swing {
        m: 1.0,
        len: 1.0,
        g: 9.81,
    };
    // Released at θ = 0.5 (so `start` is zero at t0 and must not fire there), it swings down:
    // `bottom` calls the handler at θ = 0 after a quarter period K(sin 0.25)/ω0, and `low` stops
    // the run where θ first falls through −0.3.
    let problem = Problem::new(0.0, 10.0, &[0.5], &[0.0]);
    let mut calls: Vec<(&'static str, f64)> = Vec::new();
    let mut handler = |name: &'static str, t: f64, _q: &mut [f64], _v: &mut [f64]| {
        calls.push((name, t));
        mbsim_runtime::events::EventResponse::Continue
    };
    let mut rec = Recorder::default();
    let out = simulate(
        &sys,
        &Rkstab::new(1e-12),
        &problem,
        &EventOptions::default(),
        Some(&mut handler),
        &mut rec,
    )
    .expect("runs");
    let kinds: Vec<(&str, &str)> = out.events.iter().map(|r| (r.name, r.kind.word())).collect();
    assert_eq!(kinds, [("bottom", "handler"), ("low", "stop")], "{kinds:?}");
    assert!(out.stopped);
    let omega0 = 9.81_f64.sqrt();
    let quarter = elliptic_k(0.25_f64.sin()) / omega0;
    assert!(
        (calls[0].1 - quarter).abs() < 1e-10 * quarter,
        "{calls:?} vs {quarter}"
    );
    // The run ends at the stop, with θ there = −0.3 to round-off.
    assert!(
        (out.solution.q[0] + 0.3).abs() < 1e-12,
        "{:?}",
        out.solution.q
    );
    assert_eq!(out.solution.t, out.events[1].t);
    // A handler that stops the run ends it at its first call.
    let mut stopper = |_: &'static str, _: f64, _: &mut [f64], _: &mut [f64]| {
        mbsim_runtime::events::EventResponse::Stop
    };
    let out = simulate(
        &sys,
        &Rkstab::new(1e-12),
        &problem,
        &EventOptions::default(),
        Some(&mut stopper),
        &mut Recorder::default(),
    )
    .expect("runs");
    assert!(out.stopped && out.events.len() == 1, "{:?}", out.events);
    // A plain run of a model with events stops at its first event (the handler's `bottom`),
    // with the state there.
    let plain = Rkstab::new(1e-12);
    let end = plain
        .integrate_into(&sys, &problem, &mut Recorder::default())
        .expect("runs");
    let hit = end.event.clone().expect("stopped at an event");
    assert_eq!(hit.slots, [0]);
    assert!(
        (end.t - quarter).abs() < 1e-10 * quarter && end.q[0].abs() < 1e-12,
        "{end:?}"
    );
}

#[test]
fn slider_crank_stop_on_every_method() {
    use mbsim_models::SliderCrankStop;
    let sys = SliderCrankStop {
        j: 0.01,
        r: 0.1,
        l: 0.3,
        m: 0.5,
        torque: 0.2,
        x_stop: 0.35,
        e: 0.5,
    };
    let theta0: f64 = 1.5;
    let x0 = sys.r * theta0.cos() + (sys.l.powi(2) - (sys.r * theta0.sin()).powi(2)).sqrt();
    let problem = Problem::new(0.0, 3.0, &[theta0, x0], &[0.0, 0.0]);
    let energy = |v: &[f64]| 0.5 * sys.j * v[0].powi(2) + 0.5 * sys.m * v[1].powi(2);
    let (mut failures, mut lines) = (Vec::new(), String::new());
    for (name, method, _) in methods() {
        let out = match method.run(&sys, &problem) {
            Ok(out) => out,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        lines.push_str(&statistics("slider-crank-stop", name, &out));
        let impacts: Vec<&mbsim_runtime::events::EventRecord> = out
            .events
            .iter()
            .filter(|r| r.kind.word() == "impact")
            .collect();
        // Each impact, solved with the closure row: the slider rebounds at −e times its
        // approach speed and the kinetic energy drops by e² (the crank follows the slider).
        // Exactly so for a consistent v⁻; the impulse also removes the velocity drift of v⁻ on
        // the closure row, which changes T by ~ drift/|v| (≤ 1e-8 / 1e-2 here): the bound
        // is 1e-6 on the impacts faster than 1e-2 m/s (the accumulating ones are slower).
        let worst_ratio = impacts
            .iter()
            .filter(|r| matches!(r.kind, EventKind::Impact { approach_speed, .. } if approach_speed.abs() > 1e-2))
            .map(|r| (energy(&r.v_after) / energy(&r.v_before) - sys.e.powi(2)).abs())
            .fold(0.0, f64::max);
        let last = out.events.last().map(|r| r.kind.word());
        eprintln!(
            "stop {name:18} impacts {} last {last:?} energy ratio off e² by {worst_ratio:.1e} x_end {:.15} drift {:.1e}",
            impacts.len(),
            out.solution.q[1],
            out.solution.stats.max_drift.max()
        );
        // The torque keeps pressing the slider into the stop: the impacts accumulate and the
        // stop closes, the slider at x_stop with the crank held by the closure row.
        if impacts.is_empty()
            || worst_ratio > 1e-6
            || last != Some("contact")
            || (out.solution.q[1] - sys.x_stop).abs() > 1e-10
        {
            failures.push(format!(
                "{name}: {} impacts, energy ratio off by {worst_ratio:e}, last {last:?}, x_end {}",
                impacts.len(),
                out.solution.q[1]
            ));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    insta::assert_snapshot!("slider_crank_stop_statistics", lines);
}

#[test]
fn hpim_and_npc_refuse_a_model_with_events() {
    use mbsim_runtime::{Hpim, Npc, SimError, Structure, integrate};
    use std::sync::Arc;
    // The ball's own M (1 kg) as the structure, so the refusal, not a mismatch, is what stops
    // the run, before any step.
    let ball = BouncingBall {
        m: 1.0,
        g: 9.81,
        r: 0.1,
        e: 0.8,
    };
    let structure = Arc::new(Structure::undamped(
        nalgebra::DMatrix::identity(1, 1),
        nalgebra::DMatrix::zeros(1, 1),
    ));
    let problem = Problem::new(0.0, 1.0, &[1.1], &[0.0]);
    let hpim = integrate(&ball, &Hpim::new(structure.clone(), 1e-3), &problem);
    let npc = integrate(&ball, &Npc::new(structure, 1e-3), &problem);
    for (method, result) in [("HPIM", hpim.map(|r| r.1)), ("NPC", npc.map(|r| r.1))] {
        match result {
            Err(SimError::InvalidProblem { what }) => assert!(
                what.starts_with(&format!("{method} does not take events: `"))
                    && what.contains("declares floor;")
                    && what.contains("no dense output"),
                "{what}"
            ),
            other => panic!("{method}: {other:?}"),
        }
    }
}
