//! The `draw` entry of the model annotation: the emitted `impl Drawing` (names, segments, the
//! positions as code of q and the parameters, a `let` usable) and every mistake as one located
//! error with its message — unknown point in a segment (with "did you mean"), a velocity in a
//! point, a point declared twice, a segment from a point to itself, an unknown field, a
//! position of the wrong arity, 2D and 3D points mixed, `up` on a planar drawing or naming no
//! axis, `at` on something that is not a body or with a point of the wrong dimension. Spatial
//! drawings: the items `at(body, s')` and `up` emit (their positions are checked against the
//! joints they must meet in `cli/tests/drawings.rs`).

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
            quote!({ points: [O = (0.0, 0.0, 1.0, 2.0)] }),
            "a point's position is `(x, y)`, `(x, y, z)` or `at(body, [sx, sy, sz])`",
        ),
        (
            quote!({ points: [O = (0.0, 0.0), A = (a, 0.0, 1.0)] }),
            "the drawing's points are 2D (from `O` on), but `A` is 3D",
        ),
        (
            quote!({ up: y, points: [O = (0.0, 0.0)] }),
            "`up` is for spatial drawings",
        ),
        (
            quote!({ up: w, points: [O = (0.0, 0.0, 0.0)] }),
            "`up` is the vertical axis of a spatial drawing: x, y or z",
        ),
        (
            quote!({ points: [O = at(wheel, [0.0, 0.0, 0.0])] }),
            "`wheel` is not a body of this model's `bodies` entry",
        ),
        (
            quote!({ points: [O = at(wheel)] }),
            "`at` takes a body and a body-frame point",
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

/// A drawing with `at(body, s')` on an Euler-parameter body is spatial (`dimension() = 3`,
/// `up() = 1` for `up: y`, three entries per point); one on a planar body stays planar (no
/// `dimension` override, so planar models' expansions are unchanged); a 3D point on a planar
/// body is refused.
#[test]
fn body_points_are_emitted_for_spatial_and_planar_bodies() {
    let spatial = expanded(quote!(
        bodies: [rod = body(2.0, [1.0, 1.0, 0.5])],
        joints: [pin = spherical(rod, [0.0, 0.0, l], ground, [0.0, 0.0, 0.0])],
        draw: { up: y, points: [O = (0.0, 0.0, 0.0), E = at(rod, [0.0, 0.0, -l])], segments: [(O, E)] },
    ));
    assert!(
        spatial.contains("fn dimension(&self) -> usize {\n        3"),
        "{spatial}"
    );
    assert!(
        spatial.contains("fn up(&self) -> usize {\n        1"),
        "{spatial}"
    );
    assert!(
        spatial.contains("out must have 3 entries per point"),
        "{spatial}"
    );
    let planar = expanded(quote!(
        bodies: [crank = body(1.0, 0.1)],
        joints: [pin = revolute(crank, [-l, 0.0], ground, [0.0, 0.0])],
        draw: { points: [O = (0.0, 0.0), T = at(crank, [l, 0.0])], segments: [(O, T)] },
    ));
    assert!(!planar.contains("fn dimension"), "{planar}");
    let error = error(quote!(
        bodies: [crank = body(1.0, 0.1)],
        draw: { points: [T = at(crank, [l, 0.0, 0.0])] },
    ));
    assert!(
        error.contains("`crank` is a planar body: its points have 2 coordinates, not 3"),
        "{error}"
    );
}
