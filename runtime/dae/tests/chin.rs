//! \[CHIN\] Examples 3.1 and 3.2 (digest P4) and the stabilized fields' constraint laws.
//!
//! - Example 3.1 with forward Euler + Baumgarte: the closed forms
//!   zₙ₊₁ = tₙ₊₁³ − h³(n + 1)(3n + 2)/2 (γ = 0) and zₙ₊₁ = tₙ₊₁³ − h³(3n + 1) (γ = 1/h).
//! - Example 3.2: A(k) = (1/8)[[0, 9 + 7(−1)ᵏ], [9 − 7(−1)ᵏ, 0]] has eigenvalues ±√2/2 for
//!   every k, yet A(1)A(0) = diag(1/16, 4) and yₖ₊₁ = A(k) yₖ grows like 2ᵏ.
//! - Each field's law for g (field.rs's tables) at a random off-manifold state of Example 2.3:
//!   the derivative of g (or of ġ) along the field, by a central difference in time along the
//!   field's own direction, equals the law's right side.

use mbsim_dae::chin::{Example23, Example31};
use mbsim_dae::{EulerOptions, Field, Index2, Index3, SemiExplicit, Stabilization, forward_euler};
use mbsim_testkit::{Rng, assert_entry};
use nalgebra::{DMatrix, Matrix2};

fn example_3_1(gamma: f64, h: f64, steps: usize) -> Vec<f64> {
    let problem = Example31;
    let mut field =
        Field::new(&problem, Stabilization::Index2(Index2::Baumgarte, gamma)).expect("valid");
    let run = forward_euler(
        &problem,
        &mut field,
        0.0,
        &[0.0],
        &EulerOptions::new(h, steps),
    )
    .expect("runs");
    run.z.iter().map(|z| z[0]).collect()
}

/// γ = 0: drift −h³(n + 1)(3n + 2)/2 grows quadratically in n. The sums are of a few hundred
/// terms of size ≤ 3h t² h: a tolerance of 1e-14 (1 + |z|) covers their round-off.
#[test]
fn example_3_1_unstabilized_drift_law() {
    let (h, steps) = (0.01, 300);
    let z = example_3_1(0.0, h, steps);
    for n in 0..steps {
        let t1 = (n + 1) as f64 * h;
        let law = t1.powi(3) - h.powi(3) * ((n + 1) * (3 * n + 2)) as f64 / 2.0;
        assert_entry(
            "z (gamma = 0)",
            n + 1,
            z[n + 1],
            law,
            1e-14 * (1.0 + law.abs()),
        );
    }
    // Quadratic growth: the drift at 2N is about 4 times the drift at N.
    let drift = |n: usize| z[n] - (n as f64 * h).powi(3);
    assert!(
        (drift(300) / drift(150) - 4.0).abs() < 0.05,
        "ratio {}",
        drift(300) / drift(150)
    );
}

/// γ = 1/h: the drift −h³(3n + 1) still grows, linearly, although the manifold is
/// asymptotically stable for the ODE (3.5).
#[test]
fn example_3_1_gamma_one_over_h_drift_law() {
    let (h, steps) = (0.01, 300);
    let z = example_3_1(1.0 / h, h, steps);
    for n in 0..steps {
        let t1 = (n + 1) as f64 * h;
        let law = t1.powi(3) - h.powi(3) * (3 * n + 1) as f64;
        assert_entry(
            "z (gamma = 1/h)",
            n + 1,
            z[n + 1],
            law,
            1e-14 * (1.0 + law.abs()),
        );
    }
    let drift = |n: usize| z[n] - (n as f64 * h).powi(3);
    assert!(
        (drift(300) / drift(150) - 2.0).abs() < 0.01,
        "ratio {}",
        drift(300) / drift(150)
    );
}

fn a(k: i32) -> Matrix2<f64> {
    let s = f64::from((-1i32).pow(k.unsigned_abs()));
    Matrix2::new(0.0, 9.0 + 7.0 * s, 9.0 - 7.0 * s, 0.0) / 8.0
}

#[test]
fn example_3_2_products_grow_despite_stable_eigenvalues() {
    for k in 0..4 {
        let eig = a(k).complex_eigenvalues();
        for e in eig.iter() {
            assert_entry(
                "|eig A(k)|",
                k,
                e.norm(),
                std::f64::consts::FRAC_1_SQRT_2,
                1e-15,
            );
        }
    }
    let p = a(1) * a(0);
    let want = [1.0 / 16.0, 0.0, 0.0, 4.0];
    for (i, (&got, &w)) in p.iter().zip(&want).enumerate() {
        assert_entry("A(1)A(0)", i, got, w, 1e-15);
    }
    // y_{k+1} = A(k) y_k from (0, 1): after 2j steps the second entry is 4^j.
    let mut y = nalgebra::Vector2::new(0.0, 1.0);
    for k in 0..20 {
        y = a(k) * y;
    }
    assert_entry("y_20[1]", 1, y[1], 4f64.powi(10), 0.0);
}

/// Random state of Example 2.3 off the manifold (index 2: x; index 3: (x, v)).
fn state(rng: &mut Rng, len: usize) -> Vec<f64> {
    rng.vec(len, 0.5, 1.5)
}

/// dg/dt along the field at (t, x): g_t + G F, from the problem's exact G and g_t.
fn gdot_along(p: &Example23, t: f64, x: &[f64], dx: &[f64]) -> f64 {
    let (mut gx, mut gt) = (DMatrix::zeros(1, 2), [0.0]);
    p.g_x_into(t, x, &mut gx);
    p.g_t_into(t, x, &mut gt);
    gt[0] + gx[(0, 0)] * dx[0] + gx[(0, 1)] * dx[1]
}

#[test]
fn index_2_fields_follow_their_laws() {
    let p = Example23 {
        nu: 1000.0,
        second_order: false,
    };
    let mut rng = Rng::new(23);
    for kind in [Index2::Baumgarte, Index2::Normal, Index2::Transpose] {
        for gamma in [0.0, 3.0, 100.0] {
            let (t, x) = (rng.uniform(0.0, 1.0), state(&mut rng, 2));
            let mut field = Field::new(&p, Stabilization::Index2(kind, gamma)).expect("valid");
            let mut dx = [0.0; 2];
            field.eval_into(&p, t, &x, &mut dx).expect("evaluates");
            let mut g = [0.0];
            p.g_into(t, &x, &mut g);
            let ggt = (t + 2.0).powi(2) + (t * t - 4.0).powi(2);
            let law = match kind {
                Index2::Transpose => -gamma * ggt * g[0],
                _ => -gamma * g[0],
            };
            // Cancellation in G F of terms of size ν eᵗ ≈ 3e3: a few ulps of that.
            let got = gdot_along(&p, t, &x, &dx);
            assert_entry(
                &format!("{kind:?} g'"),
                gamma,
                got,
                law,
                1e-11 * (1e4 + law.abs()),
            );
        }
    }
}

/// g'' along an index-3 field: G a + z, with z the problem's exact curvature.
#[test]
fn index_3_fields_follow_their_laws() {
    let p = Example23 {
        nu: 1000.0,
        second_order: true,
    };
    let mut rng = Rng::new(32);
    let kinds = [
        Index3::Baumgarte,
        Index3::GGt,
        Index3::Identity,
        Index3::TwoStep,
    ];
    for kind in kinds {
        for gamma in [0.0, 3.0, 100.0] {
            let (t, z) = (rng.uniform(0.0, 1.0), state(&mut rng, 4));
            let (x, v) = z.split_at(2);
            let mut field = Field::new(&p, Stabilization::Index3(kind, gamma)).expect("valid");
            let mut dz = [0.0; 4];
            field.eval_into(&p, t, &z, &mut dz).expect("evaluates");
            let (mut g, mut c) = ([0.0], [0.0]);
            p.g_into(t, x, &mut g);
            p.curvature_into(t, x, v, &mut c);
            let gd = gdot_along(&p, t, x, v);
            let (g1, g2) = ((t + 2.0), (t * t - 4.0));
            let ggt = g1 * g1 + g2 * g2;
            // g'' = G v' + z for the fields that keep x' = v.
            let gdd = c[0] + g1 * dz[2] + g2 * dz[3];
            match kind {
                Index3::TwoStep => {
                    // r = ġ + γ g decays at rate γ; dr/dt by a central difference of r along
                    // the field (its position part moves too, x' ≠ v).
                    let r = |s: f64| {
                        let xs = [x[0] + s * dz[0], x[1] + s * dz[1]];
                        let vs = [v[0] + s * dz[2], v[1] + s * dz[3]];
                        let mut gs = [0.0];
                        p.g_into(t + s, &xs, &mut gs);
                        gdot_along(&p, t + s, &xs, &vs) + gamma * gs[0]
                    };
                    let s = 1e-5;
                    let drdt = (r(s) - r(-s)) / (2.0 * s);
                    let law = -gamma * r(0.0);
                    // Central difference of a quadratic-in-s function of size ~1e4: O(ε/s).
                    assert_entry("TwoStep r'", gamma, drdt, law, 1e-6 * (1e4 + law.abs()));
                }
                _ => {
                    let law = match kind {
                        Index3::Identity => {
                            -2.0 * gamma * ggt * gd - gamma * gamma * ggt * ggt * g[0]
                        }
                        _ => -2.0 * gamma * gd - gamma * gamma * g[0],
                    };
                    assert_entry(
                        &format!("{kind:?} g''"),
                        gamma,
                        gdd,
                        law,
                        1e-11 * (1e4 + law.abs()),
                    );
                }
            }
        }
    }
}

/// The default curvature and velocity Jacobian (differences) agree with the exact ones.
#[test]
fn default_derivatives_agree_with_the_exact_ones() {
    struct Plain(Example23);
    impl SemiExplicit for Plain {
        fn dims(&self) -> (usize, usize) {
            self.0.dims()
        }
        fn second_order(&self) -> bool {
            true
        }
        fn f_into(&self, t: f64, x: &[f64], v: &[f64], o: &mut [f64]) {
            self.0.f_into(t, x, v, o)
        }
        fn b_into(&self, t: f64, x: &[f64], v: &[f64], o: &mut DMatrix<f64>) {
            self.0.b_into(t, x, v, o)
        }
        fn g_into(&self, t: f64, x: &[f64], o: &mut [f64]) {
            self.0.g_into(t, x, o)
        }
        fn g_x_into(&self, t: f64, x: &[f64], o: &mut DMatrix<f64>) {
            self.0.g_x_into(t, x, o)
        }
        fn g_t_into(&self, t: f64, x: &[f64], o: &mut [f64]) {
            self.0.g_t_into(t, x, o)
        }
    }
    let exact = Example23 {
        nu: 1000.0,
        second_order: true,
    };
    let plain = Plain(exact);
    let mut rng = Rng::new(7);
    for _ in 0..5 {
        let (t, x, v) = (
            rng.uniform(0.0, 1.0),
            state(&mut rng, 2),
            state(&mut rng, 2),
        );
        let (mut c0, mut c1) = ([0.0], [0.0]);
        exact.curvature_into(t, &x, &v, &mut c0);
        plain.curvature_into(t, &x, &v, &mut c1);
        // s = ε^¼ ≈ 1.2e-4: truncation s² |g''''| / 12 plus round-off 4ε|g|/s² with |g| ~ 10.
        assert_entry("curvature", t, c1[0], c0[0], 1e-6 * (1.0 + c0[0].abs()));
        let (mut j0, mut j1) = (DMatrix::zeros(1, 2), DMatrix::zeros(1, 2));
        exact.velocity_jacobian_into(t, &x, &v, &mut j0);
        plain.velocity_jacobian_into(t, &x, &v, &mut j1);
        for k in 0..2 {
            // ε^⅓ steps: O(ε^⅔) ≈ 4e-11 relative to the size of G v + g_t (~10).
            assert_entry("velocity jacobian", k, j1[(0, k)], j0[(0, k)], 1e-8);
        }
    }
}

#[test]
fn mismatched_order_and_bad_gamma_are_errors() {
    let p = Example23 {
        nu: 1000.0,
        second_order: false,
    };
    assert!(Field::new(&p, Stabilization::Index3(Index3::GGt, 1.0)).is_err());
    assert!(Field::new(&p, Stabilization::Index2(Index2::Normal, -1.0)).is_err());
    assert!(Field::new(&p, Stabilization::Index2(Index2::Normal, f64::NAN)).is_err());
    let mut f = Field::new(&p, Stabilization::Index2(Index2::Normal, 1.0)).expect("valid");
    let bad_h = EulerOptions::new(0.0, 10);
    assert!(forward_euler(&p, &mut f, 0.0, &[1.0, 1.0], &bad_h).is_err());
    assert!(forward_euler(&p, &mut f, 0.0, &[1.0], &EulerOptions::new(0.01, 1)).is_err());
}
