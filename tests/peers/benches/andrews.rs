//! Andrews squeezer on [0, 0.03]: significant correct digits vs CPU time for RKSTAB (PStab,
//! Baumgarte B(20,100), none) and the `russell_ode` peers (DoPri5, DoPri8, Radau5 on the
//! index-1 ODE form), rtol = 1e-4 … 1e-10, atol = rtol/10.
//!
//! Run with `cargo bench -p peers --bench andrews` (add `--features ida` for SUNDIALS IDA). Before the criterion measurements it prints
//! a table (digits from the end positions against a reference run; cpu = mean thread CPU time
//! over repeated runs of at least 0.3 s CPU in total). Criterion then measures wall time.

use std::time::Duration;

use cpu_time::ThreadTime;

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_peers::test_models::Sys;
use mbsim_peers::test_models::models::Andrews;
use mbsim_peers::{RunResult, rkstab, rkstab_with, russell, significant_digits};
use mbsim_runtime::{Baumgarte, ErrorEstimate, Rkstab, Stabilization};
use russell_ode::Method;

const T_END: f64 = 0.03;
const RTOLS: [f64; 7] = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10];

#[derive(Clone, Copy)]
enum Solver {
    Rkstab(&'static str, Stabilization),
    Russell(&'static str, Method),
    #[cfg_attr(not(feature = "ida"), allow(dead_code))]
    Ida,
}

impl Solver {
    fn name(&self) -> &'static str {
        match self {
            Solver::Rkstab(n, _) | Solver::Russell(n, _) => n,
            Solver::Ida => "sundials-ida",
        }
    }

    fn run(&self, rtol: f64) -> Option<RunResult> {
        let sys = Sys(Andrews);
        let v0 = [0.0; 7];
        match *self {
            Solver::Rkstab(_, stab) => rkstab(&sys, stab, rtol, &Andrews::Q0, &v0, T_END).ok(),
            Solver::Russell(_, m) => russell(&sys, m, rtol, &Andrews::Q0, &v0, T_END).ok(),
            #[cfg(feature = "ida")]
            Solver::Ida => mbsim_peers::ida(&sys, rtol, &Andrews::Q0, &v0, T_END).ok(),
            #[cfg(not(feature = "ida"))]
            Solver::Ida => None,
        }
    }
}

fn solvers() -> Vec<Solver> {
    vec![
        Solver::Rkstab("rkstab-pstab", Stabilization::PStab),
        Solver::Rkstab(
            "rkstab-b(20,100)",
            Stabilization::Baumgarte(Baumgarte::from_chin(20.0, 100.0)),
        ),
        Solver::Rkstab("rkstab-none", Stabilization::None),
        Solver::Russell("russell-dopri5", Method::DoPri5),
        Solver::Russell("russell-dopri8", Method::DoPri8),
        Solver::Russell("russell-radau5", Method::Radau5),
        #[cfg(feature = "ida")]
        Solver::Ida,
    ]
}

/// Mean thread CPU time of `f` over repeated runs totalling at least 0.3 s of CPU time.
fn mean_time(f: impl Fn()) -> Duration {
    let start = ThreadTime::now();
    let mut runs = 0u32;
    while start.elapsed() < Duration::from_millis(300) || runs < 3 {
        f();
        runs += 1;
    }
    start.elapsed() / runs
}

fn print_table() {
    let sys = Sys(Andrews);
    // At rtol 1e-13 the thesis' stabilized error estimate has a round-off floor (the PStab
    // correction of an already-stabilized point does not vanish as h → 0) and the step size
    // collapses; the reference therefore uses the plain DOPRI5 estimate.
    let mut opts = Rkstab::new(1e-13);
    opts.error_estimate = ErrorEstimate::Unstabilized;
    let reference = rkstab_with(&sys, opts, &Andrews::Q0, &[0.0; 7], T_END).expect("reference");
    let check =
        russell(&sys, Method::DoPri8, 1e-13, &Andrews::Q0, &[0.0; 7], T_END).expect("dopri8 check");
    println!(
        "reference: RKSTAB/PStab rtol 1e-13, plain DOPRI5 error estimate ({} NFCN); DoPri8 rtol 1e-13 agrees to {:.1} digits",
        reference.nfcn,
        significant_digits(&check.q, &reference.q)
    );
    println!(
        "{:<18} {:>7} {:>7} {:>8} {:>12}",
        "solver", "rtol", "digits", "nfcn", "cpu [µs]"
    );
    for solver in solvers() {
        for rtol in RTOLS {
            match solver.run(rtol) {
                Some(r) => {
                    let t = mean_time(|| {
                        solver.run(rtol);
                    });
                    println!(
                        "{:<18} {:>7.0e} {:>7.2} {:>8} {:>12.1}",
                        solver.name(),
                        rtol,
                        significant_digits(&r.q, &reference.q),
                        r.nfcn,
                        t.as_secs_f64() * 1e6
                    );
                }
                None => println!("{:<18} {:>7.0e}   failed", solver.name(), rtol),
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    print_table();
    let mut group = c.benchmark_group("andrews_0.03");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(600));
    for solver in solvers() {
        for rtol in RTOLS {
            if solver.run(rtol).is_some() {
                group.bench_function(format!("{}/rtol={rtol:.0e}", solver.name()), |b| {
                    b.iter(|| solver.run(rtol))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
