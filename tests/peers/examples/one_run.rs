//! One configuration of the Andrews benchmark, repeated 10 times, for instruction counting:
//! `valgrind --tool=callgrind target/release/examples/one_run SOLVER RTOL` with SOLVER one of
//! pstab, baumgarte, none, dopri5, dopri8, radau5 (and ida with `--features ida`).

use mbsim_peers::test_models::Sys;
use mbsim_peers::test_models::models::Andrews;
use mbsim_peers::{rkstab, russell};
use mbsim_runtime::{Baumgarte, Stabilization};
use russell_ode::Method;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rtol: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1e-8);
    let sys = Sys(Andrews);
    let v0 = [0.0; 7];
    let mut nfcn = 0;
    for _ in 0..10 {
        nfcn = match args.get(1).map(String::as_str).unwrap_or("pstab") {
            "pstab" => {
                rkstab(&sys, Stabilization::PStab, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            "baumgarte" => {
                let b = Stabilization::Baumgarte(Baumgarte::from_chin(20.0, 100.0));
                rkstab(&sys, b, rtol, &Andrews::Q0, &v0, 0.03).unwrap().nfcn
            }
            "none" => {
                rkstab(&sys, Stabilization::None, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            "dopri5" => {
                russell(&sys, Method::DoPri5, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            "dopri8" => {
                russell(&sys, Method::DoPri8, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            "radau5" => {
                russell(&sys, Method::Radau5, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            #[cfg(feature = "ida")]
            "ida" => {
                mbsim_peers::ida(&sys, rtol, &Andrews::Q0, &v0, 0.03)
                    .unwrap()
                    .nfcn
            }
            other => panic!("unknown solver {other}"),
        };
    }
    println!("nfcn per run: {nfcn}");
}
