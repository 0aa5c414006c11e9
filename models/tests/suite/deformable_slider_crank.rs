//! The deformable slider-crank of \[CHIN\] Ch. 5 (P12): its mass and stiffness matrices against
//! the textbook element matrices assembled independently here, and the midspan deflection
//! trends of Figs. 5.5–5.7 (amplitude ratios 180:60 rad/s > 10, 120:60 ≈ 3).

use mbsim_models::DeformableSliderCrank;
use mbsim_runtime::{
    ConstrainedSystem, Implicit, InitOptions, Integrator, Problem, Rkstab, StepSize, TangentSystem,
    Tolerance, initialize, integrate,
};
use mbsim_testkit::assert_close;
use nalgebra::DMatrix;

/// The consistent element mass (axial and bending) and stiffness matrices of a planar beam
/// element of length le, in the nodal order (a1, b1, s1, a2, b2, s2), and their assembly
/// over the two elements onto Chin's six elastic coordinates (rows 3–7 and 9 of the nodal
/// vector of 9).
fn assembled(mu: f64, ea: f64, ei: f64, le: f64) -> (DMatrix<f64>, DMatrix<f64>) {
    let mut me = DMatrix::zeros(6, 6);
    let mut ke = DMatrix::zeros(6, 6);
    let (ax, bd) = ([0, 3], [1, 2, 4, 5]);
    let max = [[2.0, 1.0], [1.0, 2.0]];
    let kax = [[1.0, -1.0], [-1.0, 1.0]];
    let mb = [
        [156.0, 22.0 * le, 54.0, -13.0 * le],
        [22.0 * le, 4.0 * le * le, 13.0 * le, -3.0 * le * le],
        [54.0, 13.0 * le, 156.0, -22.0 * le],
        [-13.0 * le, -3.0 * le * le, -22.0 * le, 4.0 * le * le],
    ];
    let kb = [
        [12.0, 6.0 * le, -12.0, 6.0 * le],
        [6.0 * le, 4.0 * le * le, -6.0 * le, 2.0 * le * le],
        [-12.0, -6.0 * le, 12.0, -6.0 * le],
        [6.0 * le, 2.0 * le * le, -6.0 * le, 4.0 * le * le],
    ];
    for i in 0..2 {
        for j in 0..2 {
            me[(ax[i], ax[j])] = mu * le / 6.0 * max[i][j];
            ke[(ax[i], ax[j])] = ea / le * kax[i][j];
        }
    }
    for i in 0..4 {
        for j in 0..4 {
            me[(bd[i], bd[j])] = mu * le / 420.0 * mb[i][j];
            ke[(bd[i], bd[j])] = ei / le.powi(3) * kb[i][j];
        }
    }
    // Nodal vector of 9: element 1 → 0..6, element 2 → 3..9; elastic coordinates = nodal
    // entries 2, 3, 4, 5, 6, 8 (0-based; Chin's Bc).
    let elastic = [2, 3, 4, 5, 6, 8];
    let mut m9 = DMatrix::zeros(9, 9);
    let mut k9 = DMatrix::zeros(9, 9);
    for offset in [0, 3] {
        for i in 0..6 {
            for j in 0..6 {
                m9[(offset + i, offset + j)] += me[(i, j)];
                k9[(offset + i, offset + j)] += ke[(i, j)];
            }
        }
    }
    let pick = |a: &DMatrix<f64>| DMatrix::from_fn(6, 6, |i, j| a[(elastic[i], elastic[j])]);
    (pick(&m9), pick(&k9))
}

#[test]
fn mass_and_stiffness_match_the_assembled_element_matrices() {
    let model = DeformableSliderCrank::published();
    let pi = std::f64::consts::PI;
    let area = pi * model.dia.powi(2) / 4.0;
    let second = pi * model.dia.powi(4) / 64.0;
    let (mu, le) = (model.rho * area, model.len / 2.0);
    let (mff, kff) = assembled(mu, model.young * area, model.young * second, le);
    // Undeformed, θ = 0: the ff blocks of M and of −∂Q/∂q (g = 0: no geometric stiffness
    // from gravity) are the assembled element matrices.
    let mut sys = model.clone();
    sys.g = 0.0;
    let q = [6.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0];
    let v = [0.0; 10];
    let mut mass = DMatrix::zeros(10, 10);
    sys.mass_into(0.0, &q, mass.as_view_mut());
    let mut fq = DMatrix::zeros(10, 10);
    sys.force_q_into(0.0, &q, &v, fq.as_view_mut());
    for i in 0..6 {
        let got_m: Vec<f64> = (0..6).map(|j| mass[(3 + i, 3 + j)]).collect();
        let want_m: Vec<f64> = (0..6).map(|j| mff[(i, j)]).collect();
        // The Gauss rule is exact for these polynomials: agreement to the round-off of the
        // 16-digit abscissae and weights, ~1e-14 of the largest entry (μ l_e 156/420 ≈ 1.1e-4):
        // 1e-18 absolute (true zeros come out ~4e-20), 1e-12 relative.
        assert_close(&format!("M_ff row {i}"), &got_m, &want_m, 1e-18, 1e-12);
        let got_k: Vec<f64> = (0..6).map(|j| -fq[(3 + i, 3 + j)]).collect();
        let want_k: Vec<f64> = (0..6).map(|j| kff[(i, j)]).collect();
        assert_close(&format!("K_ff row {i}"), &got_k, &want_k, 1e-6, 1e-12);
    }
    // Rigid-body blocks: m_RR = μ l I, m_θθ = μ l³/3 about the end A.
    let ml = mu * model.len;
    assert_close(
        "m_RR",
        &[mass[(0, 0)], mass[(1, 1)]],
        &[ml, ml],
        1e-20,
        1e-13,
    );
    let j_a = ml * model.len.powi(2) / 3.0;
    assert_close("m_θθ", &[mass[(2, 2)]], &[j_a], 1e-20, 1e-13);
}

/// Consistent start at crank speed `omega0`.
fn start(sys: &DeformableSliderCrank, omega0: f64) -> (Vec<f64>, Vec<f64>) {
    let (q0, v0) = DeformableSliderCrank::initial_state(sys, omega0);
    let init = initialize(sys, 0.0, &q0, &v0, &InitOptions::default()).expect("consistent");
    (init.q, init.v)
}

/// Max |midspan deflection| over [0, 0.07] at crank speed `omega0` with `method`.
fn midspan_amplitude<I: Integrator>(method: &I, omega0: f64) -> (f64, String) {
    let sys = DeformableSliderCrank::published();
    let (q0, v0) = start(&sys, omega0);
    let problem = Problem::new(0.0, 0.07, &q0, &v0).with_uniform_output(1e-4);
    let (rec, sol) = integrate(&sys, method, &problem).expect("run");
    let amp = rec.q.iter().fold(0.0_f64, |s, q| s.max(q[5].abs()));
    (amp, format!("{}", sol.stats))
}

#[test]
fn midspan_deflection_trends_of_figs_5_5_to_5_7() {
    let rk = Rkstab::new(1e-6);
    let hht = Implicit::hht(-0.1, 1e-6);
    let mut amplitudes = Vec::new();
    for omega0 in [180.0, 120.0, 60.0] {
        let (a, s) = midspan_amplitude(&rk, omega0);
        let (b, t) = midspan_amplitude(&hht, omega0);
        println!("ω0 = {omega0}: rkstab {a:.4e} [{s}]\n          hht {b:.4e} [{t}]");
        // Both at rtol 1e-6: the amplitudes (≈ 0.02…0.3 in) agree to well within 1e-3.
        assert_close(&format!("amplitude at {omega0}"), &[b], &[a], 0.0, 1e-3);
        amplitudes.push(a);
    }
    let (r180, r120) = (amplitudes[0] / amplitudes[2], amplitudes[1] / amplitudes[2]);
    println!("amplitude ratios 180:60 = {r180:.2}, 120:60 = {r120:.2}");
    // \[CHIN\]: 180:60 more than 10 (reproduced). 120:60 "about 3": measured 4.8 here;
    // quasi-static inertial loading of the rod (∝ ω²) alone gives 4, so the bounds [3, 6]
    // check the trend, not the printed figure (see the report of `mbsim repro chin5`).
    assert!(r180 > 10.0, "180:60 amplitude ratio {r180}");
    assert!((3.0..=6.0).contains(&r120), "120:60 amplitude ratio {r120}");
}

/// The `Integrator` path (finite-difference tangents, what a front end holding a
/// `dyn ConstrainedSystem` gets) against the exact generated tangents, HHT at 1e-4 on the stiff
/// model: both Newton iterations stop at the same tolerance, so the runs agree to far below the
/// local error (bound 1e-6 relative on q; step counts within 5 %).
#[test]
fn finite_difference_and_generated_tangents_agree_on_the_stiff_model() {
    let sys = DeformableSliderCrank::published();
    let (q0, v0) = start(&sys, 180.0);
    let problem = Problem::new(0.0, 0.02, &q0, &v0);
    let method = Implicit::hht(-0.1, 1e-4);
    let (_, exact) = method
        .integrate_exact(&sys, &problem)
        .expect("exact tangents");
    let (_, fd) = integrate(&sys, &method, &problem).expect("fd tangents");
    println!("exact: {}\nfd:    {}", exact.stats, fd.stats);
    let scale: Vec<f64> = exact.q.iter().map(|x| 1.0 + x.abs()).collect();
    let rel: Vec<f64> =
        fd.q.iter()
            .zip(&exact.q)
            .zip(&scale)
            .map(|((a, b), s)| (a - b) / s)
            .collect();
    assert_close(
        "fd vs exact tangents (relative)",
        &rel,
        &vec![0.0; rel.len()],
        1e-6,
        0.0,
    );
    let ratio = fd.stats.naccpt as f64 / exact.stats.naccpt as f64;
    assert!(
        (0.95..=1.05).contains(&ratio),
        "step counts {} vs {}",
        fd.stats.naccpt,
        exact.stats.naccpt
    );
}

/// HHT's reason to exist on this model: its error control steps over the rod's damped
/// high-frequency modes that an explicit method must resolve. \[CHIN\] Ch. 5's drift runs
/// (rtol 1e-3, atol 1e-4, 180 rad/s), here over [0, 0.5] s: RKSTAB/PStab takes 56 240 steps,
/// HHT with exact tangents 3 933 (14.3×). `mbsim repro chin5` checks the same "≥ 10× fewer" over
/// [0, 4] s; this test catches an error estimate that resolves those modes (a velocity term
/// on q̈'s divided differences once took 1.56e6 HHT steps there, `implicit/stepper.rs`).
#[test]
fn hht_steps_over_the_rods_damped_modes() {
    let sys = DeformableSliderCrank::published();
    let (q0, v0) = start(&sys, 180.0);
    let problem = Problem::new(0.0, 0.5, &q0, &v0);
    let rk = Rkstab::new(1e-3).with_atol(1e-4);
    let (_, explicit) = integrate(&sys, &rk, &problem).expect("rkstab");
    let step = StepSize::Adaptive {
        rtol: Tolerance::Scalar(1e-3),
        atol: Tolerance::Scalar(1e-4),
        control: Default::default(),
    };
    let hht = Implicit::hht(-0.1, 1e-3).with_step(step);
    let (_, implicit) = hht.integrate_exact(&sys, &problem).expect("hht");
    println!("rkstab: {}\nhht:    {}", explicit.stats, implicit.stats);
    let ratio = explicit.stats.nstep as f64 / implicit.stats.nstep as f64;
    assert!(
        ratio >= 10.0,
        "HHT takes {} steps against RKSTAB's {} (ratio {ratio:.1} < 10)",
        implicit.stats.nstep,
        explicit.stats.nstep
    );
}
