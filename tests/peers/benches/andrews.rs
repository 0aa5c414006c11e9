//! Andrews squeezer on [0, 0.03]: significant correct digits vs CPU time for RKSTAB (PStab,
//! Baumgarte B(20,100), none), the stabilized DOP853 (PStab, PStab with DATOL = atol, S-both,
//! none), ABM (PStab) and the
//! `russell_ode` peers (DoPri5, DoPri8, Radau5 on the index-1 ODE form), all on the same
//! kernels and KKT solve, rtol = 1e-4 … 1e-12, atol = rtol/10.
//!
//! Run with `cargo bench -p peers --bench andrews` (add `--features ida` for SUNDIALS IDA). Before the criterion measurements it prints
//! the cost of one PStab projection in right-hand sides, then a table (digits from the end positions against a reference run; cpu = mean thread CPU time
//! over repeated runs of at least 0.3 s CPU in total). Criterion then measures wall time.

use std::time::Duration;

use mbsim_testkit::CpuClock;

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim_peers::test_models::Sys;
use mbsim_peers::test_models::models::Andrews;
use mbsim_peers::{RunResult, rkstab, rkstab_with, runtime, russell, significant_digits};
use mbsim_runtime::{
    Abm, Baumgarte, ConstrainedSystem, Dop853, ErrorEstimate, KktWorkspace, Rkstab, Stabilization,
    Stabilizer, accelerations_into,
};
use russell_ode::Method;

const T_END: f64 = 0.03;
const RTOLS: [f64; 9] = [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12];

#[derive(Clone, Copy)]
enum Solver {
    Rkstab(&'static str, Stabilization),
    Dop853(&'static str, Stabilization),
    /// DOP853 with PStab and DATOL = atol: a step whose drift is within atol is not projected
    /// (its drift test reads G from the k'_13 factors and serves as the step point's drift).
    Dop853Datol(&'static str),
    Abm(&'static str),
    Russell(&'static str, Method),
    #[cfg_attr(not(feature = "ida"), allow(dead_code))]
    Ida,
}

impl Solver {
    fn name(&self) -> &'static str {
        match self {
            Solver::Rkstab(n, _) | Solver::Dop853(n, _) | Solver::Russell(n, _) => n,
            Solver::Abm(n) | Solver::Dop853Datol(n) => n,
            Solver::Ida => "sundials-ida",
        }
    }

    fn run(&self, rtol: f64) -> Option<RunResult> {
        let sys = Sys(Andrews);
        let v0 = [0.0; 7];
        match *self {
            Solver::Rkstab(_, stab) => rkstab(&sys, stab, rtol, &Andrews::Q0, &v0, T_END).ok(),
            Solver::Dop853(_, stab) => {
                let m = Dop853::new(rtol).with_stabilization(stab);
                runtime(&sys, &m, &Andrews::Q0, &v0, T_END).ok()
            }
            Solver::Dop853Datol(_) => {
                let mut m = Dop853::new(rtol);
                m.common.datol = rtol / 10.0;
                runtime(&sys, &m, &Andrews::Q0, &v0, T_END).ok()
            }
            Solver::Abm(_) => runtime(&sys, &Abm::new(rtol), &Andrews::Q0, &v0, T_END).ok(),
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
        Solver::Dop853("dop853-pstab", Stabilization::PStab),
        Solver::Dop853("dop853-none", Stabilization::None),
        Solver::Dop853("dop853-sboth", Stabilization::SBoth),
        Solver::Dop853Datol("dop853-pstab-datol"),
        Solver::Abm("abm-pstab"),
        Solver::Russell("russell-dopri5", Method::DoPri5),
        Solver::Russell("russell-dopri8", Method::DoPri8),
        Solver::Russell("russell-radau5", Method::Radau5),
        #[cfg(feature = "ida")]
        Solver::Ida,
    ]
}

/// Mean thread CPU time of `f` over repeated runs totalling at least 0.3 s of CPU time.
fn mean_time(f: impl Fn()) -> Duration {
    CpuClock::new(Duration::from_millis(300))
        .min_calls(3)
        .mean(f)
}

/// Mean thread CPU time of one call of `f`, in batches of 1000 for at least 0.3 s.
fn per_call(f: impl FnMut()) -> Duration {
    CpuClock::new(Duration::from_millis(300))
        .batch(1000)
        .mean(f)
}

/// What a post-stabilization costs against a right-hand side: one `accelerations_into` (the
/// fused kernel, the dense KKT LU of order 13, one solve); one PStab projection as RKSTAB makes
/// it (M and G at the unstabilized point, the same LU, two passes of Φ, G at the first pass's
/// point and a pair of solves); and the same projection as DOP853 makes it, with the factors
/// its k'_13 evaluation at the unstabilized point left (the passes only). From a state off the
/// constraints by ~1e-8. RKSTAB spends 6 right-hand sides per step, DOP853 12.
fn print_projection_cost() {
    let sys = Sys(Andrews);
    let d = sys.dims();
    let (q, v) = (Andrews::Q0.to_vec(), vec![0.1; d.n]);
    let mut ws = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    let mut rhs = |ws: &mut KktWorkspace, q: &[f64]| {
        accelerations_into(&sys, 0.0, q, &v, None, ws, 0.0, &mut vdot, &mut lambda)
            .expect("regular")
    };
    let floor = per_call(|| rhs(&mut ws, &q));
    let off: Vec<f64> = (q.iter().enumerate())
        .map(|(i, x)| x + 1e-8 * ((i % 3) as f64 - 1.0))
        .collect();
    let mut stab = Stabilizer::new(Stabilization::PStab, d);
    let (mut qs, mut vs) = (q.clone(), v.clone());
    let reset = |qs: &mut Vec<f64>, vs: &mut Vec<f64>| {
        qs.copy_from_slice(&off);
        vs.copy_from_slice(&v);
    };
    let projection = per_call(|| {
        reset(&mut qs, &mut vs);
        stab.apply(&sys, 0.0, 1e-3, &mut qs, &mut vs, 0.0)
            .expect("projection");
    });
    rhs(&mut ws, &off);
    let reused = per_call(|| {
        reset(&mut qs, &mut vs);
        stab.apply_factored(&sys, 0.0, 1e-3, &mut qs, &mut vs, 0.0, &mut ws)
            .expect("projection with the dynamics' factors");
    });
    let ratio = projection.as_secs_f64() / floor.as_secs_f64();
    let reused_ratio = reused.as_secs_f64() / floor.as_secs_f64();
    println!(
        "one right-hand side {floor:.2?}; one PStab projection {projection:.2?} ({ratio:.2} right-hand sides, {:.1} % of RKSTAB's 6 per step); with the dynamics' factors {reused:.2?} ({reused_ratio:.2}, {:.1} % of DOP853's 12)",
        100.0 * ratio / 6.0,
        100.0 * reused_ratio / 12.0
    );
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
    let eighth = Dop853::new(1e-13);
    let eighth = runtime(&sys, &eighth, &Andrews::Q0, &[0.0; 7], T_END).expect("dop853 check");
    println!(
        "reference: RKSTAB/PStab rtol 1e-13, plain DOPRI5 error estimate ({} NFCN); DoPri8 rtol 1e-13 agrees to {:.1} digits, DOP853/PStab rtol 1e-13 to {:.1}",
        reference.nfcn,
        significant_digits(&check.q, &reference.q),
        significant_digits(&eighth.q, &reference.q)
    );
    println!(
        "{:<18} {:>7} {:>7} {:>8} {:>12}",
        "solver", "rtol", "digits", "nfcn", "cpu [µs]"
    );
    let mut curves = Vec::new();
    for solver in solvers() {
        let mut points = Vec::new();
        for rtol in RTOLS {
            match solver.run(rtol) {
                Some(r) => {
                    let t = mean_time(|| {
                        solver.run(rtol);
                    });
                    let digits = significant_digits(&r.q, &reference.q);
                    let cpu = t.as_secs_f64() * 1e6;
                    println!(
                        "{:<18} {:>7.0e} {:>7.2} {:>8} {:>12.1}",
                        solver.name(),
                        rtol,
                        digits,
                        r.nfcn,
                        cpu
                    );
                    points.push((digits, cpu));
                }
                None => println!("{:<18} {:>7.0e}   failed", solver.name(), rtol),
            }
        }
        curves.push((solver.name(), points));
    }
    print_cost_at_digits(&curves);
    print_fitted_cost(&reference.q);
}

/// Tolerances of the fitted comparison: 25 per 4 decades, 1e-7 … 1e-11.
fn fitted_tolerances() -> impl Iterator<Item = f64> {
    (0..=24).map(|i| 10f64.powf(-7.0 - f64::from(i) / 6.0))
}

/// The eighth-order solvers at the same accuracy with the scatter of single runs averaged
/// out: the end-point digits move by ±0.4 between neighbouring tolerances, so the
/// interpolation between two runs above can flip a 5 % verdict. Each solver runs at
/// [`fitted_tolerances`]; a least-squares line ln cpu = a + b · digits through its runs with
/// 7.5 … 10.5 digits gives its cost at 8, 9 and 10 digits, and the ratio to DoPri8's. The
/// spread s of the runs about the line (standard deviation of ln cpu) says how far to trust
/// it: a ratio within ±s/√(runs) of 1 is a tie.
fn print_fitted_cost(reference: &[f64]) {
    let solvers = [
        Solver::Dop853("dop853-pstab", Stabilization::PStab),
        Solver::Dop853Datol("dop853-pstab-datol"),
        Solver::Dop853("dop853-none", Stabilization::None),
        Solver::Russell("russell-dopri8", Method::DoPri8),
    ];
    println!("\ncpu [µs] at 8 / 9 / 10 digits from a least-squares line through 25 tolerances");
    // The solvers take turns at each tolerance, so a change of the machine's load during the
    // measurement falls on all of them alike.
    let mut points = vec![Vec::new(); solvers.len()];
    for rtol in fitted_tolerances() {
        for (solver, points) in solvers.iter().zip(points.iter_mut()) {
            let Some(r) = solver.run(rtol) else { continue };
            let digits = significant_digits(&r.q, reference);
            if (7.5..=10.5).contains(&digits) {
                let cpu = mean_time(|| {
                    solver.run(rtol);
                });
                points.push((digits, (cpu.as_secs_f64() * 1e6).ln()));
            }
        }
    }
    let mut fits = Vec::new();
    for (solver, points) in solvers.iter().zip(&points) {
        let (a, b, spread) = least_squares(points);
        fits.push((a, b));
        let at = |d: f64| (a + b * d).exp();
        println!(
            "{:<18} {:>9.1} {:>9.1} {:>9.1}   ({} runs, spread {spread:.3})",
            solver.name(),
            at(8.0),
            at(9.0),
            at(10.0),
            points.len()
        );
    }
    let (a_ref, b_ref) = fits[fits.len() - 1];
    for (solver, (a, b)) in solvers.iter().zip(&fits) {
        let ratio = |d: f64| ((a + b * d) - (a_ref + b_ref * d)).exp();
        println!(
            "{:<18} / DoPri8: {:.3} {:.3} {:.3}",
            solver.name(),
            ratio(8.0),
            ratio(9.0),
            ratio(10.0)
        );
    }
}

/// The line y = a + b x through `points` (x, y) by least squares, and the standard deviation
/// of the residuals.
fn least_squares(points: &[(f64, f64)]) -> (f64, f64, f64) {
    let count = points.len() as f64;
    let (mx, my) = points.iter().fold((0.0, 0.0), |(sx, sy), (x, y)| {
        (sx + x / count, sy + y / count)
    });
    let (sxy, sxx) = points.iter().fold((0.0, 0.0), |(sxy, sxx), (x, y)| {
        (sxy + (x - mx) * (y - my), sxx + (x - mx) * (x - mx))
    });
    let b = sxy / sxx;
    let a = my - b * mx;
    let residual = points
        .iter()
        .map(|(x, y)| (y - a - b * x).powi(2))
        .sum::<f64>();
    (a, b, (residual / (count - 2.0).max(1.0)).sqrt())
}

/// The digits of the comparison: CPU time to reach them, per solver.
const DIGITS: [f64; 5] = [8.0, 9.0, 10.0, 11.0, 12.0];

/// CPU time per solver at 8…12 correct digits, interpolated in log(cpu) between the two runs
/// whose digits bracket the target (the runs of neighbouring tolerances); `-` when no run of
/// the solver reached it (or none fell short of it).
fn print_cost_at_digits(curves: &[(&str, Vec<(f64, f64)>)]) {
    println!("\ncpu [µs] at the same accuracy (interpolated between tolerances)");
    print!("{:<18}", "solver");
    for d in DIGITS {
        print!(" {:>9}", format!("{d} dig"));
    }
    println!();
    for (name, points) in curves {
        print!("{name:<18}");
        for d in DIGITS {
            match cost_at(points, d) {
                Some(cpu) => print!(" {cpu:>9.1}"),
                None => print!(" {:>9}", "-"),
            }
        }
        println!();
    }
}

/// log-linear interpolation of cpu at `digits` between the cheapest run reaching them and the
/// most accurate run short of them.
fn cost_at(points: &[(f64, f64)], digits: f64) -> Option<f64> {
    let above = points
        .iter()
        .filter(|(d, _)| *d >= digits)
        .min_by(|a, b| a.1.total_cmp(&b.1))?;
    let below = points
        .iter()
        .filter(|(d, c)| *d < digits && *c <= above.1)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    Some(match below {
        Some(b) if above.0 > b.0 => {
            let w = (digits - b.0) / (above.0 - b.0);
            (b.1.ln() + w * (above.1.ln() - b.1.ln())).exp()
        }
        _ => above.1,
    })
}

fn bench(c: &mut Criterion) {
    print_projection_cost();
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
