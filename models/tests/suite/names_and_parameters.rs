//! What a user reaches by name on a generated model: runtime parameters (a non-finite value is
//! refused with the parameter's name, not discovered later as a NaN kernel) and multipliers by
//! the constraint's label.

use mbsim_models::Pendulum;
use mbsim_runtime::{ConstrainedSystem, ParameterError, Problem, Rkstab, integrate};

#[test]
fn a_non_finite_parameter_is_refused_by_name() {
    let mut sys = Pendulum {
        m: 1.0,
        len: 1.0,
        g: 9.81,
    };
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let err = sys.set_parameter("len", bad).unwrap_err();
        assert!(
            matches!(
                err,
                ParameterError::NotFinite {
                    name: "len",
                    model: "Pendulum",
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("`len`"), "{err}");
    }
    assert_eq!(sys.len, 1.0, "a refused value is not stored");
    let err = sys.set_parameter("lenght", 2.0).unwrap_err();
    assert!(matches!(err, ParameterError::Unknown { .. }), "{err:?}");
    sys.set_parameter("len", 2.0)
        .expect("a finite value is stored");
    assert_eq!(sys.len, 2.0);
}

#[test]
fn multipliers_are_reachable_by_the_constraint_label() {
    // The pendulum's row is labelled `rod`: λ of `rod` is column 0 of the recorded λ, and for
    // the pendulum hanging at rest it balances gravity, λ = m g / (2 ℓ) (Φ = x² + y² − ℓ², so
    // Gᵀλ = (0, −2ℓ λ) at (0, −ℓ) and M v̇ + Gᵀλ = Q gives −2ℓλ = −m g).
    let sys = Pendulum {
        m: 2.0,
        len: 1.5,
        g: 9.81,
    };
    assert_eq!(sys.constraint_names(), vec!["rod".to_string()]);
    let problem = Problem::new(0.0, 1.0, &[0.0, -1.5], &[0.0, 0.0]).with_uniform_output(0.25);
    let (rec, _) = integrate(&sys, &Rkstab::new(1e-8), &problem).expect("hanging pendulum");
    let rod = rec
        .multiplier_named(&sys, "rod")
        .expect("a constraint named rod");
    assert_eq!(rod, rec.multiplier(0));
    assert_eq!(rod.len(), 5);
    let expected = 2.0 * 9.81 / (2.0 * 1.5);
    for lambda in rod {
        // At rest the KKT solve is exact up to round-off of O(1) numbers.
        assert!(
            (lambda - expected).abs() <= 1e-12 * expected,
            "{lambda} vs {expected}"
        );
    }
    assert!(rec.multiplier_named(&sys, "spring").is_none());
}
