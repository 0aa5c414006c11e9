//! `mbsim`: simulate the models of `mbsim-models`, write CSV, a JSON summary and plots, list the
//! models, print their generated kernels, and reproduce the thesis' tables. See
//! `mbsim --help`; the implementation is the library of this crate (`mbsim_cli`).

fn main() {
    if let Err(e) = mbsim_cli::main_with(std::env::args().skip(1)) {
        eprintln!("mbsim: error: {e}");
        std::process::exit(1);
    }
}
