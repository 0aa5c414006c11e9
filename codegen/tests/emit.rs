//! Emission: insta snapshots of the code generated for small fixtures (normalised by
//! prettyplease inside `emit_source`), byte-identical output across independent runs, and the
//! operation counts the CSE schedule reaches.

use mbsim_codegen::{Model, cse::Schedule, emit, fixtures, kernels};

fn source(mut model: Model) -> String {
    let kernels = kernels::derive(&mut model);
    emit::emit_source(
        &model,
        &kernels,
        &emit::EmitOptions {
            with_struct: true,
            ..Default::default()
        },
    )
}

#[test]
fn snapshot_cartesian_pendulum() {
    insta::assert_snapshot!(source(fixtures::cartesian_pendulum()));
}

#[test]
fn snapshot_closed_chain_3() {
    insta::assert_snapshot!(source(fixtures::closed_chain(3)));
}

#[test]
fn snapshot_node_zoo() {
    insta::assert_snapshot!(source(fixtures::node_zoo()));
}

/// The kernels' statements are built as syntax trees, not parsed: they must be exactly the trees
/// syn parses from the same tokens (operator chains left-associative, a leading `-` on the
/// leftmost factor), or prettyplease would print another text than the tokens' (parentheses
/// moved, `-(a * b)` for `-a * b`). Every node kind, a structured model, and split kernels.
#[test]
fn emitted_trees_are_what_syn_parses_from_their_tokens() {
    use quote::ToTokens;
    let split = emit::EmitOptions {
        max_statements_per_fn: 8,
        ..Default::default()
    };
    type Case<'a> = (&'a str, fn() -> Model, &'a emit::EmitOptions);
    let cases: [Case<'_>; 6] = [
        (
            "node zoo",
            fixtures::node_zoo,
            &emit::EmitOptions::default(),
        ),
        ("andrews", fixtures::andrews, &emit::EmitOptions::default()),
        (
            "rheonomic",
            fixtures::rheonomic,
            &emit::EmitOptions::default(),
        ),
        (
            "bodies n = 12",
            || fixtures::n_link_pendulum_bodies(12),
            &emit::EmitOptions::default(),
        ),
        ("node zoo, split", fixtures::node_zoo, &split),
        ("chain n = 4, split", || fixtures::closed_chain(4), &split),
    ];
    for (label, build, options) in cases {
        let mut model = build();
        let kernels = kernels::derive(&mut model);
        let tree = emit::emit_file(&model, &kernels, options);
        let reparsed: syn::File = syn::parse2(tree.to_token_stream()).expect("tokens parse");
        if reparsed != tree {
            let (built, parsed) = (
                prettyplease::unparse(&tree),
                prettyplease::unparse(&reparsed),
            );
            let first = built.lines().zip(parsed.lines()).position(|(a, b)| a != b);
            panic!(
                "{label}: the built tree differs from the parsed one (first text difference at line {first:?})\nbuilt:\n{built}\nparsed:\n{parsed}"
            );
        }
    }
}

#[test]
fn emission_is_byte_identical_across_runs() {
    for build in [
        fixtures::andrews as fn() -> Model,
        || fixtures::closed_chain(20),
        fixtures::node_zoo,
    ] {
        let (a, b) = (source(build()), source(build()));
        assert!(a == b, "two emissions of the same model differ");
    }
}

/// Operation counts after CSE for the chain's Φ_q: the nested-sum reuse makes each column one
/// addition more than the next, so the count grows linearly in n (8 per link here).
#[test]
fn chain_jacobian_operation_count_is_linear() {
    let count = |n: usize| {
        let mut model = fixtures::closed_chain(n);
        let k = kernels::derive(&mut model);
        Schedule::new(&model.pool, &k.phi_q.entries).op_count(&model.pool)
    };
    let (c20, c40) = (count(20), count(40));
    insta::assert_snapshot!(format!("n=20: {c20}, n=40: {c40}"), @"n=20: 157, n=40: 317");
    assert!(
        c40 <= 2 * c20 + 10,
        "Φ_q op count not linear: {c20} → {c40}"
    );
}

/// A parameter named after a keyword reserved in edition 2024 (`gen`) is emitted as a raw
/// identifier, so the generated struct and kernels compile.
#[test]
fn reserved_names_become_raw_identifiers() {
    let mut b = mbsim_codegen::ModelBuilder::new("Reserved");
    let (x, _) = b.coordinate("x");
    let g = b.parameter("gen");
    let pool = b.pool();
    let phi = pool.sub(x, g);
    let one = pool.one();
    let zero = pool.zero();
    b.holonomic(&[phi]).mass_diagonal(&[one]).force(&[zero]);
    let text = source(b.build().expect("valid model"));
    assert!(
        text.contains("pub r#gen: f64") && text.contains("self.r#gen"),
        "{text}"
    );
}

/// A chain of `links` particles in Cartesian coordinates (x, y of each, a rod to the previous
/// one): n = 2·links, m = links, M diagonal, two to four nonzeros per row of Φ_q.
fn particle_chain(links: usize) -> Model {
    let text = format!(
        "#[model(
            const N = {links},
            coordinates: [x[0..N], y[0..N]],
            holonomic: [
                first = x[0].powi(2) + y[0].powi(2) - len.powi(2),
                for i in 0..N - 1 {{
                    link = (x[i + 1] - x[i]).powi(2) + (y[i + 1] - y[i]).powi(2) - len.powi(2)
                }},
            ],
            mass: diag(for i in 0..N {{ m }}, for i in 0..N {{ m }}),
            force: [for i in 0..N {{ 0.0 }}, for i in 0..N {{ -m * g }}],
        )]
        struct ParticleChain {{ len: f64, m: f64, g: f64 }}"
    );
    let found = mbsim_codegen::frontend::file::models_in_source(&text)
        .unwrap_or_else(|e| panic!("the chain parses: {e}"));
    found[0]
        .build()
        .unwrap_or_else(|e| panic!("the chain is a valid model: {e}"))
}

/// The sparse kernel forms: emitted from KKT order 40 on (14 links: n + m = 42; 13 links: 39)
/// for a sparse model, deterministic, and written without a zero fill of M or G; the dense
/// forms of M and G then scatter them instead of repeating their expressions.
#[test]
fn sparse_forms_from_order_40_on() {
    for (links, expected) in [(13, false), (14, true)] {
        let mut model = particle_chain(links);
        let k = kernels::derive(&mut model);
        assert_eq!(emit::nonzero_forms(&model, &k), expected, "{links} links");
        let text = source(particle_chain(links));
        for method in [
            "fn has_nonzero_forms",
            "fn dynamics_nonzeros_into",
            "fn mass_nonzeros_into",
            "fn jacobian_nonzeros_into",
        ] {
            assert_eq!(text.contains(method), expected, "{links} links: {method}");
        }
        assert!(
            text == source(particle_chain(links)),
            "two emissions differ"
        );
        if expected {
            let body = method_body(&text, "fn dynamics_nonzeros_into");
            assert!(body.contains("force.fill(0.0)"), "Q has structural zeros");
            for output in ["mass.fill", "jacobian.fill", "gamma.fill"] {
                assert!(!body.contains(output), "{output} in the sparse form");
            }
        }
        // The dense forms of M and G: their own expressions for a small model, a scatter of the
        // sparse forms' (no temporaries, no entry written by index) for a large one.
        for (dense, sparse) in [
            (
                "fn dynamics_into",
                "self.dynamics_nonzeros_into(t, q, v, nonzeros);",
            ),
            (
                "fn mass_into",
                "self.mass_nonzeros_into(t, q, &mut nonzeros);",
            ),
            (
                "fn phi_q_into",
                "self.jacobian_nonzeros_into(t, q, &mut nonzeros);",
            ),
        ] {
            let body = method_body(&text, dense);
            assert_eq!(body.contains(sparse), expected, "{links} links: {dense}");
            let computes = body.contains("let x0 =") || body.contains("[(0, 0)] =");
            assert_eq!(computes, !expected, "{links} links: {dense} computes");
        }
    }
}

/// The text of the emitted method that starts with `signature`, up to its closing brace.
fn method_body<'t>(text: &'t str, signature: &str) -> &'t str {
    let start = text.find(signature).expect("emitted");
    &text[start..start + text[start..].find("\n    }\n").expect("ends")]
}
