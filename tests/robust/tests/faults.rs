//! Fault injection at run time, through the command set (`mbsim simulate`, `mbsim sweep`) as a
//! user meets it. Each fault must give a typed error naming its cause, leave no file that looks
//! complete, and, inside a sweep, become a row while the sweep goes on.
//!
//! - a kernel returning NaN or ±∞ from a chosen call on (the [`Faulty`] wrapper), with every
//!   method → `SimError::NonFiniteKernel` naming that kernel, nothing written; likewise the
//!   bouncing ball's event function, its ∂g/∂q and a NaN restitution reaching the impulse
//!   equations (`event functions`, `event jacobian`, `impulse solution`); at one call
//!   only → the attempt is abandoned and retried at h/4 (`Stats::failed`), the run finishes
//!   with the clean run's result;
//! - a Newton iteration that cannot converge (one iteration allowed, a tolerance no iterate
//!   meets) → `SimError::NewtonDiverged` with t, h and the residual;
//! - extreme parameter values in the middle of a sweep → failed rows with their error kind,
//!   every other run finished;
//! - a full disk (the file being written is `/dev/full`) → `AppError::Io` naming the file
//!   and ENOSPC, no file under its real name; an output directory that cannot exist (its path
//!   runs through a regular file), or that vanished before the files are written.

use std::path::{Path, PathBuf};

use clap::Parser;
use mbsim::runtime::{Kernel, SimError};
use mbsim_cli::cli::{Cli, Command};
use mbsim_cli::error::AppError;
use mbsim_cli::registry::ModelEntry;
use mbsim_robust::{Fault, Faulty};

const AT: u64 = 40;

macro_rules! faulty_entry {
    ($name:literal, $kernel:expr, $value:expr) => {
        ModelEntry {
            name: $name,
            build: || {
                let inner = (mbsim_models::pendulum::ENTRY.build)();
                Box::new(Faulty::new(
                    inner,
                    Fault {
                        kernel: $kernel,
                        call: AT,
                        value: $value,
                        lasting: true,
                    },
                ))
            },
            t_end: 1.0,
            ..mbsim_models::pendulum::ENTRY
        }
    };
}

/// The bouncing ball with a lasting fault from call `$call` of `$kernel`.
macro_rules! faulty_ball {
    ($name:literal, $kernel:expr, $call:expr) => {
        ModelEntry {
            name: $name,
            build: || {
                let inner = (mbsim_models::bouncing_ball::ENTRY.build)();
                Box::new(Faulty::new(
                    inner,
                    Fault {
                        kernel: $kernel,
                        call: $call,
                        value: f64::NAN,
                        lasting: true,
                    },
                ))
            },
            t_end: 2.0,
            ..mbsim_models::bouncing_ball::ENTRY
        }
    };
}

static ENTRIES: [ModelEntry; 10] = [
    mbsim_models::pendulum::ENTRY,
    mbsim_models::andrews::ENTRY,
    faulty_entry!("force-nan", Kernel::Force, f64::NAN),
    faulty_entry!("mass-inf", Kernel::Mass, f64::INFINITY),
    faulty_entry!("gamma-nan", Kernel::Gamma, f64::NAN),
    faulty_entry!("jacobian-neg-inf", Kernel::PhiQ, f64::NEG_INFINITY),
    faulty_entry!("phi-nan", Kernel::Phi, f64::NAN),
    // g from its 40th evaluation (every method evaluates it after each step); ∂g/∂q and the
    // restitution from their first use, which is the first impact (t = 0.4515 s).
    faulty_ball!("ball-g-nan", Kernel::EventFunctions, AT),
    faulty_ball!("ball-jacobian-nan", Kernel::EventJacobian, 0),
    faulty_ball!("ball-restitution-nan", Kernel::ImpulseSolution, 0),
];

fn cli(args: &[&str]) -> Result<(), AppError> {
    mbsim_cli::registry::install(&ENTRIES);
    let argv = std::iter::once("mbsim").chain(args.iter().copied());
    match Cli::try_parse_from(argv).expect("arguments parse").command {
        Command::Simulate(a) => mbsim_cli::simulate::command(&a),
        Command::Sweep(a) => mbsim_cli::sweep::run(&a),
        _ => unreachable!("only simulate and sweep here"),
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mbsim-robust-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

const METHODS: [(&str, &[&str]); 9] = [
    ("rkstab", &[]),
    ("abm", &[]),
    ("ab", &["--h", "1e-3"]),
    ("ampc", &["--h", "1e-3"]),
    ("mampc", &["--h", "1e-3"]),
    ("newmark", &["--h", "1e-3"]),
    ("hht", &[]),
    ("generalized-alpha", &[]),
    ("radau", &[]),
];

fn simulate(model: &str, method: &str, extra: &[&str], out: &Path) -> Result<(), AppError> {
    let out = out.to_str().expect("a UTF-8 path");
    let mut args = vec![
        "simulate",
        model,
        "--method",
        method,
        "--out",
        out,
        "--no-plots",
    ];
    args.extend(extra);
    cli(&args)
}

#[test]
fn a_non_finite_kernel_is_named_by_every_method() {
    let faults = [
        ("force-nan", Kernel::Force),
        ("mass-inf", Kernel::Mass),
        ("gamma-nan", Kernel::Gamma),
        ("jacobian-neg-inf", Kernel::PhiQ),
    ];
    let mut wrong = Vec::new();
    for (model, kernel) in faults {
        for (method, extra) in METHODS {
            let out = scratch(&format!("{model}-{method}"));
            let verdict = simulate(model, method, extra, &out);
            match &verdict {
                Err(AppError::Sim(SimError::NonFiniteKernel { kernel: k, t, .. }))
                    if *k == kernel && t.is_finite() => {}
                other => wrong.push(format!("{model} with {method}: {other:?}")),
            }
            assert!(
                !out.join("trajectory.csv").exists() && !out.join("summary.json").exists(),
                "{model} {method}: files written"
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "not a NonFiniteKernel naming the kernel:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn a_transient_fault_is_retried_and_counted() {
    use mbsim::runtime::{Problem, Rkstab, integrate};
    let (q, v) = ([1.0, 0.0], [0.0, 0.0]);
    let problem = Problem::new(0.0, 1.0, &q, &v);
    let clean = (mbsim_models::pendulum::ENTRY.build)();
    let (_, want) = integrate(clean.as_ref(), &Rkstab::new(1e-8), &problem).expect("clean run");
    // (call 1 is the starting step-size estimate's evaluation, not a step attempt: a NaN
    // there ends the run with NonFiniteKernel, as the test above checks for lasting faults)
    for call in [5, 40, 200] {
        let inner = (mbsim_models::pendulum::ENTRY.build)();
        let fault = Fault {
            kernel: Kernel::Force,
            call,
            value: f64::NAN,
            lasting: false,
        };
        let sys = Faulty::new(inner, fault);
        let (_, got) = integrate(&sys, &Rkstab::new(1e-8), &problem).expect("the retry absorbs it");
        assert!(
            sys.fired() && got.stats.failed >= 1,
            "call {call}: fault unseen: {}",
            got.stats
        );
        // The retried step is shorter, so the runs differ by the tolerance's order, no more.
        mbsim_testkit::compare("q(1) after a transient NaN", &got.q, &want.q, 1e-6);
    }
}

#[test]
fn a_non_finite_constraint_residual_is_named() {
    // Φ is evaluated by the drift measurement and the projections, not by every method's step:
    // the methods whose drift control reads it must name it.
    for (method, extra) in [("rkstab", &[][..]), ("ab", &["--h", "1e-3"][..])] {
        let out = scratch(&format!("phi-{method}"));
        match simulate("phi-nan", method, extra, &out) {
            Err(AppError::Sim(SimError::NonFiniteKernel {
                kernel: Kernel::Phi,
                ..
            })) => {}
            other => panic!("{method}: {other:?}"),
        }
    }
}

#[test]
fn a_newton_that_cannot_converge_is_a_typed_error() {
    use mbsim::runtime::{Implicit, InitOptions, Problem, initialize, integrate};
    // Newmark on Andrews' mechanism with one Newton iteration allowed and a tolerance no first
    // iterate meets: every attempt fails, the driver's h/4 retries too, and the run ends with
    // the Newton failure (t, h, iterations, residual), not a panic or a NaN.
    let sys = (mbsim_models::andrews::ENTRY.build)();
    let (q0, v0) = (mbsim_models::andrews::ENTRY.initial)(sys.as_ref());
    let init =
        initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("consistent");
    let mut method = Implicit::newmark(1e-4);
    method.newton.max_iterations = 1;
    method.newton.tol = 1e-14;
    let problem = Problem::new(0.0, 0.01, &init.q, &init.v);
    match integrate(sys.as_ref(), &method, &problem) {
        Err(SimError::NewtonDiverged {
            t,
            h,
            iterations,
            residual,
            ..
        }) => {
            assert!(
                t.is_finite() && h > 0.0 && iterations == 1 && residual.is_finite(),
                "t {t}, h {h}, {iterations}"
            );
        }
        other => panic!("{:?}", other.map(|r| r.1.stats)),
    }
}

fn rows(path: &Path) -> Vec<csv::StringRecord> {
    let mut r = csv::Reader::from_path(path).expect("sweep.csv");
    r.records().map(|x| x.expect("a row")).collect()
}

#[test]
fn a_sweep_records_extreme_parameters_as_failed_rows_and_goes_on() {
    // The spring constant of Andrews' mechanism from 1e-3 to 1e297 (log grid of 7): the
    // stiffest runs cannot be integrated at max 2 000 steps, the rest finish.
    let out = scratch("extreme");
    cli(&[
        "sweep",
        "andrews",
        "--grid",
        "c0=1e-3:1e297:7:log",
        "--t-end",
        "0.003",
        "--max-steps",
        "2000",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ])
    .expect("the sweep itself succeeds");
    let rows = rows(&out.join("sweep.csv"));
    assert_eq!(rows.len(), 7, "one row per run");
    let failed: Vec<&csv::StringRecord> = rows.iter().filter(|r| &r[1] == "failed").collect();
    assert!(!failed.is_empty() && failed.len() < rows.len(), "{rows:?}");
    let header = csv::Reader::from_path(out.join("sweep.csv"))
        .unwrap()
        .headers()
        .unwrap()
        .clone();
    let kind = header.iter().position(|h| h == "error_kind").unwrap();
    for r in &failed {
        assert!(!r[kind].is_empty(), "failure without a kind: {r:?}");
    }
    // the run after the first failure still ran
    let first = rows.iter().position(|r| &r[1] == "failed").unwrap();
    assert!(
        rows[first..].iter().any(|r| &r[1] == "ok") || rows[..first].iter().any(|r| &r[1] == "ok")
    );
    assert!(!out.join("sweep.csv.partial").exists());
}

#[test]
fn a_sweep_records_injected_faults_as_rows() {
    let out = scratch("sweep-fault");
    cli(&[
        "sweep",
        "force-nan",
        "--grid",
        "len=0.5:2:4",
        "--t-end",
        "0.5",
        "--threads",
        "1",
        "--out",
        out.to_str().unwrap(),
    ])
    .expect("the sweep itself succeeds");
    let rows = rows(&out.join("sweep.csv"));
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter()
            .all(|r| &r[1] == "failed" && r.iter().any(|f| f == "NonFiniteKernel")),
        "{rows:?}"
    );
}

#[test]
fn a_full_disk_is_a_typed_error_and_leaves_no_file_under_the_real_name() {
    let out = scratch("full");
    std::fs::create_dir_all(&out).unwrap();
    // Every write to the file being written fails with ENOSPC, as on a full disk.
    std::os::unix::fs::symlink("/dev/full", out.join("trajectory.csv.partial")).unwrap();
    std::fs::write(out.join("summary.json"), "{\"stale\": true}\n").unwrap();
    let verdict = simulate("pendulum", "rkstab", &["--t-end", "0.5"], &out);
    match &verdict {
        Err(AppError::Io { path, source }) => {
            assert!(path.ends_with("trajectory.csv"), "{path:?}");
            assert_eq!(source.raw_os_error(), Some(28), "{source}");
        }
        other => panic!("{other:?}"),
    }
    assert!(
        !out.join("trajectory.csv").exists(),
        "a partial trajectory under the real name"
    );
    assert!(
        !out.join("trajectory.csv.partial").exists(),
        "the partial file is removed"
    );
    // the stale summary of an earlier run is left as it was, not paired with new data
    assert_eq!(
        std::fs::read_to_string(out.join("summary.json")).unwrap(),
        "{\"stale\": true}\n"
    );

    let sweep_out = scratch("full-sweep");
    std::fs::create_dir_all(&sweep_out).unwrap();
    std::os::unix::fs::symlink("/dev/full", sweep_out.join("sweep.csv.partial")).unwrap();
    let verdict = cli(&[
        "sweep",
        "pendulum",
        "--grid",
        "len=0.5:2:3",
        "--t-end",
        "0.2",
        "--threads",
        "1",
        "--out",
        sweep_out.to_str().unwrap(),
    ]);
    assert!(
        matches!(&verdict, Err(AppError::Io { path, .. }) if path.ends_with("sweep.csv")),
        "{verdict:?}"
    );
    assert!(!sweep_out.join("sweep.csv").exists() && !sweep_out.join("sweep.json").exists());
}

#[test]
fn an_output_directory_that_cannot_exist_is_a_typed_error() {
    let base = scratch("not-a-dir");
    std::fs::create_dir_all(&base).unwrap();
    let file = base.join("a-file");
    std::fs::write(&file, "x").unwrap();
    let verdict = simulate("pendulum", "rkstab", &["--t-end", "0.2"], &file.join("out"));
    match &verdict {
        Err(AppError::Io { path, source }) => {
            assert!(path.starts_with(&file), "{path:?}");
            assert_eq!(source.raw_os_error(), Some(20), "ENOTDIR: {source}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_output_directory_that_vanished_is_made_again() {
    // The files are written once the run is done: a directory removed before is recreated and
    // the files are complete.
    let out = scratch("vanished");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&out).unwrap();
    simulate("pendulum", "rkstab", &["--t-end", "0.2"], &out).expect("the run");
    let text = std::fs::read_to_string(out.join("trajectory.csv")).unwrap();
    assert!(text.lines().count() > 2 && out.join("summary.json").exists());
}

#[test]
fn a_non_finite_event_function_or_impulse_is_named_by_every_method() {
    let faults = [
        ("ball-g-nan", Kernel::EventFunctions),
        ("ball-jacobian-nan", Kernel::EventJacobian),
        ("ball-restitution-nan", Kernel::ImpulseSolution),
    ];
    let mut wrong = Vec::new();
    for (model, kernel) in faults {
        for (method, extra) in METHODS {
            let out = scratch(&format!("{model}-{method}"));
            match &simulate(model, method, extra, &out) {
                Err(AppError::Sim(SimError::NonFiniteKernel { kernel: k, t, .. }))
                    if *k == kernel && t.is_finite() => {}
                other => wrong.push(format!("{model} with {method}: {other:?}")),
            }
            assert!(
                !out.join("summary.json").exists(),
                "{model} {method}: files written"
            );
        }
    }
    assert!(
        wrong.is_empty(),
        "not a NonFiniteKernel naming the event kernel:\n{}",
        wrong.join("\n")
    );
    // The message names it, with the time of the first impact for the impulse.
    let out = scratch("ball-restitution-text");
    let text = simulate("ball-restitution-nan", "rkstab", &[], &out)
        .expect_err("fails")
        .to_string();
    assert!(
        text.contains("kernel `impulse solution` returned a non-finite value")
            && text.contains("t = 4.515"),
        "{text}"
    );
}
