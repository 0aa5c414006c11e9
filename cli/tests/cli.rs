//! The `mbsim` binary end to end (std::process::Command on the built binary): `list`,
//! `kernels`, a short `simulate` with its files, and bad arguments, which must give a clear
//! message and a non-zero exit status, never a panic.

use std::path::PathBuf;
use std::process::{Command, Output};

fn mbsim(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mbsim"))
        .args(args)
        .output()
        .expect("mbsim runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh scratch directory under the target directory (no temp-dir crate needed).
fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn list_shows_every_model_and_its_source() {
    let out = mbsim(&["list"]);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    for name in [
        "andrews",
        "pendulum",
        "two-arm-robot",
        "two-link-case2",
        "slider-crank-tsda",
        "rolling-disc",
        "crank-slider-wu",
        "me451-pendulum",
        "haug-pendulum",
    ] {
        assert!(
            stdout.contains(name),
            "`mbsim list` lacks {name}:\n{stdout}"
        );
    }
    assert!(stdout.contains("source: [CHIN]"), "{stdout}");
}

#[test]
fn kernels_prints_the_generated_code() {
    let out = mbsim(&["kernels", "pendulum"]);
    assert!(out.status.success());
    assert!(text(&out.stdout).contains("impl ::mbsim::__private::ConstrainedSystem for Pendulum"));
}

#[test]
fn simulate_writes_csv_summary_and_plots() {
    let dir = scratch("simulate_pendulum");
    let dir_s = dir.to_str().expect("utf-8 path");
    let out = mbsim(&[
        "simulate", "pendulum", "--t-end", "1.005", "--dt-out", "0.01", "--param", "len=2",
        "--out", dir_s,
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let csv = std::fs::read_to_string(dir.join("trajectory.csv")).expect("trajectory.csv");
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("t,x,y,x_dot,y_dot,lambda_1,phi_norm,phidot_norm")
    );
    let rows: Vec<&str> = lines.collect();
    // 0, 0.01, …, 1.00 (101 rows) and exactly t_end = 1.005.
    assert_eq!(rows.len(), 102, "rows");
    let last_t: f64 = rows[101]
        .split(',')
        .next()
        .and_then(|t| t.parse().ok())
        .expect("t");
    assert_eq!(last_t, 1.005);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(summary["model"], "pendulum");
    assert_eq!(summary["method"], "rkstab");
    assert_eq!(summary["stabilization"], "pstab");
    assert_eq!(summary["parameters"]["len"], 2.0);
    for key in [
        "NFCN",
        "NSTEP",
        "NACCP",
        "NREJCT",
        "NSTAB",
        "cpu_seconds",
        "wall_seconds",
        "stabilization_wall_seconds",
        "max_drift_position",
        "max_drift_velocity",
        "rtol",
        "atol",
        "datol",
    ] {
        assert!(!summary[key].is_null(), "summary lacks {key}");
    }
    assert!(summary["max_drift_position"].as_f64().expect("number") <= 1e-10);
    // The conditioning monitor: the pendulum's KKT matrix [m I (x, y)ᵀ; (x, y) 0] at |(x, y)| = 2
    // has pivots m and ~|x|²/m, so the spread is a few units — far from the warning's 1e8.
    let spread = summary["pivot_spread_max"].as_f64().expect("spread");
    assert!((1.0..1e3).contains(&spread), "spread {spread}");
    assert!(text(&out.stdout).contains("pivot spread of the constraint solve: worst"));
    for png in ["coordinates.png", "drift.png"] {
        let bytes = std::fs::read(dir.join(png)).expect("plot written");
        assert_eq!(&bytes[..4], b"\x89PNG", "{png} is a PNG");
    }
}

#[test]
fn bad_arguments_fail_cleanly() {
    let cases: [(&[&str], &str); 18] = [
        (
            &["simulate", "nosuch", "--out", "x"],
            "unknown model `nosuch`",
        ),
        (
            &["simulate", "pendulum", "--method", "magic", "--out", "x"],
            "invalid value 'magic'",
        ),
        (
            &["simulate", "pendulum", "--param", "mass=2", "--out", "x"],
            "no runtime parameter `mass`",
        ),
        (
            &["simulate", "pendulum", "--param", "m", "--out", "x"],
            "expected NAME=VALUE",
        ),
        (
            &["simulate", "pendulum", "--t-end", "0", "--out", "x"],
            "invalid --t-end",
        ),
        (
            &["simulate", "pendulum", "--t-end", "-1", "--out", "x"],
            "invalid --t-end",
        ),
        (
            &["simulate", "pendulum", "--rtol", "-1e-6", "--out", "x"],
            "invalid --rtol",
        ),
        (&["kernels", "nosuch"], "unknown model"),
        (
            &["simulate", "pendulum", "--method", "ampc", "--out", "x"],
            "needs a step size",
        ),
        (
            &[
                "simulate", "pendulum", "--method", "mampc", "--h", "0.01", "--order", "13",
                "--out", "x",
            ],
            "order of an Adams method must be in 1..=12",
        ),
        (
            &[
                "simulate", "pendulum", "--method", "abm", "--h", "0.01", "--out", "x",
            ],
            "only the constant-step Adams methods",
        ),
        (
            &[
                "simulate", "pendulum", "--method", "rkstab", "--order", "3", "--out", "x",
            ],
            "fixed order",
        ),
        (
            &["simulate", "pendulum", "--alpha", "3", "--out", "x"],
            "Baumgarte gains need --stabilization baumgarte",
        ),
        (
            &["simulate", "pendulum", "--gamma", "3", "--out", "x"],
            "the gain of the continuous stabilizations",
        ),
        (
            &[
                "simulate",
                "pendulum",
                "--stabilization",
                "continuous-ggt",
                "--gamma",
                "-1",
                "--out",
                "x",
            ],
            "must be finite and not negative",
        ),
        (
            &[
                "simulate",
                "pendulum",
                "--method",
                "newmark",
                "--h",
                "0.01",
                "--stabilization",
                "continuous-two-step",
                "--out",
                "x",
            ],
            "an index-3 method never uses",
        ),
        (
            &[
                "simulate",
                "pendulum",
                "--newton-tol",
                "1e-10",
                "--out",
                "x",
            ],
            "only gcp and hybrid use Newton",
        ),
        (
            &[
                "simulate",
                "pendulum",
                "--stabilization",
                "gcp",
                "--newton-tol",
                "-1",
                "--out",
                "x",
            ],
            "newton_tolerance",
        ),
    ];
    for (args, message) in cases {
        let out = mbsim(args);
        let stderr = text(&out.stderr);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(
            stderr.contains(message),
            "{args:?}: stderr lacks {message:?}:\n{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{args:?} panicked:\n{stderr}");
    }
    let out = mbsim(&["simulate", "pendulum", "--atol", "-1", "--out", "x"]);
    assert!(!out.status.success() && text(&out.stderr).contains("invalid --atol"));
    let out = mbsim(&["repro", "9.9"]);
    assert!(!out.status.success() && text(&out.stderr).contains("unknown table `9.9`"));
}

/// The methods from the command line: the variable-order ABM with PStab and with GCP (its first
/// partition reported by name), MAMPC_3 with Baumgarte (Wu's setting), generalized-α at
/// constant step and HHT with error control and modified Newton (both without stabilization by
/// default), and RKSTAB with Chin's two-step continuous stabilization, run the pendulum and
/// report their method in the summary.
#[test]
fn adams_methods_run_from_the_command_line() {
    for (name, args, stabilization) in [
        ("abm", &["--method", "abm", "--rtol", "1e-8"][..], "pstab"),
        (
            "abm",
            &[
                "--method",
                "abm",
                "--rtol",
                "1e-8",
                "--stabilization",
                "gcp",
            ][..],
            "gcp",
        ),
        (
            "mampc",
            &[
                "--method",
                "mampc",
                "--h",
                "0.01",
                "--order",
                "3",
                "--stabilization",
                "baumgarte",
                "--alpha",
                "5",
                "--beta",
                "5",
            ][..],
            "baumgarte",
        ),
        (
            "rkstab",
            &["--stabilization", "continuous-two-step", "--gamma", "20"][..],
            "continuous-two-step",
        ),
    ] {
        let dir = scratch(&format!("adams-{name}-{stabilization}"));
        let dir_s = dir.to_str().expect("utf-8 path");
        let mut all = vec![
            "simulate",
            "pendulum",
            "--t-end",
            "1",
            "--no-plots",
            "--out",
            dir_s,
        ];
        all.extend_from_slice(args);
        let out = mbsim(&all);
        assert!(out.status.success(), "{name}: {}", text(&out.stderr));
        let summary: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("summary.json")).expect("summary"),
        )
        .expect("json");
        assert_eq!(summary["method"], name);
        assert_eq!(summary["stabilization"], stabilization);
        assert!(summary["NFCN"].as_u64().expect("NFCN") > 0);
        if stabilization == "gcp" {
            // The first partition is reported with the independent coordinates by name.
            let first = &summary["partitions"][0];
            assert_eq!(first["reason"], "initial", "{summary}");
            assert_eq!(
                first["new_independent"].as_array().map(Vec::len),
                Some(1),
                "{summary}"
            );
        }
    }
}

#[test]
fn simulate_writes_the_events_of_an_event_model() {
    let dir = scratch("simulate_bouncing_ball");
    let dir_s = dir.to_str().expect("utf-8 path");
    let out = mbsim(&[
        "simulate",
        "bouncing-ball",
        "--t-end",
        "5",
        "--dt-out",
        "0.01",
        "--no-plots",
        "--out",
        dir_s,
    ]);
    assert!(out.status.success(), "stderr: {}", text(&out.stderr));
    let events = std::fs::read_to_string(dir.join("events.csv")).expect("events.csv");
    let mut lines = events.lines();
    assert_eq!(
        lines.next(),
        Some("t,name,kind,y_before,y_dot_before,y_after,y_dot_after")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    // Dropped from 1 m above contact: the first impact at √(2/g), rebounds at e = 0.8 until the
    // impacts accumulate and the ball rests (the last event closes the contact).
    let t1: f64 = rows[0][0].parse().expect("t");
    assert!(
        (t1 - (2.0_f64 / 9.81).sqrt()).abs() < 1e-9,
        "first impact at {t1}"
    );
    assert_eq!(rows[0][1], "floor");
    assert_eq!(rows[0][2], "impact");
    let (before, after): (f64, f64) = (rows[0][4].parse().unwrap(), rows[0][6].parse().unwrap());
    assert!(
        (after + 0.8 * before).abs() < 1e-12 * before.abs(),
        "{before} -> {after}"
    );
    assert_eq!(rows.last().expect("events")[2], "contact");
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).expect("summary"))
            .expect("json");
    assert_eq!(summary["event_count"].as_u64(), Some(rows.len() as u64));
    assert_eq!(summary["events"][0]["kind"], "impact");
    assert!(
        text(&out.stdout).contains("events: "),
        "{}",
        text(&out.stdout)
    );
}
