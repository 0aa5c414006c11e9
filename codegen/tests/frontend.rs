//! The Rust-syntax front end: insta snapshots of the code the macro expands to for small
//! models (a Lagrangian pendulum with a baked constant, a nonholonomic skate, a driven slider
//! with `let`, `if` and `PI`), equivalence of the spellings users write (`x.sin()` and
//! `sin(x)`, `powf`/`sqrt`), and error messages as values (with their "did you mean" and their
//! expressions in the user's Rust-like syntax).

use mbsim_codegen::frontend::{self, file};
use proc_macro2::TokenStream;
use quote::quote;

fn expanded(attr: TokenStream, item: TokenStream) -> String {
    file::pretty(frontend::expand(attr, item).expect("the model expands"))
}

fn error(attr: TokenStream, item: TokenStream) -> String {
    frontend::expand(attr, item)
        .expect_err("the model is rejected")
        .to_string()
}

/// θ-pendulum from its Lagrangian; `g` baked, so it is a literal in the code, not a field.
#[test]
fn snapshot_lagrangian_pendulum() {
    insta::assert_snapshot!(expanded(
        quote!(
            coordinates: [theta],
            const g = 9.81,
            kinetic: m * l.powi(2) / 2.0 * theta_dot.powi(2),
            potential: -m * g * l * theta.cos(),
            force: [-c * theta_dot],
        ),
        quote!(
            pub struct AnglePendulum {
                pub m: f64,
                pub l: f64,
                pub c: f64,
            }
        ),
    ));
}

/// A knife edge (Chaplygin sleigh without mass offset): one nonholonomic row.
#[test]
fn snapshot_nonholonomic_skate() {
    insta::assert_snapshot!(expanded(
        quote!(
            coordinates: [x, y, phi],
            nonholonomic: [x_dot * phi.sin() - y_dot * phi.cos()],
            mass: diag(m, m, j),
            force: [0.0, 0.0, torque],
        ),
        quote!(
            pub struct Skate {
                pub m: f64,
                pub j: f64,
                pub torque: f64,
            }
        ),
    ));
}

/// A slider driven along a prescribed path, with `let`, `if … else`, `max` and `PI`.
#[test]
fn snapshot_driven_slider() {
    insta::assert_snapshot!(expanded(
        quote!(
            coordinates: [s, u],
            let phase = omega * t + PI / 4.0,
            let contact = (gap - s).max(0.0),
            holonomic: [u - a * phase.sin()],
            mass: [[m, 0.0], [0.0, m]],
            force: [if s > gap { -k * contact } else { 0.0 }, 0.0],
        ),
        quote!(
            pub struct Slider {
                pub m: f64,
                pub a: f64,
                pub omega: f64,
                pub k: f64,
                pub gap: f64,
            }
        ),
    ));
}

/// Method and function spellings lower to the same canonical expressions.
#[test]
fn spellings_are_equivalent() {
    let item = quote!(
        struct P {
            a: f64,
        }
    );
    let methods = quote!(coordinates: [x, y], mass: diag(1.0, 1.0),
        force: [x.sin() * y.atan2(x) + x.powf(0.5) + x.max(y), (x * a).exp().ln() + x.abs() + x.hypot(y)]);
    let functions = quote!(coordinates: [x, y], mass: diag(1.0, 1.0),
        force: [sin(x) * atan2(y, x) + sqrt(x) + max(x, y), ln(exp(x * a)) + abs(x) + f64::sqrt(x.powi(2) + y.powi(2))]);
    let (m1, m2) = (
        frontend::model(methods, item.clone()).unwrap(),
        frontend::model(functions, item).unwrap(),
    );
    for i in 0..2 {
        assert_eq!(m1.pool.to_sexpr(m1.force[i]), m2.pool.to_sexpr(m2.force[i]));
    }
}

#[test]
fn baked_constants_fold() {
    let model = frontend::model(
        quote!(coordinates: [x], const g = 9.81, const two_g = 2.0 * g, mass: diag(1.0), force: [two_g * x]),
        quote!(struct P {}),
    )
    .unwrap();
    assert!(model.parameters.is_empty());
    assert_eq!(model.pool.to_sexpr(model.force[0]), "(* 19.62 x)");
}

#[test]
fn error_messages() {
    let item = quote!(
        struct P {
            m: f64,
        }
    );
    let cases: Vec<(TokenStream, &str)> = vec![
        (
            quote!(mass: diag(m)),
            "the model needs `coordinates: [q1, q2, …]`",
        ),
        (
            quote!(coordinates: [x], holonomic: [x], force: [0.0]),
            "the model needs `mass: …` (and `force`)",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), kinetic: m * x_dot.powi(2)),
            "give either `mass`",
        ),
        (
            quote!(coordinates: [x], let x = 1.0, mass: diag(m)),
            "`x` is already a coordinate",
        ),
        (
            quote!(coordinates: [x, m], mass: diag(m, m)),
            "the name `m` is declared twice",
        ),
        (
            quote!(coordinates: [x], const c = m * 2.0, mass: diag(m)),
            "a baked parameter must be a constant",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [x.powi(m)]),
            "the exponent of `powi` must be a constant integer",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [if x > 0.0 { 1.0 }]),
            "an `if` needs an `else` branch",
        ),
        (
            // Indexing names a member of a family (`families.rs`); `x` is not one.
            quote!(coordinates: [x], mass: diag(m), force: [x[0]]),
            "`x` is not an indexed family; write it without `[…]`",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [x / 0.0]),
            "division by zero in force[0]",
        ),
        (
            quote!(coordinates: [x], kinetic: m * x_dot.powi(2), potential: x_dot),
            "the potential energy depends on the velocity `x_dot`",
        ),
        (
            quote!(coordinates: [x] mass: diag(m)),
            "expected `,` or `;` between entries",
        ),
        (
            quote!(coordinates: [x], mass: diag(mm)),
            "unknown identifier `mm`; did you mean `m`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [-m * x_dto]),
            "unknown identifier `x_dto`; did you mean `x_dot`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [pi * x]),
            "unknown identifier `pi`; did you mean `PI`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [zzz]),
            "unknown identifier `zzz` (known here: m, t, x, x_dot, PI, TAU, E)",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [x.son()]),
            "unsupported function `son`; did you mean `sin`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [atna2(x, 1.0)]),
            "unsupported function `atna2`; did you mean `atan2`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [x.log()]),
            "unsupported function `log`; did you mean `ln` (the natural logarithm)?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [x.pow(2)]),
            "unsupported function `pow`; did you mean `powi`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [arcsin(x)]),
            "unsupported function `arcsin`; did you mean `asin`?",
        ),
        (
            quote!(coordinates: [x], mass: diag(m), force: [-x ^ 2]),
            "`^` is exclusive or in Rust, not a power: write `x.powi(2)`",
        ),
        (
            quote!(coordinates: [x], mas: diag(m)),
            "unknown key `mas`; did you mean `mass`?",
        ),
        (
            quote!(coordinates: [x], kinetic: m * x_dot.powi(4) / 12.0),
            "∂²T/∂x_dot∂x_dot (mass-matrix entry) is `m * x_dot.powi(2)`, which still depends on `x_dot`",
        ),
        (
            quote!(coordinates: [x, y], mass: [[m, x / 3.0], [y.sqrt(), m]]),
            "entry [0][1] is `x / 3.0` but entry [1][0] is `y.sqrt()`",
        ),
        (
            quote!(coordinates: [x, y], mass: diag(m, m), nonholonomic: [x_dot * y_dot - x]),
            "its coefficient of `x_dot` is `y_dot`, which still depends on v",
        ),
    ];
    for (attr, expected) in cases {
        let msg = error(attr.clone(), item.clone());
        assert!(
            msg.contains(expected),
            "for `{attr}`: got `{msg}`, expected it to contain `{expected}`"
        );
    }
    let generic = error(
        quote!(coordinates: [x], mass: diag(1.0)),
        quote!(
            struct P<T> {
                t: T,
            }
        ),
    );
    assert!(generic.contains("cannot be generic"), "{generic}");
}

#[test]
fn generated_file_names_are_snake_case() {
    let names: Vec<String> = [
        "Pendulum",
        "TwoLink",
        "RollingDisc",
        "NLinkPendulum60",
        "HTTPServer",
    ]
    .map(file::file_name)
    .to_vec();
    assert_eq!(
        names,
        [
            "pendulum.rs",
            "two_link.rs",
            "rolling_disc.rs",
            "n_link_pendulum60.rs",
            "http_server.rs"
        ]
    );
}
