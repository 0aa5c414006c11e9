//! The rest of issue 27 item 2 on the IFToMM A02 chain in body coordinates
//! (`four-bar-chain-bodies`: n = 243, m = 242): `initialize` and the drift controls that were
//! still dense (S-full, GCP, the hybrid, Chin's continuous stabilizations), before and after in
//! one run.
//!
//! "Before" is the model behind [`DenseForms`] (its sparse forms hidden: the runtime takes the
//! dense kernels and the dense paths, exactly as before the sparse path existed); "after" is
//! the model itself. `cargo bench -p mbsim-models --bench sparse_rest` prints thread CPU time:
//! - one `initialize` from the catalog's start with every coordinate moved off the
//!   constraints by ~1e-6 (the Gauss–Newton positions, the velocity projection, the KKT solve);
//! - RKSTAB rtol 1e-8, atol 1e-9 over `SPAN` with each drift control (no output but the end
//!   point; mean CPU over repeated runs for at least 0.3 s, a warm-up run first), its NFCN
//!   and crank 0's angle at the end (the paths agree to the tolerance's round-off, not bit
//!   for bit: different factorizations).
//! - GCP and the hybrid: "before" factors Φ_u by the dense complete-pivoting LU in every
//!   Newton iteration and chooses the partition with dense scans; "after" is their sparse path
//!   (`runtime/src/stabilize/partition_sparse.rs`).

use std::time::Duration;

use mbsim::runtime::{
    ConstrainedSystem, Continuous, ContinuousChoice, HybridOptions, InitOptions, PartitionOptions,
    Problem, Rkstab, Stabilization, initialize, integrate,
};
use mbsim_models::four_bar_chain_bodies::FourBarChainBodies;
use mbsim_testkit::CpuClock;
use mbsim_tests::dense_forms::DenseForms;

/// The span of the runs [s]: long enough for ~100 steps, short enough for the dense paths.
const SPAN: f64 = 0.2;

/// Mean thread CPU time of `f` over repeated calls for at least `budget` (after one warm-up).
fn cpu_mean(budget: Duration, f: impl FnMut()) -> Duration {
    CpuClock::new(budget).warm_up().mean(f)
}

/// The catalog's start: every crank vertical, turning at 1 rad/s.
fn start() -> (Vec<f64>, Vec<f64>) {
    FourBarChainBodies::unit().branch_state(std::f64::consts::FRAC_PI_2, 1.0)
}

/// One `initialize` from the start moved off the constraints: mean CPU, and q[0] found.
fn init(sys: &dyn ConstrainedSystem) -> (Duration, f64) {
    let (mut q, mut v) = start();
    for (i, (a, b)) in q.iter_mut().zip(v.iter_mut()).enumerate() {
        *a += 1e-6 * ((i % 7) as f64 - 3.0);
        *b += 1e-4 * ((i % 5) as f64 - 2.0);
    }
    let opts = InitOptions::default();
    let mut q0 = f64::NAN;
    let cpu = cpu_mean(Duration::from_millis(500), || {
        q0 = initialize(sys, 0.0, &q, &v, &opts).expect("initialize").q[0];
    });
    (cpu, q0)
}

/// RKSTAB over `SPAN` with `stabilization`: CPU, NFCN, crank 0's angle at the end.
fn run(sys: &dyn ConstrainedSystem, stabilization: Stabilization) -> (Duration, usize, f64) {
    let (q0, v0) = start();
    let method = Rkstab::new(1e-8)
        .with_atol(1e-9)
        .with_stabilization(stabilization);
    let problem = Problem::new(0.0, SPAN, &q0, &v0).with_uniform_output(SPAN);
    let (mut nfcn, mut angle) = (0, f64::NAN);
    let cpu = cpu_mean(Duration::from_millis(300), || {
        let (rec, sol) = integrate(sys, &method, &problem).expect("run");
        nfcn = sol.stats.nfcn;
        angle = rec.q.last().map_or(f64::NAN, |q| q[2 * 81]);
    });
    (cpu, nfcn, angle)
}

fn main() {
    let chain = FourBarChainBodies::unit();
    let after: &dyn ConstrainedSystem = &chain;
    let before = DenseForms(after);
    let paths = [
        ("before", &before as &dyn ConstrainedSystem),
        ("after", after),
    ];
    println!("four-bar-chain-bodies (n = 243, m = 242), thread CPU time");
    for (label, sys) in paths {
        let (cpu, q0) = init(sys);
        println!("initialize {label:<7} {cpu:>10.1?} per call  q[0] = {q0:.17e}");
    }
    let ten = 10.0;
    let kinds = [
        ("pstab", Stabilization::PStab),
        ("s-full", Stabilization::SFull),
        (
            "gcp",
            Stabilization::Partitioned(PartitionOptions::default()),
        ),
        ("hybrid", Stabilization::Hybrid(HybridOptions::default())),
        (
            "continuous-ggt",
            Stabilization::Continuous(Continuous::new(ContinuousChoice::GGt, ten)),
        ),
        (
            "continuous-identity",
            Stabilization::Continuous(Continuous::new(ContinuousChoice::Identity, ten)),
        ),
    ];
    println!("RKSTAB rtol 1e-8 atol 1e-9 over {SPAN} s:");
    for (name, kind) in kinds {
        for (label, sys) in paths {
            let (cpu, nfcn, angle) = run(sys, kind);
            let per = cpu / nfcn.max(1) as u32;
            println!(
                "{name:<20} {label:<7} {cpu:>10.1?} NFCN {nfcn:>5} per RHS {per:>9.1?}  \
                 crank 0 {angle:.15e}"
            );
        }
    }
}
