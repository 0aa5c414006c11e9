//! Fast per-model checks of the models added for the `mbsim` command (run in CI):
//! 1. the macro-generated kernels against the `codegen` interpreter evaluating the same derived
//!    expressions (rebuilt from the annotated source), at seeded random states and parameters;
//! 2. a short RKSTAB/PStab simulation from the registry's consistent start keeps the drift at
//!    every stabilized step ≤ 1e-10;
//! 3. model-specific cross-checks: the printed two-arm robot equals the Lagrangian two-link
//!    model; Haug's pendulum DAE equals its reduced ODE (P16, hard).

use mbsim_codegen::{Model, frontend};
use mbsim_models::{HaugPendulum, TwoArmRobot};
use mbsim_runtime::catalog::{self, ModelEntry};
use mbsim_runtime::{ConstrainedSystem, InitOptions, Problem, Rkstab};
use mbsim_tests::support::{Rng, check_kernels, compare};
use nalgebra::DMatrix;

/// (registry name, annotated source, struct name) of every model this file covers.
const MODELS: [(&str, &str, &str); 20] = [
    ("andrews", include_str!("../../src/andrews.rs"), "Andrews"),
    (
        "four-bar-chain",
        include_str!("../../src/four_bar_chain.rs"),
        "FourBarChain",
    ),
    (
        "four-bar-chain-bodies",
        include_str!("../../src/four_bar_chain_bodies.rs"),
        "FourBarChainBodies",
    ),
    (
        "two-arm-robot",
        include_str!("../../src/two_arm_robot.rs"),
        "TwoArmRobot",
    ),
    (
        "two-link-case2",
        include_str!("../../src/two_link_case2.rs"),
        "TwoLinkCase2",
    ),
    (
        "slider-crank-tsda",
        include_str!("../../src/slider_crank_tsda.rs"),
        "SliderCrankTsda",
    ),
    (
        "singular-slider-crank",
        include_str!("../../src/singular_slider_crank.rs"),
        "SingularSliderCrank",
    ),
    (
        "slider-crank-reformulated",
        include_str!("../../src/slider_crank_reformulated.rs"),
        "SliderCrankReformulated",
    ),
    (
        "crank-slider-wu",
        include_str!("../../src/crank_slider_wu.rs"),
        "CrankSliderWu",
    ),
    (
        "me451-pendulum",
        include_str!("../../src/me451_pendulum.rs"),
        "Me451Pendulum",
    ),
    (
        "haug-pendulum",
        include_str!("../../src/haug_pendulum.rs"),
        "HaugPendulum",
    ),
    (
        "pendulum",
        include_str!("../../src/pendulum.rs"),
        "Pendulum",
    ),
    (
        "rolling-disc",
        include_str!("../../src/rolling_disc.rs"),
        "RollingDisc",
    ),
    (
        "heavy-top",
        include_str!("../../src/heavy_top.rs"),
        "HeavyTop",
    ),
    (
        "spatial-double-pendulum",
        include_str!("../../src/spatial_double_pendulum.rs"),
        "SpatialDoublePendulum",
    ),
    (
        "spatial-slider-crank",
        include_str!("../../src/spatial_slider_crank.rs"),
        "SpatialSliderCrank",
    ),
    (
        "flyball-governor",
        include_str!("../../src/flyball_governor.rs"),
        "FlyballGovernor",
    ),
    (
        "serial-arm",
        include_str!("../../src/serial_arm.rs"),
        "SerialArm",
    ),
    (
        "bricard-points",
        include_str!("../../src/bricard_points.rs"),
        "BricardPoints",
    ),
    (
        "parallelogram-lock",
        include_str!("../../src/parallelogram_lock.rs"),
        "ParallelogramLock",
    ),
];

fn model_from_source(source: &str, name: &str) -> Model {
    let found = frontend::file::models_in_source(source).expect("the model file parses");
    found
        .into_iter()
        .find(|m| m.name == name)
        .expect("the model is in its file")
        .build()
        .expect("valid model")
}

/// The registry model's kernels against the interpreter on the model rebuilt from its source
/// (shared harness; parameters are set by name).
fn check_registry_kernels(registry_name: &str, source: &str, struct_name: &str, seed: u64) {
    let model = model_from_source(source, struct_name);
    let info = catalog::find(mbsim_models::catalog(), registry_name).expect("registered");
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let make = |p: &[f64]| {
        let mut sys = (info.build)();
        for (name, &value) in names.iter().zip(p) {
            sys.set_parameter(name, value)
                .expect("the registry model has the source's parameters");
        }
        sys
    };
    check_kernels(model, make, seed, 3, |_| {});
}

#[test]
fn generated_kernels_match_the_interpreter() {
    for (i, (name, source, struct_name)) in MODELS.iter().enumerate() {
        check_registry_kernels(name, source, struct_name, 100 + i as u64);
    }
}

/// Every registry model: 0.2 s (Andrews: 0.01 s, ~20 % of a crank turn) of PStab at rtol 1e-8
/// from its consistent start. PStab's drift after a step is O(h^{2(p+1)}) on top of the round-off
/// of one projection, ~ε · cond · |q|, so 1e-10 has orders of margin; a missing Φ_t, a wrong Φ_q
/// or a broken projection shows up as drift ≥ 1e-8 (the local error).
#[test]
fn short_pstab_runs_keep_the_drift_below_1e_10() {
    let failures: Vec<String> = mbsim_models::catalog()
        .iter()
        .filter_map(|info| short_run(info).err())
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One model's short run; every model runs even when another fails, so one report names all.
fn short_run(info: &ModelEntry) -> Result<(), String> {
    let sys = (info.build)();
    let (q0, v0) = (info.initial)(sys.as_ref());
    let init = mbsim_runtime::initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default())
        .map_err(|e| format!("{}: initialization: {e}", info.name))?;
    let t_end = if info.name == "andrews" { 0.01 } else { 0.2 };
    // The layer measures the drift at every accepted (stabilized) step point.
    let problem = Problem::new(0.0, t_end, &init.q, &init.v).with_times(&[0.0, t_end]);
    let (rec, end) = mbsim_runtime::integrate(sys.as_ref(), &Rkstab::new(1e-8), &problem)
        .map_err(|e| format!("{}: {e}", info.name))?;
    let (d, stats) = (end.stats.max_drift, end.stats);
    println!(
        "{}: NSTEP {}, max |phi| {:.2e}, max |phi_dot| {:.2e}",
        info.name, stats.nstep, d.position, d.velocity
    );
    if d.position > 1e-10 || d.velocity > 1e-10 {
        return Err(format!(
            "{}: max |phi| {:e}, max |phi_dot| {:e}, tolerance 1e-10",
            info.name, d.position, d.velocity
        ));
    }
    if rec.t.last().copied() != Some(t_end) {
        return Err(format!("{}: no sample exactly at t_end", info.name));
    }
    Ok(())
}

/// The thesis' printed M and f (TwoArmRobot) equal the Lagrangian derivation (TwoLink) at random
/// states: both are the same polynomial in sin/cos evaluated in different orders, so they agree
/// to rounding, 1e-12 relative to the largest entry.
#[test]
fn printed_two_arm_robot_equals_lagrangian_two_link() {
    let (printed, lagrangian) = (TwoArmRobot::published(), TwoArmRobot::two_link());
    let mut rng = Rng::new(7);
    for _ in 0..10 {
        let q: Vec<f64> = (0..2).map(|_| rng.uniform(-3.0, 3.0)).collect();
        let v: Vec<f64> = (0..2).map(|_| rng.uniform(-3.0, 3.0)).collect();
        let (mut m1, mut m2) = (DMatrix::zeros(2, 2), DMatrix::zeros(2, 2));
        printed.mass_into(0.0, &q, m1.as_view_mut());
        lagrangian.mass_into(0.0, &q, m2.as_view_mut());
        compare("mass", m1.as_slice(), m2.as_slice(), 1e-12);
        let (mut f1, mut f2) = ([0.0; 2], [0.0; 2]);
        printed.force_into(0.0, &q, &v, &mut f1);
        lagrangian.force_into(0.0, &q, &v, &mut f2);
        compare("force", &f1, &f2, 1e-12);
        let (mut p1, mut p2) = ([0.0; 1], [0.0; 1]);
        printed.phi_into(0.0, &q, &mut p1);
        lagrangian.phi_into(0.0, &q, &mut p2);
        compare("phi", &p1, &p2, 1e-12);
    }
}

/// \[HAUG\] Example 7.2.1/7.3.1 (digest P16, hard): the DAE and the reduced ODE
/// (J' + m) φ̈ = −m g cos φ give the same φ1(t). The ODE is integrated with classical RK4 at
/// h = 1e-3 (global error ~ h⁴ · T · |φ⁽⁵⁾| ≈ 1e-12 · 2 · 1e3 ≈ 1e-9 on [0, 2]); the DAE with RKSTAB
/// at rtol = 1e-11 (global error ~1e-10). 1e-7 leaves two orders of margin.
#[test]
fn haug_pendulum_dae_equals_the_reduced_ode() {
    let sys = HaugPendulum::chosen();
    let (q0, v0) = HaugPendulum::initial(&sys);
    let t_end = 2.0;
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_times(&[t_end]);
    let (rec, _) =
        mbsim_runtime::integrate(&sys, &Rkstab::new(1e-11), &problem).expect("integrates");
    let accel = |phi: f64| -sys.m * sys.g * phi.cos() / (sys.j + sys.m);
    let (mut s, mut r, h) = (q0[2], v0[2], 1e-3);
    for _ in 0..2000 {
        let (k1s, k1r) = (r, accel(s));
        let (k2s, k2r) = (r + 0.5 * h * k1r, accel(s + 0.5 * h * k1s));
        let (k3s, k3r) = (r + 0.5 * h * k2r, accel(s + 0.5 * h * k2s));
        let (k4s, k4r) = (r + h * k3r, accel(s + h * k3s));
        s += h / 6.0 * (k1s + 2.0 * k2s + 2.0 * k3s + k4s);
        r += h / 6.0 * (k1r + 2.0 * k2r + 2.0 * k3r + k4r);
    }
    compare("phi1(2)", &[rec.q[0][2], rec.v[0][2]], &[s, r], 1e-7);
}
