//! The soak: `cargo run --profile test -p mbsim-robust --bin mbsim-soak -- --out out/soak`
//! runs `--passes` (2) passes of `--draws` (95) random runs for each of the 9 mechanisms × 9
//! methods of `mbsim_robust::soak` (2 × 95 × 81 = 15 390 runs; each pass and sweep has its own
//! seed; `--models a,b` runs only those), prints one line per sweep and the totals — runs, finished, failures by class, defects
//! (panics, missing rows, unclassified failures), the longest sweep, resident memory before,
//! after the first sweep, after each pass and at the end, and the peak — and writes them to
//! `OUT/soak.json`. Memory is flat when the second pass (the same sweeps, other draws) ends
//! where the first did. Exit status 1 on any defect. A watchdog ends the process (status 2) if
//! one sweep runs longer than `--bound-secs` (600): a hang.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mbsim_robust::soak::{self, METHODS, SUBJECTS};

fn value(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
        .unwrap_or_else(|| default.to_string())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let draws: usize = value(&args, "--draws", "95").parse().unwrap_or(95);
    let passes: u64 = value(&args, "--passes", "2").parse().unwrap_or(2);
    let seed: u64 = value(&args, "--seed", "1").parse().unwrap_or(1);
    let bound: u64 = value(&args, "--bound-secs", "600").parse().unwrap_or(600);
    let out = std::path::PathBuf::from(value(&args, "--out", "out/soak"));
    let only = value(&args, "--models", "");
    let chosen = |model: &str| only.is_empty() || only.split(',').any(|m| m == model);
    let start = Instant::now();
    let rss_start = soak::memory_kb().0;
    // The watchdog: the sweep number and when it started.
    let current = Arc::new(AtomicU64::new(0));
    {
        let current = current.clone();
        std::thread::spawn(move || {
            let mut seen = (u64::MAX, Instant::now());
            loop {
                std::thread::sleep(Duration::from_secs(1));
                let now = current.load(Ordering::SeqCst);
                if now != seen.0 {
                    seen = (now, Instant::now());
                } else if seen.1.elapsed() > Duration::from_secs(bound) {
                    eprintln!("mbsim-soak: sweep {now} ran longer than {bound} s: a hang");
                    std::process::exit(2);
                }
            }
        });
    }
    let (mut runs, mut ok, mut rss_warm) = (0, 0, 0);
    let mut failures: BTreeMap<String, usize> = BTreeMap::new();
    let mut by_pair: Vec<serde_json::Value> = Vec::new();
    let mut defects: Vec<String> = Vec::new();
    let mut longest = (0.0_f64, String::new());
    let mut k = 0;
    let mut rss_passes = Vec::new();
    for pass in 0..passes {
        for subject in SUBJECTS.iter().filter(|s| chosen(s.model)) {
            for method in METHODS {
                k += 1;
                current.store(k, Ordering::SeqCst);
                let dir = out.join(format!("{}-{method}-{pass}", subject.model));
                let began = Instant::now();
                let r = soak::sweep(subject, method, draws, seed * 1000 + k, &dir);
                let secs = began.elapsed().as_secs_f64();
                let pair = format!("{} {method}", subject.model);
                if secs > longest.0 {
                    longest = (secs, pair.clone());
                }
                runs += r.rows;
                ok += r.ok;
                for (kind, n) in &r.failures {
                    *failures.entry(kind.clone()).or_default() += n;
                }
                defects.extend(r.defects.iter().map(|d| format!("{pair}: {d}")));
                println!(
                    "{pair}: {} runs, {} ok, failures {:?}, defects {}, {secs:.1} s",
                    r.rows,
                    r.ok,
                    r.failures,
                    r.defects.len()
                );
                by_pair.push(serde_json::json!({
                    "model": subject.model, "method": method, "runs": r.rows, "ok": r.ok,
                    "failures": r.failures, "defects": r.defects, "seconds": secs,
                }));
                if k == 1 {
                    rss_warm = soak::memory_kb().0;
                }
            }
        }
        rss_passes.push(soak::memory_kb().0);
    }
    let (rss_end, rss_peak) = soak::memory_kb();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "\n{runs} runs ({ok} finished, {} failed), {} defects, {secs:.0} s wall; longest sweep {} ({:.1} s)",
        runs - ok,
        defects.len(),
        longest.1,
        longest.0
    );
    println!("failures by class: {failures:?}");
    println!(
        "resident memory: {rss_start} kB at the start, {rss_warm} kB after the first sweep, {rss_passes:?} kB after each pass, {rss_end} kB at the end (peak {rss_peak} kB)"
    );
    for d in &defects {
        println!("defect: {d}");
    }
    let summary = serde_json::json!({
        "runs": runs, "finished": ok, "failed": runs - ok, "failures": failures,
        "defects": defects, "wall_seconds": secs, "draws_per_sweep": draws, "seed": seed,
        "rss_kb": { "start": rss_start, "after_first_sweep": rss_warm, "after_each_pass": rss_passes, "end": rss_end, "peak": rss_peak },
        "sweeps": by_pair,
    });
    let _ = std::fs::create_dir_all(&out);
    let _ = std::fs::write(
        out.join("soak.json"),
        serde_json::to_string_pretty(&summary).unwrap_or_default(),
    );
    if !defects.is_empty() {
        std::process::exit(1);
    }
}
