//! What a new user hit (issue 24), end to end on the `mbsim` binary: `check` at a chosen state
//! (`--q`, `--at TIME --from DIR`) and the near-singular warning naming a command that works;
//! honest timings (thread CPU and wall, `--repeat`); `--output final`; a step size that does
//! not divide the span; sweeps on log axes with the energy error and user columns; curves at
//! round-off drawn as zero; a value given with `--q`/`--v` kept by the consistent
//! initialization (released with a warning when the constraints forbid it). Error texts are
//! insta snapshots.

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

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ux-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn summary(dir: &std::path::Path) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join("summary.json")).expect("summary.json");
    serde_json::from_str(&text).expect("json")
}

/// The error line of a failed command, with the scratch directory's path made stable.
fn error_text(out: &Output) -> String {
    assert!(!out.status.success());
    let tmp = env!("CARGO_TARGET_TMPDIR");
    text(&out.stderr).replace(tmp, "<tmp>")
}

#[test]
fn check_examines_given_coordinates() {
    let stdout = ok(&mbsim(&["check", "pendulum", "--q", "y=-0.8"]));
    assert!(
        stdout.contains("state: the consistent state nearest the given coordinates"),
        "{stdout}"
    );
    // y kept at -0.8 on the unit circle: x = 0.6 (from the guess's x = 1).
    let json = ok(&mbsim(&["check", "pendulum", "--q", "y=-0.8", "--json"]));
    let value: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(value["q"][1], -0.8);
    assert!(
        (value["q"][0].as_f64().expect("x") - 0.6).abs() < 1e-12,
        "{value}"
    );
    // A coordinate the constraints cannot keep (x = 0.6 with y = 0 of the guess: the row's
    // gradient in y vanishes): examined where it is, and said so.
    let stdout = ok(&mbsim(&["check", "pendulum", "--q", "x=0.6"]));
    assert!(stdout.contains("q = [0.6, 0.0]"), "{stdout}");
    assert!(
        stdout.contains("state: the given coordinates as is"),
        "{stdout}"
    );
}

#[test]
fn check_examines_a_time_of_a_previous_run() {
    let dir = scratch("check-from");
    let d = dir.to_str().expect("utf-8 path");
    ok(&mbsim(&[
        "simulate",
        "pendulum",
        "--t-end",
        "1",
        "--dt-out",
        "0.1",
        "--param",
        "len=2",
        "--no-plots",
        "--out",
        d,
    ]));
    let stdout = ok(&mbsim(&["check", "pendulum", "--at", "0.52", "--from", d]));
    assert!(stdout.contains("row t = 0.5 of"), "{stdout}");
    assert!(
        stdout.contains("(nearest --at 0.52), as recorded"),
        "{stdout}"
    );
    // The run's parameter len = 2 is applied: the recorded state is on the circle of radius 2,
    // so |phi| is at the integration's accuracy, not O(1).
    let json = ok(&mbsim(&[
        "check", "pendulum", "--at", "0.5", "--from", d, "--json",
    ]));
    let value: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert!(value["phi_norm"].as_f64().expect("phi") < 1e-8, "{value}");
    assert_eq!(value["t"], 0.5);
}

#[test]
fn check_state_errors_are_clear() {
    let dir = scratch("check-missing");
    let d = dir.to_str().expect("utf-8 path");
    let missing = mbsim(&["check", "pendulum", "--at", "0.5", "--from", d]);
    insta::assert_snapshot!("check_from_missing_run", error_text(&missing));
    let unknown = mbsim(&["check", "pendulum", "--q", "z=1"]);
    insta::assert_snapshot!("check_unknown_coordinate", error_text(&unknown));
    let without_from = mbsim(&["check", "pendulum", "--at", "0.5"]);
    assert_eq!(without_from.status.code(), Some(2));
    insta::assert_snapshot!("check_at_without_from", error_text(&without_from));
    // A run of another model.
    let other = scratch("check-other");
    let o = other.to_str().expect("utf-8 path");
    ok(&mbsim(&[
        "simulate",
        "spring-bar",
        "--t-end",
        "0.1",
        "--no-plots",
        "--out",
        o,
    ]));
    let wrong = mbsim(&["check", "pendulum", "--at", "0", "--from", o]);
    insta::assert_snapshot!("check_from_other_model", error_text(&wrong));
}

/// The singular slider-crank near its singular point (Radau): the warning names a `check`
/// command, and that command, run as printed, diagnoses the state there.
#[test]
fn near_singular_warning_names_a_command_that_works() {
    let dir = scratch("singular");
    let d = dir.to_str().expect("utf-8 path");
    // Radau at constant h = 1e-3 lands a step near the singular point at t ≈ 1.038 (measured
    // pivot spread 1.14e8). The adaptive run at rtol 1e-8 used to (3.8e11 at t ≈ 0.206), until
    // Radau's stalled Newton solves were retried with fresh tangents: its worst is now 7.6e5.
    let stdout = ok(&mbsim(&[
        "simulate",
        "singular-slider-crank",
        "--t-end",
        "1.5",
        "--method",
        "radau",
        "--h",
        "1e-3",
        "--no-plots",
        "--out",
        d,
    ]));
    let line = stdout
        .lines()
        .skip_while(|l| !l.starts_with("warning: near-singular configuration"))
        .nth(1)
        .unwrap_or_else(|| panic!("no near-singular warning:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[0], "mbsim", "{line}");
    let diagnosis = ok(&mbsim(&words[1..]));
    assert!(diagnosis.contains("rank G"), "{diagnosis}");
    assert!(diagnosis.contains("as recorded"), "{diagnosis}");
}

#[test]
fn timings_are_named_for_their_clock_and_repeat_reports_min_and_median() {
    let dir = scratch("repeat");
    let d = dir.to_str().expect("utf-8 path");
    let stdout = ok(&mbsim(&[
        "simulate",
        "pendulum",
        "--t-end",
        "1",
        "--repeat",
        "3",
        "--no-plots",
        "--out",
        d,
    ]));
    assert!(stdout.contains("CPU"), "{stdout}");
    assert!(stdout.contains("(thread), wall"), "{stdout}");
    assert!(stdout.contains("3 runs: CPU min"), "{stdout}");
    let s = summary(&dir);
    for key in ["cpu_seconds", "wall_seconds", "stabilization_wall_seconds"] {
        assert!(s[key].as_f64().is_some(), "summary lacks {key}: {s}");
    }
    assert!(
        s.get("stab_cpu_seconds").is_none(),
        "a wall time named CPU: {s}"
    );
    let r = &s["repeat"];
    assert_eq!(r["runs"], 3);
    let f = |k: &str| r[k].as_f64().expect(k);
    assert!(f("cpu_seconds_min") <= f("cpu_seconds_median"));
    assert!(f("wall_seconds_min") <= f("wall_seconds_median"));
    let bad = mbsim(&["simulate", "pendulum", "--repeat", "0", "--out", d]);
    insta::assert_snapshot!("repeat_zero", error_text(&bad));
    let sweep = mbsim(&[
        "sweep",
        "pendulum",
        "--grid",
        "len=1:2:2",
        "--repeat",
        "3",
        "--out",
        d,
    ]);
    insta::assert_snapshot!("repeat_in_sweep", error_text(&sweep));
}

#[test]
fn output_final_records_the_state_at_t_end_only() {
    let dir = scratch("final");
    let d = dir.to_str().expect("utf-8 path");
    ok(&mbsim(&[
        "simulate", "pendulum", "--t-end", "1.25", "--output", "final", "--out", d,
    ]));
    let csv = std::fs::read_to_string(dir.join("trajectory.csv")).expect("csv");
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert_eq!(rows.len(), 1, "{csv}");
    // The time as the shortest text that reads back to it (ryu: "1.25").
    let t: f64 = rows[0]
        .split(',')
        .next()
        .and_then(|x| x.parse().ok())
        .expect("t");
    assert_eq!(t, 1.25, "{csv}");
    assert!(!dir.join("coordinates.png").exists(), "no plots of one row");
    let s = summary(&dir);
    assert_eq!(s["output"], "final");
    assert!(s["max_drift_position"].as_f64().expect("drift") <= 1e-10);
    assert!(s["NSTEP"].as_u64().expect("NSTEP") > 1);
}

/// `--h` that does not divide the span: a shorter last step onto t_end, for a one-step method
/// (generalized-α) and a constant-step Adams method (MAMPC) alike.
#[test]
fn a_step_size_that_does_not_divide_the_span_ends_with_a_shorter_step() {
    for (method, extra) in [
        ("mampc", &["--order", "3"][..]),
        ("generalized-alpha", &[][..]),
    ] {
        let dir = scratch(&format!("short-{method}"));
        let d = dir.to_str().expect("utf-8 path");
        let mut args = vec![
            "simulate",
            "pendulum",
            "--method",
            method,
            "--h",
            "0.03",
            "--t-end",
            "1",
            "--no-plots",
            "--out",
            d,
        ];
        args.extend_from_slice(extra);
        ok(&mbsim(&args));
        let s = summary(&dir);
        // 33 steps of 0.03, then one of 0.01.
        assert_eq!(s["NSTEP"], 34, "{method}: {s}");
        let h_min = s["h_min"].as_f64().expect("h_min");
        assert!((h_min - 0.01).abs() < 1e-12, "{method}: h_min {h_min}");
        let csv = std::fs::read_to_string(dir.join("trajectory.csv")).expect("csv");
        let last = csv.lines().last().expect("rows");
        let t: f64 = last
            .split(',')
            .next()
            .and_then(|x| x.parse().ok())
            .expect("t");
        assert_eq!(t, 1.0, "{method}: {last}");
    }
}

#[test]
fn sweep_log_axis_energy_error_and_columns() {
    let dir = scratch("sweep-log");
    let d = dir.to_str().expect("utf-8 path");
    let stdout = ok(&mbsim(&[
        "sweep",
        "spring-bar",
        "--grid",
        "k=1e-1:1e2:4:log",
        "--t-end",
        "0.5",
        "--column",
        "maxabs(phi)",
        "--column",
        "phi_dot",
        "--column",
        "max(energy_error)",
        "--column",
        "min(lambda_pin_x)",
        "--out",
        d,
    ]));
    assert!(stdout.contains("s process CPU"), "{stdout}");
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).expect("csv");
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("header").split(',').collect();
    for column in [
        "energy_0",
        "energy_error",
        "maxabs(phi)",
        "final(phi_dot)",
        "max(energy_error)",
        "min(lambda_pin_x)",
        "cpu_seconds",
        "wall_seconds",
    ] {
        assert!(header.contains(&column), "no {column} in {header:?}");
    }
    let at = |name: &str| header.iter().position(|h| *h == name).expect(name);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let ks: Vec<f64> = rows
        .iter()
        .map(|r| r[at("k")].parse().expect("k"))
        .collect();
    assert_eq!(ks, [1e-1, 1e0, 1e1, 1e2]);
    for r in &rows {
        let number = |name: &str| -> f64 { r[at(name)].parse().expect(name) };
        // The spring bar is conservative: E(t_end) − E(0) is the integration error, and the
        // largest |ΔE| over the steps bounds the final one.
        let (de, de_max) = (number("energy_error"), number("max(energy_error)"));
        assert!(de.abs() < 1e-4 * number("energy_0").abs().max(1.0), "{r:?}");
        assert!(de <= de_max + 1e-15, "{r:?}");
        // The bar swings from horizontal: phi moves, and the final phi_dot is the last sample's.
        assert!(number("maxabs(phi)") > 0.0);
        assert_eq!(number("final(phi_dot)"), number("phi_dot"));
    }
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("sweep.json")).expect("json"))
            .expect("json");
    assert_eq!(manifest["axes"][0]["spacing"], "log");
    assert!(manifest["process_cpu_seconds"].as_f64().is_some());
}

#[test]
fn sweep_axis_and_column_errors_are_clear() {
    let d = scratch("sweep-bad");
    let d = d.to_str().expect("utf-8 path");
    for (name, args) in [
        ("log_axis_through_zero", &["--grid", "k=0:10:3:log"][..]),
        (
            "unknown_column",
            &["--grid", "k=1:2:2", "--column", "maxabs(psi)"][..],
        ),
        (
            "unknown_reduction",
            &["--grid", "k=1:2:2", "--column", "mean(phi)"][..],
        ),
    ] {
        let mut all = vec!["sweep", "spring-bar", "--t-end", "0.1", "--out", d];
        all.extend_from_slice(args);
        insta::assert_snapshot!(name, error_text(&mbsim(&all)));
    }
    // The pendulum has no energy kernels: energy columns are refused by name.
    let out = mbsim(&[
        "sweep",
        "pendulum",
        "--grid",
        "len=1:2:2",
        "--column",
        "energy",
        "--out",
        d,
    ]);
    assert!(error_text(&out).contains("no energy kernels"));
}

#[test]
fn curves_at_round_off_are_drawn_as_zero_with_a_note() {
    use mbsim_cli::plot_grid::{Curve, quiet};
    let moving = Curve::new("x", vec![(0.0, 0.0), (1.0, 2.5), (2.0, -1.0)]);
    let noise = Curve::new("z", vec![(0.0, 1e-17), (1.0, -3e-16), (2.0, 2e-16)]);
    let zero = Curve::new("w", vec![(0.0, 0.0), (1.0, 0.0)]);
    let small = Curve::new("s", vec![(0.0, 1e-6), (1.0, -1e-6)]);
    let out = quiet(vec![moving, noise, zero, small]);
    assert_eq!(out[0].name, "x");
    assert_eq!(out[0].pieces[0][1].1, 2.5);
    assert_eq!(out[1].name, "z (|y| <= 3.0e-16: round-off, drawn as 0)");
    assert!(out[1].pieces[0].iter().all(|p| p.1 == 0.0));
    assert_eq!(out[2].name, "w (identically 0)");
    // Small but well above round-off of the figure's scale (2.5): drawn as it is.
    assert_eq!(out[3].name, "s");
}

#[test]
fn repeated_timings_min_and_median() {
    use mbsim_cli::timing::{Timing, repeated};
    use std::time::Duration;
    let t = |cpu: u64, wall: u64| Timing {
        wall: Duration::from_millis(wall),
        cpu: Duration::from_millis(cpu),
    };
    let r = repeated(&[t(30, 90), t(10, 50), t(20, 70)]).expect("three");
    assert_eq!(r.runs, 3);
    assert_eq!(
        (r.cpu_min, r.cpu_median),
        (Duration::from_millis(10), Duration::from_millis(20))
    );
    assert_eq!(
        (r.wall_min, r.wall_median),
        (Duration::from_millis(50), Duration::from_millis(70))
    );
    let even = repeated(&[t(40, 1), t(10, 2), t(20, 3), t(30, 4)]).expect("four");
    assert_eq!(even.cpu_median, Duration::from_millis(25));
    assert!(repeated(&[]).is_none());
}

#[test]
fn thread_cpu_time_counts_work_not_sleep() {
    let watch = mbsim_cli::timing::Stopwatch::start();
    std::thread::sleep(std::time::Duration::from_millis(50));
    let t = watch.stop();
    assert!(t.wall >= std::time::Duration::from_millis(50), "{t:?}");
    assert!(t.cpu < std::time::Duration::from_millis(25), "{t:?}");
}

/// The pendulum (unit rod, guess x = 1, y = 0) from a given y: kept exactly, x follows.
#[test]
fn a_given_value_stays_and_the_report_says_what_moved() {
    let dir = scratch("given");
    let d = dir.to_str().expect("utf-8 path");
    let args = [
        "simulate",
        "pendulum",
        "--t-end",
        "0.1",
        "--no-plots",
        "--out",
        d,
    ];
    let stdout = ok(&mbsim(
        &[&args[..], &["--q", "y=-0.8", "--v", "x=0.3"]].concat(),
    ));
    assert!(
        stdout.contains(
            "moved q: x by -4.000e-1; moved v: y_dot by +2.250e-1; kept as given: y, x_dot"
        ),
        "{stdout}"
    );
    let init = &summary(&dir)["initialization"];
    assert_eq!(init["q0"][1], -0.8, "{init}");
    assert_eq!(init["v0"][0], 0.3, "{init}");
    assert!(
        (init["q0"][0].as_f64().expect("x") - 0.6).abs() < 1e-12,
        "{init}"
    );
    assert_eq!(init["kept_as_given"], serde_json::json!(["y", "x_dot"]));
    assert_eq!(init["velocity_metric"], "mass");
    assert!((init["moved_q"]["x"].as_f64().expect("x moved") + 0.4).abs() < 1e-12);
    assert!(init["release_cause"].is_null(), "{init}");
    // A value no state allows (|y| > 1): released, with the reason on a warning line, and the
    // run goes on from the nearest consistent state.
    let stdout = ok(&mbsim(&[&args[..], &["--q", "y=-1.5"]].concat()));
    let warning = stdout
        .lines()
        .find(|l| l.starts_with("warning:"))
        .expect("warning");
    insta::assert_snapshot!("given_value_released", warning);
    let init = &summary(&dir)["initialization"];
    assert_eq!(init["released"], serde_json::json!(["y"]));
    // Locked instead of given: the same value is an error.
    let locked = mbsim(&[&args[..], &["--q", "y=-1.5", "--lock", "y"]].concat());
    insta::assert_snapshot!("locked_value_infeasible", error_text(&locked));
}

#[test]
fn the_fmu_method_setting_lists_every_method() {
    // The FMU's `method` string takes every `--method` name (the slave parses it with the
    // CLI's enum); its description in modelDescription.xml lists them, kept complete here.
    use clap::ValueEnum;
    let entry = mbsim_models::catalog()
        .iter()
        .find(|e| e.name == "andrews")
        .expect("andrews is in the catalog");
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let vars = mbsim_fmu::variables::variables(sys.as_ref(), &q0, &v0, entry.rtol);
    let method = vars
        .iter()
        .find(|v| v.name == "method")
        .expect("a method setting");
    for m in mbsim_cli::method::Method::value_variants() {
        let name = m.cli_name();
        assert!(
            method.description.contains(&format!(" {name},"))
                || method.description.contains(&format!("({name},"))
                || method.description.contains(&format!(" {name})")),
            "`{name}` missing from {:?}",
            method.description
        );
    }
}
