//! The `draw` entry of the model annotation: the emitted `impl Drawing` (names, segments, the
//! positions as code of q and the parameters, a `let` usable) and every mistake as one located
//! error with its message — unknown point in a segment (with "did you mean"), a velocity in a
//! point, a point declared twice, a segment from a point to itself, an unknown field, a
//! position that is not a pair.

use mbsim_codegen::frontend::{self, file};
use proc_macro2::TokenStream;
use quote::quote;

fn item() -> TokenStream {
    quote!(
        struct P {
            l: f64,
        }
    )
}

fn expanded(attr: TokenStream) -> String {
    file::pretty(frontend::expand(attr, item()).expect("the model expands"))
}

fn error(attr: TokenStream) -> String {
    frontend::expand(attr, item())
        .expect_err("the model is rejected")
        .to_string()
}

#[test]
fn drawing_is_emitted_with_its_view() {
    let code = expanded(quote!(
        coordinates: [a],
        let tip_x = l * a.sin(),
        mass: diag(1.0),
        force: [0.0],
        draw: { points: [O = (0.0, 0.0), B = (tip_x, -l * a.cos())], segments: [(O, B)] },
    ));
    for needle in [
        "fn as_drawing(&self) -> Option<&dyn ::mbsim::__private::Drawing>",
        "impl ::mbsim::__private::Drawing for P",
        "&[\"O\", \"B\"]",
        "&[(0, 1)]",
        "out[2] = self.l * q[0].sin();",
        "out[3] = -self.l * q[0].cos();",
    ] {
        assert!(code.contains(needle), "missing `{needle}` in\n{code}");
    }
    let plain = expanded(quote!(coordinates: [a], mass: diag(1.0), force: [0.0]));
    assert!(
        !plain.contains("as_drawing"),
        "no drawing, no override:\n{plain}"
    );
}

#[test]
fn drawing_mistakes_are_located_errors() {
    let base =
        |draw: TokenStream| quote!(coordinates: [a], mass: diag(1.0), force: [0.0], draw: #draw);
    let cases: Vec<(TokenStream, &str)> = vec![
        (
            quote!({ points: [O = (0.0, 0.0), Tip = (a, 0.0)], segments: [(O, Tp)] }),
            "unknown point `Tp` in a segment; did you mean `Tip`? (points: O, Tip)",
        ),
        (
            quote!({ points: [O = (a_dot, 0.0)] }),
            "not on the velocity `a_dot`",
        ),
        (
            quote!({ points: [O = (0.0, 0.0), O = (a, 0.0)] }),
            "point `O` is declared twice",
        ),
        (
            quote!({ points: [O = (0.0, 0.0)], segments: [(O, O)] }),
            "not `O` with itself",
        ),
        (
            quote!({ point: [O = (0.0, 0.0)] }),
            "unknown field `point` of `draw`; did you mean `points`?",
        ),
        (
            quote!({ points: [O = (0.0, 0.0, 1.0)] }),
            "a point's position is a pair `(x, y)`",
        ),
        (quote!({ points: [O = (b, 0.0)] }), "unknown identifier `b`"),
    ];
    for (draw, expected) in cases {
        let got = error(base(draw.clone()));
        assert!(
            got.contains(expected),
            "draw: {draw}\nexpected: {expected}\ngot: {got}"
        );
    }
}
