//! The example crate's binary runs the command set on its own model: `simulate` (files,
//! plots, the initialization report), `animate` (GIF, frame, HTML player), `sweep` (one CSV row
//! per run, a failed run recorded) and a bad flag naming the offending coordinate. Small runs
//! (half a second of simulated time, a few hundred steps) so CI stays fast.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_user-model"))
        .args(args)
        .output()
        .expect("the example binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn ok(out: &Output) {
    assert!(
        out.status.success(),
        "stdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
}

fn nonempty(dir: &Path, file: &str) {
    let len = std::fs::metadata(dir.join(file))
        .map(|m| m.len())
        .unwrap_or(0);
    assert!(len > 0, "{file} missing or empty in {}", dir.display());
}

#[test]
fn list_shows_only_the_crates_model() {
    let out = run(&["list"]);
    ok(&out);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("double-pendulum"), "{stdout}");
    assert!(
        !stdout.contains("andrews"),
        "the built-in catalog is not compiled in: {stdout}"
    );
}

#[test]
fn simulate_writes_trajectory_plots_and_reports_the_initialization() {
    let dir = scratch("simulate");
    let d = dir.to_str().expect("utf-8 path");
    // x1 moved off the rod on purpose; x2 locked: the initialization must move y1 (and the
    // others), never x2, and say so.
    let out = run(&[
        "simulate",
        "double-pendulum",
        "--t-end",
        "0.5",
        "--out",
        d,
        "--q",
        "x1=0.9",
        "--lock",
        "x2",
        "--svg",
        "--wrap-angles",
    ]);
    ok(&out);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("consistent initialization"), "{stdout}");
    assert!(stdout.contains("locked: x2"), "{stdout}");
    assert!(
        !stdout.contains("x2 by"),
        "a locked coordinate moved: {stdout}"
    );
    for f in [
        "trajectory.csv",
        "summary.json",
        "coordinates.png",
        "velocities.png",
        "multipliers.png",
        "drift.png",
        "energy.png",
        "step_size.png",
        "coordinates.svg",
        "energy.svg",
    ] {
        nonempty(&dir, f);
    }
}

#[test]
fn animate_writes_gif_frame_and_player() {
    let dir = scratch("animate");
    let d = dir.to_str().expect("utf-8 path");
    let out = run(&[
        "animate",
        "double-pendulum",
        "--t-end",
        "0.5",
        "--frames",
        "20",
        "--out",
        d,
        "--no-plots",
    ]);
    ok(&out);
    for f in [
        "animation.gif",
        "frame.png",
        "animation.html",
        "trajectory.csv",
    ] {
        nonempty(&dir, f);
    }
    let gif = std::fs::read(dir.join("animation.gif")).expect("gif");
    assert_eq!(&gif[..6], b"GIF89a", "a GIF file");
    let html = std::fs::read_to_string(dir.join("animation.html")).expect("html");
    assert!(
        html.contains("type=\"range\"") && html.contains("<svg"),
        "player: slider and SVG"
    );
}

#[test]
fn sweep_writes_one_row_per_run_and_records_failures() {
    let dir = scratch("sweep");
    let d = dir.to_str().expect("utf-8 path");
    // Three rod lengths and l1 = 0: a degenerate rod, whose run must fail and be recorded.
    let out = run(&[
        "sweep",
        "double-pendulum",
        "--t-end",
        "0.3",
        "--grid",
        "l1=0:1:3",
        "--grid",
        "m2=0.5:1:2",
        "--threads",
        "2",
        "--out",
        d,
    ]);
    ok(&out);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("6 runs") && stdout.contains("runs/s"),
        "{stdout}"
    );
    let csv = std::fs::read_to_string(dir.join("sweep.csv")).expect("sweep.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 7, "header + 6 runs:\n{csv}");
    assert!(
        lines[0].starts_with("run,status,l1,m2,t_end,x1,y1,x2,y2"),
        "{}",
        lines[0]
    );
    let failed = lines[1..].iter().filter(|l| l.contains(",failed,")).count();
    let ok_rows = lines[1..].iter().filter(|l| l.contains(",ok,")).count();
    assert_eq!(
        (ok_rows, failed),
        (4, 2),
        "l1 = 0 fails (2 runs), the others run:\n{csv}"
    );
    nonempty(&dir, "sweep.json");
}

#[test]
fn bad_input_names_the_offending_entry_and_writes_nothing() {
    let dir = scratch("bad");
    let d = dir.to_str().expect("utf-8 path");
    let cases: [(&[&str], &str); 4] = [
        (&["--q", "x9=1"], "unknown coordinate `x9`"),
        (&["--q0", "1,2"], "q0 has 2 entries, expected 4"),
        (&["--param", "l3=1"], "no runtime parameter `l3`"),
        (&["--v0", "0,0,NaN,0"], "v0 entry `x2` must be finite"),
    ];
    for (extra, needle) in cases {
        let mut args = vec!["simulate", "double-pendulum", "--t-end", "0.1", "--out", d];
        args.extend_from_slice(extra);
        let out = run(&args);
        assert!(!out.status.success(), "{extra:?} must fail");
        let stderr = text(&out.stderr);
        assert!(
            stderr.contains(needle),
            "{extra:?}: expected `{needle}` in {stderr}"
        );
        assert!(!dir.exists(), "{extra:?}: nothing may be written");
    }
}

/// The command set is the user's tool: usage, help and error lines name this binary
/// (`user-model`), never `mbsim` (snapshots: a subcommand's help, clap's error for an unknown
/// flag and the command set's own error line; the top-level usage line).
#[test]
fn help_usage_and_errors_name_the_users_binary() {
    let help = run(&["--help"]);
    ok(&help);
    let top = text(&help.stdout);
    // Not a snapshot: `cargo test --workspace` unifies mbsim-cli's features, which adds the
    // built-in `repro` command to this binary's list.
    assert!(top.contains("Usage: user-model <COMMAND>"), "{top}");
    let sub = run(&["check", "--help"]);
    ok(&sub);
    let check_help = text(&sub.stdout);
    insta::assert_snapshot!("check_help", check_help);
    let bad_flag = run(&["simulate", "double-pendulum", "--bogus"]);
    assert_eq!(bad_flag.status.code(), Some(2));
    insta::assert_snapshot!("unknown_flag", text(&bad_flag.stderr));
    let bad_model = run(&["simulate", "nosuch", "--out", "x"]);
    assert_eq!(bad_model.status.code(), Some(1));
    insta::assert_snapshot!("unknown_model", text(&bad_model.stderr));
    for t in [&top, &check_help] {
        assert!(!t.contains("mbsim "), "`mbsim` in the user's help:\n{t}");
    }
}
