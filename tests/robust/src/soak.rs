//! The soak: `mbsim sweep` (the command set's own sweep, `mbsim_cli::sweep::run`) over random
//! parameters and initial states of the catalog's mechanisms — Andrews, the slider-crank with
//! its spring, the IFToMM four-bar chain, the over-constrained triple crank and Bricard
//! linkage, the spatial heavy top, and three models with events (the pendulum striking a wall,
//! the slider-crank against a stop, the block on a belt with stick–slip friction) — with every general-purpose method (RKSTAB, ABM, AB, AMPC,
//! MAMPC, Newmark, HHT-α, generalized-α, Radau IIA; HPIM and NPC need a structural model).
//!
//! Each (model, method) pair is one sweep of `draws` runs on one thread, `--max-steps`
//! bounding every run; random axes scale two parameters by 0.2–5 (log-uniform), move two
//! coordinates' initial guesses by ±0.2 and give one velocity ±1 (each run is made consistent first, so a draw
//! the initialization cannot repair is a classified failure too). Every row of every
//! `sweep.csv` is read back: a run is `ok` or failed with an `error_kind` (the `SimError` or
//! `AppError` variant); a panic in a sweep, a missing row or an unclassified failure is a
//! defect. The process's resident memory (VmRSS) is read before the first sweep, after it
//! (warm: code and allocator pools in place) and at the end, with the peak (VmHWM).

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

/// One mechanism of the soak and how it runs.
pub struct Subject {
    /// Catalog name.
    pub model: &'static str,
    /// Simulated time per run.
    pub t_end: f64,
    /// Step of the constant-step methods.
    pub h: f64,
}

/// The mechanisms.
pub const SUBJECTS: [Subject; 9] = [
    Subject {
        model: "andrews",
        t_end: 0.005,
        h: 1e-5,
    },
    Subject {
        model: "slider-crank-tsda",
        t_end: 0.3,
        h: 1e-3,
    },
    Subject {
        model: "four-bar-chain",
        t_end: 0.1,
        h: 1e-3,
    },
    Subject {
        model: "triple-crank",
        t_end: 0.3,
        h: 1e-3,
    },
    Subject {
        model: "bricard",
        t_end: 0.1,
        h: 1e-3,
    },
    Subject {
        model: "heavy-top",
        t_end: 0.3,
        h: 1e-3,
    },
    // Events (issue 25): impacts with the rod constraint, a stop that closes, stick–slip.
    Subject {
        model: "wall-pendulum",
        t_end: 2.0,
        h: 1e-3,
    },
    Subject {
        model: "slider-crank-stop",
        t_end: 1.0,
        h: 1e-3,
    },
    Subject {
        model: "belt-friction",
        t_end: 3.0,
        h: 1e-3,
    },
];

/// The methods (`--method` names); the constant-step ones get `--h`.
pub const METHODS: [&str; 9] = [
    "rkstab",
    "abm",
    "ab",
    "ampc",
    "mampc",
    "newmark",
    "hht",
    "generalized-alpha",
    "radau",
];

fn constant_step(method: &str) -> bool {
    matches!(method, "ab" | "ampc" | "mampc" | "newmark")
}

/// Resident and peak memory of this process (kB), from /proc/self/status.
pub fn memory_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The random axes of a model: two parameters × [0.2, 5] (log-uniform), two coordinates'
/// guesses ± 0.2, one velocity ± 1, around the catalog entry's values.
fn axes(model: &str) -> Vec<String> {
    let Some(entry) = mbsim_models::catalog().iter().find(|e| e.name == model) else {
        return Vec::new();
    };
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let mut axes = Vec::new();
    for name in sys
        .parameter_names()
        .iter()
        .filter(|n| !n.contains('['))
        .take(2)
    {
        if let Some(p) = sys.parameter(name).filter(|p| *p != 0.0) {
            let (a, b) = (0.2 * p, 5.0 * p);
            let log = if p > 0.0 { ":log" } else { "" };
            axes.push(format!("{name}={}:{}{log}", a.min(b), a.max(b)));
        }
    }
    let names = sys.coordinate_names();
    let n = names.len();
    for j in [0, n / 2].into_iter().take(n.min(2)) {
        axes.push(format!("{}={}:{}", names[j], q0[j] - 0.2, q0[j] + 0.2));
    }
    axes.push(format!("{}_dot={}:{}", names[0], v0[0] - 1.0, v0[0] + 1.0));
    axes
}

/// What one sweep gave.
#[derive(Debug, Default)]
pub struct SweepReport {
    /// Runs in `sweep.csv`.
    pub rows: usize,
    /// Runs that finished.
    pub ok: usize,
    /// Failed runs by `error_kind`.
    pub failures: BTreeMap<String, usize>,
    /// Defects: a panic, an error of the sweep itself, missing rows, unclassified failures.
    pub defects: Vec<String>,
}

/// Run one (model, method) sweep of `draws` runs into `out`.
pub fn sweep(subject: &Subject, method: &str, draws: usize, seed: u64, out: &Path) -> SweepReport {
    let mut argv: Vec<String> = ["mbsim", "sweep", subject.model, "--method", method]
        .map(String::from)
        .to_vec();
    let t_end = subject.t_end.to_string();
    let h = subject.h.to_string();
    let draws_s = draws.to_string();
    let seed_s = seed.to_string();
    let out_s = out.display().to_string();
    argv.extend(
        [
            "--t-end",
            &t_end,
            "--rtol",
            "1e-6",
            "--max-steps",
            "20000",
            "--draws",
            &draws_s,
            "--seed",
            &seed_s,
            "--threads",
            "1",
            "--out",
            &out_s,
        ]
        .map(String::from),
    );
    if constant_step(method) {
        argv.extend(["--h".to_string(), h]);
    }
    for a in axes(subject.model) {
        argv.extend(["--random".to_string(), a]);
    }
    let mut report = SweepReport::default();
    let parsed = <mbsim_cli::cli::Cli as clap::Parser>::try_parse_from(&argv);
    let args = match parsed {
        Ok(mbsim_cli::cli::Cli {
            command: mbsim_cli::cli::Command::Sweep(args),
        }) => args,
        other => {
            report
                .defects
                .push(format!("the sweep's arguments {argv:?}: {:?}", other.err()));
            return report;
        }
    };
    match catch_unwind(AssertUnwindSafe(|| mbsim_cli::sweep::run(&args))) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => report.defects.push(format!("the sweep failed: {e}")),
        Err(_) => report.defects.push("the sweep panicked".into()),
    }
    read_rows(&out.join("sweep.csv"), draws, &mut report);
    report
}

fn read_rows(path: &Path, draws: usize, report: &mut SweepReport) {
    let mut reader = match csv::Reader::from_path(path) {
        Ok(r) => r,
        Err(e) => {
            report.defects.push(format!("{}: {e}", path.display()));
            return;
        }
    };
    let header = reader.headers().cloned().unwrap_or_default();
    let column = |name: &str| header.iter().position(|h| h == name);
    let (Some(status), Some(kind)) = (column("status"), column("error_kind")) else {
        report
            .defects
            .push(format!("{}: no status/error_kind columns", path.display()));
        return;
    };
    for row in reader.records().map_while(Result::ok) {
        report.rows += 1;
        match (&row[status], &row[kind]) {
            ("ok", _) => report.ok += 1,
            (_, "") => report
                .defects
                .push(format!("unclassified failure in row {:?}", row.get(0))),
            (_, k) => *report.failures.entry(k.to_string()).or_default() += 1,
        }
    }
    if report.rows != draws {
        report
            .defects
            .push(format!("{} rows for {draws} runs", report.rows));
    }
}
