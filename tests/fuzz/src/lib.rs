//! Front-end fuzzing on stable Rust (no nightly, no libFuzzer): a seeded generator of model
//! texts drives the model front end and the symbolic pipeline directly, as `mbsim generate`
//! and the `#[model]` proc-macro do, without rustc.
//!
//! - [`model`] writes valid models from the grammar (explicit M and Q, Lagrangians, indexed
//!   families, planar and spatial bodies with joints and loads, placed bodies, `body_energy`,
//!   `draw`), over random expressions ([`expr`]);
//! - [`mutate`] breaks them at the token level (deleted, swapped, duplicated and replaced
//!   tokens, wrong arity, huge and non-finite numbers, huge ranges, deep nesting, unicode);
//! - [`harness`] runs one input under the contract — no panic, every error located inside
//!   the input — and checks the kernels of valid smooth models against finite differences
//!   through the interpreter ([`numeric`]);
//! - [`campaign`] runs a range of inputs with a time bound per input (the slice in the test
//!   suite, and the worker of the long campaign, `src/main.rs`, which also survives aborts and
//!   stack overflows by running workers as child processes).
//!
//! Input `i` of seed `s` is a pure function of `(s, i)` ([`input`]): a report names the seed
//! and the index, and `mbsim-fuzz --seed s --show i` prints the text.

pub mod campaign;
pub mod expr;
pub mod harness;
pub mod model;
pub mod mutate;
pub mod numeric;

use mbsim_testkit::Rng;

/// One generated input.
#[derive(Clone, Debug)]
pub struct Input {
    /// The source text.
    pub text: String,
    /// The valid model it is (unmutated) or came from.
    pub generated: model::Generated,
    /// Whether `text` is the unmutated valid model.
    pub valid: bool,
}

/// The generator of input `index` of a campaign seeded with `seed` (SplitMix64 of both).
pub fn rng_for(seed: u64, index: u64) -> Rng {
    let mut mix = Rng::new(seed ^ 0x5EED_F022_0000_0000);
    let base = mix.next_u64();
    let mut rng = Rng::new(base.wrapping_add(index.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
    rng.next_u64();
    rng
}

/// Input `index` of seed `seed`: a valid model (one in four) or a mutation of one.
pub fn input(seed: u64, index: u64) -> Input {
    let mut rng = rng_for(seed, index);
    let generated = model::generate(&mut rng);
    let valid = expr::chance(&mut rng, 0.25);
    let text = if valid {
        generated.text.clone()
    } else {
        mutate::mutate(&mut rng, &generated.text)
    };
    Input {
        text,
        generated,
        valid,
    }
}
