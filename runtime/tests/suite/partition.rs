//! Generalized coordinate partitioning (GCP, \[HAUG\] §7.3.2), direct integration (§7.3.3) and
//! the hybrid algorithm (§7.3.5) as drift controls of the layer: the constraint error stays at
//! the Newton tolerance, the solution agrees with a tight RKSTAB/PStab reference and with
//! Haug's reduced ODE (digest P16), a partition that degenerates is replaced and the event is
//! recorded, the nonholonomic rows are partitioned at the velocity level, and every failure is
//! its typed error.

use crate::common;

use std::f64::consts::PI;

use common::models::{
    Andrews, Broken, Defect, KnifeEdge, Pendulum, RollingDisc, SlavedKnifeEdge, SliderCrank,
};
use common::{Model, Sys, assert_below, assert_close, assert_within, simulate};
use mbsim_runtime::tableau::DOPRI5_FIXED;
use mbsim_runtime::{
    ConstrainedSystem, Dims, FixedStep, HybridOptions, Integrator, MatOut, PartitionLevel,
    PartitionOptions, Problem, Recorder, RepartitionReason, Rkstab, SimError, Stabilization,
    Stabilizer, Stats,
};

/// GCP with the default options (spelled out: `Default` is not `const`).
const GCP: Stabilization = Stabilization::Partitioned(PartitionOptions {
    newton_tolerance: 1e-12,
    max_newton_iterations: 10,
    repartition_ratio: 0.5,
});

// ---------------------------------------------------------------------------------------------
// Haug's pendulum body in absolute coordinates, with a free length
// ---------------------------------------------------------------------------------------------

/// A planar body with centre (x, y) and angle φ pinned at the origin by an arm of length l:
/// Φ = (x − l cos φ, y − l sin φ), M = diag(m, m, J), Q = (0, −m g, 0). With l = 1, m = 1,
/// J = 1/3 this is Haug's Example 7.2.1 (digest P16). Reduced ODE (the same reduction as
/// Haug's, with l): (J + m l²) φ̈ = −m g l cos φ.
#[derive(Clone, Copy, Debug)]
struct BodyPendulum {
    l: f64,
    m: f64,
    j: f64,
    g: f64,
}

impl BodyPendulum {
    /// Haug's data as chosen in `models/src/haug_pendulum.rs`.
    const HAUG: BodyPendulum = BodyPendulum {
        l: 1.0,
        m: 1.0,
        j: 1.0 / 3.0,
        g: 9.81,
    };

    /// The consistent state at angle φ and rate ω.
    fn state(&self, phi: f64, omega: f64) -> (Vec<f64>, Vec<f64>) {
        let (s, c) = phi.sin_cos();
        (
            vec![self.l * c, self.l * s, phi],
            vec![-self.l * s * omega, self.l * c * omega, omega],
        )
    }

    /// φ̈ of the reduced ODE.
    fn reduced(&self, phi: f64) -> f64 {
        -self.m * self.g * self.l * phi.cos() / (self.j + self.m * self.l * self.l)
    }

    /// (φ, ω) of the reduced ODE at each of `times` (ascending, from 0): classical RK4 with
    /// 20000 steps per unit time. Its error, C h⁴ with h = 5e-5 and C ~ |φ⁽⁵⁾| T ~ 1e3, is
    /// ~1e-14, far below the 1e-9 the DAE runs are compared at.
    fn reduced_solution(&self, phi0: f64, omega0: f64, times: &[f64]) -> Vec<(f64, f64)> {
        let (mut t, mut y) = (0.0, (phi0, omega0));
        let f = |y: (f64, f64)| (y.1, self.reduced(y.0));
        let mut out = Vec::new();
        for &target in times {
            let steps = ((target - t) * 20_000.0).ceil().max(1.0) as usize;
            let h = (target - t) / steps as f64;
            for _ in 0..steps {
                let k1 = f(y);
                let k2 = f((y.0 + 0.5 * h * k1.0, y.1 + 0.5 * h * k1.1));
                let k3 = f((y.0 + 0.5 * h * k2.0, y.1 + 0.5 * h * k2.1));
                let k4 = f((y.0 + h * k3.0, y.1 + h * k3.1));
                y.0 += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
                y.1 += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            }
            t = target;
            out.push(y);
        }
        out
    }
}

impl Model for BodyPendulum {
    fn name(&self) -> &'static str {
        "BodyPendulum"
    }
    fn dims(&self) -> Dims {
        Dims { n: 3, m: 2, k: 0 }
    }
    fn phi(&self, _t: f64, q: &[f64], out: &mut [f64]) {
        let (s, c) = q[2].sin_cos();
        out[0] = q[0] - self.l * c;
        out[1] = q[1] - self.l * s;
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = q[2].sin_cos();
        out[(0, 0)] = 1.0;
        out[(0, 2)] = self.l * s;
        out[(1, 1)] = 1.0;
        out[(1, 2)] = -self.l * c;
    }
    fn gamma(&self, _t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // Φ̈ = Φ_q q̈ + (l cos φ, l sin φ) φ̇², so γ = −(l cos φ, l sin φ) φ̇².
        let (s, c) = q[2].sin_cos();
        out[0] = -self.l * c * v[2] * v[2];
        out[1] = -self.l * s * v[2] * v[2];
    }
    fn l(&self, _t: f64, q: &[f64], v: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = q[2].sin_cos();
        out[(0, 2)] = self.l * c * v[2];
        out[(1, 2)] = self.l * s * v[2];
    }
    fn mass(&self, _t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        out[(0, 0)] = self.m;
        out[(1, 1)] = self.m;
        out[(2, 2)] = self.j;
    }
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], out: &mut [f64]) {
        out[1] = -self.m * self.g;
    }
}

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// RKSTAB at `rtol` (atol = rtol/10) with `stab`, samples at `times`.
fn rkstab<S: ConstrainedSystem>(
    sys: &S,
    stab: Stabilization,
    rtol: f64,
    (q0, v0): (&[f64], &[f64]),
    t_end: f64,
    times: &[f64],
) -> (Recorder, Stats) {
    let opts = Rkstab::new(rtol).with_stabilization(stab);
    simulate(sys, &opts, 0.0, q0, v0, t_end, times)
        .unwrap_or_else(|e| panic!("{} with {}: {e}", sys.name(), stab.name()))
}

fn grid(t_end: f64, n: usize) -> Vec<f64> {
    (0..=n).map(|i| t_end * i as f64 / n as f64).collect()
}

/// Max over samples and coordinates of |q − q_ref| / (1 + |q_ref|).
fn deviation(a: &Recorder, b: &Recorder) -> f64 {
    a.q.iter()
        .zip(&b.q)
        .flat_map(|(x, y)| {
            x.iter()
                .zip(y)
                .map(|(p, r)| (p - r).abs() / (1.0 + r.abs()))
        })
        .fold(0.0, f64::max)
}

// ---------------------------------------------------------------------------------------------
// GCP keeps the constraints; direct integration does not
// ---------------------------------------------------------------------------------------------

#[test]
fn gcp_holds_the_constraints_and_agrees_with_the_reference() {
    let pendulum = Pendulum::UNIT.at_rest(1.0);
    let andrews = (Andrews::Q0.to_vec(), vec![0.0; 7]);
    let body = BodyPendulum::HAUG.state(1.5 * PI, 1.0);
    type Run<'a> = &'a dyn Fn(Stabilization, f64) -> (Recorder, Stats);
    let cases: [(&str, Run); 3] = [
        ("pendulum", &|s, rtol| {
            let (q, v) = &pendulum;
            rkstab(&Sys(Pendulum::UNIT), s, rtol, (q, v), 3.0, &grid(3.0, 30))
        }),
        ("andrews", &|s, rtol| {
            let (q, v) = &andrews;
            rkstab(&Sys(Andrews), s, rtol, (q, v), 0.03, &grid(0.03, 30))
        }),
        ("haug body pendulum", &|s, rtol| {
            let (q, v) = &body;
            rkstab(
                &Sys(BodyPendulum::HAUG),
                s,
                rtol,
                (q, v),
                3.0,
                &grid(3.0, 30),
            )
        }),
    ];
    for (name, run) in cases {
        let (reference, _) = run(Stabilization::PStab, 1e-12);
        let (pstab, _) = run(Stabilization::PStab, 1e-8);
        let (rec, stats) = run(GCP, 1e-8);
        let (e_gcp, e_pstab) = (deviation(&rec, &reference), deviation(&pstab, &reference));
        eprintln!(
            "{name}: {stats}; drift {:?}; deviation gcp {e_gcp:.3e}, pstab {e_pstab:.3e}",
            stats.max_drift,
        );
        // ‖Φ‖∞ at every step point at the Newton tolerance; the dependent velocities solve
        // G v + Φ_t = 0 exactly up to round-off: a few ε · |G| |v| (|v| ≤ 1e3 on Andrews,
        // |G| ≤ 0.1) — 1e-12 bounds it with a margin of 10.
        assert_below(&format!("{name}: GCP ‖Φ‖"), stats.max_drift.position, 1e-12);
        assert_below(
            &format!("{name}: GCP ‖Φ'‖"),
            stats.max_drift.velocity,
            1e-12,
        );
        // Agreement: a tolerance-proportional method accumulates its local errors, ≲ 100 rtol
        // over these spans. Measured (printed): GCP 2.1e-8, 5.3e-8, 1.1e-8 against PStab's
        // 8.5e-9, 4.6e-9, 4.4e-9 — GCP controls the error of the independent components only,
        // and the dependent ones inherit it amplified by up to 1/ρ (`partition.rs`).
        assert_below(&format!("{name}: GCP vs reference"), e_gcp, 100.0 * 1e-8);
        assert_eq!(
            stats.nstab, stats.nstep,
            "{name}: a correction every attempt"
        );
        assert!(
            stats.extra.get("newton_iterations").is_some(),
            "{name}: counter"
        );
    }
}

#[test]
fn direct_integration_drifts_where_gcp_holds_the_newton_tolerance() {
    // Andrews over [0, 0.03] at rtol 1e-6: direct integration (Stabilization::None, Haug
    // §7.3.3) lets ‖Φ‖ grow with time; GCP holds it at the Newton tolerance at every step.
    let v0 = [0.0; 7];
    let times = grid(0.03, 3);
    let sys = Sys(Andrews);
    let (direct, _) = rkstab(
        &sys,
        Stabilization::None,
        1e-6,
        (&Andrews::Q0, &v0),
        0.03,
        &times,
    );
    let (gcp, stats) = rkstab(&sys, GCP, 1e-6, (&Andrews::Q0, &v0), 0.03, &times);
    let drift = |rec: &Recorder| -> Vec<f64> { rec.drift.iter().map(|d| d.position).collect() };
    eprintln!(
        "direct ‖Φ‖ at t = 0, 0.01, 0.02, 0.03: {:?}",
        drift(&direct)
    );
    eprintln!("gcp    ‖Φ‖ at t = 0, 0.01, 0.02, 0.03: {:?}", drift(&gcp));
    let d = drift(&direct);
    assert!(
        d[1] < d[2] && d[2] < d[3],
        "direct integration: ‖Φ‖ grows: {d:?}"
    );
    // The samples at 0.01, 0.02 and 0.03 are step points or interpolated; an interpolated
    // sample is off the manifold by the interpolation error (≈ the local error, ≤ 1e-6 here,
    // see `SampleKind::Interpolated`), so the step points are checked through max_drift.
    assert_below(
        "GCP max ‖Φ‖ over the steps",
        stats.max_drift.position,
        1e-12,
    );
    assert!(
        d[3] > 1e3 * 1e-12,
        "direct drift {:.3e} is not above GCP's bound",
        d[3]
    );
}

// ---------------------------------------------------------------------------------------------
// Haug's pendulum (P16): the DAE with GCP against the reduced ODE
// ---------------------------------------------------------------------------------------------

#[test]
fn haug_pendulum_dae_with_gcp_matches_the_reduced_ode() {
    // Example 7.3.1: φ(0) = 3π/2, φ̇(0) = 1 (ambiguity 29), m = 1, J' = 1/3, l = 1, g = 9.81.
    let p = BodyPendulum::HAUG;
    let (q0, v0) = p.state(1.5 * PI, 1.0);
    let times = grid(5.0, 50);
    let (rec, stats) = rkstab(&Sys(p), GCP, 1e-10, (&q0, &v0), 5.0, &times);
    let reduced = p.reduced_solution(1.5 * PI, 1.0, &times);
    let phi: Vec<f64> = rec.q.iter().map(|q| q[2]).collect();
    let omega: Vec<f64> = rec.v.iter().map(|v| v[2]).collect();
    let (phi_ref, omega_ref): (Vec<f64>, Vec<f64>) = reduced.into_iter().unzip();
    let max_dev = |a: &[f64], b: &[f64]| {
        a.iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max)
    };
    eprintln!(
        "P16: max |Δφ| {:.3e}, max |Δφ'| {:.3e}",
        max_dev(&phi, &phi_ref),
        max_dev(&omega, &omega_ref)
    );
    // A tolerance-proportional run at rtol 1e-10 (atol 1e-11): global error ≲ 100 rtol · |φ|,
    // |φ| ≤ 5 (it swings about 3π/2) → 5e-8 (measured 2.2e-10 in φ, 7.1e-10 in φ', printed).
    assert_close("φ: DAE + GCP vs reduced ODE", &phi, &phi_ref, 5e-8, 0.0);
    assert_close(
        "φ': DAE + GCP vs reduced ODE",
        &omega,
        &omega_ref,
        5e-8,
        0.0,
    );
    // Haug's partition: u = (x1, y1) dependent, v = φ1 independent, kept throughout (Φ_u = I).
    assert_eq!(stats.partitions.len(), 1, "{:?}", stats.partitions);
    assert_eq!(stats.partitions[0].new_independent, vec![2]);
    assert_eq!(stats.partitions[0].reason, RepartitionReason::Initial);
}

// ---------------------------------------------------------------------------------------------
// Re-partitioning
// ---------------------------------------------------------------------------------------------

#[test]
fn a_degenerating_partition_is_replaced_and_recorded() {
    // The body pendulum with l = 2 released at rest from the horizontal, φ = 0. Complete
    // pivoting of Φ_q = [[1, 0, 2 sin φ], [0, 1, −2 cos φ]] picks the entry −2 cos φ = −2
    // first (φ dependent) and then x: u = (x, φ), independent y. But y = 2 sin φ is extremal
    // at the bottom, φ = −π/2, where det Φ_u = −2 cos φ vanishes: y cannot be independent
    // there, so a run through the bottom must re-partition. Near the bottom complete pivoting
    // of Φ_u has pivots 2|sin φ| and |cot φ|, so ρ = |cot φ| / max|Φ_q| = |cot φ| / (2|sin φ|)
    // against ρ₀ = 1/2 when chosen; the default ratio 0.5 switches at ρ < 1/4, i.e. at
    // |cos φ| < 1/2 · sin² φ, φ + π/2 < 0.4 (solved: cos φ = ½ sin² φ at φ + π/2 = 0.4271).
    // The new choice there pivots 2|sin φ| (row 0) and then y: u = (φ, y), independent x.
    let p = BodyPendulum {
        l: 2.0,
        ..BodyPendulum::HAUG
    };
    let (q0, v0) = p.state(0.0, 0.0);
    // GCP, and the hybrid with a loose constraint tolerance (1e-6): its check (a) tests the
    // partition too, so it re-partitions although the drift may stay within the tolerance.
    let hybrid = Stabilization::Hybrid(HybridOptions {
        tolerance: 1e-6,
        ..HybridOptions::default()
    });
    for (stab, drift_bound) in [(GCP, 1e-12), (hybrid, 1e-6)] {
        let m = stab.name();
        let mut opts = Rkstab::new(1e-9).with_stabilization(stab);
        opts.common.output_steps = true;
        let (rec, stats) = simulate(&Sys(p), &opts, 0.0, &q0, &v0, 1.0, &[]).expect("run");
        eprintln!("{m}: {stats}: {:?}", stats.partitions);
        let events = &stats.partitions;
        assert_eq!(events[0].new_independent, vec![1], "{m}: first choice y");
        let switch = events
            .iter()
            .find(|e| e.reason == RepartitionReason::IllConditioned)
            .expect("a re-partition on ill-conditioning");
        assert_eq!(switch.old_independent, vec![1], "{m}");
        assert_eq!(
            switch.new_independent,
            vec![0],
            "{m}: x independent at the bottom"
        );
        assert_eq!(switch.level, PartitionLevel::Positions);
        let trigger = switch.ratio.0 / (0.5 * 0.5);
        assert_below(&format!("{m}: trigger ratio / (0.5 ρ₀)"), trigger, 1.0);
        // The state at the event: the first step point at or after the attempt that switched.
        let k = rec.t.iter().position(|&t| t >= switch.t).expect("sample");
        // φ decreases through the switch.
        let at = rec.q[k][2] + PI / 2.0;
        assert_within(&format!("{m}: φ + π/2 at the switch"), at, -0.1, 0.4271);
        let repartitions = Some(events.len() as u64 - 1);
        assert_eq!(stats.extra.get("repartitions"), repartitions, "{m}");
        // The run stays on the manifold and agrees with the reduced ODE through the switch.
        let drift = stats.max_drift.position;
        assert_below(&format!("{m}: ‖Φ‖ through the switch"), drift, drift_bound);
        let reduced = p.reduced_solution(0.0, 0.0, &rec.t[1..]);
        let phi: Vec<f64> = rec.q[1..].iter().map(|q| q[2]).collect();
        let phi_ref: Vec<f64> = reduced.iter().map(|y| y.0).collect();
        // rtol 1e-9 over 1 s with |φ| ≤ 3: ≲ 100 rtol · 3.
        assert_close(&format!("{m}: φ vs reduced ODE"), &phi, &phi_ref, 3e-7, 0.0);
    }
}

// ---------------------------------------------------------------------------------------------
// Nonholonomic rows: velocity partition over [Φ_q; A]
// ---------------------------------------------------------------------------------------------

#[test]
fn nonholonomic_models_partition_the_velocities() {
    // The rolling disc (m = 0, k = 2) on [0, 1.2] (before it lies flat) and the slaved knife
    // edge (m = 1, k = 1).
    let (q0, v0) = RollingDisc::initial_state();
    let disc = Sys(RollingDisc::THESIS);
    let times = grid(1.2, 12);
    let (reference, _) = rkstab(&disc, Stabilization::PStab, 1e-12, (&q0, &v0), 1.2, &times);
    let (rec, stats) = rkstab(&disc, GCP, 1e-8, (&q0, &v0), 1.2, &times);
    eprintln!(
        "disc: {stats}; {:?}; {:?}",
        stats.max_drift, stats.partitions
    );
    assert_below("disc: ‖A v + b‖", stats.max_drift.velocity, 1e-12);
    assert_below(
        "disc vs reference",
        deviation(&rec, &reference),
        100.0 * 1e-8,
    );
    let velocity_events = stats
        .partitions
        .iter()
        .filter(|e| e.level == PartitionLevel::Velocities)
        .count();
    assert!(
        velocity_events >= 1,
        "a velocity partition: {:?}",
        stats.partitions
    );

    // The slaved knife edge of `mechanisms.rs` (knife edge on a slope with a slave mass on a
    // rail), spinning at 1.5 rad/s from rest.
    let knife = Sys(SlavedKnifeEdge {
        knife: KnifeEdge {
            mass: 1.0,
            inertia: 0.2,
            slope_force: 2.0,
        },
        slave_mass: 0.5,
    });
    let times = grid(1.0, 10);
    let start = (&[0.0; 4][..], &[0.0, 0.0, 1.5, 0.0][..]);
    let (reference, _) = rkstab(&knife, Stabilization::PStab, 1e-12, start, 1.0, &times);
    let (rec, stats) = rkstab(&knife, GCP, 1e-8, start, 1.0, &times);
    eprintln!(
        "knife: {stats}; {:?}; {:?}",
        stats.max_drift, stats.partitions
    );
    assert_below("knife: ‖Φ‖", stats.max_drift.position, 1e-12);
    assert_below("knife: ‖G v + [Φ_t; b]‖", stats.max_drift.velocity, 1e-12);
    assert_below(
        "knife vs reference",
        deviation(&rec, &reference),
        100.0 * 1e-8,
    );
}

// ---------------------------------------------------------------------------------------------
// Error control on the independent components only
// ---------------------------------------------------------------------------------------------

#[test]
fn error_weights_ignore_the_dependent_components() {
    // After a correction of Haug's pendulum (u = (x, y), independent φ): the weights of the
    // dependent components x, y, ẋ, ẏ are ∞, those of φ and φ̇ are sk √(2/6), so the RMS over
    // 6 components equals the RMS over the 2 independent ones.
    let p = BodyPendulum::HAUG;
    let sys = Sys(p);
    let (mut q, mut v) = p.state(1.5 * PI, 1.0);
    q[0] += 1e-6;
    let mut stab = Stabilizer::new(GCP, sys.dims());
    assert!(
        stab.apply(&sys, 0.0, 0.01, &mut q, &mut v, 0.0)
            .expect("apply")
    );
    let expected = [f64::INFINITY, f64::INFINITY, (2.0_f64 / 6.0).sqrt()];
    for c in 0..6 {
        assert_eq!(stab.floored_scale(c, 1.0), expected[c % 3], "component {c}");
    }
    // And x was corrected back onto the manifold at the Newton tolerance.
    assert_below("|x − cos φ|", (q[0] - q[2].cos()).abs(), 1e-12);
}

// ---------------------------------------------------------------------------------------------
// Hybrid algorithm
// ---------------------------------------------------------------------------------------------

#[test]
fn hybrid_corrects_only_when_the_constraint_tolerance_is_exceeded() {
    let sys = Sys(Andrews);
    let v0 = [0.0; 7];
    let times = grid(0.03, 30);
    let (reference, _) = rkstab(
        &sys,
        Stabilization::PStab,
        1e-12,
        (&Andrews::Q0, &v0),
        0.03,
        &times,
    );
    let hybrid = |tolerance: f64, fallback_ratio: f64| {
        Stabilization::Hybrid(HybridOptions {
            tolerance,
            fallback_ratio,
            ..HybridOptions::default()
        })
    };
    for tolerance in [1e-10, 1e-8] {
        let (rec, stats) = rkstab(
            &sys,
            hybrid(tolerance, 0.0),
            1e-8,
            (&Andrews::Q0, &v0),
            0.03,
            &times,
        );
        let e = deviation(&rec, &reference);
        eprintln!(
            "hybrid tol {tolerance:e}: {stats}; {:?}; deviation {e:.3e}",
            stats.max_drift
        );
        assert!(
            stats.nstab < stats.nstep,
            "tol {tolerance:e}: some steps pass the check (a)"
        );
        assert_below(
            "hybrid max drift / tolerance",
            stats.max_drift.max() / tolerance,
            1.0,
        );
        assert_below("hybrid vs reference", e, 100.0 * 1e-8);
    }
    // The fallback: with a ratio above every block's conditioning estimate, every step is
    // corrected (pure GCP) from the first correction on (before it the estimate is unknown:
    // Haug checks conditioning in the correction (b)).
    let mut opts = Rkstab::new(1e-8).with_stabilization(hybrid(1e-8, 0.99));
    opts.common.output_steps = true;
    let problem = Problem::new(0.0, 0.03, &Andrews::Q0, &v0);
    let mut rec = Recorder {
        record_steps: true,
        ..Recorder::default()
    };
    let stats = opts
        .integrate_into(&sys, &problem, &mut rec)
        .expect("fallback run")
        .stats;
    let first = rec
        .steps
        .iter()
        .position(|s| s.stabilized)
        .expect("a correction");
    let skipped = rec.steps[first..].iter().filter(|s| !s.stabilized).count();
    eprintln!("hybrid fallback: {stats}; first correction at attempt {first}");
    assert_eq!(
        skipped, 0,
        "fallback: every attempt after the first correction corrected"
    );
}

// ---------------------------------------------------------------------------------------------
// Failures: typed errors, never garbage
// ---------------------------------------------------------------------------------------------

/// Through an integrator the KKT solve meets a rank-deficient G first (`SingularKkt`); the
/// partition is reached with a step's predicted state, which is what `Stabilizer::apply` is
/// handed here.
#[test]
fn a_singular_configuration_has_no_partition() {
    // The singular slider-crank at its dead point θ = (0, π): Φ_q = (sin θ1, sin θ2) = 0.
    let sys = Sys(SliderCrank { linear: false });
    let mut stab = Stabilizer::new(GCP, sys.dims());
    let (mut q, mut v) = (vec![0.0, PI], vec![0.0, 0.0]);
    match stab.apply(&sys, 0.5, 0.01, &mut q, &mut v, 0.0) {
        Err(SimError::SingularPartition {
            t,
            h,
            matrix,
            rank,
            rows,
            dependent,
        }) => {
            assert_eq!((t, h, matrix, rank, rows), (0.5, 0.01, "Φ_q", 0, 1));
            assert_eq!(dependent.len(), 1);
            assert_eq!((dependent[0].row, dependent[0].name.as_str()), (0, "phi_1"));
            // sin π ≈ 1.2e-16 is what is left of the row.
            assert_below("remainder", dependent[0].residual, 1e-15);
        }
        other => panic!("expected SingularPartition, got {other:?}"),
    }
    // Redundant constraints (the pendulum's rod twice): rank 1 of 2. The partition keeps the
    // rank's row (one dependent coordinate) and corrects onto both rows.
    let sys = Sys(Broken(Defect::RedundantConstraint));
    let mut stab = Stabilizer::new(GCP, sys.dims());
    let (mut q, mut v) = Pendulum::UNIT.at_rest(0.3);
    q[0] += 1e-6;
    stab.apply(&sys, 0.0, 0.0, &mut q, &mut v, 0.0)
        .expect("corrects");
    let r = (q[0] * q[0] + q[1] * q[1]).sqrt();
    assert_below("|Φ| after the correction", (r - 1.0).abs(), 1e-12);
}

#[test]
fn newton_failure_is_a_typed_error_naming_the_dependent_coordinates() {
    // One Newton iteration allowed and a tolerance of 1e-15, from the predictor of a coarse
    // constant step (h = 0.25 on the unit pendulum, ‖Φ‖ of the predictor ~ the local error):
    // Φ = (x² + y² − 1)/2 is quadratic in the dependent coordinate, so one Newton step δ
    // leaves δ²/2 ≫ 1e-15 for either choice of dependent coordinate. The constant-step driver
    // redoes a failed step in ever shorter pieces (`fixed_step.rs`), whose predictors Newton
    // does correct in one iteration; with the pieces off the error surfaces.
    let stab = Stabilization::Partitioned(PartitionOptions {
        max_newton_iterations: 1,
        newton_tolerance: 1e-15,
        ..PartitionOptions::default()
    });
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let mut opts = FixedStep::new(DOPRI5_FIXED, 0.25).with_stabilization(stab);
    let (_, stats) =
        simulate(&Sys(Pendulum::UNIT), &opts, 0.0, &q0, &v0, 1.0, &[]).expect("the pieces pass");
    assert!(
        stats.extra.get("substeps").is_some_and(|s| s > 0),
        "{stats:?}"
    );
    opts.common.max_failed_attempts = 0;
    let err = simulate(&Sys(Pendulum::UNIT), &opts, 0.0, &q0, &v0, 1.0, &[]).unwrap_err();
    eprintln!("{err}");
    match err {
        SimError::PartitionNewtonFailed {
            t,
            h,
            iterations,
            residual,
            tolerance,
            dependent,
            ..
        } => {
            assert_eq!((h, iterations, tolerance), (0.25, 1, 1e-15));
            assert!(
                [0.25, 0.5, 0.75, 1.0].contains(&t),
                "t = {t} is a step point"
            );
            assert!(
                residual > tolerance && residual.is_finite(),
                "residual {residual:e}"
            );
            assert_eq!(dependent.len(), 1);
            assert_eq!(dependent[0].name, format!("q[{}]", dependent[0].index));
        }
        other => panic!("expected PartitionNewtonFailed, got {other:?}"),
    }
}

#[test]
fn non_finite_values_are_typed_errors() {
    // A non-finite predictor (what a blown-up step hands the correction) is caught by the
    // checked kernels before any arithmetic on it.
    let sys = Sys(BodyPendulum::HAUG);
    let mut stab = Stabilizer::new(GCP, sys.dims());
    let (mut q, mut v) = BodyPendulum::HAUG.state(0.3, 1.0);
    q[2] = f64::NAN;
    match stab.apply(&sys, 0.2, 0.01, &mut q, &mut v, 0.0) {
        Err(SimError::NonFiniteKernel { t, .. }) => assert_eq!(t, 0.2),
        other => panic!("expected NonFiniteKernel, got {other:?}"),
    }
    // Through an integrator: a force that turns NaN.
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let sys = Sys(Broken(Defect::NanForce { from: 0.5 }));
    let opts = Rkstab::new(1e-6).with_stabilization(GCP);
    let err = simulate(&sys, &opts, 0.0, &q0, &v0, 1.0, &[]).unwrap_err();
    assert!(matches!(err, SimError::NonFiniteKernel { .. }), "{err}");
}

#[test]
fn bad_options_are_rejected_before_any_kernel_call() {
    let p = PartitionOptions::default();
    let h = HybridOptions::default();
    let cases: [(&str, Stabilization); 8] = [
        (
            "stabilization: partition newton_tolerance",
            Stabilization::Partitioned(PartitionOptions {
                newton_tolerance: 0.0,
                ..p
            }),
        ),
        (
            "stabilization: partition newton_tolerance",
            Stabilization::Partitioned(PartitionOptions {
                newton_tolerance: f64::NAN,
                ..p
            }),
        ),
        (
            "stabilization: partition max_newton_iterations",
            Stabilization::Partitioned(PartitionOptions {
                max_newton_iterations: 0,
                ..p
            }),
        ),
        (
            "stabilization: partition repartition_ratio",
            Stabilization::Partitioned(PartitionOptions {
                repartition_ratio: 1.0,
                ..p
            }),
        ),
        (
            "stabilization: partition repartition_ratio",
            Stabilization::Partitioned(PartitionOptions {
                repartition_ratio: 0.0,
                ..p
            }),
        ),
        (
            "stabilization: hybrid tolerance",
            Stabilization::Hybrid(HybridOptions {
                tolerance: -1.0,
                ..h
            }),
        ),
        (
            "stabilization: hybrid fallback_ratio",
            Stabilization::Hybrid(HybridOptions {
                fallback_ratio: 1.5,
                ..h
            }),
        ),
        (
            "stabilization: Baumgarte alpha",
            Stabilization::Hybrid(HybridOptions {
                baumgarte: mbsim_runtime::Baumgarte {
                    alpha: -1.0,
                    beta: 1.0,
                },
                ..h
            }),
        ),
    ];
    // A model whose kernels are all NaN: any kernel call would fail with NonFiniteKernel.
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    for (option, stab) in cases {
        let opts = Rkstab::new(1e-6).with_stabilization(stab);
        match simulate(&Sys(Pendulum::UNIT), &opts, 0.0, &q0, &v0, 1.0, &[]) {
            Err(SimError::InvalidOption { option: o, .. }) => assert_eq!(o, option),
            other => panic!("{option}: expected InvalidOption, got {other:?}"),
        }
    }
}

#[test]
fn a_newton_failure_is_retried_with_a_shorter_step() {
    // The adaptive driver retries a failed correction with h/4 (a closer predictor): with
    // one Newton iteration and a 1e-15 tolerance, coarse steps fail (δ²/2 ≫ 1e-15, see
    // `newton_failure_is_a_typed_error_naming_the_dependent_coordinates`), shorter ones pass.
    let stab = Stabilization::Partitioned(PartitionOptions {
        max_newton_iterations: 1,
        newton_tolerance: 1e-15,
        ..PartitionOptions::default()
    });
    let (q0, v0) = Pendulum::UNIT.at_rest(1.0);
    let opts = Rkstab::new(1e-3).with_stabilization(stab);
    let (_, stats) = simulate(&Sys(Pendulum::UNIT), &opts, 0.0, &q0, &v0, 2.0, &[]).unwrap();
    eprintln!("{stats}");
    assert!(
        stats.failed > 0,
        "some attempts failed and were retried: {stats}"
    );
    // Every accepted step met the tolerance, or stopped at a round-off-sized Newton step,
    // where Φ = (x² + y² − 1)/2 is evaluated to a few ε (≤ 4ε = 8.9e-16 < 1e-15).
    assert_below("‖Φ‖ at the steps", stats.max_drift.position, 1e-15);
}
