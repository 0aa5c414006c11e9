//! The macro-built kernels of every model in `src/` against the `codegen` interpreter evaluating
//! the same derived expressions (the model is rebuilt from the annotated source text by the same
//! front end), at seeded random states and parameters.
//!
//! The comparison and its tolerance are `mbsim_tests::support::check_kernels`'.

use mbsim_codegen::{Model, frontend};
use mbsim_models::{Pendulum, RollingDisc, TwoLink};
use mbsim_runtime::ConstrainedSystem;
use mbsim_tests::support::check_kernels;

/// The model `name` as the front end builds it from the annotated source.
fn model_from_source(source: &str, name: &str) -> Model {
    let found = frontend::file::models_in_source(source).expect("the model file parses");
    let annotated = found
        .into_iter()
        .find(|m| m.name == name)
        .expect("the model is in its file");
    annotated.build().expect("the model is valid")
}

/// Every kernel of `make(parameters)` against the interpreter (shared harness).
fn check<S: ConstrainedSystem + 'static>(model: Model, make: impl Fn(&[f64]) -> S, seed: u64) {
    check_kernels(model, |p| Box::new(make(p)), seed, 5, |_| {});
}

#[test]
fn pendulum() {
    let model = model_from_source(include_str!("../src/pendulum.rs"), "Pendulum");
    check(
        model,
        |p| Pendulum {
            m: p[0],
            len: p[1],
            g: p[2],
        },
        11,
    );
}

#[test]
fn two_link() {
    let model = model_from_source(include_str!("../src/two_link.rs"), "TwoLink");
    check(
        model,
        |p| TwoLink {
            m1: p[0],
            m2: p[1],
            l1: p[2],
            l2: p[3],
            b: p[4],
        },
        12,
    );
}

#[test]
fn rolling_disc() {
    let model = model_from_source(include_str!("../src/rolling_disc.rs"), "RollingDisc");
    check(
        model,
        |p| RollingDisc {
            m: p[0],
            r: p[1],
            A: p[2],
            C: p[3],
            g: p[4],
        },
        13,
    );
}

/// Setting a parameter by name changes the kernels; an unknown name is an error value.
#[test]
fn parameters_by_name() {
    let mut p = Pendulum {
        m: 2.0,
        len: 1.0,
        g: 9.81,
    };
    p.set_parameter("g", 1.0).expect("g is a parameter");
    let mut force = [0.0; 2];
    p.force_into(0.0, &[1.0, 0.0], &[0.0, 0.0], &mut force);
    assert_eq!(force, [0.0, -2.0]);
    let err = p.set_parameter("mass", 1.0).expect_err("no such parameter");
    assert_eq!(
        err.to_string(),
        "model `Pendulum` has no runtime parameter `mass` (runtime parameters: m, len, g)"
    );
}
