//! The helpers of user-facing messages: the Rust-syntax printer (`Pool::to_rust`, through
//! `rust_syntax::sexpr_to_rust`) that quotes expressions the way models are written, and the
//! edit distance behind "did you mean". One line per case.

use mbsim_codegen::frontend::suggest::{closest, distance};
use mbsim_codegen::rust_syntax::sexpr_to_rust;

fn rust(sexpr: &str) -> String {
    sexpr_to_rust(sexpr).unwrap_or_else(|| panic!("{sexpr} does not parse"))
}

macro_rules! cases {
    ($($name:ident: $got:expr => $expect:expr;)*) => {
        $(#[test] fn $name() { assert_eq!($got, $expect); })*
    };
}

cases! {
    coefficient_first: rust("(* 12 m (^ x_dot 2))") => "12.0 * m * x_dot.powi(2)";
    difference: rust("(+ x (* -1 y))") => "x - y";
    leading_minus: rust("(+ (* -1 x) -2)") => "-x - 2.0";
    negation: rust("(* -1 x)") => "-x";
    quotient: rust("(* x (^ y -1))") => "x / y";
    quotient_of_powers: rust("(* x (^ (+ x y) -2))") => "x / (x + y).powi(2)";
    two_denominators: rust("(* x (^ y -1) (^ z -1))") => "x / (y * z)";
    third: rust("(* 1/3 x)") => "x / 3.0";
    two_thirds: rust("(* 2/3 x)") => "2.0 * x / 3.0";
    half_is_exact: rust("(* 1/2 x)") => "0.5 * x";
    float_round_trips: rust("(* 0.1 x)") => "0.1 * x";
    integer_constant: rust("(+ x 2)") => "x + 2.0";
    negative_constant: rust("(+ x -2)") => "x - 2.0";
    square_root: rust("(^ x 1/2)") => "x.sqrt()";
    inverse_square_root: rust("(^ x -1/2)") => "1.0 / x.sqrt()";
    root_in_denominator: rust("(* y (^ x -1/2))") => "y / x.sqrt()";
    general_power: rust("(^ x y)") => "x.powf(y)";
    function_of_sum: rust("(sin (+ x y))") => "(x + y).sin()";
    negated_function: rust("(* -1 (asin x))") => "-x.asin()";
    product_of_sum: rust("(* x (+ y z))") => "x * (y + z)";
    binary_methods: rust("(+ (atan2 y x) (min x y) (max x 1))") => "y.atan2(x) + y.min(x) + x.max(1.0)";
    select: rust("(if (< x y) x (* 2 y))") => "if x < y { x } else { 2.0 * y }";
    comparison_in_sum: rust("(+ x (>= x y))") => "x + (x >= y)";
    power_of_negative_constant: rust("(^ -2 x)") => "(-2.0).powf(x)";
    not_an_expression: sexpr_to_rust("(+ x") => None;
    distance_equal: distance("length", "length") => 0;
    distance_transposition: distance("lenght", "length") => 1;
    distance_insertion: distance("mas", "mass") => 1;
    distance_substitution: distance("cos", "cot") => 1;
    distance_all_different: distance("cos", "sin") => 3;
    distance_empty: distance("", "abc") => 3;
    distance_unicode: distance("θ_dot", "θ_dt") => 1;
    closest_by_case: closest("pi", ["PI", "p"]) => Some("PI");
    closest_first_of_ties: closest("ab", ["ac", "bb"]) => Some("ac");
    closest_none_when_far: closest("zzz", ["x", "y"]) => None;
    closest_not_itself: closest("x", ["x"]) => None;
    closest_long_names_allow_more: closest("stifness_k", ["stiffness_c", "stiffness_k"]) => Some("stiffness_k");
}
