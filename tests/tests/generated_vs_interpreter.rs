//! The generated kernels (compiled into this crate by `build.rs`) against the `codegen`
//! interpreter evaluating the same derived expressions, at random states.
//!
//! Tolerance: the emitted code and the interpreter evaluate the same expressions, but CSE
//! reassociates sums (`a+b+c+d = (a+b+c)+d`) and prints `a·b⁻¹` as `a / b`, so they differ by
//! rounding only: at most about N·ε·Σ|terms| for a sum of N terms. With N ≤ 60 terms, mild
//! cancellation (Σ|terms| ≤ 10³·|result| at these states) and ε = 2.2e-16 that is below 2e-11
//! relative to the kernel's largest entry; we use 1e-11 × max(1, ‖kernel‖_∞), which a wrong
//! index, sign or missing term exceeds by many orders of magnitude.

use codegen::{Env, ExprId, Kernels, Model, fixtures, kernels};
use nalgebra::DMatrix;
use runtime::{ConstrainedSystem, DynamicsOut};
use tests::generated::{
    Andrews, AndrewsSplit, CartesianPendulum, ClosedChain3, ClosedChain20, NodeZoo, Rheonomic,
};

const TOLERANCE: f64 = 1e-11;

/// A tiny deterministic generator (SplitMix64), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        lo + (hi - lo) * (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Compare one kernel output with the interpreter's values; prints index, both values, delta.
fn compare(model: &str, kernel: &str, generated: &[f64], reference: &[f64]) {
    assert_eq!(generated.len(), reference.len(), "{model}.{kernel}: length");
    let scale = reference.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (i, (g, r)) in generated.iter().zip(reference).enumerate() {
        let delta = (g - r).abs();
        let tol = TOLERANCE * scale;
        assert!(
            delta <= tol,
            "{model}.{kernel}[{i}]: generated {g:e}, interpreter {r:e}, delta {delta:e} > tol {tol:e}"
        );
    }
}

/// Row-major values of a nalgebra matrix, for comparison with row-major expression matrices.
fn row_major(m: &DMatrix<f64>) -> Vec<f64> {
    m.transpose().as_slice().to_vec()
}

fn check_model<S: ConstrainedSystem>(model: Model, make: impl Fn(&[f64]) -> S, seed: u64) {
    check_model_with(model, make, seed, |_| {});
}

/// `adjust` moves random parameters into the model's domain (e.g. keeps a square root real).
fn check_model_with<S: ConstrainedSystem>(
    mut model: Model,
    make: impl Fn(&[f64]) -> S,
    seed: u64,
    adjust: fn(&mut [f64]),
) {
    let k: Kernels = kernels::derive(&mut model);
    let mut rng = Rng(seed);
    for _ in 0..5 {
        let mut params: Vec<f64> = model
            .parameters
            .iter()
            .map(|_| rng.uniform(0.5, 1.5))
            .collect();
        adjust(&mut params);
        let sys = make(&params);
        let dims = sys.dims();
        let (n, rows) = (dims.n, dims.constraint_rows());
        let t = rng.uniform(0.0, 2.0);
        let q: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let v: Vec<f64> = (0..n).map(|_| rng.uniform(-1.0, 1.0)).collect();
        let mut env = Env::new();
        env.set(&model.pool, model.time, t);
        for (i, c) in model.coordinates.iter().enumerate() {
            env.set(&model.pool, c.q, q[i]).set(&model.pool, c.v, v[i]);
        }
        for (p, &value) in model.parameters.iter().zip(&params) {
            env.set(&model.pool, p.sym, value);
        }
        let eval = |ids: &[ExprId]| model.pool.eval_many(ids, &env);
        let name = sys.name();
        let mut vec_out = vec![0.0; dims.m];
        sys.phi_into(t, &q, &mut vec_out);
        compare(name, "phi", &vec_out, &eval(&k.phi));
        sys.phi_t_into(t, &q, &mut vec_out);
        compare(name, "phi_t", &vec_out, &eval(&k.phi_t));
        let mut mat = DMatrix::from_element(dims.m, n, f64::NAN);
        sys.phi_q_into(t, &q, mat.as_view_mut());
        compare(name, "phi_q", &row_major(&mat), &eval(&k.phi_q.entries));
        sys.l_into(t, &q, &v, mat.as_view_mut());
        compare(name, "l", &row_major(&mat), &eval(&k.l.entries));
        let mut gamma = vec![f64::NAN; rows];
        sys.gamma_into(t, &q, &v, &mut gamma);
        compare(name, "gamma", &gamma, &eval(&k.gamma));
        let mut mass = DMatrix::from_element(n, n, f64::NAN);
        sys.mass_into(t, &q, mass.as_view_mut());
        compare(name, "mass", &row_major(&mass), &eval(&k.mass.entries));
        let mut force = vec![f64::NAN; n];
        sys.force_into(t, &q, &v, &mut force);
        compare(name, "force", &force, &eval(&k.force));
        // The fused kernel must agree with the separate ones, entry for entry.
        let mut jac = DMatrix::from_element(rows, n, f64::NAN);
        let (mut mass2, mut force2, mut gamma2) = (
            DMatrix::from_element(n, n, f64::NAN),
            vec![f64::NAN; n],
            vec![f64::NAN; rows],
        );
        sys.dynamics_into(
            t,
            &q,
            &v,
            DynamicsOut {
                mass: mass2.as_view_mut(),
                force: &mut force2,
                jacobian: jac.as_view_mut(),
                gamma: &mut gamma2,
            },
        );
        compare(
            name,
            "dynamics.mass",
            &row_major(&mass2),
            &eval(&k.mass.entries),
        );
        compare(name, "dynamics.force", &force2, &eval(&k.force));
        compare(
            name,
            "dynamics.jacobian",
            &row_major(&jac),
            &eval(&k.jacobian().entries),
        );
        compare(name, "dynamics.gamma", &gamma2, &eval(&k.gamma));
        assert_sparsity_matches(&sys, &model, &k);
    }
}

/// The exported sparsity patterns list exactly the entries that are not structurally zero.
fn assert_sparsity_matches<S: ConstrainedSystem>(sys: &S, model: &Model, k: &Kernels) {
    for (name, pattern, mat) in [
        ("phi_q", sys.phi_q_sparsity(), &k.phi_q),
        ("l", sys.l_sparsity(), &k.l),
    ] {
        let expected: Vec<(usize, usize)> = (0..mat.rows * mat.cols)
            .filter(|&i| {
                model
                    .pool
                    .as_number(mat.entries[i])
                    .is_none_or(|x| !x.is_zero())
            })
            .map(|i| (i / mat.cols, i % mat.cols))
            .collect();
        assert_eq!(
            pattern.nonzeros,
            &expected[..],
            "{}: {name} sparsity",
            sys.name()
        );
        assert_eq!(
            (pattern.rows, pattern.cols),
            (mat.rows, mat.cols),
            "{}: {name} shape",
            sys.name()
        );
    }
}

#[test]
fn cartesian_pendulum() {
    check_model(
        fixtures::cartesian_pendulum(),
        |p| CartesianPendulum::from_parameters(p.try_into().unwrap()),
        1,
    );
}

#[test]
fn closed_chain_3() {
    check_model(
        fixtures::closed_chain(3),
        |p| ClosedChain3::from_parameters(p.try_into().unwrap()),
        2,
    );
}

#[test]
fn closed_chain_20() {
    check_model(
        fixtures::closed_chain(20),
        |p| ClosedChain20::from_parameters(p.try_into().unwrap()),
        3,
    );
}

#[test]
fn andrews() {
    check_model(
        fixtures::andrews(),
        |p| Andrews::from_parameters(p.try_into().unwrap()),
        4,
    );
}

#[test]
fn rheonomic() {
    // Parameters (r, omega, Lb, ell): xb = sqrt(Lb² − r² sin²ωt) needs Lb > r.
    check_model_with(
        fixtures::rheonomic(),
        |p| Rheonomic::from_parameters(p.try_into().unwrap()),
        5,
        |p| p[2] = p[0] + 1.0,
    );
}

#[test]
fn node_zoo() {
    // Parameters (k, r, t_step, mass): a step time inside the sampled t ∈ [0, 2].
    check_model_with(
        fixtures::node_zoo(),
        |p| NodeZoo::from_parameters(p.try_into().unwrap()),
        6,
        |p| p[2] = 1.0,
    );
}

#[test]
fn andrews_split_into_parts() {
    // The same kernels emitted through the large-model path (scratch array, parts of 4 statements).
    check_model(
        fixtures::andrews(),
        |p| AndrewsSplit::from_parameters(p.try_into().unwrap()),
        7,
    );
}
