//! The texts of the run-time errors that name constraint rows and coordinates (issues 22 item 3
//! and 24 item 1): every row and coordinate by its name in the model, never by a bare index.
//! Each text comes from a real failure of a generated model (the A02 chain, whose rows are
//! `coupler[i]`; Haug's pendulum with a vanishing or non-finite parameter), snapshotted.

use mbsim_models::four_bar_chain::{FourBarChain, WINDOWS};
use mbsim_models::haug_pendulum::HaugPendulum;
use mbsim_runtime::{
    ConstrainedSystem, Implicit, InitOptions, Integrator, KktWorkspace, Problem, Rkstab, SimError,
    accelerations_into, initialize, integrate,
};

/// The KKT solve at every crank horizontal (θ = π): G = 2ℓ² sin θ D vanishes to round-off,
/// every row is dependent (rank 0, the path that refuses to leave every row out).
fn singular_kkt() -> SimError {
    let sys = FourBarChain::unit();
    let d = sys.dims();
    let mut ws = KktWorkspace::new(d);
    let (q, v) = (vec![std::f64::consts::PI; d.n], vec![1.0; d.n]);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    accelerations_into(
        &sys,
        0.0,
        &q,
        &v,
        None,
        &mut ws,
        0.0,
        &mut vdot,
        &mut lambda,
    )
    .expect_err("G = 0 at the horizontal position")
}

/// A run from a start off the constraints (crank 3 turned by 1e-3 rad).
fn inconsistent_start() -> SimError {
    let sys = FourBarChain::unit();
    let (mut q, v) = FourBarChain::initial(&sys);
    q[3] += 1e-3;
    let problem = Problem::new(0.0, 1.0, &q, &v);
    integrate(&sys, &Rkstab::new(1e-8), &problem).expect_err("inconsistent start")
}

/// `initialize` allowed one Gauss–Newton iteration from a start far off the constraints.
fn initialization_failed() -> SimError {
    let sys = FourBarChain::unit();
    let (mut q, v) = FourBarChain::initial(&sys);
    q[5] += 0.5;
    let opts = InitOptions {
        max_iterations: 1,
        ..InitOptions::default()
    };
    initialize(&sys, 0.0, &q, &v, &opts).expect_err("one iteration cannot get there")
}

/// Newmark started at the horizontal position: its initial KKT solve names the rows.
fn implicit_start() -> SimError {
    let sys = FourBarChain::unit();
    let q = vec![std::f64::consts::PI; WINDOWS + 1];
    let v = vec![1.0; WINDOWS + 1];
    let problem = Problem::new(0.0, 0.1, &q, &v);
    integrate(&sys, &Implicit::newmark(1e-3), &problem).expect_err("singular start")
}

#[test]
fn errors_name_constraint_rows() {
    let texts: Vec<String> = [
        ("accelerations_into at θ = π", singular_kkt()),
        ("RKSTAB from an inconsistent start", inconsistent_start()),
        ("initialize with one iteration", initialization_failed()),
        ("Newmark from θ = π", implicit_start()),
    ]
    .into_iter()
    .map(|(what, e)| format!("{what}:\n  {e}"))
    .collect();
    for text in &texts {
        assert!(!text.contains("rows: ["), "a row by index: {text}");
    }
    insta::assert_snapshot!(texts.join("\n"));
}

/// Haug's pendulum with `data` from its consistent start, over 0.1 s with `method`.
fn pendulum_run(data: HaugPendulum, method: &impl Integrator) -> SimError {
    let (q, v) = HaugPendulum::initial(&data);
    let problem = Problem::new(0.0, 0.1, &q, &v);
    integrate(&data, method, &problem).expect_err("the run fails at its start")
}

#[test]
fn errors_name_coordinates() {
    // m = J' = 0: M = 0, and at φ1 = 3π/2 ker G is (1, 0, 1)/√2, the motion without inertia
    // moves x1 and φ1 (not y1).
    let massless = HaugPendulum {
        m: 0.0,
        j: 0.0,
        ..HaugPendulum::chosen()
    };
    // J' = NaN: the entry M(φ1, φ1) is named by its coordinates; g = NaN: Q's y1 entry.
    let nan_inertia = HaugPendulum {
        j: f64::NAN,
        ..HaugPendulum::chosen()
    };
    let nan_gravity = HaugPendulum {
        g: f64::NAN,
        ..HaugPendulum::chosen()
    };
    let texts: Vec<String> = [
        (
            "RKSTAB, m = J' = 0",
            pendulum_run(massless.clone(), &Rkstab::new(1e-8)),
        ),
        (
            "Newmark, m = J' = 0",
            pendulum_run(massless, &Implicit::newmark(1e-3)),
        ),
        (
            "RKSTAB, J' = NaN",
            pendulum_run(nan_inertia, &Rkstab::new(1e-8)),
        ),
        (
            "RKSTAB, g = NaN",
            pendulum_run(nan_gravity, &Rkstab::new(1e-8)),
        ),
    ]
    .into_iter()
    .map(|(what, e)| format!("{what}:\n  {e}"))
    .collect();
    for text in &texts {
        assert!(
            !text.contains("entry") || text.contains('`'),
            "unnamed: {text}"
        );
    }
    insta::assert_snapshot!(texts.join("\n"));
}
