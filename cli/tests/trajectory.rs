//! What `simulate` writes (`--write`, `--format`, the default grid): the selection's columns
//! and patterns, the default grid's rule, and the files themselves — CSV and Parquet of one
//! run hold the same values bit for bit (the Parquet file read back with the parquet crate's
//! own reader; `python/tests/test_trajectory_formats.py` reads it with pandas and polars).

use std::path::{Path, PathBuf};
use std::process::Command;

use mbsim_cli::simulate::columns::{DEFAULT_ITEMS, Selection, default_dt_out, glob};
use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn simulate(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_mbsim"))
        .args(["simulate"])
        .args(args)
        .args(["--out", dir.to_str().expect("utf-8"), "--no-plots"])
        .output()
        .expect("mbsim runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The CSV as a header and rows of f64.
fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).expect("trajectory.csv");
    let mut lines = text.lines();
    let header = lines.next().expect("header").split(',').map(String::from);
    let rows = lines
        .map(|l| l.split(',').map(|x| x.parse().expect("float")).collect())
        .collect();
    (header.collect(), rows)
}

/// The Parquet file as a header and rows of f64, through the parquet crate's row reader.
fn read_parquet(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let file = std::fs::File::open(path).expect("trajectory.parquet");
    let reader = SerializedFileReader::new(file).expect("a parquet file");
    let schema = reader.metadata().file_metadata().schema_descr();
    let header = schema.columns().iter().map(|c| c.name().to_string());
    let rows = reader
        .get_row_iter(None)
        .expect("rows")
        .map(|row| {
            let row = row.expect("row");
            row.get_column_iter()
                .map(|(_, field)| match field {
                    Field::Double(x) => *x,
                    other => panic!("not a double: {other:?}"),
                })
                .collect()
        })
        .collect();
    (header.collect(), rows)
}

#[test]
fn csv_and_parquet_hold_the_same_values() {
    let args = [
        "slider-crank-tsda",
        "--t-end",
        "0.2",
        "--write",
        "q,v,vdot,lambda,drift",
    ];
    let (csv_dir, pq_dir) = (scratch("traj_csv"), scratch("traj_parquet"));
    simulate(&csv_dir, &[&args[..], &["--format", "csv"]].concat());
    // A stale file of the other format is removed: the directory holds one trajectory.
    std::fs::create_dir_all(&pq_dir).expect("dir");
    std::fs::write(pq_dir.join("trajectory.csv"), "stale").expect("stale file");
    let report = simulate(&pq_dir, &[&args[..], &["--format", "parquet"]].concat());
    assert!(report.contains("trajectory.parquet"), "{report}");
    assert!(!pq_dir.join("trajectory.csv").exists(), "stale CSV left");
    let (csv_header, csv_rows) = read_csv(&csv_dir.join("trajectory.csv"));
    let (pq_header, pq_rows) = read_parquet(&pq_dir.join("trajectory.parquet"));
    assert_eq!(pq_header, csv_header);
    assert!(
        csv_header.iter().any(|h| h.ends_with("_ddot")),
        "{csv_header:?}"
    );
    assert!(csv_rows.len() > 10);
    // Bit for bit: ryu's text reads back to the same f64 the Parquet file stores.
    let bits = |rows: &[Vec<f64>]| -> Vec<Vec<u64>> {
        rows.iter()
            .map(|r| r.iter().map(|x| x.to_bits()).collect())
            .collect()
    };
    assert_eq!(bits(&pq_rows), bits(&csv_rows));
    let summary = std::fs::read_to_string(pq_dir.join("summary.json")).expect("summary");
    let summary: serde_json::Value = serde_json::from_str(&summary).expect("json");
    assert_eq!(summary["trajectory"], "trajectory.parquet");
    assert!(summary["multipliers"]["lambda_1"].is_string(), "{summary}");
}

#[test]
fn write_without_multipliers_skips_them() {
    let dir = scratch("traj_select");
    simulate(
        &dir,
        &[
            "slider-crank-tsda",
            "--t-end",
            "0.1",
            "--write",
            "q:x*,drift",
        ],
    );
    let (header, rows) = read_csv(&dir.join("trajectory.csv"));
    assert!(header.len() > 3, "{header:?}");
    for h in &header[1..] {
        let ok = h.starts_with('x') || h == "phi_norm" || h == "phidot_norm";
        assert!(ok && !h.ends_with("_dot"), "{h} in {header:?}");
    }
    // The drift of projected samples stays on the manifold without a KKT solve per sample.
    let phi = header
        .iter()
        .position(|h| h == "phi_norm")
        .expect("phi_norm");
    assert!(rows.iter().all(|r| r[phi] <= 1e-9), "drift");
}

#[test]
fn selection_by_kind_and_pattern() {
    let coords = ["x", "y", "phi"];
    let rows = vec!["pin_x".to_string(), "pin_y".into(), "slot".into()];
    let items: Vec<String> = ["lambda:pin*", "q:phi", "drift", "q"]
        .map(String::from)
        .into();
    let s = Selection::parse(&items, &coords, &rows).expect("valid");
    assert_eq!(s.q, [0, 1, 2]);
    assert_eq!(s.lambda, [0, 1]);
    assert!(s.drift && s.v.is_empty() && s.needs_dynamics());
    let names: Vec<String> = s.columns(&coords).into_iter().map(|c| c.name).collect();
    let want = [
        "t",
        "x",
        "y",
        "phi",
        "lambda_1",
        "lambda_2",
        "phi_norm",
        "phidot_norm",
    ];
    assert_eq!(names, want);
    let everything = Selection::parse(&DEFAULT_ITEMS.map(String::from), &coords, &rows);
    assert_eq!(everything.expect("valid"), Selection::everything(3, 3));
    let state_only = Selection::parse(&["q".into(), "v".into()], &coords, &rows);
    assert!(!state_only.expect("valid").needs_dynamics());
    for bad in ["lambda:nothing*", "acc", "drift:x", "q:"] {
        let err = Selection::parse(&[bad.to_string()], &coords, &rows);
        assert!(err.is_err(), "{bad}");
    }
}

#[test]
fn glob_matches_like_a_shell_without_classes() {
    let cases = [
        ("loop*", "loop_x[3]", true),
        ("*_x*", "loop_x[3]", true),
        ("theta[3]", "theta[3]", true),
        ("theta[?]", "theta[7]", true),
        ("theta[?]", "theta[12]", false),
        ("*", "", true),
        ("a*b*c", "aXbYbZc", true),
        ("a*b*c", "aXbYbZ", false),
        ("x", "xy", false),
        ("", "x", false),
    ];
    for (p, t, want) in cases {
        assert_eq!(glob(p.as_bytes(), t.as_bytes()), want, "{p} ~ {t}");
    }
}

#[test]
fn default_grid_keeps_small_runs_and_coarsens_large_ones() {
    // The pendulum's 8 columns over 20 s at 1 ms: 160 016 values, kept.
    assert_eq!(default_dt_out(1e-3, 20.0, 8), 1e-3);
    // A model's own run keeps its grid whatever its size (A02 in bodies: 0.1 s at 1 ms).
    assert_eq!(default_dt_out(1e-3, 0.1, 731), 1e-3);
    // A02 in bodies over 20 s, 731 columns: 1 ms → 50 ms (402 rows, 293 862 values).
    assert_eq!(default_dt_out(1e-3, 20.0, 731), 0.05);
    // Never coarser than the span.
    assert_eq!(default_dt_out(1e-3, 0.1, 10_000_000), 0.1);
}

/// `check --at T --from DIR` reads the row nearest T from a Parquet trajectory too.
#[test]
fn check_reads_a_parquet_run() {
    let dir = scratch("traj_check_parquet");
    simulate(&dir, &["pendulum", "--t-end", "1", "--format", "parquet"]);
    let dir_s = dir.to_str().expect("utf-8");
    let out = Command::new(env!("CARGO_BIN_EXE_mbsim"))
        .args(["check", "pendulum", "--at", "0.5", "--from", dir_s])
        .output()
        .expect("mbsim runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("row t = 0.5 of") && stdout.contains("trajectory.parquet"),
        "{stdout}"
    );
}
