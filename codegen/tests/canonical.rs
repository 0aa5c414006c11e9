//! Canonicalising constructors, one line per rule: parse an s-expression, print it back.

use mbsim_codegen::{Pool, SymbolKind};

/// Parse `input` with free symbols x, y, z declared and compare the canonical print.
fn check(input: &str, expect: &str) {
    let mut pool = Pool::new();
    for name in ["x", "y", "z"] {
        pool.symbol(name, SymbolKind::Free);
    }
    let e = pool
        .parse(input)
        .unwrap_or_else(|err| panic!("{input}: {err}"));
    assert_eq!(pool.to_sexpr(e), expect, "input: {input}");
    assert!(pool.check_invariants());
}

#[test]
fn fold_integers() {
    check("(+ 1 2 3)", "6");
}
#[test]
fn fold_rationals() {
    check("(+ 1/3 1/6)", "1/2");
}
#[test]
fn float_that_is_rational() {
    check("(* 0.5 4)", "2");
}
#[test]
fn add_zero() {
    check("(+ x 0)", "x");
}
#[test]
fn mul_one() {
    check("(* x 1)", "x");
}
#[test]
fn mul_zero() {
    check("(* x 0 (sin y))", "0");
}
#[test]
fn like_terms() {
    check("(+ x x x)", "(* 3 x)");
}
#[test]
fn like_terms_cancel() {
    check("(- (* 2 x y) (* y x 2))", "0");
}
#[test]
fn square() {
    check("(* x x)", "(^ x 2)");
}
#[test]
fn power_collect() {
    check("(* (^ x 2) (^ x 3))", "(^ x 5)");
}
#[test]
fn power_cancel() {
    check("(/ x x)", "1");
}
#[test]
fn flatten_add() {
    check("(+ x (+ y z))", "(+ x y z)");
}
#[test]
fn flatten_mul() {
    check("(* x (* y z))", "(* x y z)");
}
#[test]
fn order_independent() {
    check("(+ z y x)", "(+ x y z)");
}
#[test]
fn distribute_number() {
    check("(* 2 (+ x y))", "(+ (* 2 x) (* 2 y))");
}
#[test]
fn pow_of_pow_integer() {
    check("(^ (^ x 3) 2)", "(^ x 6)");
}
#[test]
fn sqrt_squared() {
    check("(^ (sqrt x) 2)", "x");
}
#[test]
fn square_of_sqrt_not_folded() {
    check("(sqrt (^ x 2))", "(^ (^ x 2) 1/2)");
}
#[test]
fn pow_of_product() {
    check("(^ (* x y) 2)", "(* (^ x 2) (^ y 2))");
}
#[test]
fn exact_root() {
    check("(sqrt 9/4)", "3/2");
}
#[test]
fn irrational_root_stays() {
    check("(sqrt 2)", "(^ 2 1/2)");
}
#[test]
fn division_by_zero_stays() {
    check("(/ 1 0)", "(^ 0 -1)");
}
#[test]
fn sin_zero() {
    check("(sin 0)", "0");
}
#[test]
fn cos_zero() {
    check("(cos 0)", "1");
}
#[test]
fn ln_one() {
    check("(ln 1)", "0");
}
#[test]
fn sin_odd() {
    check("(sin (- x))", "(* -1 (sin x))");
}
#[test]
fn cos_even() {
    check("(cos (* -2 x))", "(cos (* 2 x))");
}
#[test]
fn select_same() {
    check("(if (> x 0) y y)", "y");
}
#[test]
fn select_constant() {
    check("(if (> 1 0) x y)", "x");
}
#[test]
fn max_constants() {
    check("(max 2 3)", "3");
}
#[test]
fn max_same() {
    check("(max x x)", "x");
}
#[test]
fn min_commutes() {
    check("(min y x)", "(min x y)");
}
