//! The tangent blocks' sparse form (issue 27 item 1): a large sparse model with `tangents: true`
//! gets `tangent_nonzeros_into`, K = ∂(M w + Gᵀλ − Q)/∂q and ∂Q/∂v on their nonzeros only
//! (`codegen/src/emit_sparse.rs`), which the implicit methods' sparse path scatters onto its
//! tangent pattern (`runtime/src/implicit/tangents.rs`) instead of gathering five dense n × n
//! kernels. The model is `damped_chain.rs`: the four-bar chain in body coordinates with six
//! windows, dampers and a spring whose coupling of Q the tangent pattern must grow.

use mbsim_runtime::{
    ConstrainedSystem, Implicit, KktLayout, Problem, Radau, TangentSystem, integrate,
};
use mbsim_testkit::compare;
use nalgebra::DMatrix;

use crate::damped_chain::{TangentPoint, chain, start, tangent_point};

#[test]
fn the_model_gets_the_tangent_nonzero_form() {
    let sys = chain();
    assert!(sys.has_nonzero_forms());
    let sparsity = sys
        .tangent_sparsity()
        .expect("a sparse model with tangents has the form");
    let n = sys.dims().n;
    // M w's q-derivative is 0 (constant M); Φ_qᵀλ's couples the coordinates of one joint
    // row; the spring couples x[0] and x[12]; the dampers are diagonal in ∂Q/∂v.
    assert!(sparsity.nonzeros.contains(&(0, 12)) && sparsity.nonzeros.contains(&(12, 0)));
    assert!(
        sparsity.nonzeros.len() < n * n / 4,
        "{}",
        sparsity.nonzeros.len()
    );
}

/// The form equals the dense kernels' sum entry by entry on its pattern (the same
/// expressions summed in another order: a few ulps of the largest term, 1e-13 of the
/// entries' scale here), and the dense sum is exactly 0 off it.
#[test]
fn the_tangent_nonzero_form_equals_the_dense_kernels() {
    let sys = chain();
    let n = sys.dims().n;
    let TangentPoint { q, v, w, lambda } = tangent_point(&sys);
    let mut k = DMatrix::zeros(n, n);
    let mut tmp = DMatrix::zeros(n, n);
    sys.mass_w_q_into(0.0, &q, &w, k.as_view_mut());
    sys.phi_q_t_lambda_q_into(0.0, &q, &lambda, tmp.as_view_mut());
    k += &tmp;
    sys.nh_matrix_t_lambda_q_into(0.0, &q, &lambda, tmp.as_view_mut());
    k += &tmp;
    sys.force_q_into(0.0, &q, &v, tmp.as_view_mut());
    k -= &tmp;
    let mut force_v = DMatrix::zeros(n, n);
    sys.force_v_into(0.0, &q, &v, force_v.as_view_mut());

    let entries = sys.tangent_sparsity().unwrap().nonzeros;
    let mut values = vec![0.0; 2 * entries.len()];
    sys.tangent_nonzeros_into(0.0, &q, &v, &lambda, &w, &mut values);
    let (form_k, form_c) = values.split_at(entries.len());
    let gathered = |m: &DMatrix<f64>| -> Vec<f64> { entries.iter().map(|&e| m[e]).collect() };
    compare("K on the pattern", form_k, &gathered(&k), 1e-13);
    compare("dQ/dv on the pattern", form_c, &gathered(&force_v), 1e-13);
    let (mut k_off, mut c_off) = (k.clone(), force_v.clone());
    for &e in entries {
        (k_off[e], c_off[e]) = (0.0, 0.0);
    }
    assert_eq!(k_off.amax(), 0.0, "K has a nonzero off the form's pattern");
    assert_eq!(
        c_off.amax(),
        0.0,
        "dQ/dv has a nonzero off the form's pattern"
    );
}

/// Newmark and Radau with the exact tangents (the sparse form, on the banded path) against the
/// same methods with central-difference tangents over [0, 0.2] s: both converge every step to
/// the same solution within the Newton tolerance (1e-10 relative; Radau's κ at constant steps),
/// so 200 steps differ by at most ~1e-8 of the state's scale.
#[test]
fn exact_sparse_tangents_agree_with_differences() {
    let sys = chain();
    let (q0, v0) = start(&sys);
    let problem = Problem::new(0.0, 0.2, &q0, &v0);
    let newmark = Implicit::newmark(1e-3);
    let radau = Radau::fixed(1e-3);
    let banded = |layout| matches!(layout, KktLayout::Banded { .. });
    assert!(banded(newmark.layout(&sys)) && banded(radau.layout(&sys)));
    let exact = [
        newmark
            .integrate_exact(&sys, &problem)
            .expect("newmark exact"),
        radau.integrate_exact(&sys, &problem).expect("radau exact"),
    ];
    let differences = [
        integrate(&sys, &newmark, &problem).expect("newmark fd").1,
        integrate(&sys, &radau, &problem).expect("radau fd").1,
    ];
    for (method, (e, d)) in ["newmark", "radau"]
        .iter()
        .zip(exact.iter().zip(&differences))
    {
        let (e, d) = (&e.1, d);
        assert_eq!(e.stats.nstep, d.stats.nstep, "{method}: steps");
        let scale = 1.0 + d.q.iter().chain(&d.v).fold(0.0_f64, |m, x| m.max(x.abs()));
        compare(&format!("{method} q"), &e.q, &d.q, 1e-8 * scale);
        compare(&format!("{method} v"), &e.v, &d.v, 1e-8 * scale);
    }
}
