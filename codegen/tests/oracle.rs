//! Derived kernels against an independent computer-algebra oracle: `tests/oracle/kernels.py`
//! builds the same models in SymPy or SymEngine, differentiates them there and evaluates Φ, Φ_q,
//! Φ_t, γ and L, and every tangent kernel (∂Q/∂q, ∂Q/∂v, ∂(M w)/∂q, ∂(Φ_qᵀ λ)/∂q, ∂(Aᵀ λ)/∂q,
//! Φ_qt, Φ_tt at random λ and w) at 50+ significant digits, rounded once to f64. For the chain
//! (3 and 10 links), the Andrews squeezer, the rheonomic slider and the skate (M, Q and a
//! nonholonomic row), at seeded random states, our `Pool::eval_many` of `kernels::derive` must
//! agree to 1e-12 relative.
//!
//! The oracle is not optional: when the interpreter (`<workspace>/.venv/bin/python`, or
//! `$ORACLE_PYTHON`) or its packages are missing, the tests fail and say how to install them.

mod common;

use common::{Rng, State, assert_entry, magnitude, run_python_oracle};
use mbsim_codegen::Model;
use mbsim_codegen::kernels::derive;
use mbsim_kernel_table::{Group, KERNELS};
use serde_json::{Value, json};

/// Relative agreement required. The oracle is exact to half an ulp; our f64 evaluation errs by
/// a few ulps of the largest term of each entry, so 1e-12 leaves three orders of margin while
/// still catching any wrong term (which would be off by the size of a term).
const REL: f64 = 1e-12;

/// Which oracle model to run, and how to draw states for it.
struct Case {
    model: &'static str,
    n_links: Option<usize>,
    build: fn() -> Model,
    state: fn(&mut Rng) -> State,
    points: usize,
    /// The core kernels to compare (the oracle's γ has the holonomic rows only).
    core: &'static [&'static str],
}

/// The core kernels of the constraint-only models.
const CORE: &[&str] = &["phi", "phi_q", "phi_t", "gamma", "L"];

/// Compare every kernel of `case` with the oracle's `backend` at `case.points` seeded states.
///
/// Tolerance per entry: REL · max(|ref|, scale), where scale = S · rate^k, S the largest
/// intermediate magnitude of Φ's graph at the state (the size of the terms that cancel in Φ),
/// rate = 1 + Σ|v| (+ |ω| for the rheonomic model) and k the number of time derivatives the
/// kernel carries (Φ, Φ_q: 0; Φ_t, L: 1; γ: 2). Entries that cancel to far below their terms
/// (or are exactly zero) are thus judged against the size of their terms, where our own
/// round-off lives, instead of failing on absolute noise.
///
/// A tangent kernel's entries are judged against REL · max(|ref|, S_k), with S_k the largest
/// intermediate magnitude of that kernel's own graph at the state (λ and w included): the size
/// of the terms our f64 evaluation rounds.
fn check(case: Case, backend: &str) {
    let mut model = (case.build)();
    model.tangents = true;
    let k = derive(&mut model);
    let mut rng = Rng::new(0x6f72_6163_6c65);
    let mut states: Vec<State> = (0..case.points).map(|_| (case.state)(&mut rng)).collect();
    let tangents = k.tangents.as_ref().expect("derived with tangents");
    let mut inputs_rng = Rng::new(0x7461_6e67);
    let inputs: Vec<(Vec<f64>, Vec<f64>)> = (0..case.points)
        .map(|_| {
            let lambda = inputs_rng.vec(tangents.lambda.len(), -1.0, 1.0);
            (lambda, inputs_rng.vec(model.n(), -1.0, 1.0))
        })
        .collect();
    // The oracle takes one parameter set per run: every point uses the first state's.
    let p0 = states[0].p.clone();
    for s in &mut states {
        s.p.clone_from(&p0);
    }
    let params: serde_json::Map<String, Value> = model
        .parameters
        .iter()
        .zip(&p0)
        .map(|(p, &value)| (p.name.clone(), json!(value)))
        .collect();
    let points: Vec<Value> = states
        .iter()
        .zip(&inputs)
        .map(|(s, (lambda, w))| json!({"t": s.t, "q": s.q, "v": s.v, "lambda": lambda, "w": w}))
        .collect();
    let mut input =
        json!({"model": case.model, "backend": backend, "params": params, "points": points});
    if let Some(n) = case.n_links {
        input["n_links"] = json!(n);
    }
    let tag = format!(
        "{}{}-{backend}",
        case.model,
        case.n_links.map_or(String::new(), |n| n.to_string())
    );
    let output = run_python_oracle("kernels.py", &input, &tag);
    let refs = output["points"]
        .as_array()
        .expect("oracle output has points");
    assert_eq!(
        refs.len(),
        states.len(),
        "oracle returned a different number of points"
    );
    let label = case
        .n_links
        .map_or(case.model.to_string(), |n| format!("{}({n})", case.model));
    for (point, ((s, r), (lambda, w))) in states.iter().zip(refs).zip(&inputs).enumerate() {
        let mut env = s.env(&model);
        let symbols = tangents
            .lambda
            .iter()
            .zip(lambda)
            .chain(tangents.w.iter().zip(w));
        for (&sym, &x) in symbols {
            env.set(&model.pool, sym, x);
        }
        let size = magnitude(&model.pool, &k.phi, &env);
        let omega = if case.model == "rheonomic" {
            s.p[1].abs()
        } else {
            0.0
        };
        let rate = 1.0 + s.v.iter().map(|v| v.abs()).sum::<f64>() + omega;
        let kernels = [
            ("phi", &k.phi, 0),
            ("phi_q", &k.phi_q.entries, 0),
            ("phi_t", &k.phi_t, 1),
            ("gamma", &k.gamma, 2),
            ("L", &k.l.entries, 1),
        ];
        let kernels = kernels
            .into_iter()
            .filter(|(name, ..)| case.core.contains(name));
        for (name, entries, time_derivatives) in kernels {
            let got = model.pool.eval_many(entries, &env);
            let want = flatten(&r[name]);
            assert_eq!(
                got.len(),
                want.len(),
                "{label}/{backend}: kernel {name} has a different shape"
            );
            let scale = size * rate.powi(time_derivatives);
            let ctx = format!("model {label}, backend {backend}, point {point}, kernel {name}");
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert_entry(&ctx, i.to_string(), g, w, REL * w.abs().max(scale));
            }
        }
        for spec in KERNELS.iter().filter(|s| s.group == Group::Tangent) {
            let entries = k.entries(spec.id).expect("derived with tangents");
            let got = model.pool.eval_many(entries, &env);
            let want = flatten(&r[spec.name]);
            let ctx = format!(
                "model {label}, backend {backend}, point {point}, kernel {}",
                spec.name
            );
            assert_eq!(got.len(), want.len(), "{ctx}: a different shape");
            let scale = magnitude(&model.pool, entries, &env);
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert_entry(&ctx, i.to_string(), g, w, REL * w.abs().max(scale));
            }
        }
    }
}

/// A JSON vector or row-major matrix of numbers, flattened.
fn flatten(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(xs) => xs.iter().flat_map(flatten).collect(),
        x => vec![
            x.as_f64()
                .unwrap_or_else(|| panic!("oracle value {x} is not a number")),
        ],
    }
}

fn chain3() -> Case {
    Case {
        model: "chain",
        n_links: Some(3),
        build: || common::chain(3),
        state: |r| common::chain_state(r, 3),
        points: 6,
        core: CORE,
    }
}

fn chain10() -> Case {
    Case {
        model: "chain",
        n_links: Some(10),
        build: || common::chain(10),
        state: |r| common::chain_state(r, 10),
        points: 3,
        core: CORE,
    }
}

fn andrews() -> Case {
    Case {
        model: "andrews",
        n_links: None,
        build: common::andrews,
        state: common::andrews_state,
        points: 4,
        core: CORE,
    }
}

fn rheonomic() -> Case {
    Case {
        model: "rheonomic",
        n_links: None,
        build: common::rheonomic,
        state: common::rheonomic_state,
        points: 6,
        core: CORE,
    }
}

fn skate() -> Case {
    Case {
        model: "skate",
        n_links: None,
        build: common::skate,
        state: common::skate_state,
        points: 4,
        core: &["phi", "phi_q", "phi_t", "L"],
    }
}

macro_rules! cases {
    ($($name:ident: $case:expr, $backend:literal;)*) => {
        $(#[test] fn $name() { check($case, $backend); })*
    };
}

cases! {
    chain3_sympy: chain3(), "sympy";
    chain3_symengine: chain3(), "symengine";
    chain10_sympy: chain10(), "sympy";
    chain10_symengine: chain10(), "symengine";
    andrews_sympy: andrews(), "sympy";
    andrews_symengine: andrews(), "symengine";
    rheonomic_sympy: rheonomic(), "sympy";
    rheonomic_symengine: rheonomic(), "symengine";
    skate_sympy: skate(), "sympy";
    skate_symengine: skate(), "symengine";
}
