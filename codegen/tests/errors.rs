//! Bad model input gives an error value, never a panic: one line per kind of mistake (unknown
//! symbol or function, wrong arity, malformed text, shapes, non-finite constants, velocities
//! where only positions may appear, nonlinear nonholonomic rows, asymmetric mass matrix,
//! duplicate names), each asserting the `ModelError` variant and that its message names the
//! offending expression or name.

use mbsim_codegen::{ExprId, Model, ModelBuilder, ModelError, SymbolKind};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A model as text, edited by each case: by default a point on a circle of radius `len`.
struct Parts {
    coordinates: Vec<&'static str>,
    parameters: Vec<&'static str>,
    /// Symbols declared directly in the pool with `SymbolKind::Free` (no model meaning).
    free: Vec<&'static str>,
    holonomic: Vec<&'static str>,
    nonholonomic: Vec<&'static str>,
    mass: Vec<Vec<&'static str>>,
    force: Vec<&'static str>,
    /// A value passed through `ModelBuilder::constant` (added as an extra force term).
    constant: Option<f64>,
}

impl Default for Parts {
    fn default() -> Parts {
        Parts {
            coordinates: vec!["x", "y"],
            parameters: vec!["len"],
            free: vec![],
            holonomic: vec!["(- (+ (^ x 2) (^ y 2)) (^ len 2))"],
            nonholonomic: vec![],
            mass: vec![vec!["1", "0"], vec!["0", "1"]],
            force: vec!["0", "-1"],
            constant: None,
        }
    }
}

fn build(p: &Parts) -> Result<Model, ModelError> {
    let mut b = ModelBuilder::new("Case");
    for name in &p.coordinates {
        b.coordinate(name);
    }
    for name in &p.parameters {
        b.parameter(name);
    }
    for name in &p.free {
        b.pool().symbol(name, SymbolKind::Free);
    }
    let mut parse_all = |rows: &[&str], what: &str| -> Vec<ExprId> {
        rows.iter()
            .enumerate()
            .map(|(i, text)| b.parse(text, &format!("{what}[{i}]")))
            .collect()
    };
    let holonomic = parse_all(&p.holonomic, "holonomic");
    let nonholonomic = parse_all(&p.nonholonomic, "nonholonomic");
    let mut force = parse_all(&p.force, "force");
    let mass: Vec<Vec<ExprId>> = p
        .mass
        .iter()
        .enumerate()
        .map(|(i, row)| parse_all(row, &format!("mass[{i}]")))
        .collect();
    if let Some(value) = p.constant {
        let c = b.constant(value, "force[0] constant");
        force[0] = b.pool().add2(force[0], c);
    }
    b.holonomic(&holonomic)
        .nonholonomic(&nonholonomic)
        .mass(mass)
        .force(&force);
    b.build()
}

/// Apply `edit` to the default parts and require `build` to return (not panic with) an error
/// whose variant path is `variant` (`Outer` or `Outer/InnerParseError`) and whose message
/// contains every string of `needles`. Messages quote expressions in canonical form (operands
/// sorted by id: coordinates and velocities are declared before parameters).
fn check(edit: impl FnOnce(&mut Parts), variant: &str, needles: &[&str]) {
    let mut parts = Parts::default();
    edit(&mut parts);
    let result = catch_unwind(AssertUnwindSafe(|| build(&parts)));
    let err = match result {
        Ok(Ok(_)) => panic!("expected a {variant} error, the model built"),
        Ok(Err(err)) => err,
        Err(_) => panic!("building panicked instead of returning a {variant} error"),
    };
    let (debug, message) = (format!("{err:?}"), err.to_string());
    let (outer, inner) = variant
        .split_once('/')
        .map_or((variant, None), |(o, i)| (o, Some(i)));
    assert!(
        debug.starts_with(&format!("{outer} {{")),
        "expected {variant}, got {debug}"
    );
    if let Some(inner) = inner {
        assert!(
            debug.contains(&format!("source: {inner} {{")),
            "expected {variant}, got {debug}"
        );
    }
    for needle in needles {
        assert!(
            message.contains(needle),
            "message of {variant} does not name {needle:?}: {message}"
        );
    }
}

#[test]
fn default_parts_build() {
    build(&Parts::default()).expect("the unedited parts are a valid model");
}

macro_rules! cases {
    ($($name:ident: $edit:expr => $variant:literal, $needles:expr;)*) => {
        $(#[test] fn $name() { check($edit, $variant, &$needles); })*
    };
}

cases! {
    unknown_symbol_parsed: |p| p.holonomic = vec!["(+ x w)"] => "Parse/UnknownSymbol", ["holonomic[0]", "`w`", "(+ x w)"];
    unknown_symbol_free: |p| { p.free = vec!["w"]; p.holonomic = vec!["(+ x w)"] } => "UnknownSymbol", ["holonomic[0]", "`w`", "(+ x w)"];
    unknown_symbol_free_in_force: |p| { p.free = vec!["g"]; p.force = vec!["0", "(- g)"] } => "UnknownSymbol", ["force[1]", "`g`", "(* -1 g)"];
    unknown_function: |p| p.holonomic = vec!["(sech x)"] => "Parse/UnknownFunction", ["`sech`", "(sech x)"];
    arity_unary: |p| p.holonomic = vec!["(sin x y)"] => "Parse/Arity", ["`sin`", "got 2", "(sin x y)"];
    arity_binary: |p| p.holonomic = vec!["(atan2 x)"] => "Parse/Arity", ["`atan2`", "got 1", "(atan2 x)"];
    arity_select: |p| p.holonomic = vec!["(if x y)"] => "Parse/Arity", ["`if`", "(if x y)"];
    arity_minus: |p| p.holonomic = vec!["(- x y len)"] => "Parse/Arity", ["`-`", "got 3"];
    missing_paren: |p| p.holonomic = vec!["(+ x y"] => "Parse/Syntax", ["missing `)`", "(+ x y"];
    trailing_input: |p| p.holonomic = vec!["x y"] => "Parse/Syntax", ["trailing input", "x y"];
    empty_list: |p| p.holonomic = vec!["()"] => "Parse/Syntax", ["()"];
    empty_text: |p| p.holonomic = vec![""] => "Parse/Syntax", ["unexpected end of input"];
    mass_too_few_rows: |p| p.mass = vec![vec!["1", "0"]] => "ShapeMismatch", ["mass matrix", "2×2", "found 1×2"];
    mass_ragged_row: |p| p.mass = vec![vec!["1", "0"], vec!["1"]] => "ShapeMismatch", ["mass matrix", "2×2", "found 2×1"];
    force_too_short: |p| p.force = vec!["0"] => "ShapeMismatch", ["force vector", "2×1", "found 1×1"];
    constant_nan: |p| p.constant = Some(f64::NAN) => "NonFiniteConstant", ["force[0] constant", "NaN"];
    constant_infinite: |p| p.constant = Some(f64::NEG_INFINITY) => "NonFiniteConstant", ["force[0] constant", "-inf"];
    parse_overflow: |p| p.holonomic = vec!["(+ x 1e999)"] => "Parse/NonFinite", ["`1e999`"];
    parse_minus_inf: |p| p.holonomic = vec!["(+ x -inf)"] => "Parse/NonFinite", ["`-inf`"];
    parse_zero_denominator: |p| p.holonomic = vec!["(+ x 1/0)"] => "Parse/NonFinite", ["`1/0`"];
    parse_inf: |p| p.holonomic = vec!["(+ x inf)"] => "Parse/NonFinite", ["`inf`", "(+ x inf)"];
    parse_nan: |p| p.holonomic = vec!["(* nan x)"] => "Parse/NonFinite", ["`nan`"];
    parse_minus_symbol: |p| p.holonomic = vec!["(+ 1 -x)"] => "Parse/Syntax", ["write `(- x)` to negate"];
    invalid_parameter_name: |p| p.parameters = vec!["len", "2k"] => "InvalidName", ["`2k`"];
    velocity_in_holonomic: |p| p.holonomic = vec!["(+ x (* len x_dot))"] => "VelocityDependence", ["holonomic[0]", "`x_dot`", "(+ x (* x_dot len))", "a holonomic constraint"];
    velocity_in_mass: |p| p.mass = vec![vec!["1", "y_dot"], vec!["y_dot", "1"]] => "VelocityDependence", ["mass[0][1]", "`y_dot`", "the mass matrix"];
    not_linear_product: |p| p.nonholonomic = vec!["(* x_dot y_dot)"] => "NotLinearInVelocity", ["nonholonomic[0]", "(* x_dot y_dot)"];
    not_linear_square: |p| p.nonholonomic = vec!["(+ x_dot (^ y_dot 2))"] => "NotLinearInVelocity", ["nonholonomic[0]", "y_dot"];
    not_linear_inside_function: |p| p.nonholonomic = vec!["(sin x_dot)"] => "NotLinearInVelocity", ["(sin x_dot)"];
    not_symmetric: |p| p.mass = vec![vec!["1", "x"], vec!["y", "1"]] => "NotSymmetric", ["[0][1] = `x`", "[1][0] = `y`"];
    duplicate_coordinate: |p| p.coordinates = vec!["x", "y", "x"] => "DuplicateName", ["`x`"];
    duplicate_parameter: |p| p.parameters = vec!["len", "len"] => "DuplicateName", ["`len`"];
    parameter_named_time: |p| p.parameters = vec!["len", "t"] => "DuplicateName", ["`t`"];
    parameter_named_like_velocity: |p| p.parameters = vec!["len", "x_dot"] => "DuplicateName", ["`x_dot`"];
}

/// `(/ x 0)` canonicalises to `(* x (^ 0 -1))` (the non-finite fold is not performed);
/// validation rejects it, naming the expression.
#[test]
fn division_by_zero_is_rejected() {
    check(
        |p| p.holonomic = vec!["(/ x 0)"],
        "DivisionByZero",
        &["holonomic[0]", "(* x (^ 0 -1))"],
    );
}
