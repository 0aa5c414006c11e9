//! Consistent initialization, nonholonomic integration (knife edge), rheonomic constraints
//! (manipulator case II), the manipulator case I trend of [CHIN] Table 4.6, and the observer
//! API.

use crate::common;

use common::models::{Andrews, KnifeEdge, MixedPendulum, Pendulum, SlavedKnifeEdge, TwoLink};
use common::{Sys, assert_below, assert_close, assert_within, simulate};
use mbsim_runtime::tableau::HEUN;
use mbsim_runtime::{
    Baumgarte, FixedStep, InitOptions, Integrator, Observer, Problem, Rkstab, Sample,
    Stabilization, StepInfo, initialize,
};

#[test]
fn initialization_projects_the_pendulum_radially_and_reports_moves() {
    let p = Pendulum::UNIT;
    let (q0, v0) = ([0.9, -0.6], [1.0, 1.0]);
    let r = initialize(&Sys(p), 0.0, &q0, &v0, &InitOptions::default()).unwrap();
    // Minimum-norm Gauss–Newton steps on a circle are radial, so the limit is the nearest
    // point ℓ q0/|q0|; the velocity projection removes the radial part of v0. Both are exact
    // up to the 1e-12 residual target and a few ulps.
    let norm = (0.9f64 * 0.9 + 0.6 * 0.6).sqrt();
    let q_exact = [0.9 / norm, -0.6 / norm];
    assert_close("initialized q", &r.q, &q_exact, 1e-12, 0.0);
    let radial = v0[0] * q_exact[0] + v0[1] * q_exact[1];
    let v_exact = [v0[0] - radial * q_exact[0], v0[1] - radial * q_exact[1]];
    assert_close("initialized v", &r.v, &v_exact, 1e-12, 0.0);
    assert_eq!(
        r.moved_q.iter().map(|m| m.0).collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_close(
        "reported q moves",
        &[r.moved_q[0].1, r.moved_q[1].1],
        &[q_exact[0] - 0.9, q_exact[1] + 0.6],
        1e-12,
        0.0,
    );
    assert_eq!(r.moved_v.len(), 2);
    assert!(r.residual.max() <= 1e-12, "{:?}", r.residual);
    // λ at t0 from the KKT solve equals the closed form (O(1) values, a few ulps).
    assert_close(
        "lambda(t0)",
        &r.lambda,
        &[p.lambda_exact(&r.q, &r.v)],
        1e-12,
        1e-12,
    );
}

#[test]
fn initialization_respects_locked_coordinates() {
    let opts = InitOptions {
        locked: vec![0],
        ..InitOptions::default()
    };
    let r = initialize(&Sys(Pendulum::UNIT), 0.0, &[0.6, -0.7], &[0.3, 0.0], &opts).unwrap();
    // x stays 0.6, so y = −√(1 − 0.36) = −0.8; ẋ stays 0.3 and x ẋ + y ẏ = 0 gives ẏ = 0.225.
    assert_close("locked init q", &r.q, &[0.6, -0.8], 1e-12, 0.0);
    assert_close("locked init v", &r.v, &[0.3, 0.225], 1e-12, 0.0);
    assert_eq!(r.moved_q.len(), 1);
    assert_eq!(r.moved_q[0].0, 1);
    // A consistent state does not move at all and needs no iteration.
    let r2 = initialize(
        &Sys(Pendulum::UNIT),
        0.0,
        &r.q,
        &r.v,
        &InitOptions::default(),
    )
    .unwrap();
    assert!(
        r2.moved_q.is_empty() && r2.moved_v.is_empty() && r2.iterations == 0,
        "{r2:?}"
    );
}

#[test]
fn initialization_repairs_a_perturbed_andrews_state_with_the_motor_angle_locked() {
    let mut q0 = Andrews::Q0;
    for (i, x) in q0.iter_mut().enumerate().skip(1) {
        *x += 1e-3 * (i as f64).sin();
    }
    let opts = InitOptions {
        locked: vec![0],
        ..InitOptions::default()
    };
    let r = initialize(&Sys(Andrews), 0.0, &q0, &[0.0; 7], &opts).unwrap();
    assert_eq!(r.q[0], Andrews::Q0[0], "β is locked");
    assert!(r.residual.position <= 1e-12, "{:?}", r.residual);
    // With β fixed the closed loop has a unique nearby configuration: the published q0 (to
    // the Newton tolerance amplified by the loop's conditioning, ~1e3 · 1e-12).
    assert_close("repaired Andrews q", &r.q, &Andrews::Q0, 1e-9, 0.0);
    assert!(
        r.iterations >= 2 && r.iterations <= 10,
        "Gauss–Newton iterations {}",
        r.iterations
    );
}

/// Knife edge on an incline, ω = 1.5, a = g sin α = 2: closed form in `KnifeEdge::exact`.
const KNIFE: KnifeEdge = KnifeEdge {
    mass: 1.0,
    inertia: 0.2,
    slope_force: 2.0,
};

#[test]
fn knife_edge_matches_its_closed_form_with_nonholonomic_post_stabilization() {
    let omega = 1.5;
    let times: Vec<f64> = (0..=10).map(|i| 0.4 * i as f64).collect();
    let (q0, v0) = KNIFE.exact(omega, 0.0);
    for stab in [
        Stabilization::PStab,
        Stabilization::Baumgarte(Baumgarte {
            alpha: 10.0,
            beta: 0.0,
        }),
        Stabilization::None,
    ] {
        let mut opts = Rkstab::new(1e-9).with_stabilization(stab);
        opts.common.output_steps = true;
        let (rec, stats) = simulate(&Sys(KNIFE), &opts, 0.0, &q0, &v0, 4.0, &times).unwrap();
        assert_eq!(stats.nfcn, 6 * stats.nstep + 2);
        for (i, t) in rec.t.iter().enumerate() {
            let (q, v) = KNIFE.exact(omega, *t);
            // Global error ≲ 100 rtol over 4 s with O(1) solution values (tolerance
            // proportionality, as in the conformance suite).
            assert_close(
                &format!("{} knife edge q({t:.3})", stab.name()),
                &rec.q[i],
                &q,
                1e-7,
                0.0,
            );
            assert_close(
                &format!("{} knife edge v({t:.3})", stab.name()),
                &rec.v[i],
                &v,
                1e-7,
                0.0,
            );
        }
        let drift = rec.max_drift().velocity;
        eprintln!(
            "knife edge {}: {stats}, max |A v| = {drift:.3e}",
            stab.name()
        );
        if stab == Stabilization::PStab {
            // (3.75) with a constraint linear in v is an exact projection at the step points;
            // dense-output samples carry the interpolation error (≤ sk ≈ 1e-9 · |v| ≤ 3e-9).
            assert_below("PStab max |A v| (steps and outputs)", drift, 1e-8);
            let at_steps = rec
                .t
                .iter()
                .zip(&rec.drift)
                .filter(|(t, _)| !times.contains(t))
                .map(|(_, d)| d.velocity);
            assert_below(
                "PStab |A v| at step points",
                at_steps.fold(0.0, f64::max),
                64.0 * f64::EPSILON,
            );
        }
    }
}

#[test]
fn knife_edge_heun_drift_is_round_off_with_projection_and_grows_without() {
    let omega = 1.5;
    let run = |stab| {
        let (q, v) = KNIFE.exact(omega, 0.0);
        let opts = FixedStep::new(HEUN, 0.01).with_stabilization(stab);
        simulate(&Sys(KNIFE), &opts, 0.0, &q, &v, 4.0, &[])
            .map(|(_, stats)| stats)
            .unwrap()
            .max_drift
            .velocity
    };
    let (projected, free) = (run(Stabilization::PStab), run(Stabilization::None));
    assert_below("Heun + (3.75) drift", projected, 64.0 * f64::EPSILON);
    // Unstabilized Heun: local defect O(h³) ≈ 1e-6 per step accumulating over 400 steps.
    assert!(free > 1e-7, "unstabilized drift {free:e} should be visible");
}

#[test]
fn rheonomic_manipulator_case_two_uses_phi_t_in_the_velocity_residual() {
    // Case II (tip height sin²(ω t)): the invariant is Φ_q v + Φ_t (ambiguity 21). If Φ_t were
    // ignored, PStab would pull v towards Φ_q v = 0 and leave a velocity residual of the size of
    // Φ_t (up to ω = 0.5). [CHIN] Table 4.7 (rtol 1e-5): PStab drift 1.3e-10 (p) / 2.4e-7 (v),
    // Baumgarte pairs 1e-5…1e-3, B(0,0) 9.3e-3. Its NFCN (3980 PStab … 5416 B(0,0)) are not
    // reproduced: ω and T_end of that table are not stated ([AMBIG-17]); with ω = 0.5 and
    // T_end = 10 we measure ≈ 2100–2250 for all three, so no NFCN ordering is asserted.
    let sys = Sys(TwoLink::case_two());
    let (q0, v0) = TwoLink::initial_state();
    let run = |stab| {
        let mut opts = Rkstab::new(1e-5).with_stabilization(stab);
        opts.common.output_steps = true;
        simulate(&sys, &opts, 0.0, &q0, &v0, 10.0, &[]).unwrap()
    };
    let (rec_p, p) = run(Stabilization::PStab);
    let (rec_b, b) = run(Stabilization::Baumgarte(Baumgarte::from_chin(12.0, 70.0)));
    let (rec_0, b0) = run(Stabilization::None);
    let (dp, db, d0) = (rec_p.max_drift(), rec_b.max_drift(), rec_0.max_drift());
    eprintln!("case II: PStab {p} {dp:?}\n  B(12,70) {b} {db:?}\n  B(0,0) {b0} {d0:?}");
    assert_below("PStab position drift (case II)", dp.position, 1e-9);
    assert_below("PStab velocity drift (case II)", dp.velocity, 1e-6);
    assert!(
        db.position > 100.0 * dp.position && d0.position > db.position,
        "drift ordering PStab < B(12,70) < B(0,0)"
    );
    assert_eq!(
        (p.nfcn, b.nfcn, b0.nfcn),
        (6 * p.nstep + 2, 6 * b.nstep + 2, 6 * b0.nstep + 2)
    );
}

#[test]
fn manipulator_case_one_table_4_6_trend() {
    // [CHIN] Table 4.6: PStab needs fewer evaluations than B(12,70) and its position drift is
    // orders of magnitude smaller (published 3-6 orders; required here: 2). The NFCN themselves
    // reproduce the print within ±10% (the digest's band for controller-dependent counts;
    // measured −5.0…+5.0%): (rtol, PStab, B(12,70)).
    let published = [
        (1e-4, 716.0, 920.0),
        (1e-6, 1580.0, 2180.0),
        (1e-8, 3578.0, 5156.0),
    ];
    let sys = Sys(TwoLink::case_one());
    let (q0, v0) = TwoLink::initial_state();
    for (rtol, nfcn_p, nfcn_b) in published {
        let run = |stab| {
            let mut opts = Rkstab::new(rtol).with_stabilization(stab);
            opts.common.output_steps = true;
            simulate(&sys, &opts, 0.0, &q0, &v0, 10.0, &[]).unwrap()
        };
        let (rec_p, p) = run(Stabilization::PStab);
        let (rec_b, b) = run(Stabilization::Baumgarte(Baumgarte::from_chin(12.0, 70.0)));
        let (dp, db) = (rec_p.max_drift().position, rec_b.max_drift().position);
        eprintln!("case I rtol {rtol:e}: PStab {p} drift {dp:.2e}; B(12,70) {b} drift {db:.2e}");
        assert!(
            p.nfcn < b.nfcn,
            "rtol {rtol:e}: PStab NFCN {} vs B(12,70) {}",
            p.nfcn,
            b.nfcn
        );
        assert_below(
            &format!("rtol {rtol:e}: PStab/B(12,70) drift ratio"),
            dp / db.max(f64::MIN_POSITIVE),
            1e-2,
        );
        let what = format!("rtol {rtol:e}: Table 4.6 NFCN");
        assert_within(
            &format!("{what} PStab"),
            p.nfcn as f64,
            0.9 * nfcn_p,
            1.1 * nfcn_p,
        );
        assert_within(
            &format!("{what} B(12,70)"),
            b.nfcn as f64,
            0.9 * nfcn_b,
            1.1 * nfcn_b,
        );
    }
}

/// A streaming observer that checks what it is handed.
#[derive(Default)]
struct Checker {
    samples: Vec<f64>,
    accepted: usize,
    rejected: usize,
    last_t: f64,
}

impl Observer for Checker {
    fn output(&mut self, s: &Sample<'_>) {
        assert!(s.t >= self.last_t, "samples arrive in time order");
        assert_eq!(
            (s.q.len(), s.v.len(), s.vdot.len(), s.lambda.len()),
            (2, 2, 2, 1)
        );
        self.last_t = s.t;
        self.samples.push(s.t);
    }
    fn step(&mut self, info: &StepInfo) {
        if info.accepted {
            self.accepted += 1
        } else {
            self.rejected += 1
        }
    }
}

#[test]
fn observer_streams_requested_samples_and_every_step_attempt() {
    let p = Pendulum::UNIT;
    let (q, v) = p.at_rest(1.0);
    let times = [0.0, 0.25, 0.5, 0.5, 1.0];
    let mut obs = Checker::default();
    let sys = Sys(p);
    let rk = Rkstab::new(1e-8);
    let problem = Problem::new(0.0, 1.0, &q, &v).with_times(&times);
    let end = rk.integrate_into(&sys, &problem, &mut obs).unwrap();
    let stats = end.stats;
    assert_eq!(
        obs.samples,
        times.to_vec(),
        "exactly the requested times, duplicates included"
    );
    assert_eq!(obs.accepted, stats.naccpt);
    // Rejections before the first acceptance are not counted in NREJCT (Hairer's convention).
    assert!(obs.rejected >= stats.nrejct && obs.accepted + obs.rejected == stats.nstep);
    assert_eq!(stats.output_solves, times.len());
    // A second run from the end state continues to t = 2.
    let problem = Problem::new(1.0, 2.0, &end.q, &end.v).with_times(&[2.0]);
    let stats2 = rk.integrate_into(&sys, &problem, &mut ()).unwrap().stats;
    assert_eq!(stats2.nfcn, 6 * stats2.nstep + 2);
}

#[test]
fn singular_mass_matrix_works_through_the_augmented_kkt_matrix() {
    // M = diag(1, 1, 0) (Lemma 4.1 holds): the KKT solve, PStab's augmented form (4.15) and the
    // GGᵀ variant all work, and the motion equals the Cartesian pendulum's. Both runs at rtol
    // 1e-10 over one period carry global errors ≲ 1e-8 (see the conformance suite), so their
    // positions agree to 2e-8.
    let p = Pendulum::UNIT;
    let period = p.period(1.0);
    let times: Vec<f64> = (0..=8).map(|i| period * i as f64 / 8.0).collect();
    let (q0, v0) = p.at_rest(1.0);
    let (reference, _) =
        simulate(&Sys(p), &Rkstab::new(1e-10), 0.0, &q0, &v0, period, &times).unwrap();
    let mixed = MixedPendulum(p);
    let (mq0, mv0) = mixed.at_rest(1.0);
    for stab in [
        Stabilization::PStab,
        Stabilization::GGt,
        Stabilization::SFull,
    ] {
        let opts = Rkstab::new(1e-10).with_stabilization(stab);
        let (rec, stats) = simulate(&Sys(mixed), &opts, 0.0, &mq0, &mv0, period, &times).unwrap();
        assert_eq!(stats.nfcn, 6 * stats.nstep + 2);
        for (i, t) in times.iter().enumerate() {
            let what = format!("{} mixed pendulum (x, y) at t = {t:.3}", stab.name());
            assert_close(&what, &rec.q[i][..2], &reference.q[i], 2e-8, 0.0);
            // The rod tension is the same physical quantity: |λ_mixed| = λ_cartesian ℓ.
            let tension = (rec.lambda[i][0].powi(2) + rec.lambda[i][1].powi(2)).sqrt();
            assert_close(
                &format!("{what}: tension"),
                &[tension],
                &[reference.lambda[i][0] * p.len],
                1e-6,
                0.0,
            );
        }
    }
}

#[test]
fn mixed_holonomic_and_nonholonomic_constraints_are_both_stabilized() {
    // G = [Φ_q; A] with one row of each. PStab corrects positions with the nonholonomic
    // residual set to zero and velocities with both residuals; at the step points both drifts
    // are round-off (unstabilized: the linear Φ is kept exactly by any RK method, |A v| reaches
    // 7e-11). Energy is conserved by the exact flow;
    // rtol 1e-9 over 4 s keeps |ΔE| ≲ 100 rtol · |E| scale (≈ 10).
    let model = SlavedKnifeEdge {
        knife: KNIFE,
        slave_mass: 0.5,
    };
    let q0 = [0.0, 0.0, 0.0, 0.0];
    let v0 = [0.0, 0.0, 1.5, 0.0];
    let e0 = model.energy(&q0, &v0);
    for stab in [
        Stabilization::PStab,
        Stabilization::GGt,
        Stabilization::SFull,
        Stabilization::None,
    ] {
        let mut opts = Rkstab::new(1e-9).with_stabilization(stab);
        opts.common.output_steps = true;
        let (rec, stats) = simulate(&Sys(model), &opts, 0.0, &q0, &v0, 4.0, &[]).unwrap();
        assert_eq!(stats.nfcn, 6 * stats.nstep + 2);
        let d = rec.max_drift();
        eprintln!("slaved knife edge {}: {stats}, drift {d:?}", stab.name());
        for (i, t) in rec.t.iter().enumerate() {
            let de = model.energy(&rec.q[i], &rec.v[i]) - e0;
            assert!(
                de.abs() <= 1e-6,
                "{} energy drift {de:e} at t = {t}",
                stab.name()
            );
        }
        if stab.is_post_step() {
            assert_below(
                &format!("{} position drift", stab.name()),
                d.position,
                64.0 * f64::EPSILON,
            );
            assert_below(
                &format!("{} velocity drift", stab.name()),
                d.velocity,
                1e-12,
            );
        }
    }
}
