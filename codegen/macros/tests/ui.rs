//! Compile-fail tests of the `#[model]` attribute: one file per error message in `tests/ui/`,
//! each with its committed `.stderr` showing the message and the span it points at
//! (`TRYBUILD=overwrite cargo test -p macros` rewrites them after a deliberate change), plus
//! one file that must compile.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.pass("tests/ui/pass_all_syntax.rs");
    t.compile_fail("tests/ui/err_*.rs");
}
