//! [CHIN] Table 3.1, "Maximum drifts of a two-arm robot": the two-link manipulator, case I, on
//! [0, 10] with constant-step Heun RK2 and stabilization after every step; the drift is the
//! maximum over steps of |g| and |G v| after stabilization (digest P7 and its [CHECK]).

use crate::common;

use common::models::TwoLink;
use common::{Sys, assert_within, simulate};
use mbsim_runtime::tableau::HEUN;
use mbsim_runtime::{Baumgarte, Drift, FixedStep, Stabilization};

fn max_drift(stab: Stabilization, h: f64) -> Drift {
    let sys = Sys(TwoLink::case_one());
    let (q, v) = TwoLink::initial_state();
    let opts = FixedStep::new(HEUN, h).with_stabilization(stab);
    simulate(&sys, &opts, 0.0, &q, &v, 10.0, &[])
        .map(|(_, stats)| stats)
        .expect("table 3.1 run")
        .max_drift
}

/// Rows: (h, method, published velocity drift, published position drift, [CHECK] velocity,
/// [CHECK] position). The [CHECK] values are the digest's independent reproduction.
const ROWS: [(f64, &str, f64, f64, f64, f64); 6] = [
    (0.01, "baum", 0.72e-2, 0.14e-2, 7.20e-3, 1.45e-3),
    (0.01, "s-full", 0.12e-7, 0.61e-9, 1.23e-8, 6.10e-10),
    (0.01, "pstab", 0.67e-8, 0.15e-13, 3.97e-9, 1.68e-14),
    (0.001, "baum", 0.70e-4, 0.14e-4, 7.05e-5, 1.41e-5),
    (0.001, "s-full", 0.15e-13, 0.40e-14, 1.60e-14, 3.77e-15),
    (0.001, "pstab", 0.18e-13, 0.31e-14, 1.15e-14, 3.11e-15),
];

/// Tolerances: entries above 1e-12 are deterministic truncation-error quantities and must
/// match the [CHECK] reproduction within 10% (the digest's acceptance criterion) and the
/// published value within 10%, except PStab's velocity drift at h = 0.01, which the digest
/// reproduces only to within 2× of the print (4.0e-9 vs 6.7e-9). Entries below 1e-12 are
/// round-off accumulations (a few hundred ulps of O(1) quantities); their exact value depends
/// on operation order, so they are only required to stay within a factor 5 of the print.
#[test]
fn table_3_1_heun_rk2_reproduces_published_drifts() {
    for (h, method, pub_v, pub_p, chk_v, chk_p) in ROWS {
        let stab = match method {
            "baum" => Stabilization::Baumgarte(Baumgarte::from_chin(12.0, 70.0)),
            "s-full" => Stabilization::SFull,
            _ => Stabilization::PStab,
        };
        let d = max_drift(stab, h);
        eprintln!(
            "h = {h}, {method}: velocity {:.3e} (published {pub_v:.2e}), position {:.3e} (published {pub_p:.2e})",
            d.velocity, d.position
        );
        for (level, got, published, checked) in [
            ("velocity", d.velocity, pub_v, chk_v),
            ("position", d.position, pub_p, chk_p),
        ] {
            let what = format!("h = {h}, {method}, {level} drift");
            if published < 1e-12 {
                assert_within(&what, got, published / 5.0, published * 5.0);
            } else {
                assert_within(
                    &format!("{what} vs [CHECK]"),
                    got,
                    0.9 * checked,
                    1.1 * checked,
                );
                let slack = if method == "pstab" && level == "velocity" {
                    2.0
                } else {
                    1.1
                };
                assert_within(
                    &format!("{what} vs published"),
                    got,
                    published / slack,
                    published * slack,
                );
            }
        }
    }
}
