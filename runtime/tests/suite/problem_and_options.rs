//! Bad input to the integrator layer is a typed error before any step, never a panic, a NaN or
//! a silent `Ok`: options out of their domain, malformed problems, inconsistent initial
//! states. Also what the layer promises besides: backward integration, projected samples,
//! the step-attempt limit and its message.

use crate::common;

use common::models::{Andrews, Pendulum};
use common::{Sys, assert_below, assert_close, simulate};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    ConsistencyCheck, FixedStep, Integrator, OutputGrid, Problem, Rkstab, SampleKind, SimError,
    Stabilization, Tolerance, integrate,
};

fn pendulum_problem() -> Problem {
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    Problem::new(0.0, 1.0, &q0, &v0).with_uniform_output(0.1)
}

fn error_of<I: Integrator>(method: &I, problem: &Problem) -> SimError {
    integrate(&Sys(Pendulum::UNIT), method, problem).expect_err("must be rejected")
}

/// The option named in an `InvalidOption`.
fn invalid_option(err: &SimError) -> &'static str {
    match err {
        SimError::InvalidOption { option, .. } => option,
        other => panic!("expected InvalidOption, got {other:?}"),
    }
}

#[test]
fn options_out_of_their_domain_are_rejected_up_front() {
    let p = pendulum_problem();
    let with = |f: fn(&mut Rkstab)| {
        let mut m = Rkstab::new(1e-6);
        f(&mut m);
        invalid_option(&error_of(&m, &p))
    };
    // One line per case: the mutation and the option the error names.
    type Case = (fn(&mut Rkstab), &'static str);
    let cases: [Case; 11] = [
        (|m| m.rtol = Tolerance::Scalar(-1e-6), "rtol"),
        (|m| m.rtol = Tolerance::Scalar(0.0), "rtol"),
        (|m| m.rtol = Tolerance::Scalar(f64::NAN), "rtol"),
        (|m| m.atol = Tolerance::Scalar(0.0), "atol"),
        (|m| m.atol = Tolerance::PerComponent(vec![1e-7; 3]), "atol"),
        (|m| m.step_control.h_init = Some(0.0), "step_control.h_init"),
        (|m| m.step_control.h_max = -1.0, "step_control.h_max"),
        (|m| m.step_control.safety = 1.5, "step_control.safety"),
        (|m| m.common.datol = f64::NAN, "datol"),
        (|m| m.common.max_steps = 0, "max_steps"),
        (
            |m| m.common.consistency = ConsistencyCheck::Tolerance(-1.0),
            "consistency",
        ),
    ];
    for (mutate, option) in cases {
        assert_eq!(with(mutate), option);
    }
    // h = 0.3 on [0, 1] is no longer refused: three steps and a shorter one of 0.1 (issue 24).
    let fixed = FixedStep::new(RK4, 0.3);
    let (rec, solution) = integrate(&Sys(Pendulum::UNIT), &fixed, &p).expect("runs");
    assert_eq!((solution.stats.nstep, solution.t), (4, 1.0));
    assert_eq!(rec.t.last(), Some(&1.0));
    let fixed = FixedStep::new(RK4, 0.0);
    assert_eq!(invalid_option(&error_of(&fixed, &p)), "h");
}

#[test]
fn malformed_problems_are_rejected_up_front() {
    let m = Rkstab::new(1e-6);
    let base = pendulum_problem();
    let cases: [(Problem, &str); 5] = [
        (
            Problem {
                output: OutputGrid::Times(vec![0.5, 1.5]),
                ..base.clone()
            },
            "outside the span",
        ),
        (
            Problem {
                output: OutputGrid::Times(vec![0.5, 0.2]),
                ..base.clone()
            },
            "ordered in the direction",
        ),
        (
            Problem {
                q0: vec![1.0],
                ..base.clone()
            },
            "q0 has 1 entries",
        ),
        (
            Problem {
                t_end: f64::INFINITY,
                ..base.clone()
            },
            "must be finite",
        ),
        (
            Problem {
                output: OutputGrid::Uniform(0.0),
                ..base.clone()
            },
            "output spacing",
        ),
    ];
    for (problem, says) in cases {
        match error_of(&m, &problem) {
            SimError::InvalidProblem { what } => assert!(what.contains(says), "{what}"),
            other => panic!("expected InvalidProblem ({says}), got {other:?}"),
        }
    }
}

#[test]
fn an_inconsistent_start_names_the_rows_and_points_to_initialize() {
    // 1e-6 off the constraint: without the check this used to end in a step-size underflow
    // at t = 0 (the first step's correction is far above the tolerance).
    let (mut q0, v0) = Pendulum::UNIT.at_rest(1.0);
    q0[0] += 1e-6;
    let problem = Problem::new(0.0, 1.0, &q0, &v0);
    let err = error_of(&Rkstab::new(1e-9), &problem);
    match &err {
        SimError::InconsistentInitialState {
            position_rows,
            velocity_rows,
            tolerance,
            ..
        } => {
            assert_eq!(position_rows.len(), 1);
            assert_eq!(position_rows[0].row, 0);
            assert_eq!(position_rows[0].name, "phi_1");
            assert!(velocity_rows.is_empty(), "{velocity_rows:?}");
            assert_eq!(*tolerance, 1e-10, "Auto: the smallest atol");
        }
        other => panic!("expected InconsistentInitialState, got {other:?}"),
    }
    assert!(err.to_string().contains("initialize"), "{err}");
    // The check can be relaxed or switched off for a deliberate start off the manifold.
    let mut m = Rkstab::new(1e-6);
    m.common.consistency = ConsistencyCheck::Off;
    integrate(&Sys(Pendulum::UNIT), &m, &problem).expect("runs with the check off");
}

#[test]
fn backward_integration_returns_to_the_start() {
    let sys = Sys(Pendulum::UNIT);
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let m = Rkstab::new(1e-10);
    let forward = Problem::new(0.0, 1.3, &q0, &v0);
    let (_, there) = integrate(&sys, &m, &forward).unwrap();
    let back = Problem::new(1.3, 0.0, &there.q, &there.v).with_uniform_output(0.25);
    let (rec, home) = integrate(&sys, &m, &back).unwrap();
    // Two runs at rtol 1e-10 over ~0.6 periods: global errors ≲ 1e-9 each (conformance).
    assert_close("q back at t0", &home.q, &q0, 1e-8, 0.0);
    assert_close("v back at t0", &home.v, &v0, 1e-8, 0.0);
    // Samples every 0.25 backward from 1.3, and exactly at the end: 1.3, 1.05, …, 0.05, 0.
    assert_eq!(rec.t.len(), 7, "{:?}", rec.t);
    assert!(rec.t.windows(2).all(|w| w[1] < w[0]), "{:?}", rec.t);
    assert_eq!((rec.t[0], rec.t[6]), (1.3, 0.0));
    // The same with constant steps.
    let fixed = FixedStep::new(RK4, 1e-3);
    let (_, there) = integrate(&sys, &fixed, &forward).unwrap();
    let (_, home) = integrate(&sys, &fixed, &Problem::new(1.3, 0.0, &there.q, &there.v)).unwrap();
    assert_close("RK4 q back at t0", &home.q, &q0, 1e-9, 0.0);
}

#[test]
fn projected_samples_hold_the_constraints_to_the_step_accuracy() {
    // Andrews at rtol 1e-6: dense-output samples between the steps carry a drift of the size
    // of the local error (measured ‖Φ̇‖ = 7.7e-6, ‖Φ‖ = 4.3e-9), the stabilized step points
    // round-off (1.4e-14, 3.8e-17); projected samples are as good as the step points
    // (measured 6.9e-14, 4.5e-17): bound 10× the step points' drift.
    let sys = Sys(Andrews);
    let problem = Problem::new(0.0, 0.03, &Andrews::Q0, &[0.0; 7]).with_uniform_output(1e-4);
    let mut m = Rkstab::new(1e-6);
    let (raw, end) = integrate(&sys, &m, &problem).unwrap();
    m.common.samples = SampleKind::Projected;
    let (projected, end_p) = integrate(&sys, &m, &problem).unwrap();
    let (r, p) = (raw.max_drift(), projected.max_drift());
    eprintln!(
        "interpolated samples {r:?}, projected {p:?}, steps {:?}",
        end.stats.max_drift
    );
    assert!(
        r.velocity > 1e-7,
        "interpolated samples show their drift: {r:?}"
    );
    let steps = end.stats.max_drift;
    assert_below(
        "projected position drift",
        p.position,
        10.0 * steps.position.max(1e-13),
    );
    assert_below(
        "projected velocity drift",
        p.velocity,
        10.0 * steps.velocity.max(1e-13),
    );
    // The integration itself is untouched.
    assert_eq!(end.q, end_p.q);
    assert_eq!(end.stats.nfcn, end_p.stats.nfcn);
}

#[test]
fn the_step_limit_names_the_option_to_change() {
    let mut m = Rkstab::new(1e-8);
    m.common.max_steps = 10;
    let err = error_of(&m, &pendulum_problem());
    assert!(
        matches!(err, SimError::TooManySteps { max_steps: 10, .. }),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("CommonOptions::max_steps"),
        "{err}"
    );
}

#[test]
fn the_default_step_limit_lets_a_long_run_finish() {
    // 2000 s of pendulum at rtol 1e-9 stopped at t = 1117 with the old limit of 100 000.
    // Release-profile scale: ~1.6e5 steps, a fraction of a second.
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let m = Rkstab::new(1e-9).with_stabilization(Stabilization::PStab);
    let (_, stats) = simulate(&Sys(Pendulum::UNIT), &m, 0.0, &q0, &v0, 2000.0, &[]).unwrap();
    assert!(stats.naccpt > 100_000, "{stats}");
}
