//! Every failure kind of [`SimError`] provoked by a model built to cause it, and asserted as a
//! value (never a panic).

use crate::common;

use common::models::{Broken, Defect, Pendulum};
use common::{Sys, assert_within, simulate};
use mbsim_runtime::error::SingularBlock;
use mbsim_runtime::system::{Dims, MatOut};
use mbsim_runtime::tableau::{HEUN, RK4};
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, FixedStep, InitOptions, Integrator, Kernel,
    Rkstab, SimError, Stabilization, initialize,
};

fn run<I: Integrator>(
    defect: Defect,
    opts: I,
    t_end: f64,
) -> Result<mbsim_runtime::Stats, SimError> {
    let (q0, v0) = Pendulum::UNIT.at_rest(0.5);
    simulate(&Sys(Broken(defect)), &opts, 0.0, &q0, &v0, t_end, &[]).map(|(_, s)| s)
}

/// The pendulum's rod given twice (rank 1 of 2): no longer a failure. Every method leaves the
/// later copy out (`Stats::redundancy`, at t0 for the explicit ones) and keeps it satisfied.
#[test]
fn redundant_constraints_are_left_out_and_stay_satisfied() {
    let stats = run(Defect::RedundantConstraint, Rkstab::new(1e-6), 1.0).expect("runs");
    assert_eq!(stats.redundancy.len(), 1, "{:?}", stats.redundancy);
    assert_eq!(
        (stats.redundancy[0].t, &stats.redundancy[0].left_out[..]),
        (0.0, &[1][..])
    );
    // Kept satisfied through its copy: the residual of row 1 at the steps is PStab's.
    assert!(
        stats.redundant_drift.max() < 1e-10,
        "{:?}",
        stats.redundant_drift
    );
    // The fixed-step driver does the same.
    let sys = Sys(Broken(Defect::RedundantConstraint));
    let (q, v) = Pendulum::UNIT.at_rest(0.5);
    let opts = FixedStep::new(HEUN, 0.1).with_stabilization(Stabilization::PStab);
    let (_, stats) = simulate(&sys, &opts, 0.0, &q, &v, 1.0, &[]).expect("runs");
    assert_eq!(stats.redundancy[0].left_out, vec![1]);
}

/// Two lines crossing at the origin, Φ = y² − x² = 0, a point moving along y = x: G = 2(−x, y)
/// vanishes at the origin, where the mechanism could take either line (a singular position,
/// not redundancy: every row is dependent there).
struct CrossingLines;

impl common::Model for CrossingLines {
    fn name(&self) -> &'static str {
        "crossing-lines"
    }
    fn dims(&self) -> Dims {
        Dims { n: 2, m: 1, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = q[1] * q[1] - q[0] * q[0];
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = -2.0 * q[0];
        out[(0, 1)] = 2.0 * q[1];
    }
    fn gamma(&self, _t: f64, _q: &[f64], v: &[f64], out: &mut [f64]) {
        // −(Φ_q v)_q v = 2 ẋ² − 2 ẏ².
        out[0] = 2.0 * v[0] * v[0] - 2.0 * v[1] * v[1];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
        out[(1, 1)] = 1.0;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out.fill(0.0);
    }
}

/// A constant step one of whose stages lands on the singular position is redone in unequal
/// pieces inside the same grid step. RK4 with h = 1 from (−1/2, −1/2) at unit speed: its
/// second stage, z0 + (h/2) k1, is the origin exactly, where the KKT matrix is singular. The
/// pieces 0.4 and 0.6 put no stage there and end on the exact motion (uniform, q̈ = 0).
#[test]
fn a_constant_step_whose_stage_meets_a_singular_position_is_redone_in_pieces() {
    let sys = Sys(CrossingLines);
    let (q0, v0) = ([-0.5, -0.5], [1.0, 1.0]);
    let rk4 = FixedStep::new(RK4, 1.0).with_stabilization(Stabilization::PStab);
    let (_, stats) = simulate(&sys, &rk4, 0.0, &q0, &v0, 2.0, &[]).expect("the pieces pass");
    assert_eq!(stats.nstep, 2, "two grid steps");
    assert_eq!(stats.extra.get("substeps"), Some(1), "one extra piece");
    let problem = mbsim_runtime::Problem::new(0.0, 2.0, &q0, &v0);
    let (_, end) = mbsim_runtime::integrate(&sys, &rk4, &problem).expect("runs");
    for (got, want) in end.q.iter().zip([1.5, 1.5]) {
        assert_within("q(2) on the line y = x", *got, want - 1e-14, want + 1e-14);
    }
    // Without the pieces: the singular configuration at the stage, t = 0.5, its row named.
    let mut strict = rk4.clone();
    strict.common.max_failed_attempts = 0;
    match simulate(&sys, &strict, 0.0, &q0, &v0, 2.0, &[]) {
        Err(SimError::SingularConfiguration { t, h, rows, .. }) => {
            assert_eq!((t, h, rows[0].name.as_str()), (0.5, 1.0, "phi_1"));
        }
        other => panic!("expected a singular configuration at the middle stage, got {other:?}"),
    }
}

#[test]
fn vanishing_mass_mid_run_is_a_singular_kkt_with_full_rank_jacobian() {
    // No retries: the first stage past t = 0.5 fails. G = (x, y) has full rank, so the
    // dependent-row list is empty (M is not positive definite on ker G: Lemma 4.1 fails).
    let mut opts = Rkstab::new(1e-6);
    opts.common.max_failed_attempts = 0;
    match run(Defect::MassVanishes { from: 0.5 }, opts, 1.0).unwrap_err() {
        SimError::SingularKkt {
            t,
            h,
            block,
            dependent_rows,
        } => {
            // ker G is the pendulum's tangent (−y, x). Released at 0.5 rad, the unit pendulum
            // (quarter period ≈ 0.5 s) is near the bottom at t = 0.5, where the tangent is
            // horizontal: the motion without inertia moves x alone (|y| < a tenth of |x|).
            let SingularBlock::MassOnKernel { coordinates } = block else {
                panic!("expected MassOnKernel, got {block:?}")
            };
            let moved: Vec<&str> = coordinates.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(moved, vec!["q[0]"], "{coordinates:?}");
            assert!(dependent_rows.is_empty(), "{dependent_rows:?}");
            assert_within("failure time", t, 0.5, 0.5 + h);
        }
        e => panic!("expected SingularKkt, got {e:?}"),
    }
    // With the default retries (h/4 each) the step in front of t = 0.5 keeps failing until
    // the retries run out; the error is still the singular matrix.
    let err = run(Defect::MassVanishes { from: 0.5 }, Rkstab::new(1e-6), 1.0).unwrap_err();
    assert!(
        matches!(err, SimError::SingularKkt { t, .. } if t >= 0.5),
        "{err:?}"
    );
}

#[test]
fn non_finite_kernel_outputs_name_kernel_entry_and_state() {
    let err = run(Defect::NanForce { from: 0.0 }, Rkstab::new(1e-6), 1.0).unwrap_err();
    let (q0, v0) = Pendulum::UNIT.at_rest(0.5);
    assert_eq!(
        err,
        SimError::NonFiniteKernel {
            kernel: Kernel::Force,
            entry: 1,
            at: "q[1]".to_string(),
            t: 0.0,
            q: q0,
            v: v0
        }
    );
    assert!(err.to_string().contains("kernel `force`"), "{err}");
    let mut opts = Rkstab::new(1e-6);
    opts.common.max_failed_attempts = 0;
    match run(Defect::InfiniteGamma { from: 0.3 }, opts, 1.0).unwrap_err() {
        SimError::NonFiniteKernel {
            kernel,
            entry,
            at,
            t,
            q,
            v,
        } => {
            assert_eq!((kernel, entry, q.len(), v.len()), (Kernel::Gamma, 0, 2, 2));
            assert_eq!(at, "`phi_1`");
            assert!(t >= 0.3, "t = {t}");
        }
        e => panic!("expected NonFiniteKernel, got {e:?}"),
    }
}

#[test]
fn a_pole_in_the_solution_is_a_step_size_underflow() {
    // ẍ = 1/(1 − t)³ from rest: x = 1/(2(1 − t)) − … blows up at t = 1, the controller shrinks
    // h geometrically until 0.1 h ≤ ε t.
    let err = run(
        Defect::Blowup,
        Rkstab::new(1e-6).with_stabilization(Stabilization::None),
        2.0,
    )
    .unwrap_err();
    match err {
        SimError::StepSizeUnderflow { t, h, cause } => {
            // The steps shrink over accepted steps toward the pole, and at the last t a single
            // attempt is rejected: one (h, estimate) shows no trend with h, so the cause is
            // Unknown (it had read "Unresolved" from that one attempt compared with itself).
            assert_eq!(cause, mbsim_runtime::UnderflowCause::Unknown);
            assert_within("underflow time", t, 0.99, 1.0);
            assert!(0.1 * h <= t * f64::EPSILON, "h = {h:e}");
        }
        e => panic!("expected StepSizeUnderflow, got {e:?}"),
    }
}

/// The classification from the first and last rejected attempt (h, error) at one time.
#[test]
fn underflow_causes_follow_the_estimates() {
    use mbsim_runtime::UnderflowCause as C;
    let cause = |first, last| C::from_rejections(Some((first, last)));
    assert_eq!(C::from_rejections(None), C::Unknown);
    let (first, last) = ((1e-3, 5.0), (1e-6, 2.0)); // fell 2.5× while h fell 1000×
    assert_eq!(cause(first, last), C::Stagnant { first, last });
    let (first, last) = ((1e-3, 5.0), (1e-6, 6e-3)); // fell a little slower than h
    assert_eq!(cause(first, last), C::Stagnant { first, last });
    let (first, last) = ((1e-3, 5.0), (1e-6, 2.0e-9)); // fell like h^3
    assert_eq!(cause(first, last), C::Unresolved { first, last });
    // One rejected attempt (first = last), or two at one h: no trend with h to read.
    assert_eq!(cause((6.02e-17, 35.4), (6.02e-17, 35.4)), C::Unknown);
    assert_eq!(cause((6.02e-17, 35.4), (6.02e-17, 1e-9)), C::Unknown);
    let message = SimError::StepSizeUnderflow {
        t: 1.0,
        h: 1e-17,
        cause: cause((1e-3, 5.0), (1e-6, 2.0)),
    }
    .to_string();
    assert!(
        message.contains("measures noise, not truncation"),
        "{message}"
    );
}

/// Every cause's message is one line of single spaces (the format strings continue their
/// lines with `\`, so no newline or indentation of the source leaks into the text).
#[test]
fn underflow_messages_have_no_runs_of_spaces() {
    use mbsim_runtime::UnderflowCause as C;
    let (first, last) = ((1e-3, 5.0), (1e-6, 2.0e-9));
    for cause in [
        C::Unknown,
        C::Unresolved { first, last },
        C::Stagnant { first, last },
        C::Crawl {
            attempts: 100_000,
            advanced: 1.6e-8,
        },
    ] {
        let message = SimError::StepSizeUnderflow {
            t: 1.0,
            h: 1e-17,
            cause,
        }
        .to_string();
        assert!(
            !message.contains("  ") && !message.contains('\n'),
            "{message:?}"
        );
    }
}

#[test]
fn exceeding_max_steps_is_too_many_steps() {
    let mut opts = Rkstab::new(1e-8);
    opts.common.max_steps = 10;
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let err = simulate(&Sys(Pendulum::UNIT), &opts, 0.0, &q0, &v0, 10.0, &[]).unwrap_err();
    match err {
        SimError::TooManySteps { t, max_steps } => {
            assert_eq!(max_steps, 10);
            assert_within("time reached", t, 1e-6, 10.0);
        }
        e => panic!("expected TooManySteps, got {e:?}"),
    }
}

#[test]
fn an_unreachable_constraint_is_an_initialization_failure() {
    // x locked at 2ℓ: x² + y² = ℓ² has no real solution, Gauss–Newton on y cannot converge.
    let opts = InitOptions {
        locked: vec![0],
        ..InitOptions::default()
    };
    let err = initialize(&Sys(Pendulum::UNIT), 0.0, &[2.0, -0.7], &[0.0, 0.0], &opts).unwrap_err();
    match err {
        SimError::InitializationFailed {
            residual,
            iterations,
            ..
        } => {
            assert_eq!(iterations, opts.max_iterations);
            // |Φ| = |x² + y² − 1|/2 ≥ 3/2 for x = 2.
            assert!(residual >= 1.5, "residual {residual}");
        }
        e => panic!("expected InitializationFailed, got {e:?}"),
    }
}

/// The Adams methods fail the same way: a non-finite force at the first evaluation, a mass
/// that vanishes mid-run (singular KKT matrix, after the ABM's h/4 retries), a pole in the
/// solution (the ABM's step size underflows in front of it).
#[test]
fn adams_methods_fail_with_typed_errors() {
    let mampc = Adams::new(
        AdamsScheme::new(AdamsKind::Mampc, 4, AdamsStart::RungeKutta),
        0.01,
    );
    for err in [
        run(Defect::NanForce { from: 0.0 }, Abm::new(1e-6), 1.0).unwrap_err(),
        run(Defect::NanForce { from: 0.0 }, mampc.clone(), 1.0).unwrap_err(),
    ] {
        assert!(
            matches!(err, SimError::NonFiniteKernel { kernel: Kernel::Force, t, .. } if t == 0.0),
            "{err:?}"
        );
    }
    for err in [
        run(Defect::MassVanishes { from: 0.5 }, Abm::new(1e-6), 1.0).unwrap_err(),
        run(Defect::MassVanishes { from: 0.5 }, mampc, 1.0).unwrap_err(),
    ] {
        assert!(
            matches!(err, SimError::SingularKkt { t, block: SingularBlock::MassOnKernel { .. }, .. } if t >= 0.5),
            "{err:?}"
        );
    }
    let abm = Abm::new(1e-6).with_stabilization(Stabilization::None);
    match run(Defect::Blowup, abm, 2.0).unwrap_err() {
        SimError::StepSizeUnderflow { t, .. } => assert_within("underflow time", t, 0.99, 1.0),
        e => panic!("expected StepSizeUnderflow, got {e:?}"),
    }
}

/// Bad input to the public entry points is a typed error, never a panic (issue 24): q0 or v0
/// of the wrong length, a locked index out of range, a state of the wrong length for `check`,
/// `kinematics`.
#[test]
fn wrong_lengths_are_typed_errors() {
    let sys = Sys(Pendulum::UNIT);
    let opts = InitOptions::default();
    let cases = [
        initialize(&sys, 0.0, &[1.0], &[0.0, 0.0], &opts).map(|_| ()),
        initialize(&sys, 0.0, &[1.0, 0.0], &[0.0], &opts).map(|_| ()),
        initialize(
            &sys,
            0.0,
            &[1.0, 0.0],
            &[0.0, 0.0],
            &InitOptions {
                locked: vec![7],
                ..InitOptions::default()
            },
        )
        .map(|_| ()),
        mbsim_runtime::analysis::check(&sys, 0.0, &[1.0, 0.0, 0.0]).map(|_| ()),
        mbsim_runtime::analysis::kinematics(&sys, &[0.0], &[1.0], &Default::default()).map(|_| ()),
    ];
    let texts: Vec<String> = cases
        .into_iter()
        .map(|r| match r {
            Err(SimError::InvalidProblem { what }) => what,
            other => panic!("expected InvalidProblem, got {other:?}"),
        })
        .collect();
    assert_eq!(
        texts,
        [
            "initialize: q0 has length 1, the model needs 2",
            "initialize: v0 has length 1, the model needs 2",
            "initialize: locked coordinate index 7 out of range (n = 2)",
            "check: q has length 3, the model needs 2",
            "kinematics: q_guess has length 1, the model needs 2",
        ]
    );
}
