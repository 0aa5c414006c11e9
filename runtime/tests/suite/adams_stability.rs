//! The constant-step Adams integrators (`adams::integrate_ode`) against the linear stability
//! analysis of `adams::stability`: on y' = λy the growth rate of the computed solution is the
//! spectral radius of the scheme's characteristic polynomial at z = hλ, on both sides of the
//! stability limit of \[WU\] Table 2. This ties the integrators' formulas (variable-coefficient
//! quadrature at constant step) to the exact rational weights the polynomials are built from.

use mbsim_runtime::SimError;
use mbsim_runtime::adams::stability::{CharPoly, Family, stability_limit};
use mbsim_runtime::adams::{AdamsKind, AdamsScheme, AdamsStart, FirstOrderOde, integrate_ode};
use mbsim_testkit::assert_entry;

/// y' = λ y.
struct Linear(f64);

impl FirstOrderOde for Linear {
    fn dim(&self) -> usize {
        1
    }
    fn eval(&mut self, _t: f64, z: &[f64], f: &mut [f64]) -> Result<(), SimError> {
        f[0] = self.0 * z[0];
        Ok(())
    }
}

fn kind(family: Family) -> AdamsKind {
    match family {
        Family::Ab => AdamsKind::Ab,
        Family::Ampc => AdamsKind::Ampc,
        Family::Mampc => AdamsKind::Mampc,
    }
}

/// Observed growth per step between steps 1000 and 3000, from the window maxima of |y| over
/// 60 steps (an oscillating dominant pair makes single values dip toward zero).
fn observed_rate(family: Family, k: usize, z: f64) -> f64 {
    const EARLY: usize = 1000;
    const LATE: usize = 3000;
    const WINDOW: usize = 60;
    let scheme = AdamsScheme::new(kind(family), k, AdamsStart::RungeKutta);
    let mut ys = Vec::with_capacity(LATE + 1);
    integrate_ode(
        &mut Linear(z),
        &scheme,
        0.0,
        &[1.0],
        1.0,
        LATE,
        &mut |_, _, y| ys.push(y[0].abs()),
    )
    .expect("integrates");
    let peak = |end: usize| ys[end - WINDOW..=end].iter().fold(0.0f64, |m, &y| m.max(y));
    (peak(LATE) / peak(EARLY)).powf(1.0 / (LATE - EARLY) as f64)
}

/// Just inside (0.97 r) and just outside (1.03 r) the limit of every Table 2 scheme, the
/// computed solution decays / grows at the spectral radius of the characteristic polynomial.
/// Tolerance: the window maxima catch the oscillation's peak to a factor ≥ cos(π/60)-ish per
/// end, and subdominant roots are damped by their modulus ratio over 1000 steps; 2e-3 of the
/// rate (a factor e^{±2} over the 1000 steps) bounds both, far below the 1–5 % by which the
/// radius moves across the limit.
#[test]
fn integrators_grow_at_the_spectral_radius_across_the_limit() {
    for family in Family::ALL {
        for k in 3..=5 {
            let poly = CharPoly::new(family, k);
            let r = stability_limit(family, k).r;
            for (side, z) in [("inside", -0.97 * r), ("outside", -1.03 * r)] {
                let radius = poly.spectral_radius(z);
                let rate = observed_rate(family, k, z);
                let label = format!("{}_{k} {side} z = {z:.4}", family.label());
                println!("{label}: radius {radius:.6}, observed {rate:.6}");
                assert_entry("growth rate", &label, rate, radius, 2e-3 * radius);
                assert_eq!(radius < 1.0, side == "inside", "{label}: radius {radius}");
            }
        }
    }
}
