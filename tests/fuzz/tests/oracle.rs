//! The numerical oracle of the campaign can fail: kernels corrupted on purpose (two entries of a
//! derivative swapped, one kernel's entry put in another's place) are caught at every seed,
//! and the right kernels pass, including the two inputs whose difference quotients do not
//! converge at some entries (seed 1, inputs 61411 and 893627: those entries are left
//! unchecked, the rest compared).

use std::panic::{AssertUnwindSafe, catch_unwind};

use mbsim_codegen::Model;
use mbsim_codegen::frontend::file;
use mbsim_codegen::kernels::{self, Kernels};
use mbsim_fuzz::harness::{self, Outcome};
use mbsim_fuzz::model::{Generated, Shape};
use mbsim_fuzz::numeric;
use mbsim_testkit::Rng;

const TEXT: &str = "#[model(
    coordinates: [x, y],
    holonomic: [x.powi(2) + y.powi(2) - l.powi(2)],
    mass: diag(m, m),
    force: [-c * x_dot, -m * g * (1.0 + 0.1 * y.sin())],
    tangents: true,
)]
pub struct Pendulum { pub l: f64, pub m: f64, pub c: f64, pub g: f64 }
";

fn derived() -> (Model, Kernels) {
    let found = file::models_in_source(TEXT).expect("parses");
    let mut model = found[0].build().expect("builds");
    let kernels = kernels::derive(&mut model);
    (model, kernels)
}

/// Whether the oracle passes `kernels` at 20 random states.
fn passes_everywhere(model: &Model, kernels: &Kernels) -> Vec<bool> {
    (0..20)
        .map(|seed| {
            let mut rng = Rng::new(seed);
            catch_unwind(AssertUnwindSafe(|| {
                numeric::check(model, kernels, &mut rng, false)
            }))
            .is_ok()
        })
        .collect()
}

#[test]
fn right_kernels_pass() {
    let (model, kernels) = derived();
    assert!(passes_everywhere(&model, &kernels).iter().all(|&ok| ok));
}

/// A change made to derived kernels on purpose.
type Corruption = Box<dyn Fn(&mut Kernels)>;

#[test]
fn corrupted_kernels_are_caught_at_every_state() {
    let (model, kernels) = derived();
    let corruptions: Vec<(&str, Corruption)> = vec![
        (
            "phi_q entries swapped",
            Box::new(|k| k.phi_q.entries.swap(0, 1)),
        ),
        (
            "gamma replaced by phi_t",
            Box::new(|k| k.gamma[0] = k.phi[0]),
        ),
        (
            "force_q entries swapped",
            Box::new(|k| {
                let t = k.tangents.as_mut().expect("tangents");
                t.force_v.entries.swap(0, 3);
            }),
        ),
        (
            "l transposed",
            Box::new(|k| {
                let e = k.l.entries.clone();
                k.l.entries = vec![e[1], e[0]];
            }),
        ),
    ];
    for (what, corrupt) in corruptions {
        let mut bad = kernels.clone();
        corrupt(&mut bad);
        let verdicts = passes_everywhere(&model, &bad);
        assert!(
            verdicts.iter().all(|&ok| !ok),
            "{what}: passed at {:?}",
            verdicts
                .iter()
                .enumerate()
                .filter(|(_, ok)| **ok)
                .map(|(i, _)| i)
                .collect::<Vec<_>>()
        );
    }
}

/// The two inputs of the 1 M campaign (seed 1, inputs 61411 and 893627 of the generator
/// before events were added) whose quotients do not converge at some entries, checked at 20
/// random states each (before the convergence test, 9 and 19 of those 20 failed).
#[test]
fn unconverged_quotients_are_left_unchecked_not_failed() {
    harness::quiet_panics();
    for (file, lagrange_exact) in [
        ("unconverged_curvature.rs.txt", false),
        ("unconverged_far_body.rs.txt", true),
    ] {
        let path = format!("{}/tests/cases/{file}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read_to_string(&path).expect("case file");
        let generated = Generated {
            text: text.clone(),
            shape: Shape::Explicit,
            smooth: true,
            lagrange_exact,
        };
        for seed in 0..20 {
            let mut rng = Rng::new(seed);
            let verdict = harness::run(&text, Some((&generated, &mut rng)));
            assert!(
                matches!(verdict, Ok(Outcome::Built { entries, .. }) if entries > 0),
                "{file} at state {seed}: {verdict:?}"
            );
        }
    }
}
