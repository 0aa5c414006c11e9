//! Andrews' squeezing mechanism at t = 0 (SEEDS-DIGEST P6, acceptance "hard"): the KKT solve at
//! the published consistent start (q0, 0) reproduces the published accelerations and
//! multipliers, which validates the transcription of the model and the solve together.

use mbsim_models::Andrews;
use mbsim_runtime::{ConstrainedSystem, KktWorkspace, accelerations_into};
use mbsim_testkit::assert_entry;

/// Compare `ours` with `published` entry by entry, relative to the larger of |published| and
/// `scale` (the zero entries are compared against the size of the nonzero ones).
fn compare(what: &str, ours: &[f64], published: &[f64], scale: f64, tol: f64) {
    assert_eq!(ours.len(), published.len(), "{what}: length");
    for (i, (o, p)) in ours.iter().zip(published).enumerate() {
        assert_entry(what, i, *o, *p, tol * p.abs().max(scale));
    }
}

#[test]
fn kkt_at_published_start_matches_published_accelerations_and_multipliers() {
    let sys = Andrews::published();
    let q0 = Andrews::Q0;
    let v0 = [0.0; 7];
    let mut phi = [0.0; 6];
    sys.phi_into(0.0, &q0, &mut phi);
    // q0 is printed to 30 digits: Φ(q0) is rounding of O(0.1 m) terms, a few ε · 0.1.
    compare("phi", &phi, &[0.0; 6], 0.1, 1e-15);
    let mut ws = KktWorkspace::new(sys.dims());
    let (mut vdot, mut lambda) = ([0.0; 7], [0.0; 6]);
    accelerations_into(
        &sys,
        0.0,
        &q0,
        &v0,
        None,
        &mut ws,
        0.0,
        &mut vdot,
        &mut lambda,
    )
    .expect("the KKT matrix at q0 is regular");
    // Tolerance 1e-12 relative (the target): the 13×13 augmented matrix mixes entries
    // from 1e-7 (inertias) to 1e-2 (lengths), so LU with partial pivoting loses about
    // cond ≈ 1e3–1e4 times ε ≈ 2e-16, i.e. ~1e-12 at worst; the zero entries are compared
    // against the scale of the nonzero ones.
    compare("vdot", &vdot, &Andrews::VDOT0, 14_222.4, 1e-12);
    compare("lambda", &lambda, &Andrews::LAMBDA0, 98.57, 1e-12);
}
