//! The Adams methods on plain ODEs: \[HAUG\] Examples 7.4.4/7.4.5 (hand-computed values of the
//! self-starting AB and PECE on x' = x, h = 0.1), the convergence order of every kind and order
//! 1–5 with the Runge–Kutta start, and the option checks. The constrained-system runs are in
//! `adams_dae.rs`; the published tables are reproduced in `mbsim repro`.

use mbsim_runtime::adams::{FirstOrderOde, integrate_ode};
use mbsim_runtime::{AdamsKind, AdamsScheme, AdamsStart, SimError};

/// x' = x.
struct Growth;

impl FirstOrderOde for Growth {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, _t: f64, z: &[f64], f: &mut [f64]) -> Result<(), SimError> {
        f[0] = z[0];
        Ok(())
    }
}

/// The harmonic oscillator x'' = −x as z = (x, x').
struct Oscillator;

impl FirstOrderOde for Oscillator {
    fn dim(&self) -> usize {
        2
    }
    fn eval(&mut self, _t: f64, z: &[f64], f: &mut [f64]) -> Result<(), SimError> {
        (f[0], f[1]) = (z[1], -z[0]);
        Ok(())
    }
}

fn growth(kind: AdamsKind, order: usize, steps: usize) -> Vec<f64> {
    let scheme = AdamsScheme::new(kind, order, AdamsStart::Ramp);
    let mut xs = Vec::new();
    integrate_ode(
        &mut Growth,
        &scheme,
        0.0,
        &[1.0],
        0.1,
        steps,
        &mut |_, _, z| xs.push(z[0]),
    )
    .expect("x' = x");
    xs
}

/// Haug's hand values are printed to 6–8 digits: agreement to half a unit in the last digit.
fn assert_printed(what: &str, ours: f64, printed: f64, digits: i32) {
    let tol = 0.5 * 10f64.powi(-digits);
    let delta = (ours - printed).abs();
    println!("{what}: ours {ours:.9}, printed {printed}, delta {delta:.2e}, tolerance {tol:.1e}");
    assert!(delta <= tol, "{what}: ours {ours}, printed {printed}");
}

#[test]
fn haug_example_7_4_4_self_starting_ab() {
    let xs = growth(AdamsKind::Ab, 4, 4);
    for (i, printed) in [(1, 1.1), (2, 1.215), (3, 1.342875), (4, 1.484013)] {
        assert_printed(&format!("AB4 x{i}"), xs[i], printed, 6);
    }
}

#[test]
fn haug_example_7_4_5_self_starting_pece() {
    let xs = growth(AdamsKind::Mampc, 5, 3);
    for (i, printed) in [(1, 1.105), (2, 1.2211979), (3, 1.3496317)] {
        assert_printed(&format!("PECE x{i}^c"), xs[i], printed, 7);
    }
}

/// Global error at t = 2π of `kind`/`order` with `steps` steps and the accurate start.
fn oscillator_error(kind: AdamsKind, order: usize, steps: usize) -> f64 {
    let scheme = AdamsScheme::new(kind, order, AdamsStart::RungeKutta);
    let h = 2.0 * std::f64::consts::PI / steps as f64;
    let mut end = [0.0; 2];
    integrate_ode(
        &mut Oscillator,
        &scheme,
        0.0,
        &[1.0, 0.0],
        h,
        steps,
        &mut |_, _, z| end.copy_from_slice(z),
    )
    .expect("oscillator");
    (end[0] - 1.0).abs().max(end[1].abs())
}

/// Orders k (AB, AMPC) and k + 1 (MAMPC) from the error ratio of 200 and 400 steps per period
/// (errors ≥ 1e-11 there, far above round-off); the band [p − 0.3, p + 0.5] allows the
/// pre-asymptotic terms of the finer pair.
#[test]
fn every_kind_and_order_converges_at_its_order() {
    for kind in [AdamsKind::Ab, AdamsKind::Ampc, AdamsKind::Mampc] {
        for k in 1..=5 {
            let (e1, e2) = (
                oscillator_error(kind, k, 200),
                oscillator_error(kind, k, 400),
            );
            let observed = (e1 / e2).log2();
            let p = kind.order(k) as f64;
            println!(
                "{}{k}: {e1:.3e} -> {e2:.3e}, order {observed:.2} (expected {p})",
                kind.name()
            );
            assert!(
                (p - 0.3..=p + 0.5).contains(&observed),
                "{}{k}: order {observed} not near {p}",
                kind.name()
            );
        }
    }
}

/// The ramp start keeps the error of its low-order first steps (Haug's remark on Tables
/// 7.4.8/9): with it AB5 converges at order 2 at best, with the accurate start at order 5.
#[test]
fn the_ramp_start_limits_the_accuracy() {
    let ramp = |steps: usize| {
        let scheme = AdamsScheme::new(AdamsKind::Ab, 5, AdamsStart::Ramp);
        let h = 2.0 * std::f64::consts::PI / steps as f64;
        let mut end = 0.0;
        integrate_ode(
            &mut Oscillator,
            &scheme,
            0.0,
            &[1.0, 0.0],
            h,
            steps,
            &mut |_, _, z| end = z[0],
        )
        .unwrap();
        (end - 1.0).abs()
    };
    let observed = (ramp(200) / ramp(400)).log2();
    println!("AB5 with the ramp: order {observed:.2}");
    assert!(observed < 2.5, "ramp start order {observed}");
    assert!(ramp(400) > 100.0 * oscillator_error(AdamsKind::Ab, 5, 400));
}

#[test]
fn orders_outside_1_to_12_are_rejected() {
    for order in [0, 13] {
        let scheme = AdamsScheme::new(AdamsKind::Mampc, order, AdamsStart::Ramp);
        let err = integrate_ode(&mut Growth, &scheme, 0.0, &[1.0], 0.1, 3, &mut |_, _, _| {})
            .unwrap_err();
        assert!(
            matches!(
                err,
                SimError::InvalidOption {
                    option: "order",
                    ..
                }
            ),
            "{err}"
        );
    }
}
