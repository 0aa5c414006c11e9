//! Bricard's mechanism (IFToMM A04) in point coordinates (`bricard-points`, issue 22 item 4)
//! against its spatial-body form (`bricard`, Euler parameters): released at rest, the five bar
//! centres agree over the benchmark's 10 s, and the point form has one redundant row and
//! keeps its energy.
//!
//! Both run RKSTAB (PStab) at rtol 1e-10 with their redundant row left out; the point form
//! also with ALI3-P at h = 1e-3. Bounds: the two RKSTAB runs are independent discretisations
//! of the same motion, each with a global error of ~10–100 rtol over the ~10⁴ steps of a 10 s
//! run: 1e-6 m on the centres; ALI3-P's second-order error at h = 1e-3 over 10 s, (ωh)² times
//! the amplitude with ω ≲ 5 rad/s, ~1e-4 m.

use mbsim_models::{Bricard, BricardPoints};
use mbsim_runtime::analysis::check;
use mbsim_runtime::{Ali3p, ConstrainedSystem, Integrator, Problem, Recorder, Rkstab, integrate};

fn run<I: Integrator>(sys: &dyn ConstrainedSystem, method: &I, q0: &[f64], v0: &[f64]) -> Recorder {
    let times: Vec<f64> = (0..=100).map(|i| i as f64 * 0.1).collect();
    let problem = Problem::new(0.0, 10.0, q0, v0).with_times(&times);
    integrate(sys, method, &problem)
        .unwrap_or_else(|e| panic!("{} on {}: {e}", method.name(), sys.name()))
        .0
}

/// The largest distance of the five bar centres from the spatial form's (metres).
fn centre_gap(points: &BricardPoints, rec: &Recorder, bodies: &Recorder) -> f64 {
    let mut gap = 0.0_f64;
    for (q, qb) in rec.q.iter().zip(&bodies.q) {
        for k in 0..5 {
            let c = points.bar_centre(q, k);
            for (a, b) in c.iter().zip(&qb[7 * k..7 * k + 3]) {
                gap = gap.max((a - b).abs());
            }
        }
    }
    gap
}

#[test]
fn point_form_agrees_with_the_spatial_body_form() {
    let points = BricardPoints::published();
    let (q0, v0) = BricardPoints::initial(&points);
    let diagnosis = check(&points, 0.0, &q0).expect("check");
    assert_eq!(
        (diagnosis.n, diagnosis.jacobian.rank, diagnosis.dof),
        (24, 23, 1),
        "24 coordinates, rank 23, one DOF"
    );
    let bodies = Bricard::published();
    let (qb, vb) = Bricard::initial(&bodies);
    let reference = run(&bodies, &Rkstab::new(1e-10).with_atol(1e-10), &qb, &vb);
    let rk = run(&points, &Rkstab::new(1e-10).with_atol(1e-10), &q0, &v0);
    let ali = run(&points, &Ali3p::new(1e-3), &q0, &v0);
    let (gap_rk, gap_ali) = (
        centre_gap(&points, &rk, &reference),
        centre_gap(&points, &ali, &reference),
    );
    eprintln!(
        "bricard-points vs bricard over 10 s: RKSTAB 1e-10 {gap_rk:.2e} m, ALI3-P h=1e-3 {gap_ali:.2e} m"
    );
    assert!(gap_rk <= 1e-6, "RKSTAB centres {gap_rk:e}");
    assert!(gap_ali <= 1e-4, "ALI3-P centres {gap_ali:e}");
}
