//! Work–precision of the multistep methods against RKSTAB (issue: Adams and DADS methods):
//! Andrews' squeezer on [0, 0.03] and the slider-crank with TSDA on [0, 1], rtol = 1e-4 …
//! 1e-11 (atol = rtol/10), for RKSTAB/PStab, the variable-order ABM with PStab and with
//! Baumgarte, and Haug's DADS methods (GCP with RKSTAB and ABM, the hybrid with ABM).
//!
//! `cargo bench -p mbsim-models --bench work_precision` prints one table first: correct digits
//! of q(t_end) against RKSTAB at rtol 1e-13 (cross-checked by ABM at 1e-12), NFCN, steps, the
//! largest ‖Φ‖ over the step points, and the mean thread CPU time over repeated runs of at
//! least 0.2 s; then the fewest NFCN each method needs for 8 digits. Criterion then measures
//! wall time at rtol 1e-8.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_models::catalog;
use mbsim_runtime::catalog::find;
use mbsim_runtime::{
    Abm, Baumgarte, ConstrainedSystem, HybridOptions, InitOptions, Integrator, PartitionOptions,
    Problem, Rkstab, Solution, Stabilization, initialize,
};
use mbsim_testkit::CpuClock;

const RTOLS: [f64; 8] = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11];
const CASES: [(&str, f64); 2] = [("andrews", 0.03), ("slider-crank-tsda", 1.0)];

/// A method of the comparison, built for one rtol.
#[derive(Clone, Copy)]
struct Entry {
    name: &'static str,
    build: fn(f64) -> Method,
}

enum Method {
    Rkstab(Rkstab),
    Abm(Abm),
}

impl Method {
    fn run(&self, sys: &dyn ConstrainedSystem, problem: &Problem) -> Option<Solution> {
        match self {
            Method::Rkstab(m) => m.integrate_into(sys, problem, &mut ()).ok(),
            Method::Abm(m) => m.integrate_into(sys, problem, &mut ()).ok(),
        }
    }
}

fn entries() -> Vec<Entry> {
    vec![
        Entry {
            name: "rkstab/pstab",
            build: |r| Method::Rkstab(Rkstab::new(r)),
        },
        Entry {
            name: "abm/pstab",
            build: |r| Method::Abm(Abm::new(r)),
        },
        Entry {
            name: "rkstab/gcp",
            build: |r| {
                let gcp = Stabilization::Partitioned(PartitionOptions::default());
                Method::Rkstab(Rkstab::new(r).with_stabilization(gcp))
            },
        },
        Entry {
            name: "abm/gcp",
            build: |r| {
                let gcp = Stabilization::Partitioned(PartitionOptions::default());
                Method::Abm(Abm::new(r).with_stabilization(gcp))
            },
        },
        Entry {
            name: "abm/hybrid",
            build: |r| {
                let hybrid = Stabilization::Hybrid(HybridOptions::default());
                Method::Abm(Abm::new(r).with_stabilization(hybrid))
            },
        },
        Entry {
            name: "abm/baumgarte(20,100)",
            build: |r| {
                let b = Baumgarte::from_chin(20.0, 100.0);
                Method::Abm(Abm::new(r).with_stabilization(Stabilization::Baumgarte(b)))
            },
        },
    ]
}

fn setup(name: &str, t_end: f64) -> (Box<dyn ConstrainedSystem>, Problem) {
    let entry = find(catalog(), name).expect("catalog entry");
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let opts = InitOptions {
        tol: 1e-14,
        ..InitOptions::default()
    };
    let init = initialize(sys.as_ref(), 0.0, &q0, &v0, &opts).expect("consistent start");
    let problem = Problem::new(0.0, t_end, &init.q, &init.v);
    (sys, problem)
}

/// −log10 of the largest absolute error of q(t_end), at most 16.
fn digits(q: &[f64], reference: &[f64]) -> f64 {
    let err = q
        .iter()
        .zip(reference)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (-err.max(1e-16).log10()).min(16.0)
}

/// Mean thread CPU time of `f` over repeated runs totalling at least 0.2 s.
fn mean_time(f: impl Fn()) -> Duration {
    CpuClock::new(Duration::from_millis(200))
        .min_calls(3)
        .mean(f)
}

fn print_table() {
    for (model, t_end) in CASES {
        let (sys, problem) = setup(model, t_end);
        let reference = Rkstab::new(1e-13)
            .integrate_into(sys.as_ref(), &problem, &mut ())
            .expect("reference");
        let check = Abm::new(1e-12)
            .integrate_into(sys.as_ref(), &problem, &mut ())
            .expect("check");
        println!(
            "\n{model} on [0, {t_end}]: reference RKSTAB/PStab rtol 1e-13 ({} NFCN); ABM rtol 1e-12 agrees to {:.1} digits",
            reference.stats.nfcn,
            digits(&check.q, &reference.q)
        );
        println!(
            "{:<24} {:>7} {:>7} {:>7} {:>7} {:>10} {:>11}",
            "method", "rtol", "digits", "nfcn", "steps", "max |Φ|", "cpu [µs]"
        );
        for entry in entries() {
            let mut best: Option<usize> = None;
            for rtol in RTOLS {
                let method = (entry.build)(rtol);
                let Some(end) = method.run(sys.as_ref(), &problem) else {
                    println!("{:<24} {rtol:>7.0e}   failed", entry.name);
                    continue;
                };
                let cpu = mean_time(|| {
                    method.run(sys.as_ref(), &problem);
                });
                let d = digits(&end.q, &reference.q);
                let s = end.stats;
                if d >= 8.0 {
                    best = Some(best.map_or(s.nfcn, |b| b.min(s.nfcn)));
                }
                println!(
                    "{:<24} {rtol:>7.0e} {d:>7.2} {:>7} {:>7} {:>10.1e} {:>11.1}",
                    entry.name,
                    s.nfcn,
                    s.nstep,
                    s.max_drift.position,
                    cpu.as_secs_f64() * 1e6
                );
            }
            match best {
                Some(n) => println!("{:<24} 8 digits with {n} NFCN", entry.name),
                None => println!("{:<24} never reaches 8 digits", entry.name),
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    print_table();
    let mut group = c.benchmark_group("work_precision");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    for (model, t_end) in CASES {
        let (sys, problem) = setup(model, t_end);
        for entry in entries() {
            let method = (entry.build)(1e-8);
            group.bench_function(format!("{model}/{}/rtol=1e-8", entry.name), |b| {
                b.iter(|| method.run(sys.as_ref(), &problem))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
