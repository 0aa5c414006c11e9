//! Indexed families of the model language (`coordinates: [theta[0..=N]]`, `let x[i in …]`,
//! `for` rows, `sum(for …)`, array parameters `m: [f64; K]`): a model written with loops must
//! give exactly the kernels of the same model written out member by member (the unrolled text
//! is produced here by string formatting, independently of the front end's unrolling), the
//! names and parameter accessors must follow the families, and mistakes inside loops must be
//! reported on the offending tokens with the iteration they happen in.

mod common;

use common::{Rng, State, assert_entry};
use mbsim_codegen::frontend::{self, file};
use mbsim_codegen::kernels::derive;
use mbsim_kernel_table::KERNELS;
use proc_macro2::TokenStream;
use quote::quote;

/// The relative-angle four-bar chain of `models/src/four_bar_chain.rs` with N windows, written
/// with loops (as that file does), Lagrangian form.
fn chain_with_loops() -> TokenStream {
    quote!(
        const N = 3,
        coordinates: [theta[0..=N]],
        let tip_x[i in 0..=N] = i * len + len * theta[i].cos(),
        let tip_y[i in 0..=N] = len * theta[i].sin(),
        let tip_vx[i in 0..=N] = -len * theta[i].sin() * theta_dot[i],
        let tip_vy[i in 0..=N] = len * theta[i].cos() * theta_dot[i],
        holonomic: [for i in 0..N {
            coupler = (tip_x[i + 1] - tip_x[i]).powi(2) + (tip_y[i + 1] - tip_y[i]).powi(2) - len.powi(2)
        }],
        kinetic: sum(for i in 0..=N { mc[i] * len.powi(2) / 6.0 * theta_dot[i].powi(2) })
            + sum(for i in 0..N {
                mr[i] / 6.0 * (tip_vx[i].powi(2) + tip_vy[i].powi(2)
                    + tip_vx[i] * tip_vx[i + 1] + tip_vy[i] * tip_vy[i + 1]
                    + tip_vx[i + 1].powi(2) + tip_vy[i + 1].powi(2))
            }),
        potential: sum(for i in 0..=N { mc[i] * g * len / 2.0 * theta[i].sin() })
            + sum(for i in 0..N { mr[i] * g * (tip_y[i] + tip_y[i + 1]) / 2.0 }),
    )
}

fn chain_struct() -> TokenStream {
    quote!(
        pub struct Chain {
            pub len: f64,
            pub g: f64,
            pub mc: [f64; 4],
            pub mr: [f64; 3],
        }
    )
}

/// The same model written out by hand for N = 3 (string formatting, no loops): coordinates
/// `a0…a3`, parameters `mc0…`, `mr0…` as plain fields in the same order.
fn chain_unrolled() -> (TokenStream, TokenStream) {
    let n = 3;
    let tip_x = |i: usize| format!("({i} * len + len * a{i}.cos())");
    let tip_y = |i: usize| format!("(len * a{i}.sin())");
    let tip_vx = |i: usize| format!("(-len * a{i}.sin() * a{i}_dot)");
    let tip_vy = |i: usize| format!("(len * a{i}.cos() * a{i}_dot)");
    let coords: Vec<String> = (0..=n).map(|i| format!("a{i}")).collect();
    let rows: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "coupler_{i} = ({} - {}).powi(2) + ({} - {}).powi(2) - len.powi(2)",
                tip_x(i + 1),
                tip_x(i),
                tip_y(i + 1),
                tip_y(i)
            )
        })
        .collect();
    let crank_t: Vec<String> = (0..=n)
        .map(|i| format!("mc{i} * len.powi(2) / 6.0 * a{i}_dot.powi(2)"))
        .collect();
    let rod_t: Vec<String> = (0..n)
        .map(|i| {
            let j = i + 1;
            format!(
                "mr{i} / 6.0 * ({}.powi(2) + {}.powi(2) + {} * {} + {} * {} + {}.powi(2) + {}.powi(2))",
                tip_vx(i),
                tip_vy(i),
                tip_vx(i),
                tip_vx(j),
                tip_vy(i),
                tip_vy(j),
                tip_vx(j),
                tip_vy(j)
            )
        })
        .collect();
    let crank_v: Vec<String> = (0..=n)
        .map(|i| format!("mc{i} * g * len / 2.0 * a{i}.sin()"))
        .collect();
    let rod_v: Vec<String> = (0..n)
        .map(|i| format!("mr{i} * g * ({} + {}) / 2.0", tip_y(i), tip_y(i + 1)))
        .collect();
    let attr = format!(
        "coordinates: [{}], holonomic: [{}], kinetic: ({}) + ({}), potential: ({}) + ({})",
        coords.join(", "),
        rows.join(", "),
        crank_t.join(" + "),
        rod_t.join(" + "),
        crank_v.join(" + "),
        rod_v.join(" + ")
    );
    let fields: Vec<String> = ["len", "g"]
        .into_iter()
        .map(String::from)
        .chain((0..=n).map(|i| format!("mc{i}")))
        .chain((0..n).map(|i| format!("mr{i}")))
        .map(|f| format!("pub {f}: f64"))
        .collect();
    let item = format!("pub struct Unrolled {{ {} }}", fields.join(", "));
    (
        attr.parse().expect("attribute tokens"),
        item.parse().expect("struct tokens"),
    )
}

/// Every kernel of the looped and the unrolled chain at random states. The two build the same
/// expressions, but a flattened sum's terms are ordered by node id, and ids follow the order of
/// construction (the loops bind `let` families first, the unrolled text builds each tip where
/// it is used): the values may differ by the rounding of a reordered sum, a few ulps of its
/// largest term. Terms are O(10) here, so 1e-13 · (1 + |w|) bounds that and is ten orders
/// below any missing or wrong term.
#[test]
fn loops_give_the_kernels_of_the_unrolled_model() {
    let mut looped = frontend::model(chain_with_loops(), chain_struct()).expect("looped model");
    let (attr, item) = chain_unrolled();
    let mut unrolled = frontend::model(attr, item).expect("unrolled model");
    assert_eq!(looped.n(), 4);
    assert_eq!(looped.holonomic.len(), 3);
    assert_eq!(looped.parameters.len(), unrolled.parameters.len());
    let (kl, ku) = (derive(&mut looped), derive(&mut unrolled));
    let mut rng = Rng::new(13);
    for _ in 0..5 {
        let state = State {
            t: rng.unit(),
            q: rng.vec(4, -3.0, 3.0),
            v: rng.vec(4, -1.0, 1.0),
            p: rng.vec(looped.parameters.len(), 0.5, 2.0),
        };
        let (el, eu) = (state.env(&looped), state.env(&unrolled));
        let mut compared = 0;
        for spec in KERNELS {
            let (Some(a), Some(b)) = (kl.entries(spec.id), ku.entries(spec.id)) else {
                continue;
            };
            let (va, vb) = (
                looped.pool.eval_many(a, &el),
                unrolled.pool.eval_many(b, &eu),
            );
            assert_eq!(va.len(), vb.len(), "{}: shapes", spec.name);
            for (i, (x, y)) in va.iter().zip(&vb).enumerate() {
                assert_entry(spec.name, i, *x, *y, 1e-13 * (1.0 + y.abs()));
            }
            compared += 1;
        }
        assert!(compared >= 9, "core kernels and energies compared");
    }
}

/// Names follow the families: coordinates `theta[i]`, velocities `theta_dot[i]`, array
/// parameters `mc[i]` read from the struct's array, labels `coupler[i]`.
#[test]
fn names_and_parameters_follow_the_families() {
    let model = frontend::model(chain_with_loops(), chain_struct()).expect("model");
    let names: Vec<&str> = model.coordinates.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["theta[0]", "theta[1]", "theta[2]", "theta[3]"]);
    let params: Vec<&str> = model.parameters.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        params,
        [
            "len", "g", "mc[0]", "mc[1]", "mc[2]", "mc[3]", "mr[0]", "mr[1]", "mr[2]"
        ]
    );
    assert_eq!(
        model.constraint_names(),
        ["coupler[0]", "coupler[1]", "coupler[2]"]
    );
    let code = file::pretty(frontend::expand(chain_with_loops(), chain_struct()).expect("expands"));
    assert!(
        code.contains("self.mc[3]"),
        "array parameters read as elements"
    );
    assert!(
        code.contains("\"mr[1]\" => Some(self.mr[1])"),
        "parameter accessor"
    );
    assert!(code.contains("\"theta[2]\""), "coordinate names");
}

fn error(attr: TokenStream, item: TokenStream) -> syn::Error {
    frontend::model(attr, item).expect_err("the model is rejected")
}

/// Mistakes inside families are located on their tokens and name the iteration.
#[test]
fn errors_inside_families_are_located() {
    let item = quote!(
        struct P {
            m: [f64; 2],
        }
    );
    // (model, message); the spans are checked by the macro's UI tests (`err_family_*`).
    let cases: Vec<(TokenStream, &str)> = vec![
        (
            quote!(coordinates: [x[0..3]], mass: diag(for i in 0..3 { 1.0 }),
                holonomic: [for i in 0..2 { x[i + 2] - 1.0 }]),
            "index 3 is out of range: `x` has indices 0..=2",
        ),
        (
            quote!(coordinates: [x[0..3]], mass: diag(for i in 0..3 { m[i] })),
            "index 2 is out of range: `m` has indices 0..=1",
        ),
        (
            quote!(coordinates: [x[0..2]], mass: diag(1.0, 1.0),
                holonomic: [for i in 0..2 { x[i] * x_dot[i] }]),
            "the velocity `x_dot[0]` appears in a holonomic constraint",
        ),
        (
            quote!(coordinates: [x[0..2]], mass: diag(1.0, 1.0), force: [x[0], x[1].sin() + x[1 + x[0]]]),
            "an index must be an integer known at generation time",
        ),
        (
            quote!(coordinates: [x[0..2]], mass: diag(1.0, 1.0), force: [y[0], 0.0]),
            "unknown identifier `y`",
        ),
        (
            quote!(coordinates: [x, y], mass: diag(1.0, 1.0), force: [x[0], 0.0]),
            "`x` is not an indexed family",
        ),
        (
            quote!(coordinates: [x[0..n]], mass: diag(1.0)),
            "unknown identifier `n`",
        ),
        (
            quote!(coordinates: [x[0..2]], mass: diag(1.0, 1.0), force: [if x[0] == 0.0 { 1.0 } else { 0.0 }, 0.0]),
            "`==` and `!=` compare generation-time values only",
        ),
    ];
    for (attr, want) in cases {
        let msg = error(attr, item.clone()).to_string();
        assert!(msg.contains(want), "got `{msg}`, want `{want}`");
    }
    // The iteration a row failed in is named.
    let e = error(
        quote!(coordinates: [x[0..2]], mass: diag(1.0, 1.0),
            holonomic: [for i in 0..2 { x[i] * x_dot[i] }]),
        item.clone(),
    );
    assert!(e.to_string().ends_with("(for i = 0)"), "{e}");
}

/// Nested loops, bounds from outer indices, explicit labels, `if` on indices and `let`
/// families defined recursively.
#[test]
fn nested_loops_and_recursive_families() {
    let model = frontend::model(
        quote!(
            const K = 3,
            coordinates: [x[1..=K]],
            let s[i in 0..=K] = if i == 0 { 0.0 } else { s[i - 1] + x[i] },
            mass: diag(for i in 1..=K { 1.0 }),
            holonomic: [for i in 1..K { for j in 0..i { [pair = x[i] - x[j + 1], tot[i * 10 + j] = s[K] - 1.0] } }],
        ),
        quote!(
            struct S {}
        ),
    )
    .expect("model");
    assert_eq!(
        model.constraint_names(),
        [
            "pair[1][0]",
            "tot[10]",
            "pair[2][0]",
            "tot[20]",
            "pair[2][1]",
            "tot[21]"
        ]
    );
}
