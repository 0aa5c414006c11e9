//! Issue 22, items 2 and 5: RKSTAB with every drift control carries the IFToMM A02 N-four-bar
//! (N = 40) through the twenty singular passages of 20 s, in both forms, against the exact
//! 1-DOF reduction (`passages_stabilizations.rs`). Without the singular-passage guard
//! (`runtime/src/stabilize/passage.rs`) none, Baumgarte, velocity-only, S-both and the
//! continuous stabilizations stopped at a passage on the body form (the continuous GGᵀ and
//! identity ones on the crank-angle form too); the guard's own test is that they now pass, and
//! that switched off the pure method still stops (the cause the guard removes).
//!
//! Bounds on the error against the reduction: the measured value (in each cell's comment)
//! times 10, for round-off that the passages amplify differently on other platforms; a lost
//! passage or a crank folding onto another branch costs ≥ 0.1 rad. Drift: ‖Φ‖∞ at the step
//! points below 1e-6 (Baumgarte and the continuous ones let Φ drift between the guard's
//! projections; measured in the comments).

use crate::passages_matrix::{Form, output_times, reduction};
use crate::passages_stabilizations::{measure_stabilized, stabilizations};
use mbsim_runtime::{Rkstab, Stabilization, integrate};
use mbsim_testkit::assert_below;

/// Run every drift control on `form` at `rtol` over 20 s and check each against its bound
/// (`bounds[k]` for `stabilizations()[k]`) and the drift bound.
fn every_control(form: Form, rtol: f64, bounds: [f64; 12]) {
    let t_end = 20.0;
    let reference = reduction(&output_times(t_end));
    for (stabilization, bound) in stabilizations().into_iter().zip(bounds) {
        let cell = measure_stabilized(stabilization, rtol, form, t_end, &reference);
        eprintln!("{cell}");
        let what = format!("{} {rtol:e} on {}", stabilization.name(), form.name());
        let m = cell.outcome.unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_below(&format!("{what}: error"), m.error, bound);
        assert_below(&format!("{what}: max |Φ|"), m.drift_position, 1e-6);
    }
}
