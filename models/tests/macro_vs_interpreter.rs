//! The macro-built kernels of every model in `src/` against the `codegen` interpreter evaluating
//! the same derived expressions (the model is rebuilt from the annotated source text by the same
//! front end), at seeded random states and parameters.
//!
//! Tolerance, as in `tests/tests/generated_vs_interpreter.rs`: both sides evaluate the same
//! expressions up to CSE's reassociation of sums and `a·b⁻¹` printed as `a / b`, so they differ
//! by rounding only, below N·ε·Σ|terms| ≈ 2e-11 relative for N ≤ 60 terms with mild
//! cancellation; 1e-11 × max(1, ‖kernel‖_∞) catches any wrong index, sign or term.

use codegen::{Env, ExprId, Kernels, Model, frontend, kernels};
use models::{Pendulum, RollingDisc, TwoLink};
use nalgebra::DMatrix;
use runtime::{ConstrainedSystem, DynamicsOut};

const TOLERANCE: f64 = 1e-11;

/// SplitMix64, so failures reproduce.
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

/// The model `name` as the front end builds it from the annotated source.
fn model_from_source(source: &str, name: &str) -> Model {
    let found = frontend::file::models_in_source(source).expect("the model file parses");
    let annotated = found
        .into_iter()
        .find(|m| m.name == name)
        .expect("the model is in its file");
    annotated.build().expect("the model is valid")
}

fn compare(model: &str, kernel: &str, generated: &[f64], reference: &[f64]) {
    assert_eq!(generated.len(), reference.len(), "{model}.{kernel}: length");
    let scale = reference.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
    for (i, (g, r)) in generated.iter().zip(reference).enumerate() {
        let (delta, tol) = ((g - r).abs(), TOLERANCE * scale);
        assert!(
            delta <= tol,
            "{model}.{kernel}[{i}]: generated {g:e}, interpreter {r:e}, delta {delta:e} > tol {tol:e}"
        );
    }
}

fn row_major(m: &DMatrix<f64>) -> Vec<f64> {
    m.transpose().as_slice().to_vec()
}

fn check<S: ConstrainedSystem>(mut model: Model, make: impl Fn(&[f64]) -> S, seed: u64) {
    let k: Kernels = kernels::derive(&mut model);
    let mut rng = Rng(seed);
    for _ in 0..5 {
        let params: Vec<f64> = model
            .parameters
            .iter()
            .map(|_| rng.uniform(0.5, 1.5))
            .collect();
        let sys = make(&params);
        for (p, value) in model.parameters.iter().zip(&params) {
            assert_eq!(sys.parameter(&p.name), Some(*value), "parameter {}", p.name);
        }
        let dims = sys.dims();
        let (n, rows) = (dims.n, dims.constraint_rows());
        assert_eq!(
            (n, dims.m, dims.k),
            (model.n(), k.phi.len(), k.nh_offset.len())
        );
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
        let mut out = vec![f64::NAN; dims.m];
        sys.phi_into(t, &q, &mut out);
        compare(name, "phi", &out, &eval(&k.phi));
        sys.phi_t_into(t, &q, &mut out);
        compare(name, "phi_t", &out, &eval(&k.phi_t));
        let mut mat = DMatrix::from_element(dims.m, n, f64::NAN);
        sys.phi_q_into(t, &q, mat.as_view_mut());
        compare(name, "phi_q", &row_major(&mat), &eval(&k.phi_q.entries));
        sys.l_into(t, &q, &v, mat.as_view_mut());
        compare(name, "l", &row_major(&mat), &eval(&k.l.entries));
        let mut nh = DMatrix::from_element(dims.k, n, f64::NAN);
        sys.nh_matrix_into(t, &q, nh.as_view_mut());
        compare(
            name,
            "nh_matrix",
            &row_major(&nh),
            &eval(&k.nh_matrix.entries),
        );
        let mut offset = vec![f64::NAN; dims.k];
        sys.nh_offset_into(t, &q, &mut offset);
        compare(name, "nh_offset", &offset, &eval(&k.nh_offset));
        let mut gamma = vec![f64::NAN; rows];
        sys.gamma_into(t, &q, &v, &mut gamma);
        compare(name, "gamma", &gamma, &eval(&k.gamma));
        let mut mass = DMatrix::from_element(n, n, f64::NAN);
        sys.mass_into(t, &q, mass.as_view_mut());
        compare(name, "mass", &row_major(&mass), &eval(&k.mass.entries));
        let mut force = vec![f64::NAN; n];
        sys.force_into(t, &q, &v, &mut force);
        compare(name, "force", &force, &eval(&k.force));
        let mut jac = DMatrix::from_element(rows, n, f64::NAN);
        let (mut mass2, mut force2, mut gamma2) = (
            DMatrix::from_element(n, n, f64::NAN),
            vec![f64::NAN; n],
            vec![f64::NAN; rows],
        );
        let out = DynamicsOut {
            mass: mass2.as_view_mut(),
            force: &mut force2,
            jacobian: jac.as_view_mut(),
            gamma: &mut gamma2,
        };
        sys.dynamics_into(t, &q, &v, out);
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
    }
}

#[test]
fn pendulum() {
    let model = model_from_source(include_str!("../src/pendulum.rs"), "Pendulum");
    check(
        model,
        |p| Pendulum {
            m: p[0],
            len: p[1],
            g: p[2],
        },
        11,
    );
}

#[test]
fn two_link() {
    let model = model_from_source(include_str!("../src/two_link.rs"), "TwoLink");
    check(
        model,
        |p| TwoLink {
            m1: p[0],
            m2: p[1],
            l1: p[2],
            l2: p[3],
            b: p[4],
        },
        12,
    );
}

#[test]
fn rolling_disc() {
    let model = model_from_source(include_str!("../src/rolling_disc.rs"), "RollingDisc");
    check(
        model,
        |p| RollingDisc {
            m: p[0],
            r: p[1],
            A: p[2],
            C: p[3],
            g: p[4],
        },
        13,
    );
}

/// Setting a parameter by name changes the kernels; an unknown name is an error value.
#[test]
fn parameters_by_name() {
    let mut p = Pendulum {
        m: 2.0,
        len: 1.0,
        g: 9.81,
    };
    p.set_parameter("g", 1.0).expect("g is a parameter");
    let mut force = [0.0; 2];
    p.force_into(0.0, &[1.0, 0.0], &[0.0, 0.0], &mut force);
    assert_eq!(force, [0.0, -2.0]);
    let err = p.set_parameter("mass", 1.0).expect_err("no such parameter");
    assert_eq!(
        err.to_string(),
        "model `Pendulum` has no runtime parameter `mass` (runtime parameters: m, len, g)"
    );
}
