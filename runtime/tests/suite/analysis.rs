//! The analysis modes on hand-written models (`runtime/src/analysis/`): the diagnosis of a
//! duplicated constraint, kinematic analysis of a driven model whose Jacobian vanishes at
//! t = 1 (closed form q = t − 1), the naming of that singular configuration by the integrators'
//! run loop, the damped view used for settling, and the options' validation.

use crate::common;

use common::models::{Broken, Defect, Pendulum};
use common::{Model, Sys, assert_close, assert_within};
use mbsim_runtime::analysis::{self, Damped, KinematicOptions, SettlingOptions};
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    ConstrainedSystem, Dims, FixedStep, Integrator, MatOut, Problem, Recorder, Rkstab, SimError,
};

/// One coordinate driven by Φ = q³ − (t − 1)³: q = t − 1, v = 1, a = 0, but Φ_q = 3 q²
/// vanishes at t = 1 (a singular configuration the motion passes smoothly). M = 1, Q = 0.
struct CubicDrive;

impl Model for CubicDrive {
    fn name(&self) -> &'static str {
        "CubicDrive"
    }
    fn dims(&self) -> Dims {
        Dims { n: 1, m: 1, k: 0 }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        out[0] = q[0].powi(3) - (t - 1.0).powi(3);
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 3.0 * q[0] * q[0];
    }
    fn phi_t(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        out[0] = -3.0 * (t - 1.0).powi(2);
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        out[0] = -6.0 * q[0] * v[0] * v[0] + 6.0 * (t - 1.0);
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 6.0 * q[0] * v[0];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = 1.0;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
}

#[test]
fn a_duplicated_constraint_is_redundant_by_name_with_coefficient_one() {
    let sys = Sys(Broken(Defect::RedundantConstraint));
    let (q, _) = Pendulum::UNIT.at_rest(0.5);
    let d = analysis::check(&sys, 0.0, &q).unwrap();
    assert_eq!((d.n, d.m, d.k, d.jacobian.rank, d.dof), (2, 2, 0, 1, 1));
    let r = &d.jacobian.redundant[0];
    assert_eq!((r.row.row, r.row.name.as_str()), (1, "phi_2"));
    assert_eq!(r.combination.len(), 1);
    assert_eq!(
        (r.combination[0].0, r.combination[0].1.as_str()),
        (0, "phi_1")
    );
    // Identical rows: the least-squares coefficient is 1 up to a few ε.
    assert_close(
        "coefficient",
        &[r.combination[0].2],
        &[1.0],
        4.0 * f64::EPSILON,
        0.0,
    );
    assert!(
        d.kinematic_advice().contains("redundant rows phi_2"),
        "{}",
        d.kinematic_advice()
    );
}

#[test]
fn kinematics_of_the_cubic_drive_follows_the_closed_form_up_to_the_singular_point() {
    let sys = Sys(CubicDrive);
    let times: Vec<f64> = (0..=9).map(|i| 0.1 * i as f64).collect();
    let kin = analysis::kinematics(&sys, &times, &[-1.0], &KinematicOptions::default()).unwrap();
    for p in &kin.points {
        // Newton's ‖Φ‖ ≤ 1e-12 with Φ_q = 3 q² ≥ 0.03 (t ≤ 0.9) bounds |δq| by 4e-11;
        // v = −Φ_t/Φ_q and a = γ/Φ_q inherit it amplified by 1/|q| ≤ 10: 1e-9 covers both.
        assert_close(&format!("q({})", p.t), &p.q, &[p.t - 1.0], 1e-9, 0.0);
        assert_close(&format!("v({})", p.t), &p.v, &[1.0], 1e-9, 0.0);
        assert_close(&format!("a({})", p.t), &p.a, &[0.0], 1e-8, 0.0);
    }
    // At t = 1 exactly Φ_q = 0: the first point is rejected up front by the rank check.
    let err = analysis::kinematics(&sys, &[1.0], &[0.0], &KinematicOptions::default());
    assert!(
        matches!(err, Err(SimError::NotAnalyzable { rank: 0, .. })),
        "{err:?}"
    );
}

fn cubic_run<I: Integrator>(method: &I) -> Result<f64, SimError> {
    let problem = Problem::new(0.0, 2.0, &[-1.0], &[1.0]);
    let sol = method.integrate_into(&Sys(CubicDrive), &problem, &mut Recorder::default())?;
    Ok(sol.t)
}

#[test]
fn the_run_loop_names_the_singular_configuration_a_step_lands_on() {
    // RK4 with h = 0.1 or 0.05 puts a step point exactly on t = 1, where [M Gᵀ; G 0] is
    // singular (the pieces a failed step is redone in end there too, `fixed_step.rs`): the
    // singular KKT matrix after t0 becomes a SingularConfiguration naming `phi_1`, with
    // the condition at the last accepted state (t = 0.9 or 0.95: a few 1e3, growing like
    // 1/(1 − t)⁴ since Φ_q = 3 (t − 1)²).
    for (h, lo) in [(0.1, 1e3), (0.05, 1e4)] {
        let result = cubic_run(&FixedStep::new(RK4, h));
        match result {
            Err(SimError::SingularConfiguration {
                t, condition, rows, ..
            }) => {
                assert_eq!(t, 1.0, "h = {h}");
                assert_within(&format!("h = {h}: condition"), condition, lo, 100.0 * lo);
                assert_eq!(rows[0].name, "phi_1", "h = {h}");
            }
            other => panic!("h = {h}: expected SingularConfiguration, got {other:?}"),
        }
    }
    // Adaptive steps never land on t = 1 here and pass it smoothly (q = t − 1 is smooth): no
    // error to name. (The four-bar's change point, where they do fail, is in
    // `cli/tests/analysis.rs`.)
    for rtol in [1e-8, 1e-12] {
        assert_eq!(cubic_run(&Rkstab::new(rtol)), Ok(2.0), "rtol {rtol}");
    }
}

#[test]
fn a_well_conditioned_underflow_is_not_blamed_on_a_singular_configuration() {
    // The pole at t = 1 of the broken particle (no constraints): a bare underflow stays one.
    let sys = Sys(Broken(Defect::Blowup));
    let (q, v) = Pendulum::UNIT.at_rest(0.5);
    let problem = Problem::new(0.0, 2.0, &q, &v);
    let method = Rkstab::new(1e-6).with_stabilization(mbsim_runtime::Stabilization::None);
    let err = method
        .integrate_into(&sys, &problem, &mut Recorder::default())
        .unwrap_err();
    assert!(matches!(err, SimError::StepSizeUnderflow { .. }), "{err:?}");
}

#[test]
fn the_damped_view_subtracts_c_v_from_the_force_only() {
    let sys = Sys(Pendulum::UNIT);
    let damped = Damped {
        inner: &sys,
        c: 0.7,
    };
    let (q, v) = ([0.6, -0.8], [0.8, 0.6]);
    let (mut f, mut fd) = ([0.0; 2], [0.0; 2]);
    sys.force_into(0.0, &q, &v, &mut f);
    damped.force_into(0.0, &q, &v, &mut fd);
    let want = [f[0] - 0.7 * v[0], f[1] - 0.7 * v[1]];
    assert_close("damped force", &fd, &want, 0.0, 0.0);
    assert_eq!(damped.constraint_names(), sys.constraint_names());
}

#[test]
fn invalid_analysis_options_are_rejected_before_any_kernel_call() {
    let sys = Sys(CubicDrive);
    let bad = KinematicOptions {
        tol: -1.0,
        ..KinematicOptions::default()
    };
    let err = analysis::kinematics(&sys, &[0.0], &[-1.0], &bad).unwrap_err();
    assert!(matches!(
        err,
        SimError::InvalidOption {
            option: "KinematicOptions::tol",
            ..
        }
    ));
    let bad = SettlingOptions {
        damping: 0.0,
        ..SettlingOptions::default()
    };
    let err = analysis::settle(&sys, &[-1.0], &bad).unwrap_err();
    assert!(matches!(
        err,
        SimError::InvalidOption {
            option: "SettlingOptions::damping",
            ..
        }
    ));
}
