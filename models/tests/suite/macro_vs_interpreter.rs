//! The macro-built kernels of every model in `src/` against the `codegen` interpreter evaluating
//! the same derived expressions (the model is rebuilt from the annotated source text by the same
//! front end), at seeded random states and parameters.
//!
//! The comparison and its tolerance are `mbsim_tests::support::check_kernels`'.

use mbsim_codegen::{Model, frontend};
use mbsim_models::{Andrews, Pendulum, RollingDisc, SliderCrankTsda, TwoLink};
use mbsim_runtime::{ConstrainedSystem, Energy, TangentSystem};
use mbsim_tests::support::{check_energy_kernels, check_tangent_kernels};

/// The model `name` as the front end builds it from the annotated source.
fn model_from_source(source: &str, name: &str) -> Model {
    let found = frontend::file::models_in_source(source).expect("the model file parses");
    let annotated = found
        .into_iter()
        .find(|m| m.name == name)
        .expect("the model is in its file");
    annotated.build().expect("the model is valid")
}

/// Every kernel, tangents included, of `make(parameters)` against the interpreter (shared
/// harness); the models here ask for `tangents: true`.
fn check<S: TangentSystem + 'static>(model: Model, make: impl Fn(&[f64]) -> S, seed: u64) {
    assert!(
        model.tangents,
        "{} asks for its tangent kernels",
        model.name
    );
    check_tangent_kernels(model, |p| Box::new(make(p)), seed, 5, |_| {});
}

/// Every kernel, energies included, of a Lagrangian model.
fn check_lagrangian<S: Energy + 'static>(model: Model, make: impl Fn(&[f64]) -> S, seed: u64) {
    check_energy_kernels(model, |p| Box::new(make(p)), seed, 5, |_| {});
}

#[test]
fn pendulum() {
    let model = model_from_source(include_str!("../../src/pendulum.rs"), "Pendulum");
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
    let model = model_from_source(include_str!("../../src/two_link.rs"), "TwoLink");
    check_lagrangian(
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
    let model = model_from_source(include_str!("../../src/rolling_disc.rs"), "RollingDisc");
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

/// `base` with the parameters `p` set by name in declaration order.
fn with_parameters<S: TangentSystem + Clone>(base: &S, names: &[String], p: &[f64]) -> S {
    let mut sys = base.clone();
    for (name, &value) in names.iter().zip(p) {
        sys.set_parameter(name, value)
            .expect("a declared parameter");
    }
    sys
}

#[test]
fn andrews() {
    let model = model_from_source(include_str!("../../src/andrews.rs"), "Andrews");
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let base = Andrews::published();
    check(model, |p| with_parameters(&base, &names, p), 14);
}

#[test]
fn slider_crank_tsda() {
    let model = model_from_source(
        include_str!("../../src/slider_crank_tsda.rs"),
        "SliderCrankTsda",
    );
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let base = SliderCrankTsda::chosen();
    check(model, |p| with_parameters(&base, &names, p), 15);
}

/// Labels in the model language become the runtime's constraint names.
#[test]
fn constraint_names_follow_the_labels() {
    let pendulum = Pendulum {
        m: 1.0,
        len: 1.0,
        g: 9.81,
    };
    assert_eq!(pendulum.constraint_names(), ["rod"]);
    assert_eq!(pendulum.constraint_index("rod"), Some(0));
    let disc = RollingDisc {
        m: 1.0,
        r: 1.0,
        A: 1.0,
        C: 1.0,
        g: 9.81,
    };
    assert_eq!(disc.constraint_names(), ["nh_1", "nh_2"]);
}

#[test]
fn deformable_slider_crank() {
    let source = include_str!("../../src/deformable_slider_crank.rs");
    let model = model_from_source(source, "DeformableSliderCrank");
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let base = mbsim_models::DeformableSliderCrank::published();
    check(model, |p| with_parameters(&base, &names, p), 16);
}

#[test]
fn rigid_slider_crank_ch5() {
    let source = include_str!("../../src/rigid_slider_crank_ch5.rs");
    let model = model_from_source(source, "RigidSliderCrankCh5");
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let base = mbsim_models::RigidSliderCrankCh5::published();
    check(model, |p| with_parameters(&base, &names, p), 17);
}

#[test]
fn me451_pendulum() {
    let model = model_from_source(include_str!("../../src/me451_pendulum.rs"), "Me451Pendulum");
    let names: Vec<String> = model.parameters.iter().map(|p| p.name.clone()).collect();
    let base = mbsim_models::Me451Pendulum::published();
    check(model, |p| with_parameters(&base, &names, p), 18);
}
