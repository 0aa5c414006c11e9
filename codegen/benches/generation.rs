//! Generation time and operation counts for the closed n-link chain, against SymEngine and
//! SymPy measured in the same run (`cargo bench -p codegen --bench generation`).
//!
//! Timed here: build the model (Φ), derive every kernel (Φ_q, Φ_t, γ, L, A, b — and M, Q,
//! trivial for this fixture), schedule the joint CSE of Φ, Φ_q, γ and L, and emit the whole
//! `impl ConstrainedSystem` (all ten kernels, prettyplease-formatted) — more than the peers do.
//! Timed for the peers (`tests/oracle/bench_kernels.py`, each repeat in a fresh process):
//! build Φ, differentiate Φ_q, L and γ, one joint `cse`. Both sides report the best of several
//! repeats; the peers' op counts use the same definition as `Schedule::op_count`.
//!
//! Environment: `BENCH_PEER_N` (default "5 10 20 40 60") and `BENCH_PEER_TIMEOUT` (seconds per
//! peer process, default 120) bound the peer runs. The peers need `.venv` with the pinned
//! packages (`cargo xtask oracle-env`); without it this bench fails, it does not skip.

use criterion::{BenchmarkId, Criterion};
use mbsim_codegen::cse::Schedule;
use mbsim_codegen::{Model, emit, fixtures, kernels};
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

const SIZES: [usize; 5] = [5, 10, 20, 40, 60];

/// The timed pipeline; returns the emitted source so nothing is optimised away.
fn generate(n: usize) -> (Model, String) {
    let mut model = fixtures::closed_chain(n);
    let k = kernels::derive(&mut model);
    let source = emit::emit_source(&model, &k, &emit::EmitOptions::default());
    (model, source)
}

/// Operation counts after CSE: the four kernels jointly, then each alone.
fn op_counts(n: usize) -> (usize, [usize; 4]) {
    let mut model = fixtures::closed_chain(n);
    let k = kernels::derive(&mut model);
    let pool = &model.pool;
    let parts = [
        k.phi.clone(),
        k.phi_q.entries.clone(),
        k.gamma.clone(),
        k.l.entries.clone(),
    ];
    let joint: Vec<_> = parts.concat();
    let each = parts.map(|p| Schedule::new(pool, &p).op_count(pool));
    (Schedule::new(pool, &joint).op_count(pool), each)
}

fn best_of(repeats: usize, n: usize) -> Duration {
    (0..repeats)
        .map(|_| {
            let start = Instant::now();
            std::hint::black_box(generate(n));
            start.elapsed()
        })
        .min()
        .expect("at least one repeat")
}

/// One line of the peer script's JSON output, parsed by hand (no serde in this crate).
struct PeerResult {
    backend: String,
    n: usize,
    seconds: Option<f64>,
    ops: Option<usize>,
    ops_per_kernel: Option<[usize; 4]>,
}

fn field<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let start = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = line[start..].trim_start();
    let end = rest.find([',', '}']).unwrap_or(rest.len());
    Some(rest[..end].trim().trim_matches('"'))
}

fn parse_peer(line: &str) -> Option<PeerResult> {
    let kernel = |k: &str| {
        let obj = &line[line.find("\"ops_per_kernel\":")?..];
        field(obj, k)?.parse().ok()
    };
    Some(PeerResult {
        backend: field(line, "backend")?.to_string(),
        n: field(line, "n")?.parse().ok()?,
        seconds: field(line, "seconds").and_then(|s| s.parse().ok()),
        ops: field(line, "ops_after_cse").and_then(|s| s.parse().ok()),
        ops_per_kernel: (|| {
            Some([
                kernel("phi")?,
                kernel("phi_q")?,
                kernel("gamma")?,
                kernel("L")?,
            ])
        })(),
    })
}

fn run_peers() -> Vec<PeerResult> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join(".venv/bin/python");
    assert!(
        python.exists(),
        "peer benchmark needs {} — run `cargo xtask oracle-env` first",
        python.display()
    );
    let sizes = std::env::var("BENCH_PEER_N").unwrap_or_else(|_| "5 10 20 40 60".into());
    let timeout = std::env::var("BENCH_PEER_TIMEOUT").unwrap_or_else(|_| "120".into());
    let mut cmd = Command::new(&python);
    cmd.arg(root.join("tests/oracle/bench_kernels.py"))
        .arg("--n");
    cmd.args(sizes.split_whitespace()).args([
        "--backend",
        "symengine",
        "sympy",
        "--timeout",
        &timeout,
        "--repeat",
        "3",
    ]);
    let out = cmd.output().expect("run the peer benchmark script");
    assert!(
        out.status.success(),
        "peer benchmark failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(parse_peer)
        .collect()
}

fn comparison_table() {
    let peers = run_peers();
    println!("\nclosed n-link chain: Φ, Φ_q, γ, L — generation time and ops after joint CSE");
    println!(
        "{:>4} {:>12} {:>8} | {:>10} {:>12} {:>8} {:>8} | per-kernel ops ours vs peer (phi, phi_q, gamma, L)",
        "n", "ours [ms]", "ops", "peer", "peer [ms]", "ops", "speedup"
    );
    for n in SIZES {
        let ours = best_of(5, n);
        let (ops, each) = op_counts(n);
        for peer in peers.iter().filter(|p| p.n == n) {
            let (secs, speedup) = match peer.seconds {
                Some(s) => (
                    format!("{:.1}", s * 1e3),
                    format!("{:.0}×", s / ours.as_secs_f64()),
                ),
                None => ("timeout".to_string(), "-".to_string()),
            };
            let peer_ops = peer.ops.map_or("-".to_string(), |o| {
                format!("{o} ({:.2}×)", ops as f64 / o as f64)
            });
            let per_kernel = peer.ops_per_kernel.map_or("-".to_string(), |pk| {
                let ratios: Vec<String> = each
                    .iter()
                    .zip(pk)
                    .map(|(a, b)| format!("{a}/{b}"))
                    .collect();
                ratios.join(", ")
            });
            println!(
                "{n:>4} {:>12.2} {ops:>8} | {:>10} {secs:>12} {peer_ops:>8} {speedup:>8} | {per_kernel}",
                ours.as_secs_f64() * 1e3,
                peer.backend
            );
        }
    }
}

fn criterion_benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate_closed_chain");
    group.sample_size(10);
    for n in SIZES {
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, &n| {
            b.iter(|| generate(n))
        });
    }
    group.finish();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    criterion_benches(&mut c);
    c.final_summary();
    comparison_table();
}
