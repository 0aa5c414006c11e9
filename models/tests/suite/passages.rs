//! Issue 22, item 5: every method carries the IFToMM A02 N-four-bar (N = 40) through its
//! singular horizontal positions, against the exact 1-DOF reduction (`passages_matrix.rs`).
//! A release-profile slice of the matrix: a few representative cells per method, each a
//! fraction of a second to two seconds of thread CPU. The full matrix is
//! `cargo bench -p mbsim-models --bench passages` (README, "Singular configurations").
//!
//! The passages are at t ≈ 0.72 (θ = π) and 1.24 (θ = 2π), then every ~0.5 s: the 1.5 s spans
//! cross two, the 20 s spans about twenty. Bounds on the error against the reduction: the
//! measured value (in each cell's comment) times 10, for round-off that the passages amplify
//! differently on other platforms; a jump to another branch of the mechanism (one crank
//! folding at a passage) or a lost passage costs ≥ 0.1 rad, a 1 % error in κ ~1e-3 within 2 s.
//! Drift: ‖Φ‖∞ ≤ 1e-8 at every step point (index-3 methods hold Φ to their Newton tolerance,
//! the stabilized ones to round-off; measured ≤ 5e-9 in every cell).

use crate::passages_matrix::{Form, Method, measure, output_times, reduction};
use mbsim_testkit::assert_below;

/// One cell: run, print, and check the error against `bound` and the drift.
fn cell(method: Method, x: f64, form: Form, t_end: f64, bound: f64) {
    let reference = reduction(&output_times(t_end));
    let cell = measure(method, x, (form, false), t_end, &reference);
    eprintln!("{cell}");
    let m = cell
        .outcome
        .unwrap_or_else(|e| panic!("{} {x:e} on {}: {e}", method.name(), form.name()));
    let what = format!("{} {x:e} on {} over {t_end} s", method.name(), form.name());
    assert_below(&format!("{what}: error"), m.error, bound);
    assert_below(&format!("{what}: max |Φ|"), m.drift_position, 1e-8);
}

#[test]
fn explicit_methods_pass_twenty_passages_of_the_crank_angle_chain() {
    cell(Method::Rkstab, 1e-10, Form::Angles, 20.0, 4e-6); // 4.1e-7
    cell(Method::Abm, 1e-10, Form::Angles, 20.0, 1.2e-5); // 1.2e-6
    cell(Method::Rk4, 1e-3, Form::Angles, 20.0, 3e-8); // 2.9e-9
    cell(Method::Mampc4, 1e-3, Form::Angles, 20.0, 1e-7); // 9.9e-9
}

/// Radau failed at the first passage at every tolerance and step before the stage
/// Jacobians, the fresh-tangent retry and the round-off acceptance (`radau/newton.rs`).
#[test]
fn radau_passes_twenty_passages_of_the_crank_angle_chain() {
    cell(Method::Radau, 1e-10, Form::Angles, 20.0, 7e-7); // 6.4e-8
    cell(Method::RadauFixed, 1e-2, Form::Angles, 20.0, 3e-6); // 2.8e-7
}

#[test]
fn alpha_methods_pass_the_first_two_passages() {
    cell(Method::Hht, 1e-2, Form::Angles, 1.5, 3e-3); // 2.6e-4
    cell(Method::GenAlpha, 1e-2, Form::Angles, 1.5, 3e-3); // 2.3e-4
    cell(Method::HhtAdaptive, 1e-6, Form::Angles, 1.5, 5e-3); // 4.5e-4
    cell(Method::GenAlphaAdaptive, 1e-6, Form::Angles, 1.5, 4e-3); // 3.9e-4
}

/// RKSTAB at rtol 1e-10 on the body form collapses at t = 1.2421: PStab's round-off floor,
/// tested coordinate by coordinate, never switches on for the couplers' angles that stay 0.
/// A norm-wise floor carried it through (5.9e-10 over 3 s) but cost the four-bar change
/// point its `SingularConfiguration` diagnosis (tight RKSTAB runs then underflowed unnamed
/// near π; `cli/tests/analysis.rs`, `python/tests/test_errors.py`), so it was reverted at the
/// merge and the RKSTAB cell is open (issue 22); ABM passes.
#[test]
fn body_form_passes_its_passages() {
    cell(Method::Abm, 1e-10, Form::Bodies, 3.0, 3e-7); // 2.7e-8
}

/// The implicit methods on the body form, affordable since their sparse path (banded stage and
/// Newton matrices, compressed tangent differences: 1.9 s for the Radau cell instead of
/// ~8 minutes with the dense stage matrix of order 1 455).
#[test]
fn implicit_methods_pass_the_body_forms_passages() {
    cell(Method::Radau, 1e-8, Form::Bodies, 20.0, 7e-4); // 6.1e-5
    cell(Method::RadauFixed, 1e-2, Form::Bodies, 20.0, 4e-4); // 3.6e-5
    cell(Method::Hht, 1e-2, Form::Bodies, 1.5, 3.3e-2); // 3.3e-3
    cell(Method::HhtAdaptive, 1e-6, Form::Bodies, 1.5, 1.9e-2); // 1.9e-3
}
