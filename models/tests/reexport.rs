//! A crate that re-exports the façade under another path passes it with `crate = path`; the
//! expansion then names the runtime's items through `<path>::__private` (and nothing through
//! `::mbsim`, which such a crate's users may not have).

/// A re-exporter of the façade, as a downstream library would have.
mod my_facade {
    pub use mbsim::*;
}

use my_facade::prelude::ConstrainedSystem;

/// A damped oscillator written against the re-exported path.
#[my_facade::model(
    crate = my_facade,
    coordinates: [x],
    mass: diag(m),
    force: [-k * x - c * x_dot],
)]
#[derive(Clone, Debug)]
pub struct Oscillator {
    pub m: f64,
    pub k: f64,
    pub c: f64,
}

#[test]
fn the_expansion_uses_the_given_facade_path() {
    let sys = Oscillator {
        m: 2.0,
        k: 8.0,
        c: 0.5,
    };
    assert_eq!(sys.dims().n, 1);
    let mut force = [0.0];
    sys.force_into(0.0, &[0.25], &[2.0], &mut force);
    // Q = −k x − c ẋ = −8·0.25 − 0.5·2 = −3, exact in binary floating point.
    assert_eq!(force, [-3.0]);
    let source = mbsim_codegen::frontend::expand(
        quote::quote!(crate = my_facade, coordinates: [x], mass: diag(m), force: [-k * x]),
        quote::quote!(
            pub struct S {
                pub m: f64,
                pub k: f64,
            }
        ),
    )
    .expect("valid model")
    .to_string();
    assert!(
        source.contains("my_facade :: __private :: ConstrainedSystem"),
        "{source}"
    );
    assert!(!source.contains(":: mbsim ::"), "{source}");
}
