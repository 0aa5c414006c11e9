//! The inverse trigonometric functions asin, acos, atan and the hyperbolic sinh, cosh, tanh
//! through the pipeline: canonical forms and constant folds, symbolic derivatives (as text,
//! against central finite differences, and against the SymPy/SymEngine oracle
//! `tests/oracle/functions.py`, which fails loudly when missing), and the front end's
//! spellings `x.asin()`, `asin(x)`, `f64::asin(x)` down to the emitted `.asin()`.

mod common;

use common::{EVAL_ULPS, assert_entry, central_diff, eval_with, magnitude, run_python_oracle};
use mbsim_codegen::frontend::{self, file};
use mbsim_codegen::{Env, ExprId, Pool, SymbolKind};
use quote::quote;
use serde_json::json;

/// A pool with the free symbols x and y.
fn pool_xy() -> (Pool, [ExprId; 2]) {
    let mut pool = Pool::new();
    let vars = ["x", "y"].map(|name| pool.symbol(name, SymbolKind::Free));
    (pool, vars)
}

fn canonical(input: &str) -> String {
    let (mut pool, _) = pool_xy();
    let e = pool.parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    pool.to_sexpr(e)
}

fn derivative(input: &str) -> String {
    let (mut pool, [x, _]) = pool_xy();
    let e = pool.parse(input).unwrap_or_else(|e| panic!("{input}: {e}"));
    let d = pool.diff(e, x);
    assert!(pool.check_invariants());
    pool.to_sexpr(d)
}

macro_rules! cases {
    ($($name:ident: $f:ident($input:literal) => $expect:literal;)*) => {
        $(#[test] fn $name() { assert_eq!($f($input), $expect, "{}", $input); })*
    };
}

cases! {
    asin_is_odd: canonical("(asin (- x))") => "(* -1 (asin x))";
    atan_is_odd: canonical("(atan (* -2 x))") => "(* -1 (atan (* 2 x)))";
    sinh_is_odd: canonical("(sinh (- x))") => "(* -1 (sinh x))";
    tanh_is_odd: canonical("(tanh (- x))") => "(* -1 (tanh x))";
    cosh_is_even: canonical("(cosh (- x))") => "(cosh x)";
    acos_keeps_its_sign: canonical("(acos (- x))") => "(acos (* -1 x))";
    asin_of_zero: canonical("(asin 0)") => "0";
    atan_of_zero: canonical("(atan 0)") => "0";
    acos_of_one: canonical("(acos 1)") => "0";
    cosh_of_zero: canonical("(cosh 0)") => "1";
    sinh_of_zero: canonical("(sinh 0)") => "0";
    tanh_of_zero: canonical("(tanh 0)") => "0";
    exact_rational_stays: canonical("(asin 1/3)") => "(asin 1/3)";
    float_folds: canonical("(atan 0.1)") => "0.09966865249116204";
    out_of_domain_stays: canonical("(asin 2.5)") => "(asin 5/2)";
    d_asin: derivative("(asin x)") => "(^ (+ 1 (* -1 (^ x 2))) -1/2)";
    d_acos: derivative("(acos x)") => "(* -1 (^ (+ 1 (* -1 (^ x 2))) -1/2))";
    d_atan: derivative("(atan x)") => "(^ (+ 1 (^ x 2)) -1)";
    d_sinh: derivative("(sinh x)") => "(cosh x)";
    d_cosh: derivative("(cosh x)") => "(sinh x)";
    d_tanh: derivative("(tanh x)") => "(+ 1 (* -1 (^ (tanh x) 2)))";
    d_asin_chain: derivative("(asin (* 2 x))") => "(* 2 (^ (+ 1 (* -4 (^ x 2))) -1/2))";
}

/// Each function, composed so that the chain rule, products and a second function are
/// exercised; every argument of asin/acos stays in |a| ≤ 0.8 at the points of [`POINTS`].
const EXPRS: [&str; 9] = [
    "(asin (* x y))",
    "(acos (* -1/2 y))",
    "(atan (/ x y))",
    "(* (asin x) (acos (* 1/2 y)))",
    "(acos (tanh x))",
    "(atan (* x (exp y)))",
    "(sinh (^ x 2))",
    "(cosh (+ x y))",
    "(tanh (* 2 x y))",
];

/// x in [−0.7, 0.7], y in [0.55, 1.1]: |x·y| ≤ 0.77, |y/2| ≤ 0.55, y bounded away from 0.
const POINTS: [[f64; 2]; 6] = [
    [-0.7, 0.55],
    [-0.2, 1.1],
    [0.3, 0.9],
    [0.65, 0.6],
    [0.05, 1.05],
    [0.5, 0.75],
];

fn env(pool: &Pool, vars: &[ExprId; 2], p: [f64; 2]) -> Env {
    let mut env = Env::new();
    env.set(pool, vars[0], p[0]).set(pool, vars[1], p[1]);
    env
}

/// ∂e/∂x and ∂e/∂y against `common::central_diff` (its doc derives the step and the bound);
/// the analytic side adds its own evaluation error, EVAL_ULPS · ε · its largest intermediate.
#[test]
fn derivatives_match_finite_differences() {
    let mut worst: f64 = 0.0;
    for text in EXPRS {
        let (mut pool, vars) = pool_xy();
        let e = pool.parse(text).expect("parses");
        for p in POINTS {
            let env = env(&pool, &vars, p);
            let noise = EVAL_ULPS * f64::EPSILON * magnitude(&pool, &[e], &env);
            for (i, &x) in vars.iter().enumerate() {
                let d = pool.diff(e, x);
                let got = pool.eval(d, &env);
                let f = |xi| eval_with(&pool, &[e], &env, x, xi)[0];
                let fd = central_diff(f, p[i], 1.0, noise);
                assert!(fd.smooth, "{text} is smooth at {p:?}: {fd:?}");
                let tol = fd.tol + EVAL_ULPS * f64::EPSILON * magnitude(&pool, &[d], &env);
                assert_entry(
                    &format!("d/d{} {text} at {p:?}", ["x", "y"][i]),
                    i,
                    got,
                    fd.value,
                    tol,
                );
                worst = worst.max((got - fd.value).abs() / got.abs().max(1.0));
            }
        }
    }
    println!("largest FD deviation (relative to max(|d|, 1)): {worst:.2e}");
}

/// Agreement with the oracle, per entry: 32 ε · max(|reference|, largest intermediate of our
/// graph). Our evaluation errs by ½ ulp per node of the largest intermediate; the graphs
/// (second derivatives included) are at most about 8 nodes deep on any path, and
/// (1 − a²)^(−1/2) with |a| ≤ 0.8 amplifies the relative error of 1 − a² by at most
/// ½ · 1/(1 − 0.64) < 1.4, so 8 · 1.4 · ½ ≈ 6 ulps; 32 leaves margin while a wrong derivative
/// term (off by the size of a term) fails by orders of magnitude.
const ORACLE_ULPS: f64 = 32.0;

fn check_oracle(backend: &str) {
    let input = json!({"backend": backend, "vars": ["x", "y"], "exprs": EXPRS, "points": POINTS});
    let output = run_python_oracle("functions.py", &input, backend);
    let mut worst: f64 = 0.0;
    for (k, text) in EXPRS.iter().enumerate() {
        let (mut pool, vars) = pool_xy();
        let e = pool.parse(text).expect("parses");
        let (dx, dy) = (pool.diff(e, vars[0]), pool.diff(e, vars[1]));
        let dxx = pool.diff(dx, vars[0]);
        let roots = [e, dx, dy, dxx];
        for (j, p) in POINTS.iter().enumerate() {
            let r = &output["results"][k][j];
            let want = [&r["value"], &r["d"][0], &r["d"][1], &r["d2"]]
                .map(|v| v.as_f64().unwrap_or_else(|| panic!("oracle gave {v}")));
            let env = env(&pool, &vars, *p);
            let got = pool.eval_many(&roots, &env);
            for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
                let scale = w.abs().max(magnitude(&pool, &roots[i..=i], &env));
                let ctx = format!("{backend}: {text} at {p:?}");
                let what = ["f", "∂x f", "∂y f", "∂²x f"][i];
                assert_entry(&ctx, what, g, w, ORACLE_ULPS * f64::EPSILON * scale);
                worst = worst.max((g - w).abs() / (f64::EPSILON * scale));
            }
        }
    }
    println!("{backend}: largest deviation from the oracle {worst:.1} ulps of the entry's scale");
}

#[test]
fn agrees_with_sympy() {
    check_oracle("sympy");
}

#[test]
fn agrees_with_symengine() {
    check_oracle("symengine");
}

/// Method, function and `f64::` spellings lower to the same expression, and the emitted code
/// calls the `f64` method of the same name.
#[test]
fn front_end_spellings_and_emission() {
    let item = quote!(
        struct P {
            a: f64,
        }
    );
    let methods = quote!(coordinates: [x], mass: diag(1.0),
        force: [x.asin() + x.acos() + (a * x).atan() + x.sinh() + x.cosh() + x.tanh()]);
    let functions = quote!(coordinates: [x], mass: diag(1.0),
        force: [asin(x) + f64::acos(x) + atan(a * x) + sinh(x) + cosh(x) + f64::tanh(x)]);
    let m1 = frontend::model(methods.clone(), item.clone()).expect("methods lower");
    let m2 = frontend::model(functions, item.clone()).expect("functions lower");
    assert_eq!(m1.pool.to_sexpr(m1.force[0]), m2.pool.to_sexpr(m2.force[0]));
    let code = file::pretty(frontend::expand(methods, item).expect("expands"));
    for method in [
        ".asin()", ".acos()", ".atan()", ".sinh()", ".cosh()", ".tanh()",
    ] {
        assert!(
            code.contains(method),
            "emitted code lacks {method}:\n{code}"
        );
    }
}
