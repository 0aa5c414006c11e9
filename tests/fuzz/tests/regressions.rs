//! Every crash and contract violation the fuzzing campaign found, as a one-line case: the text
//! (built by a short expression where it is large), and a piece of the located error it gives
//! now. `harness::run` checks the contract itself (no panic, every error inside the text);
//! each case also names what it did before the fix in `codegen/src/frontend`.

use mbsim_fuzz::harness::{self, Outcome};

/// A model around `body` (an attribute's entries) with the given struct fields.
fn model(body: &str, fields: &str) -> String {
    format!("#[model(\n    {body}\n)]\npub struct Fuzz {{ {fields} }}\n")
}

fn nested(open: &str, atom: &str, close: &str, depth: usize) -> String {
    format!("{}{atom}{}", open.repeat(depth), close.repeat(depth))
}

/// The case is refused with a located error whose message contains `expect`.
fn refused(text: &str, expect: &str) {
    let verdict = std::thread::Builder::new()
        .stack_size(8 << 20) // what rustc's thread running the proc-macro has
        .spawn({
            let text = text.to_string();
            move || (harness::run(&text, None), harness::explain(&text))
        })
        .expect("a thread")
        .join()
        .expect("no crash");
    assert!(
        matches!(verdict.0, Ok(Outcome::Rejected(_))),
        "{:?}\n{text}",
        verdict.0
    );
    assert!(verdict.1.contains(expect), "{}\nwant: {expect}", verdict.1);
}

macro_rules! cases {
    ($($name:ident: $text:expr => $expect:literal;)*) => {
        $(#[test] fn $name() { refused(&$text, $expect); })*
    };
}

cases! {
    // was an allocation of 8 GB (abort): a huge `sum(for …)` range (seed 1, input 51)
    huge_sum_range: model("coordinates: [x], kinetic: x_dot.powi(2), potential: sum(for i in 0..1000000000 { x })", "") => "the front end unrolls at most 200000";
    // was an allocation of 34 GB (abort): a huge array parameter
    huge_array_parameter: model("coordinates: [x], mass: diag(m[0]), force: [0.0]", "pub m: [f64; 4294967296]") => "runtime parameters";
    // was minutes and gigabytes (3 000 coordinates; seed 1, input 515)
    too_many_coordinates: model("coordinates: [th[0..3000]], kinetic: sum(for i in 0..3000 { th_dot[i].powi(2) }), potential: 0.0", "") => "at most 2000";
    // was nested loops multiplying past any budget
    nested_loops_multiply: model("coordinates: [x], mass: diag(1.0), force: [sum(for i in 0..1000 { sum(for j in 0..1000 { x }) })]", "") => "would unroll";
    // was a stack overflow in syn's expression parser (seed 1, input 115)
    deep_parentheses: model(&format!("coordinates: [x], mass: diag(1.0), force: [{}]", nested("(", "x", ")", 4096)), "") => "nested more than 256 levels";
    // was a stack overflow in syn (arrays)
    deep_brackets: model(&format!("coordinates: [x], mass: diag(1.0), force: [{}]", nested("[", "x", "]", 4096)), "") => "nested more than 256 levels";
    // was a stack overflow in the emitter (emit_expr: node → receiver)
    deep_method_chain: model(&format!("coordinates: [x], mass: diag(1.0), force: [x{}]", ".sin()".repeat(4096)), "") => "expressions nested more than 256";
    // deep nesting in the struct, parsed by syn::parse_file of the whole text
    deep_struct_type: format!("#[model(coordinates: [x], mass: diag(1.0), force: [0.0])]\npub struct F {{ a: {} }}", nested("(", "f64", ")", 4096)) => "nested more than 256 levels";
    // was unlocated (`ModelBuilder`'s check has no span): a non-ASCII coordinate
    unicode_coordinate: model("coordinates: [ñu], mass: diag(1.0), force: [0.0]", "") => "`ñu` cannot name a coordinate";
    // was unlocated: a non-ASCII parameter
    unicode_parameter: model("coordinates: [x], mass: diag(μ), force: [0.0]", "pub μ: f64") => "`μ` cannot name";
    // was at the call site (line 1, column 1 of the file from `mbsim generate`)
    missing_mass: model("coordinates: [x], force: [0.0]", "") => "the model needs `mass: …`";
    // was at the call site
    missing_coordinates: model("mass: diag(1.0), force: [0.0]", "") => "the model needs `coordinates";
    // was at the call site: syn's "unexpected end of input" of a truncated file
    truncated_file: "#[model(coordinates: [x], mass: diag(1.0), force: [0.0])]\npub struct" => "unexpected end of input";
    // was a stack overflow in the emitter from a chain inside `draw` (seed 1, input 66896; 21 inputs of the 1 M campaign)
    deep_chain_in_draw: model(&format!("coordinates: [x], mass: diag(1.0), force: [0.0], draw: {{ points: [O = (0.0, 0.0), P = (x{}, 0.0)], segments: [(O, P)] }}", ".sin()".repeat(4096)), "") => "expressions nested more than 256";
    // was a stack overflow from a chain inside `events` (seed 1, inputs 152158 and 173343 of the 200 k campaign after events joined the generator), and a hang (input 49153)
    deep_chain_in_events: model(&format!("coordinates: [x], mass: diag(1.0), force: [0.0], events: [e = x{} => stop(both)]", ".sin()".repeat(4096)), "") => "expressions nested more than 256";
    deep_chain_in_restitution: model(&format!("coordinates: [x], mass: diag(1.0), force: [0.0], events: [e = x => impact(0.5{})]", ".sin()".repeat(4096)), "") => "expressions nested more than 256";
    // was a hang (more than 10 s; seed 1, input 22248; 71 inputs of the 1 M campaign): 65 536 parameters
    huge_array_under_the_unroll_budget: model("coordinates: [x], mass: diag(m[0]), force: [0.0]", "pub m: [f64; 65536]") => "at most 2000";
    // was a panic, `r#_` cannot be a raw identifier (emit.rs; seed 1, input 408014)
    underscore_field: model("coordinates: [x], mass: diag(1.0), force: [0.0]", "pub _: f64") => "`_` cannot name";
    // was an error one line off (syn drops a `#!` first line and parses the rest anew; seed 1, input 106973)
    shebang_first_line: "#!x\nconst N = 2\npub struct F {}" => "2:9: expected `:`";
    // was at the call site: the attribute ends inside an entry
    truncated_entry: model("coordinates: [x], mass: diag(1.0), force:", "") => "unexpected end of input";
}

#[test]
fn limits_leave_real_models_alone() {
    // 255 levels of parentheses, 2 000 coordinates' worth of range and the catalog's largest
    // shapes stay accepted (the limits are far above real models).
    let text = model(
        &format!(
            "coordinates: [x], mass: diag(1.0), force: [{}]",
            nested("(", "x", ")", 250)
        ),
        "",
    );
    assert!(
        matches!(harness::run(&text, None), Ok(Outcome::Built { .. })),
        "{}",
        harness::explain(&text)
    );
    let unicode_let = model(
        "coordinates: [x], let ε = x.sin(), mass: diag(1.0), force: [ε]",
        "",
    );
    assert!(
        matches!(harness::run(&unicode_let, None), Ok(Outcome::Built { .. })),
        "{}",
        harness::explain(&unicode_let)
    );
}
