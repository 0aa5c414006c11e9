//! The sparse path (M and G as their nonzeros, issue 27) computes the dense path's numbers:
//! for every catalog model with the sparse kernel forms, short RKSTAB runs
//! under each post-step stabilization but S-full (compared to round-off below) and Baumgarte (projected samples, so the sampler's KKT
//! solves and projection run too) on the sparse path equal, bit for bit, the same runs with
//! the forms hidden ([`DenseForms`], the dense kernels and dense storage), from the consistent
//! state `initialize` finds (on each path: equal bit for bit too). Both paths assemble
//! the same matrix from the same values and sum every product in the same order (see
//! `runtime/src/sparse.rs`), so no tolerance is needed.

use mbsim_models::catalog;
use mbsim_runtime::catalog::ModelEntry;
use mbsim_runtime::{
    Baumgarte, ConstrainedSystem, HybridOptions, Implicit, InitOptions, KktLayout,
    PartitionOptions, Problem, Radau, Rkstab, Stabilization, Stabilizer, initialize, integrate,
};
use mbsim_testkit::compare;
use mbsim_tests::dense_forms::DenseForms;

/// Every pair of vectors equal entry for entry (a tolerance of 0).
fn exact(what: &str, sparse: &[Vec<f64>], dense: &[Vec<f64>]) {
    assert_eq!(sparse.len(), dense.len(), "{what}: number of samples");
    for (i, (s, d)) in sparse.iter().zip(dense).enumerate() {
        compare(&format!("{what} sample {i}"), s, d, 0.0);
    }
}

/// A catalog model with the sparse kernel forms: its name, the model on the sparse path, the
/// same model with the forms hidden (the dense path) and its initial guess (q0, v0).
struct SparseModel<'s> {
    name: &'static str,
    sparse: &'s dyn ConstrainedSystem,
    dense: DenseForms<'s>,
    guess: (Vec<f64>, Vec<f64>),
}

/// Run `body` on every catalog model with the sparse kernel forms (the loop every test here
/// starts with).
fn each_sparse_model(mut body: impl FnMut(SparseModel<'_>)) {
    for entry in catalog() {
        with_model(entry, &mut body);
    }
}

/// Run `body` on `entry`'s model if it has the sparse kernel forms.
fn with_model(entry: &ModelEntry, body: impl FnOnce(SparseModel<'_>)) {
    let sys = (entry.build)();
    if !sys.has_nonzero_forms() {
        return;
    }
    let sparse: &dyn ConstrainedSystem = sys.as_ref();
    body(SparseModel {
        name: entry.name,
        sparse,
        dense: DenseForms(sparse),
        guess: (entry.initial)(sparse),
    });
}

/// Run `body` on the A02 chain in body coordinates (`four-bar-chain-bodies`, 243 coordinates)
/// from its consistent start.
fn on_the_a02_chain(body: impl FnOnce(&SparseModel<'_>, Vec<f64>, Vec<f64>)) {
    let entry = catalog()
        .iter()
        .find(|e| e.name == "four-bar-chain-bodies")
        .expect("the A02 chain in the catalog");
    let mut ran = false;
    with_model(entry, |model| {
        let (q0, v0) = &model.guess;
        let start = initialize(model.sparse, 0.0, q0, v0, &InitOptions::default());
        let start = start.expect("initialize the A02 chain");
        body(&model, start.q, start.v);
        ran = true;
    });
    assert!(ran, "the A02 chain has the sparse forms");
}

/// (q, v) moved off the constraints by ~1e-8 per coordinate (a fixed pattern).
fn off_the_constraints(q: &[f64], v: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let (mut q1, mut v1) = (q.to_vec(), v.to_vec());
    for (i, (a, b)) in q1.iter_mut().zip(v1.iter_mut()).enumerate() {
        *a += 1e-8 * ((i % 7) as f64 - 3.0);
        *b += 1e-8 * ((i % 5) as f64 - 2.0);
    }
    (q1, v1)
}

/// [`each_sparse_model`] from the consistent start `initialize` finds on the sparse path
/// (models that do not initialize are passed over): the model and the start (q, v).
fn each_sparse_start(mut body: impl FnMut(&SparseModel<'_>, Vec<f64>, Vec<f64>)) {
    each_sparse_model(|model| {
        let (q0, v0) = &model.guess;
        if let Ok(start) = initialize(model.sparse, 0.0, q0, v0, &InitOptions::default()) {
            body(&model, start.q, start.v);
        }
    });
}

/// The post-step stabilizations whose sparse path is the dense path's arithmetic. S-full
/// factors a different matrix on its sparse path (the banded augmented system, not HHᵀ) and
/// is compared to round-off in [`the_s_full_sparse_path_agrees_with_the_dense_path`]; so do
/// GCP and the hybrid (banded blocks, not the complete-pivoting LU) in
/// [`gcp_and_the_hybrid_sparse_path_agrees_with_the_dense_path`].
fn stabilizations() -> [Stabilization; 5] {
    [
        Stabilization::PStab,
        Stabilization::SBoth,
        Stabilization::VelocityOnly,
        Stabilization::GGt,
        Stabilization::Baumgarte(Baumgarte {
            alpha: 5.0,
            beta: 5.0,
        }),
    ]
}

#[test]
fn the_sparse_path_reproduces_the_dense_path_bit_for_bit() {
    let (mut checked, mut completed) = (Vec::new(), 0);
    each_sparse_model(|model| {
        let (sparse, dense, (q0, v0)) = (model.sparse, &model.dense, &model.guess);
        let opts = InitOptions::default();
        let (a, b) = (
            initialize(sparse, 0.0, q0, v0, &opts),
            initialize(dense, 0.0, q0, v0, &opts),
        );
        let (a, b) = match (a, b) {
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                assert_eq!(a.is_ok(), b.is_ok(), "{}: initialize", model.name);
                return;
            }
        };
        let name = model.name;
        exact(
            &format!("{name} init q, v, v̇, λ"),
            &[a.q.clone(), a.v.clone(), a.vdot, a.lambda],
            &[b.q, b.v, b.vdot, b.lambda],
        );
        let t_end = 0.02;
        for stab in stabilizations() {
            let method = Rkstab::new(1e-6).with_stabilization(stab);
            let problem = Problem::new(0.0, t_end, &a.q, &a.v).with_uniform_output(t_end / 4.0);
            let runs = (
                integrate(sparse, &method, &problem),
                integrate(dense, &method, &problem),
            );
            let what = format!("{name} {}", stab.name());
            match runs {
                (Ok((rs, ss)), Ok((rd, sd))) => {
                    exact(&format!("{what} q"), &rs.q, &rd.q);
                    exact(&format!("{what} v"), &rs.v, &rd.v);
                    exact(&format!("{what} λ"), &rs.lambda, &rd.lambda);
                    completed += 1;
                    assert_eq!(
                        (ss.stats.nfcn, ss.stats.nstep),
                        (sd.stats.nfcn, sd.stats.nstep),
                        "{what}"
                    );
                }
                (Err(es), Err(ed)) => {
                    println!("{what}: both fail: {es}");
                    assert_eq!(es.to_string(), ed.to_string(), "{what}");
                    continue;
                }
                (s, d) => panic!("{what}: sparse {:?} vs dense {:?}", s.err(), d.err()),
            }
        }
        checked.push(name);
    });
    // Every model with the forms runs under most stabilizations (a failure on both paths is
    // compared too, but proves less).
    println!("models {checked:?}, {completed} runs completed on both paths");
    assert!(completed >= 5 * checked.len(), "{completed} runs completed");
    assert!(
        checked.contains(&"four-bar-chain-bodies"),
        "checked: {checked:?}"
    );
}

/// The implicit methods' sparse path (banded Newton and stage matrices from nonzeros,
/// compressed tangent differences; `runtime/src/implicit/iteration.rs`) on every catalog model
/// whose largest matrix it factors banded, against the dense path ([`DenseForms`]) from the
/// consistent start over [0, 0.05] s: the same steps and the same state up to the factorizations'
/// round-off. Both solve the same equations with the same Newton tests; the iterations stop
/// within their tolerance of each step's solution (1e-10 relative for the α family; Radau's κ
/// of 1e-12 at constant steps), which bounds the difference of ≤ 50 steps by 1e-8 relative.
/// The models that keep the dense path (or do not initialize) are listed, not compared.
#[test]
fn the_implicit_methods_sparse_path_agrees_with_the_dense_path() {
    let (mut banded, mut dense_only) = (Vec::new(), Vec::new());
    each_sparse_model(|model| {
        let (sparse, dense, (q0, v0)) = (model.sparse, &model.dense, &model.guess);
        let Ok(start) = initialize(sparse, 0.0, q0, v0, &InitOptions::default()) else {
            dense_only.push(model.name);
            return;
        };
        let problem = Problem::new(0.0, 0.05, &start.q, &start.v);
        let newmark = Implicit::newmark(1e-3);
        let radau = Radau::fixed(1e-3);
        let layouts = (newmark.layout(sparse), radau.layout(sparse));
        if !matches!(layouts.1, KktLayout::Banded { .. }) {
            dense_only.push(model.name);
            return;
        }
        banded.push((model.name, layouts));
        let runs = [
            (
                "newmark",
                integrate(sparse, &newmark, &problem),
                integrate(dense, &newmark, &problem),
            ),
            (
                "radau",
                integrate(sparse, &radau, &problem),
                integrate(dense, &radau, &problem),
            ),
        ];
        for (method, s, d) in runs {
            let what = format!("{} {method}", model.name);
            let ((_, s), (_, d)) = (s.expect(&what), d.expect(&what));
            assert_eq!(s.stats.nstep, d.stats.nstep, "{what}: steps");
            let scale = 1.0 + d.q.iter().chain(&d.v).fold(0.0_f64, |m, x| m.max(x.abs()));
            compare(&format!("{what} q"), &s.q, &d.q, 1e-8 * scale);
            compare(&format!("{what} v"), &s.v, &d.v, 1e-8 * scale);
        }
    });
    println!("banded (Newton, stages): {banded:?}; dense: {dense_only:?}");
    assert!(
        banded
            .iter()
            .any(|(name, _)| *name == "four-bar-chain-bodies"),
        "banded: {banded:?}"
    );
}

/// ALI3-P's sparse path (`runtime/src/ali3p/linear.rs`: [W Gᵀ; G −I/s] factored banded
/// instead of the dense P = W + s GᵀG, K and C by compressed differences, products over the
/// nonzeros) on every catalog model whose leading matrix it factors banded, against the dense
/// path ([`DenseForms`]) from the consistent start over ten steps of 1e-3 s (the dense path
/// costs ~0.25 s a step on the A02 chain). Both solve the same equations with the same Newton
/// test, each stopping within its tolerance 1e-12 (1 + ‖q‖∞) of the step's solution, and the
/// velocities follow the positions' correction amplified by 2/h = 2e3: ≤ ~2e-9 (1 + ‖q‖∞) per
/// step, so the bound 1e-7 relative leaves a factor ≥ 5 over ten steps (measured on the A02
/// chain: 5e-11 after 100 steps) and would catch a wrong sign, row or scale at once.
#[test]
fn ali3p_sparse_path_agrees_with_the_dense_path() {
    use mbsim_runtime::Ali3p;
    let mut banded = Vec::new();
    each_sparse_start(|model, q0, v0| {
        let method = Ali3p::new(1e-3);
        if !matches!(method.layout(model.sparse), KktLayout::Banded { .. }) {
            return;
        }
        banded.push(model.name);
        let problem = Problem::new(0.0, 0.01, &q0, &v0);
        let what = format!("{} ali3p", model.name);
        let (_, s) = integrate(model.sparse, &method, &problem).expect(&what);
        let (_, d) = integrate(&model.dense, &method, &problem).expect(&what);
        assert_eq!(s.stats.nstep, d.stats.nstep, "{what}: steps");
        let scale = 1.0 + d.q.iter().chain(&d.v).fold(0.0_f64, |m, x| m.max(x.abs()));
        compare(&format!("{what} q"), &s.q, &d.q, 1e-7 * scale);
        compare(&format!("{what} v"), &s.v, &d.v, 1e-7 * scale);
    });
    println!("ali3p banded: {banded:?}");
    assert!(banded.contains(&"four-bar-chain-bodies"), "{banded:?}");
}

/// Chin's continuous stabilizations `GGt` and `Identity` on the sparse path
/// (`runtime/src/continuous_sparse.rs`: the banded [I Gᵀ; G 0] solve and sparse products) against
/// the dense path (the forms hidden: dense GGᵀ, dense LU) on every catalog model with the
/// sparse forms, RKSTAB rtol 1e-6 over [0, 0.02] s from the consistent start with projected
/// samples. The field's KKT part is the same bit for bit on both paths; only the correction
/// Gᵀ(GGᵀ)⁻¹c (or Gᵀc) differs, by round-off of a different factorization and summation order:
/// about ε κ(GGᵀ) |correction| per evaluation, where |correction| ≤ the gain² × the drift
/// (~1e-10 here), so after ≤ 100 evaluations the states agree far below 1e-12 relative; the
/// bound 1e-12 leaves that margin and would catch a wrong sign, row or scale at once. Where the
/// identity-metric augmented matrix is not banded (the small models) the dense path is taken
/// and the runs are equal bit for bit, which the bound includes.
#[test]
fn the_continuous_stabilizations_sparse_path_agrees_with_the_dense_path() {
    use mbsim_runtime::{Continuous, ContinuousChoice};
    let stabilizations = [ContinuousChoice::GGt, ContinuousChoice::Identity]
        .map(|choice| Stabilization::Continuous(Continuous::new(choice, 10.0)));
    let checked = stabilized_runs_agree(&stabilizations, false);
    assert!(
        checked
            .iter()
            .any(|w| w.starts_with("four-bar-chain-bodies continuous-ggt")),
        "compared: {checked:?}"
    );
}

/// RKSTAB rtol 1e-6 over [0, 0.02] s with projected samples, from the consistent start, under
/// each of `stabilizations` on every catalog model with the sparse forms, on the sparse path
/// against the dense one ([`DenseForms`]): the same NFCN (and NSTAB when `nstab`), every sample
/// of q and v within 1e-12 (the tests' docs derive the bound). Returns "model stabilization" of
/// the runs compared (a run that fails on both paths is skipped).
fn stabilized_runs_agree(stabilizations: &[Stabilization], nstab: bool) -> Vec<String> {
    let mut checked = Vec::new();
    each_sparse_start(|model, q, v| {
        let (sparse, dense) = (model.sparse, &model.dense);
        for &stab in stabilizations {
            let method = Rkstab::new(1e-6).with_stabilization(stab);
            let problem = Problem::new(0.0, 0.02, &q, &v).with_uniform_output(0.005);
            let what = format!("{} {}", model.name, stab.name());
            let runs = (
                integrate(sparse, &method, &problem),
                integrate(dense, &method, &problem),
            );
            let ((rs, ss), (rd, sd)) = match runs {
                (Ok(s), Ok(d)) => (s, d),
                (s, d) => {
                    assert_eq!(s.is_ok(), d.is_ok(), "{what}");
                    continue;
                }
            };
            assert_eq!(ss.stats.nfcn, sd.stats.nfcn, "{what}: NFCN");
            if nstab {
                assert_eq!(ss.stats.nstab, sd.stats.nstab, "{what}: NSTAB");
            }
            let mut largest = 0.0_f64;
            for (kind, (s, d)) in [("q", (&rs.q, &rd.q)), ("v", (&rs.v, &rd.v))] {
                for (i, (s, d)) in s.iter().zip(d).enumerate() {
                    compare(&format!("{what} {kind} sample {i}"), s, d, 1e-12);
                    let scale = d.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
                    let diff = (s.iter().zip(d)).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
                    largest = largest.max(diff / scale);
                }
            }
            println!("{what}: largest relative difference {largest:.2e}");
            checked.push(what);
        }
    });
    println!("compared: {checked:?}");
    checked
}

/// S-full on the sparse path (`runtime/src/stabilize/sfull_sparse.rs`: Hᵀ(HHᵀ)⁻¹ζ from the
/// banded augmented system [I Hᵀ; H 0]) against the dense path (the forms hidden: HHᵀ formed
/// and factored densely) on every catalog model with the sparse forms, RKSTAB rtol 1e-6 over
/// [0, 0.02] s from the consistent start with projected samples. The integration is the same
/// bit for bit on both paths but for the correction x = Hᵀ(HHᵀ)⁻¹ζ, which two backward-stable
/// factorizations of different matrices give to about ε κ(HHᵀ) |x| apart; |x| is the drift a
/// step leaves (≤ ~1e-7 of the state at rtol 1e-6) and κ(HHᵀ) ≤ ~1e4 away from singular
/// configurations, so each correction differs by ≲ 1e-19 relative and ≤ 100 of them, carried
/// by a non-stiff flow over 0.02 s, stay far below 1e-12 relative. The bound 1e-12 keeps that
/// margin and catches a wrong sign, row or scale at once; the same NFCN shows that the step
/// sequence did not change. Where the augmented matrix is not banded (the small models) the
/// dense path is taken and the runs are equal bit for bit, which the bound includes.
#[test]
fn the_s_full_sparse_path_agrees_with_the_dense_path() {
    let checked = stabilized_runs_agree(&[Stabilization::SFull], true);
    assert!(
        checked
            .iter()
            .any(|w| w.starts_with("four-bar-chain-bodies")),
        "compared: {checked:?}"
    );
}

/// GCP and Haug's hybrid algorithm on the sparse path (`runtime/src/stabilize/partition_sparse.rs`:
/// G as nonzeros, the dependent block Φ_u factored banded under RCM with partial pivoting) against
/// the dense path (the forms hidden: the complete-pivoting LU of Φ_u) on every catalog model with
/// the sparse forms, RKSTAB rtol 1e-6 over [0, 0.02] s from the consistent start with projected
/// samples. The partition is chosen by the same dense LU of Φ_q on both paths, so the dependent
/// coordinates and the error weights are the same; each Newton step δ = Φ_u⁻¹Φ differs by the two
/// backward-stable factorizations' round-off, ~ε κ(Φ_u) |δ|, where |δ| is the drift a step
/// leaves (≤ ~1e-7 of the state at rtol 1e-6) and κ(Φ_u) ≤ 1/ρ₀ ~1e3 on these models
/// (ρ₀ = the pivot ratio when chosen): ≲ 1e-20 per correction, and Newton's stopping test
/// (‖Φ‖∞ ≤ 1e-12 or a round-off step) sees residuals that differ at round-off only, so both
/// stop at the same iteration unless a residual lies within round-off of the tolerance. The
/// velocity solve is exact up to the same round-off. Over ≤ 100 steps of a non-stiff flow the
/// states stay far below the shared bound 1e-12 (`stabilized_runs_agree`), which catches a
/// wrong row pairing, sign or scale at once; the same NFCN and NSTAB show that the steps, the
/// hybrid's check (a) and the re-partition decisions did not change. Where the block is not
/// banded (the small models) the dense path is taken, bit for bit. The A02 chain takes the
/// banded path (`Stabilizer::banded_block_factorizations` after a correction; 0 on the dense
/// path).
#[test]
fn gcp_and_the_hybrid_sparse_path_agrees_with_the_dense_path() {
    let stabilizations = [
        Stabilization::Partitioned(PartitionOptions::default()),
        Stabilization::Hybrid(HybridOptions::default()),
    ];
    let checked = stabilized_runs_agree(&stabilizations, true);
    for name in ["gcp", "hybrid"] {
        let run = format!("four-bar-chain-bodies {name}");
        assert!(checked.contains(&run), "compared: {checked:?}");
    }
    on_the_a02_chain(|model, q, v| gcp_on_the_a02_chain(model, (&q, &v), stabilizations));
}

/// The A02 chain's part of [`gcp_and_the_hybrid_sparse_path_agrees_with_the_dense_path`], from
/// the consistent `start`.
fn gcp_on_the_a02_chain(
    model: &SparseModel<'_>,
    start: (&[f64], &[f64]),
    stabilizations: [Stabilization; 2],
) {
    let (sparse, dense) = (model.sparse, &model.dense);
    // The banded path is taken: one correction of the start moved off the constraints by
    // ~1e-8 per coordinate, on each path. A single correction differs by the two
    // factorizations' round-off, ~ε κ(Φ_u) |δ| ≈ 2e-16 · 1e3 · 1e-8 (module docs above), far
    // below the bound 1e-12 relative.
    let (q1, v1) = off_the_constraints(start.0, start.1);
    for stab in stabilizations {
        let correct = |sys: &dyn ConstrainedSystem| {
            let mut stabilizer = Stabilizer::new(stab, sys.dims());
            let (mut q, mut v) = (q1.clone(), v1.clone());
            let applied = stabilizer.apply(sys, 0.0, 1e-3, &mut q, &mut v, 0.0);
            assert!(applied.expect("correction"), "{}: not applied", stab.name());
            (q, v, stabilizer.banded_block_factorizations())
        };
        let ((qs, vs, banded), (qd, vd, dense_banded)) = (correct(sparse), correct(dense));
        println!(
            "{}: banded factorizations {banded} (dense path {dense_banded})",
            stab.name()
        );
        assert!(banded > 0, "{}: the banded block was not used", stab.name());
        assert_eq!(dense_banded, 0, "{}", stab.name());
        let scale = qd.iter().chain(&vd).fold(1.0_f64, |m, x| m.max(x.abs()));
        compare(
            &format!("{} corrected q", stab.name()),
            &qs,
            &qd,
            1e-12 * scale,
        );
        compare(
            &format!("{} corrected v", stab.name()),
            &vs,
            &vd,
            1e-12 * scale,
        );
    }
    // Fifty times longer (1 s, a correction every step, the crank's quarter turn): the banded
    // path is taken and chooses the same first partition. Its conditioning estimate is the
    // banded LU's (partial pivoting) smallest pivot, not complete pivoting's, so a later
    // re-partition may come at another step (measured, GCP: t = 0.684 against 0.606; the
    // hybrid re-partitions once more, at 0.627, then with the dense path at 0.694); the runs
    // then differ by how the
    // two partitions project the predictors in between, not by round-off alone. Both meet
    // ‖Φ‖∞ ≤ 1e-12 and are accurate to about rtol = 1e-6, so they are compared at 1e-9 relative:
    // three digits below the tolerance (measured 4e-12 on q and v), which any wrong row, sign or
    // scale of a solve would exceed at once. (Over the 0.02 s above nothing re-partitions.)
    for stab in stabilizations {
        let method = Rkstab::new(1e-6).with_stabilization(stab);
        let problem = Problem::new(0.0, 1.0, start.0, start.1).with_uniform_output(1.0);
        let run = |sys: &dyn ConstrainedSystem| integrate(sys, &method, &problem).expect("run");
        let ((rs, ss), (rd, sd)) = (run(sparse), run(dense));
        let what = format!("four-bar-chain-bodies {} over 1 s", stab.name());
        let times = |s: &mbsim_runtime::Solution| -> Vec<f64> {
            s.stats.partitions.iter().map(|p| p.t).collect()
        };
        println!(
            "{what}: NFCN {} NSTAB {}, partitions at {:?} (dense {:?})",
            ss.stats.nfcn,
            ss.stats.nstab,
            times(&ss),
            times(&sd)
        );
        let first = |s: &mbsim_runtime::Solution| s.stats.partitions[0].new_independent.clone();
        assert_eq!(first(&ss), first(&sd), "{what}: the first partition");
        let last = |x: &Vec<Vec<f64>>| x[x.len() - 1].clone();
        for (kind, s, d) in [("q", &rs.q, &rd.q), ("v", &rs.v, &rd.v)] {
            let (s, d) = (last(s), last(d));
            let scale = d.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
            let diff = (s.iter().zip(&d)).fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
            println!(
                "{what}: largest relative difference of {kind} {:.1e}",
                diff / scale
            );
            compare(&format!("{what} {kind}"), &s, &d, 1e-9 * scale);
        }
    }
}

/// Chin's continuous two-step route on the sparse path (`runtime/src/continuous_sparse.rs`,
/// `SparseTwoStep`: J₂ by differences over column groups of its pattern, H₂ᵀ(H₂H₂ᵀ)⁻¹s from
/// the banded [I H₂ᵀ; H₂ 0]) against the dense path (the forms hidden: J₂ by differences in
/// every q_j, H₂H₂ᵀ formed and factored densely) on the A02 chain in body coordinates: one RK4
/// step of h = 1e-3 (four corrected fields) from the consistent start moved off the constraints
/// by ~1e-8 per coordinate, γ = 10. The KKT part of the field is the same bit for bit on both
/// paths, and so is J₂ (each grouped difference quotient is the dense one: no row sees two
/// columns of a group); only the solve differs, by two backward-stable factorizations' round-off
/// ~ε κ(H₂H₂ᵀ) |γ x| per field, with |γ x| ≲ γ |s| ≈ 10 · 1e-7 and κ ≲ 1e4: ≲ 1e-18, times
/// h after the step. The bound 1e-15 on the state (relative to its largest entry) keeps three
/// decades of margin above that; the correction itself moves the state by more than 1e-11
/// (asserted against the same step with the route off, γ = 0, under which the field is the
/// unstabilized one), so a wrong sign, row or scale of it would exceed the bound by four
/// decades. (The dense path costs ~0.1 s per field here: the test takes one step.)
#[test]
fn the_continuous_two_step_sparse_path_agrees_with_the_dense_path() {
    use mbsim_runtime::tableau::RK4;
    use mbsim_runtime::{Continuous, ContinuousChoice, FixedStep};
    on_the_a02_chain(|model, q, v| {
        let (q1, v1) = off_the_constraints(&q, &v);
        let h = 1e-3;
        let step = |sys: &dyn ConstrainedSystem, gamma: f64| {
            let route = Continuous::new(ContinuousChoice::TwoStep, gamma);
            let method =
                FixedStep::new(RK4, h).with_stabilization(Stabilization::Continuous(route));
            let problem = Problem::new(0.0, h, &q1, &v1).with_uniform_output(h);
            let (run, _) = integrate(sys, &method, &problem).expect("one RK4 step");
            let last = run.q.len() - 1;
            [run.q[last].clone(), run.v[last].clone()].concat()
        };
        let (sparse, dense, off) = (
            step(model.sparse, 10.0),
            step(&model.dense, 10.0),
            step(model.sparse, 0.0),
        );
        let scale = dense.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        let largest = |a: &[f64], b: &[f64]| {
            (a.iter().zip(b)).fold(0.0_f64, |m, (x, y)| m.max((x - y).abs())) / scale
        };
        let (difference, effect) = (largest(&sparse, &dense), largest(&sparse, &off));
        println!("two-step: sparse - dense {difference:.1e}, the correction's effect {effect:.1e}");
        assert!(
            effect > 1e-11,
            "the correction moved the state by {effect:.1e} only"
        );
        compare("two-step corrected (q, v)", &sparse, &dense, 1e-15 * scale);
    });
}
