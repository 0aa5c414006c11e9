//! Bad input and numerical failure of the implicit methods: every one a typed [`SimError`]
//! with t, h, the iteration count, the residual and a diagnosis — never a panic.

use crate::common;
use crate::implicit_models;

use common::Sys;
use implicit_models::{BlowUp, Me451, NegativeSpring};
use mbsim_runtime::{
    CommonOptions, Implicit, NewtonDiagnosis, NewtonOptions, Problem, Scheme, SimError,
    SingularBlock, Stabilization, StepSize, integrate,
};

fn pendulum_problem(t_end: f64) -> (Sys<Me451>, Problem) {
    let (q0, v0) = Me451::PUBLISHED.initial();
    (Sys(Me451::PUBLISHED), Problem::new(0.0, t_end, &q0, &v0))
}

/// The option named in an [`SimError::InvalidOption`], or a panic with the error.
fn invalid_option(result: Result<impl Sized, SimError>) -> &'static str {
    match result {
        Err(SimError::InvalidOption { option, .. }) => option,
        Err(e) => panic!("expected InvalidOption, got {e}"),
        Ok(_) => panic!("expected InvalidOption, the run succeeded"),
    }
}

#[test]
fn parameters_outside_their_ranges_are_invalid_options() {
    let (sys, problem) = pendulum_problem(0.1);
    let cases = [
        (Scheme::Hht { alpha: 0.1 }, "hht.alpha"),
        (Scheme::Hht { alpha: -0.5 }, "hht.alpha"),
        (Scheme::Hht { alpha: f64::NAN }, "hht.alpha"),
        (
            Scheme::GeneralizedAlpha { rho_inf: 1.5 },
            "generalized_alpha.rho_inf",
        ),
        (
            Scheme::GeneralizedAlpha { rho_inf: -0.1 },
            "generalized_alpha.rho_inf",
        ),
        (
            Scheme::Newmark {
                beta: 0.0,
                gamma: 0.5,
            },
            "newmark.beta",
        ),
        (
            Scheme::Newmark {
                beta: 0.25,
                gamma: 0.4,
            },
            "newmark.gamma",
        ),
    ];
    for (scheme, option) in cases {
        let method = Implicit::new(scheme, StepSize::Fixed(0.01));
        assert_eq!(invalid_option(integrate(&sys, &method, &problem)), option);
        assert_eq!(
            invalid_option(method.integrate_exact(&sys, &problem)),
            option
        );
    }
    let newton = |n: NewtonOptions| Implicit::newmark(0.01).with_newton(n);
    let base = NewtonOptions::default();
    let bad_newton = [
        (NewtonOptions { tol: 1e-16, ..base }, "newton.tol"),
        (
            NewtonOptions {
                max_iterations: 0,
                ..base
            },
            "newton.max_iterations",
        ),
        (
            NewtonOptions {
                max_rate: 1.0,
                ..base
            },
            "newton.max_rate",
        ),
    ];
    for (options, option) in bad_newton {
        assert_eq!(
            invalid_option(integrate(&sys, &newton(options), &problem)),
            option
        );
    }
    // (A step that does not divide the span, newmark(0.03) on [0, 0.1], is no longer refused:
    // the run ends with a shorter step, issue 24; `short_last_step.rs`.)
    let cases = [
        (Implicit::newmark(-0.01), "h"),
        (Implicit::hht(-0.1, 0.0), "rtol"),
        (
            Implicit::newmark(0.01).with_stabilization(Stabilization::Baumgarte(
                mbsim_runtime::Baumgarte {
                    alpha: 1.0,
                    beta: 1.0,
                },
            )),
            "stabilization",
        ),
    ];
    for (method, option) in cases {
        assert_eq!(invalid_option(integrate(&sys, &method, &problem)), option);
    }
}

#[test]
fn newton_at_its_iteration_limit_is_a_typed_failure() {
    let (sys, problem) = pendulum_problem(1.0);
    // One iteration can never pass the test (the test needs a correction below the tolerance
    // *after* a correction was made); no halving (max_failed_attempts = 0).
    let newton = NewtonOptions {
        max_iterations: 1,
        ..NewtonOptions::default()
    };
    let mut method = Implicit::newmark(0.01).with_newton(newton);
    method.common = CommonOptions {
        max_failed_attempts: 0,
        ..method.common
    };
    match method.integrate_exact(&sys, &problem) {
        Err(SimError::NewtonDiverged {
            t,
            h,
            iterations,
            residual,
            correction,
            diagnosis: NewtonDiagnosis::IterationLimit { .. },
        }) => {
            println!(
                "t {t} h {h} iterations {iterations} residual {residual:e} correction {correction:e}"
            );
            assert_eq!((t, h, iterations), (0.01, 0.01, 1));
            assert!(residual.is_finite() && correction > 1.0);
        }
        other => panic!("expected NewtonDiverged at the iteration limit, got {other:?}"),
    }
}

#[test]
fn a_failed_constant_step_is_redone_in_substeps() {
    // h = 1/2 makes the iteration matrix 1 − βh²κ exactly singular (β = 1/4, κ = 16); two
    // substeps of 1/4 give 1 − 1/4 · 1/16 · 16 = 3/4.
    let sys = Sys(NegativeSpring { kappa: 16.0 });
    let problem = Problem::new(0.0, 1.0, &[1e-3], &[0.0]);
    let scheme = Scheme::Newmark {
        beta: 0.25,
        gamma: 0.5,
    };
    let method = Implicit::new(scheme, StepSize::Fixed(0.5));
    let (_, sol) = method
        .integrate_exact(&sys, &problem)
        .expect("substeps rescue the step");
    assert_eq!(
        sol.stats.extra.get("substeps"),
        Some(2),
        "one extra substep per step"
    );
    // Without substeps: the singular matrix itself, with the block to blame.
    let mut strict = method.clone();
    strict.common.max_failed_attempts = 0;
    match strict.integrate_exact(&sys, &problem) {
        Err(SimError::SingularIterationMatrix {
            t,
            h,
            iteration,
            block,
            ..
        }) => {
            assert_eq!((t, h, iteration), (0.5, 0.5, 0));
            assert!(
                matches!(&block, SingularBlock::MassOnKernel { coordinates } if !coordinates.is_empty()),
                "{block:?}"
            );
        }
        other => panic!("expected SingularIterationMatrix, got {other:?}"),
    }
}

#[test]
fn a_blow_up_ends_in_a_typed_failure_near_the_singularity() {
    let sys = Sys(BlowUp);
    let problem = Problem::new(0.0, 2.0, &[1.0], &[1.0]);
    let method = Implicit::hht(-0.1, 1e-6);
    let result = integrate(&sys, &method, &problem);
    let t = match &result {
        Err(SimError::StepSizeUnderflow { t, .. }) => *t,
        Err(SimError::NewtonDiverged { t, .. }) => *t,
        Err(SimError::NonFiniteKernel { t, .. }) => *t,
        other => panic!("expected a typed failure near t = 1, got {other:?}"),
    };
    println!("blow-up: {}", result.unwrap_err());
    assert!(
        (0.95..=1.0).contains(&t),
        "failure at t = {t}, the solution blows up at 1"
    );
}
