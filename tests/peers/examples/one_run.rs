//! One configuration of the Andrews benchmark, repeated 10 times, for instruction counting
//! (callgrind counts are repeatable on a loaded machine, where thread CPU is not); prints the
//! last run's NFCN and steps, and with a third argument `digits` its correct digits against the
//! benchmark's reference (a run of 16 322 right-hand sides: leave it out when counting):
//! `valgrind --tool=callgrind target/release/examples/one_run SOLVER RTOL` with SOLVER one of
//! pstab, baumgarte, none, abm (PStab), dop853-pstab, dop853-sboth, dop853-none, dop853-pstab-nd (no step-point
//! drift), dop853-pstab-datol (DATOL = atol; `-datol-nd` without step-point drift), dopri5,
//! dopri8, radau5 (and ida with `--features ida`).

use mbsim_peers::test_models::Sys;
use mbsim_peers::test_models::models::Andrews;
use mbsim_peers::{rkstab, rkstab_with, runtime, russell, significant_digits};
use mbsim_runtime::{Abm, Baumgarte, Dop853, ErrorEstimate, Rkstab, Stabilization};
use russell_ode::Method;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rtol: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1e-8);
    let sys = Sys(Andrews);
    let v0 = [0.0; 7];
    let mut last = None;
    for _ in 0..10 {
        last = Some(match args.get(1).map(String::as_str).unwrap_or("pstab") {
            "pstab" => rkstab(&sys, Stabilization::PStab, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            "baumgarte" => {
                let b = Stabilization::Baumgarte(Baumgarte::from_chin(20.0, 100.0));
                rkstab(&sys, b, rtol, &Andrews::Q0, &v0, 0.03).unwrap()
            }
            "none" => rkstab(&sys, Stabilization::None, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            name if name.starts_with("dop853-") => {
                let base = name.trim_end_matches("-nd").trim_end_matches("-datol");
                let stab = match base {
                    "dop853-pstab" => Stabilization::PStab,
                    "dop853-sboth" => Stabilization::SBoth,
                    "dop853-none" => Stabilization::None,
                    other => panic!("unknown solver {other}"),
                };
                let mut m = Dop853::new(rtol).with_stabilization(stab);
                m.common.track_drift = !name.ends_with("-nd");
                if name.trim_end_matches("-nd").ends_with("-datol") {
                    // DATOL = atol: projections skipped while the drift is within it.
                    m.common.datol = rtol / 10.0;
                }
                runtime(&sys, &m, &Andrews::Q0, &v0, 0.03).unwrap()
            }
            "abm" => runtime(&sys, &Abm::new(rtol), &Andrews::Q0, &v0, 0.03).unwrap(),
            "dopri5" => russell(&sys, Method::DoPri5, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            "dopri8" => russell(&sys, Method::DoPri8, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            "radau5" => russell(&sys, Method::Radau5, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            #[cfg(feature = "ida")]
            "ida" => mbsim_peers::ida(&sys, rtol, &Andrews::Q0, &v0, 0.03).unwrap(),
            other => panic!("unknown solver {other}"),
        });
    }
    let last = last.expect("ten runs");
    let (nfcn, nstep) = (last.nfcn, last.nstep);
    if args.get(3).map(String::as_str) != Some("digits") {
        println!("nfcn per run: {nfcn}, steps {nstep}");
        return;
    }
    let mut opts = Rkstab::new(1e-13);
    opts.error_estimate = ErrorEstimate::Unstabilized;
    let reference = rkstab_with(&sys, opts, &Andrews::Q0, &v0, 0.03).expect("reference");
    let digits = significant_digits(&last.q, &reference.q);
    println!("nfcn per run: {nfcn}, steps {nstep}, digits {digits:.2}");
}
