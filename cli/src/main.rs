//! `mbsim`: the command set of `mbsim_cli` on the built-in catalog (`mbsim-models`): simulate,
//! animate, sweep, analyse, list, print kernels, and reproduce the thesis' tables. See
//! `mbsim --help`. A user's crate gets the same program for its own models with
//! `mbsim_cli::cli_main!(ENTRIES)`.

fn main() {
    mbsim_cli::main_named("mbsim", mbsim_models::catalog());
}
