//! The fixed-seed slice of the fuzzing campaign that the test suite runs (`cargo run --release
//! -p mbsim-fuzz` runs the long one): 2 500 inputs of seed 1, each under the contract (no
//! panic, every error located inside the input, kernels of valid smooth models equal to
//! finite differences) and within 10 s; a few seconds in the test profile.

use std::time::Duration;

use mbsim_fuzz::campaign;

const SEED: u64 = 1;
const INPUTS: u64 = 2_500;

#[test]
fn fixed_seed_slice_keeps_the_contract() {
    let tally = match campaign::run(SEED, (0, INPUTS), Duration::from_secs(10), ()) {
        Ok(t) => t,
        Err(hang) => panic!(
            "input {} of seed {SEED} ran longer than the bound (see it with `cargo run -p mbsim-fuzz -- --seed {SEED} --show {}`)",
            hang.index, hang.index
        ),
    };
    println!("{}", tally.summary());
    let listed: Vec<String> = tally
        .violations
        .iter()
        .map(|(i, v)| format!("input {i}: {v}"))
        .collect();
    assert!(listed.is_empty(), "seed {SEED}:\n{}", listed.join("\n"));
    assert_eq!(tally.inputs, INPUTS);
    // The slice means something only if it reaches deep: every valid model of the grammar
    // builds, many are checked numerically, mutations are both accepted and refused.
    assert_eq!(
        tally.valid_built, tally.valid,
        "a valid generated model was refused"
    );
    assert!(tally.valid > INPUTS / 5, "{}", tally.summary());
    assert!(tally.numeric_models > INPUTS / 10, "{}", tally.summary());
    assert!(tally.rejected > INPUTS / 2, "{}", tally.summary());
    assert!(
        tally.built > tally.valid,
        "no mutated input built: {}",
        tally.summary()
    );
}

#[test]
fn every_shape_builds_and_checks_numerically() {
    use mbsim_fuzz::harness::{self, Outcome};
    use mbsim_fuzz::model::{SHAPES, generate_shape};
    for (k, &shape) in SHAPES.iter().enumerate() {
        let mut checked = 0;
        for i in 0..20 {
            let mut rng = mbsim_fuzz::rng_for(7 + k as u64, i);
            let g = generate_shape(&mut rng, shape);
            match harness::run(&g.text, Some((&g, &mut rng))) {
                Ok(Outcome::Built { entries, .. }) => checked += entries,
                other => panic!("{shape:?} model {i}: {other:?}\n{}", g.text),
            }
        }
        assert!(
            checked > 0,
            "{shape:?}: no kernel entry checked numerically"
        );
    }
}
