//! Symbolic differentiation: exact derivative forms of single rules (one line per rule), and
//! property tests on random expression trees over x, y, z with every node kind — `Pool::diff`
//! against central finite differences of `Pool::eval`, `Pool::directional` against
//! Σ_s ∂e/∂s · rate(s), and memoisation (asking twice returns the same `ExprId` and adds no
//! node).

mod common;

use common::{assert_entry, central_diff, eval_with, magnitude};
use mbsim_codegen::{CmpOp, ExprId, Func, Pool, SymbolKind};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// A pool with the free symbols x, y, z (in that order).
fn pool_xyz() -> (Pool, [ExprId; 3]) {
    let mut pool = Pool::new();
    let vars = ["x", "y", "z"].map(|name| pool.symbol(name, SymbolKind::Free));
    (pool, vars)
}

/// Differentiate `input` with respect to `var` and compare the canonical print.
fn check_diff(input: &str, var: &str, expect: &str) {
    let (mut pool, _) = pool_xyz();
    let e = pool
        .parse(input)
        .unwrap_or_else(|err| panic!("{input}: {err}"));
    let x = pool.parse(var).expect("a declared symbol");
    let d = pool.diff(e, x);
    assert_eq!(pool.to_sexpr(d), expect, "d/d{var} {input}");
    assert!(pool.check_invariants());
}

macro_rules! cases {
    ($($name:ident: $input:literal, $var:literal => $expect:literal;)*) => {
        $(#[test] fn $name() { check_diff($input, $var, $expect); })*
    };
}

cases! {
    number: "5", "x" => "0";
    itself: "x", "x" => "1";
    other_symbol: "y", "x" => "0";
    constant_in_x: "(sin y)", "x" => "0";
    linear: "(+ x (* 3 y))", "y" => "3";
    product: "(* x y)", "x" => "y";
    product_collects: "(* x x y)", "x" => "(* 2 x y)";
    power: "(^ x 3)", "x" => "(* 3 (^ x 2))";
    reciprocal: "(/ 1 x)", "x" => "(* -1 (^ x -2))";
    quotient: "(/ x y)", "y" => "(* -1 x (^ y -2))";
    sqrt: "(sqrt x)", "x" => "(* 1/2 (^ x -1/2))";
    real_power: "(^ x 0.3)", "x" => "(* 0.3 (^ x -0.7))";
    exponential_base: "(^ 2 x)", "x" => "(* (^ 2 x) (ln 2))";
    symbolic_exponent: "(^ x y)", "y" => "(* (^ x y) (ln x))";
    symbolic_exponent_base: "(^ x y)", "x" => "(* y (^ x (+ y -1)))";
    sin: "(sin x)", "x" => "(cos x)";
    cos: "(cos x)", "x" => "(* -1 (sin x))";
    tan: "(tan x)", "x" => "(+ 1 (^ (tan x) 2))";
    exp: "(exp x)", "x" => "(exp x)";
    ln: "(ln x)", "x" => "(^ x -1)";
    chain_rule: "(sin (* 2 x))", "x" => "(* 2 (cos (* 2 x)))";
    chain_rule_exp: "(exp (^ x 2))", "x" => "(* 2 x (exp (^ x 2)))";
    chain_rule_ln: "(ln (sin x))", "x" => "(* (cos x) (^ (sin x) -1))";
    atan2_y: "(atan2 y x)", "y" => "(* x (^ (+ (^ x 2) (^ y 2)) -1))";
    atan2_x: "(atan2 y x)", "x" => "(* -1 y (^ (+ (^ x 2) (^ y 2)) -1))";
    abs: "(abs x)", "x" => "(if (>= x 0) 1 -1)";
    abs_scaled: "(abs (* -3 x))", "x" => "(* 3 (if (>= (* 3 x) 0) 1 -1))";
    max_first: "(max x y)", "x" => "(if (>= x y) 1 0)";
    min_second: "(min x y)", "y" => "(if (<= x y) 0 1)";
    comparison: "(< x y)", "x" => "0";
    select: "(if (> x 0) (^ x 2) (sin x))", "x" => "(if (> x 0) (* 2 x) (cos x))";
    select_same_derivative: "(if (> y 0) (+ x 1) (+ x 2))", "x" => "1";
}

/// A random expression over x, y, z. Operands that need a positive value (ln, sqrt, bases of
/// non-integer or negative powers, divisors) are wrapped as `a² + 1` when built.
#[derive(Clone, Debug)]
enum Tree {
    Rational(i8, u8),
    Float(f64),
    Var(usize),
    Add(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, Box<Tree>),
    PowInt(Box<Tree>, i8),
    PowRational(Box<Tree>, i8, u8),
    PowReal(Box<Tree>, f64),
    PowSym(Box<Tree>, Box<Tree>),
    Func(Func, Box<Tree>),
    Sqrt(Box<Tree>),
    Atan2(Box<Tree>, Box<Tree>),
    Min(Box<Tree>, Box<Tree>),
    Max(Box<Tree>, Box<Tree>),
    Cmp(CmpOp, Box<Tree>, Box<Tree>),
    Select(CmpOp, Box<Tree>, Box<Tree>, Box<Tree>, Box<Tree>),
}

fn func() -> impl Strategy<Value = Func> {
    prop_oneof![
        Just(Func::Sin),
        Just(Func::Cos),
        Just(Func::Tan),
        Just(Func::Exp),
        Just(Func::Ln),
        Just(Func::Abs)
    ]
}

fn cmp_op() -> impl Strategy<Value = CmpOp> {
    prop_oneof![
        Just(CmpOp::Lt),
        Just(CmpOp::Le),
        Just(CmpOp::Gt),
        Just(CmpOp::Ge)
    ]
}

fn tree() -> impl Strategy<Value = Tree> {
    let leaf = prop_oneof![
        1 => (-4i8..=4, 1u8..=3).prop_map(|(p, q)| Tree::Rational(p, q)),
        1 => (-2.0..2.0f64).prop_map(Tree::Float),
        4 => (0usize..3).prop_map(Tree::Var),
    ];
    leaf.prop_recursive(5, 48, 3, |inner| {
        let b = move || inner.clone().prop_map(Box::new);
        prop_oneof![
            (b(), b()).prop_map(|(a, c)| Tree::Add(a, c)),
            (b(), b()).prop_map(|(a, c)| Tree::Mul(a, c)),
            (b(), b()).prop_map(|(a, c)| Tree::Div(a, c)),
            (b(), -3i8..=4).prop_map(|(a, k)| Tree::PowInt(a, k)),
            (b(), -3i8..=3, 2u8..=4).prop_map(|(a, p, q)| Tree::PowRational(a, p, q)),
            (b(), -2.5..2.5f64).prop_map(|(a, e)| Tree::PowReal(a, e)),
            (b(), b()).prop_map(|(a, c)| Tree::PowSym(a, c)),
            (func(), b()).prop_map(|(f, a)| Tree::Func(f, a)),
            (func(), b()).prop_map(|(f, a)| Tree::Func(f, a)),
            b().prop_map(Tree::Sqrt),
            (b(), b()).prop_map(|(a, c)| Tree::Atan2(a, c)),
            (b(), b()).prop_map(|(a, c)| Tree::Min(a, c)),
            (b(), b()).prop_map(|(a, c)| Tree::Max(a, c)),
            (cmp_op(), b(), b()).prop_map(|(op, a, c)| Tree::Cmp(op, a, c)),
            (cmp_op(), b(), b(), b(), b())
                .prop_map(|(op, a, c, d, e)| Tree::Select(op, a, c, d, e)),
        ]
    })
}

/// `a² + 1`: strictly positive, for operands that need it.
fn positive(pool: &mut Pool, a: ExprId) -> ExprId {
    let (a2, one) = (pool.powi(a, 2), pool.one());
    pool.add2(a2, one)
}

fn build(pool: &mut Pool, vars: &[ExprId; 3], t: &Tree) -> ExprId {
    match t {
        Tree::Rational(p, q) => {
            let (p, q) = (i64::from(*p), i64::from(*q));
            pool.rational(p, q)
        }
        Tree::Float(x) => pool.try_float(*x).expect("finite"),
        Tree::Var(i) => vars[*i],
        Tree::Add(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.add2(a, b)
        }
        Tree::Mul(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.mul2(a, b)
        }
        Tree::Div(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            let b = positive(pool, b);
            pool.div(a, b)
        }
        Tree::PowInt(a, k) => {
            let a = build(pool, vars, a);
            let a = if *k < 0 { positive(pool, a) } else { a };
            pool.powi(a, i64::from(*k))
        }
        Tree::PowRational(a, p, q) => {
            let a = build(pool, vars, a);
            let (a, e) = (
                positive(pool, a),
                pool.rational(i64::from(*p), i64::from(*q)),
            );
            pool.pow(a, e)
        }
        Tree::PowReal(a, e) => {
            let a = build(pool, vars, a);
            let (a, e) = (positive(pool, a), pool.try_float(*e).expect("finite"));
            pool.pow(a, e)
        }
        Tree::PowSym(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            let a = positive(pool, a);
            pool.pow(a, b)
        }
        Tree::Func(f, a) => {
            let a = build(pool, vars, a);
            let a = if *f == Func::Ln { positive(pool, a) } else { a };
            pool.func(*f, a)
        }
        Tree::Sqrt(a) => {
            let a = build(pool, vars, a);
            let a = positive(pool, a);
            pool.sqrt(a)
        }
        Tree::Atan2(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.atan2(a, b)
        }
        Tree::Min(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.min(a, b)
        }
        Tree::Max(a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.max(a, b)
        }
        Tree::Cmp(op, a, b) => {
            let (a, b) = (build(pool, vars, a), build(pool, vars, b));
            pool.cmp(*op, a, b)
        }
        Tree::Select(op, a, b, c, d) => {
            let (a, b, c, d) = (
                build(pool, vars, a),
                build(pool, vars, b),
                build(pool, vars, c),
                build(pool, vars, d),
            );
            let cond = pool.cmp(*op, a, b);
            pool.select(cond, c, d)
        }
    }
}

/// Random trees can overflow (towers of exp and powers) or sit on a pole of tan: such points
/// say nothing about the derivative rules and are skipped. The bound keeps every intermediate
/// well inside the range where ε·magnitude/h stays a meaningful tolerance.
const MAX_MAGNITUDE: f64 = 1e6;

/// Absolute evaluation error of a random graph, in ulps of its largest intermediate. Random
/// trees are deeper than the models and pass values through exp and powers, which amplify
/// relative errors by the size of their argument/exponent (bounded by MAX_MAGNITUDE only
/// loosely); 256 ulps covers the depth-4 trees generated here.
const RANDOM_ULPS: f64 = 256.0;

fn env_at(pool: &Pool, vars: &[ExprId; 3], point: [f64; 3]) -> mbsim_codegen::Env {
    let mut env = mbsim_codegen::Env::new();
    for (v, x) in vars.iter().zip(point) {
        env.set(pool, *v, x);
    }
    env
}

/// Fixed seed (reproducible runs), no regression files. About 70 % of the (expression,
/// variable) pairs drawn have an identically zero or piecewise-constant derivative (the
/// variable is absent, or sits only inside comparisons), hence the generous case count; the
/// whole file still runs in about a second.
fn config() -> Config {
    Config {
        cases: 1024,
        rng_seed: RngSeed::Fixed(0x6469_6666),
        failure_persistence: None,
        ..Config::default()
    }
}

fn point() -> impl Strategy<Value = [f64; 3]> {
    [-2.0..2.0f64, -2.0..2.0f64, -2.0..2.0f64]
}

proptest! {
    #![proptest_config(config())]

    /// ∂e/∂s at a random point against the central difference of e in s (see
    /// `common::central_diff` for the step, the error bound and the kink test).
    #[test]
    fn diff_matches_finite_differences(t in tree(), p in point()) {
        let (mut pool, vars) = pool_xyz();
        let e = build(&mut pool, &vars, &t);
        let env = env_at(&pool, &vars, p);
        let mag = magnitude(&pool, &[e], &env);
        let f = pool.eval(e, &env);
        if !f.is_finite() || mag > MAX_MAGNITUDE {
            return Ok(());
        }
        let noise = RANDOM_ULPS * f64::EPSILON * mag;
        for (i, &x) in vars.iter().enumerate() {
            let d = pool.diff(e, x);
            let got = pool.eval(d, &env);
            let fd = central_diff(|xi| eval_with(&pool, &[e], &env, x, xi)[0], p[i], p[i].abs().max(1.0), noise);
            if !fd.smooth {
                continue;
            }
            let tol = fd.tol + RANDOM_ULPS * f64::EPSILON * magnitude(&pool, &[d], &env);
            let ctx = format!("d/d{} {} at {p:?}", ["x", "y", "z"][i], pool.to_sexpr(e));
            assert_entry(&ctx, format!("∂{i}"), got, fd.value, tol);
        }
    }

    /// D e along (x ↦ 2y, y ↦ −1/3, z ↦ cos x) against Σ_s ∂e/∂s · rate(s), both evaluated.
    /// The two graphs differ, so each side carries its own evaluation error:
    /// RANDOM_ULPS · ε · (largest intermediate of the directional graph + Σ_s that of ∂e/∂s
    /// times |rate(s)|).
    #[test]
    fn directional_is_sum_of_partials(t in tree(), p in point()) {
        let (mut pool, vars) = pool_xyz();
        let e = build(&mut pool, &vars, &t);
        let rates = [pool.parse("(* 2 y)").unwrap(), pool.rational(-1, 3), pool.parse("(cos x)").unwrap()];
        let pairs: Vec<(ExprId, ExprId)> = vars.iter().copied().zip(rates).collect();
        let dir = pool.direction(&pairs);
        let de = pool.directional(e, dir);
        let env = env_at(&pool, &vars, p);
        if magnitude(&pool, &[e], &env) > MAX_MAGNITUDE {
            return Ok(());
        }
        let rate_values = pool.eval_many(&rates, &env);
        let (mut want, mut scale) = (0.0, magnitude(&pool, &[de], &env));
        for (&x, r) in vars.iter().zip(&rate_values) {
            let d = pool.diff(e, x);
            want += pool.eval(d, &env) * r;
            scale += magnitude(&pool, &[d], &env) * r.abs();
        }
        let got = pool.eval(de, &env);
        if !want.is_finite() && !got.is_finite() {
            return Ok(());
        }
        let ctx = format!("D {} at {p:?}", pool.to_sexpr(e));
        assert_entry(&ctx, "D", got, want, RANDOM_ULPS * f64::EPSILON * scale);
    }
}

/// (what, f, x, whether the stencil at x is smooth).
type KinkCase = (&'static str, fn(f64) -> f64, f64, bool);

/// The finite-difference helper itself must flag stencils that straddle a kink or a jump
/// (otherwise the property test above would compare against garbage) and accept smooth ones.
#[test]
fn finite_differences_detect_kinks() {
    let h = f64::EPSILON.cbrt();
    let cases: [KinkCase; 6] = [
        ("|x| at its kink", f64::abs, 0.0, false),
        ("|x| a third of a step away", f64::abs, h / 3.0, false),
        (
            "|x| two thirds of a step away",
            f64::abs,
            2.0 * h / 3.0,
            false,
        ),
        (
            "step function near its jump",
            |x| if x > 0.0 { 1.0 } else { 0.0 },
            h / 2.0,
            false,
        ),
        ("|x| far from the kink", f64::abs, 0.5, true),
        ("sin x", f64::sin, 0.3, true),
    ];
    for (what, f, x, smooth) in cases {
        let fd = central_diff(f, x, 1.0, f64::EPSILON);
        assert_eq!(fd.smooth, smooth, "{what}: {fd:?}");
    }
}

proptest! {
    #![proptest_config(Config { cases: 256, ..config() })]

    /// Memoisation: the same derivative twice is the same id and creates no node.
    #[test]
    fn derivatives_are_memoised(t in tree()) {
        let (mut pool, vars) = pool_xyz();
        let e = build(&mut pool, &vars, &t);
        let first: Vec<ExprId> = vars.iter().map(|&x| pool.diff(e, x)).collect();
        let one = pool.one();
        let dir = pool.direction(&[(vars[0], one), (vars[2], vars[1])]);
        let d_first = pool.directional(e, dir);
        let len = pool.len();
        let again: Vec<ExprId> = vars.iter().map(|&x| pool.diff(e, x)).collect();
        prop_assert_eq!(&first, &again);
        prop_assert_eq!(d_first, pool.directional(e, dir));
        prop_assert_eq!(pool.len(), len, "a repeated derivative added nodes");
        prop_assert!(pool.check_invariants());
    }
}
