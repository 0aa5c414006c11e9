//! \[ME451\] pendulum (digest P15) with the generated model and its generated tangent kernels:
//! Newmark (β = 0.3025, γ = 0.6) with Newton, h = 0.01 on [0, 10]. Newton converges in a few
//! iterations per step, Φ holds to the Newton tolerance at every step point, the motion settles
//! about φ0; and the iteration matrix built from the generated tangents matches finite
//! differences of the Newton residual (digest §4.1).

use mbsim_models::Me451Pendulum;
use mbsim_runtime::implicit::{StepProbe, newton_system};
use mbsim_runtime::{ConstrainedSystem, Implicit, Problem, Scheme};
use mbsim_testkit::{Rng, assert_below, assert_close, assert_within};

#[test]
fn p15_newmark_with_generated_tangents() {
    let sys = Me451Pendulum::published();
    let (q0, v0) = Me451Pendulum::initial(&sys);
    let problem = Problem::new(0.0, 10.0, &q0, &v0).with_uniform_output(0.01);
    let (rec, sol) = Implicit::newmark(0.01)
        .integrate_exact(&sys, &problem)
        .expect("P15");
    let s = sol.stats;
    let per_step = s.extra.get("newton_iterations").unwrap() as f64 / s.naccpt as f64;
    println!(
        "P15 (generated): {s}; {per_step:.2} Newton iterations per step; drift {:?}",
        s.max_drift
    );
    // As the runtime's hand-written P15 test: two or three corrections per step.
    assert_within("Newton iterations per step", per_step, 1.0, 4.0);
    // Φ within the Newton tolerance 1e-10 (1 + ‖q‖∞) at every step point (‖q‖∞ ≤ 3π/2 + 1).
    assert_below(
        "max |Φ|",
        s.max_drift.position,
        1e-10 * (2.0 + 1.5 * std::f64::consts::PI),
    );
    // Settles about φ0 = 3π/2: the mean of φ over the last two forcing periods lies within a
    // tenth of the oscillation's amplitude of φ0 (the free motion has decayed to ~0.2).
    let phi0 = sys.phi0;
    let tail: Vec<f64> = (0..rec.t.len())
        .filter(|&i| rec.t[i] >= 8.0)
        .map(|i| rec.q[i][2])
        .collect();
    let mean = tail.iter().sum::<f64>() / tail.len() as f64;
    let amplitude = tail.iter().fold(0.0_f64, |m, p| m.max((p - phi0).abs()));
    assert_below(
        "|mean φ − φ0| over [8, 10]",
        (mean - phi0).abs(),
        0.1 * amplitude,
    );
}

/// J from the generated tangents against central differences of Ψ (tolerances as in the
/// runtime's test: δ = 1e-6 (1 + |x_j|), |Ψ| ≲ 1e3 → round-off 1e-7, truncation ≲ 1e-9;
/// 1e-5 absolute + 1e-6 relative).
#[test]
fn generated_tangents_give_the_newton_matrix() {
    let sys = Me451Pendulum::published();
    let d = sys.dims();
    let (n, r) = (d.n, d.constraint_rows());
    let mut rng = Rng::new(451);
    let (z, qdd, a) = (
        rng.vec(2 * n, -1.0, 1.0),
        rng.vec(n, -2.0, 2.0),
        rng.vec(n, -2.0, 2.0),
    );
    let x = rng.vec(n + r, -3.0, 3.0);
    let probe = StepProbe {
        t: 0.3,
        h: 0.05,
        z: &z,
        qdd: &qdd,
        a: &a,
    };
    for scheme in [
        Scheme::ME451,
        Scheme::Hht { alpha: -0.2 },
        Scheme::GeneralizedAlpha { rho_inf: 0.6 },
    ] {
        let (_, jac) = newton_system(&sys, &scheme, &probe, &x).expect("probe");
        for j in 0..n + r {
            let delta = 1e-6 * (1.0 + x[j].abs());
            let at = |s: f64| {
                let mut xs = x.clone();
                xs[j] += s;
                newton_system(&sys, &scheme, &probe, &xs).expect("probe").0
            };
            let (plus, minus) = (at(delta), at(-delta));
            let fd: Vec<f64> = (0..n + r)
                .map(|i| (plus[i] - minus[i]) / (2.0 * delta))
                .collect();
            let col: Vec<f64> = jac.column(j).iter().copied().collect();
            assert_close(
                &format!("{} J column {j}", scheme.name()),
                &col,
                &fd,
                1e-5,
                1e-6,
            );
        }
    }
}
