//! Compile-fail tests of the `#[model]` attribute: one file per error message in `tests/ui/`,
//! each with its committed `.stderr` showing the message and the span it points at
//! (`TRYBUILD=overwrite cargo test -p mbsim-macros` rewrites them after a deliberate change),
//! plus one file that must compile. The `err_no_cascade*` files use the broken model's struct
//! as a `ConstrainedSystem`: their `.stderr` holds the located error and nothing else.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass_all_syntax.rs");
    t.pass("tests/ui/pass_families.rs");
    t.compile_fail("tests/ui/err_*.rs");
}
