//! The variable-step, variable-order Adams method ([`Abm`]) on the sources' mechanisms: its
//! global error follows the tolerance, it uses the orders it should, it keeps PStab's drift,
//! and against RKSTAB at equal accuracy it needs fewer right-hand sides on smooth problems.

use mbsim_models::catalog;
use mbsim_runtime::catalog::find;
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, ConstrainedSystem, InitOptions, Integrator,
    Problem, Recorder, Rkstab, Solution, Stats, initialize, integrate,
};

fn setup(name: &str) -> (Box<dyn ConstrainedSystem>, Vec<f64>, Vec<f64>) {
    let entry = find(catalog(), name).expect("catalog entry");
    let sys = (entry.build)();
    let (q0, v0) = (entry.initial)(sys.as_ref());
    let init =
        initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default()).expect("consistent start");
    (sys, init.q, init.v)
}

fn run<I: Integrator>(name: &str, t_end: f64, method: &I) -> (Recorder, Stats) {
    let (sys, q0, v0) = setup(name);
    let grid: Vec<f64> = (0..=10).map(|i| t_end * i as f64 / 10.0).collect();
    let problem = Problem::new(0.0, t_end, &q0, &v0).with_times(&grid);
    let (rec, end) =
        integrate(sys.as_ref(), method, &problem).unwrap_or_else(|e| panic!("{name}: {e}"));
    (rec, end.stats)
}

/// Max over samples and coordinates of |q − q_ref| / (1 + |q_ref|).
fn error(rec: &Recorder, reference: &Recorder) -> f64 {
    rec.q
        .iter()
        .zip(&reference.q)
        .flat_map(|(q, qr)| {
            q.iter()
                .zip(qr)
                .map(|(a, b)| (a - b).abs() / (1.0 + b.abs()))
        })
        .fold(0.0, f64::max)
}

/// The models and spans: Andrews over the benchmark's [0, 0.03], the slider-crank with TSDA
/// and the Cartesian pendulum over a few periods of their motion.
const CASES: [(&str, f64); 3] = [
    ("andrews", 0.03),
    ("slider-crank-tsda", 1.0),
    ("pendulum", 5.0),
];

/// For rtol 1e-6, 1e-8, 1e-10 (atol = rtol/10): the global error against RKSTAB at rtol 1e-13
/// stays within 50 rtol (a tolerance-proportional method accumulates its local errors over the
/// run; measured 1.2–15 rtol), the highest order used at rtol ≤ 1e-8 is at least 8 (smooth
/// problems reward high orders; measured 8–12), and PStab holds every step point at
/// ‖Φ‖, ‖Φ̇‖ ≤ 1e-10.
#[test]
fn abm_error_follows_the_tolerance_with_high_orders_and_no_drift() {
    for (name, t_end) in CASES {
        let reference = run(name, t_end, &Rkstab::new(1e-13)).0;
        for rtol in [1e-6, 1e-8, 1e-10] {
            let (rec, stats) = run(name, t_end, &Abm::new(rtol));
            let err = error(&rec, &reference);
            let top = stats.extra.get("order_max").expect("order_max");
            println!(
                "{name} rtol {rtol:e}: error {err:.2e} ({:.1} rtol), {stats}",
                err / rtol
            );
            assert!(
                err <= 50.0 * rtol,
                "{name} rtol {rtol:e}: error {err:e} > 50 rtol"
            );
            if rtol <= 1e-8 {
                assert!(top >= 8, "{name} rtol {rtol:e}: highest order {top} < 8");
            }
            let drift = stats.max_drift.max();
            assert!(
                drift <= 1e-10,
                "{name} rtol {rtol:e}: drift {drift:e} > 1e-10"
            );
        }
    }
}

/// A method run on a problem.
type RunOn<'a> = dyn Fn(&Problem) -> Solution + 'a;

/// Backward integration (t_end < t0): ABM and MAMPC_4 take the pendulum 1 s forward and back
/// to its start; the round trip returns q0 within 1e-6 (two runs' global errors at rtol 1e-10
/// resp. h = 1e-3 with error constant ~1: both ≤ 1e-8, measured ≤ 1e-9; the bound leaves room
/// for the sign-dependent round-off of the RK start).
#[test]
fn abm_and_mampc_integrate_backward() {
    let (sys, q0, v0) = setup("pendulum");
    let scheme = AdamsScheme::new(AdamsKind::Mampc, 4, AdamsStart::RungeKutta);
    let methods: [(&str, Box<RunOn>); 2] = [
        (
            "abm",
            Box::new(|p| {
                Abm::new(1e-10)
                    .integrate_into(sys.as_ref(), p, &mut ())
                    .expect("abm")
            }),
        ),
        (
            "mampc4",
            Box::new(|p| {
                Adams::new(scheme, 1e-3)
                    .integrate_into(sys.as_ref(), p, &mut ())
                    .expect("mampc4")
            }),
        ),
    ];
    for (name, run) in methods {
        let there = run(&Problem::new(0.0, 1.0, &q0, &v0));
        let back = run(&Problem::new(1.0, 0.0, &there.q, &there.v));
        let err = back
            .q
            .iter()
            .zip(&q0)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        println!("{name}: round trip |q - q0| = {err:.2e}");
        assert!(err <= 1e-6, "{name}: round trip error {err:e}");
    }
}
