//! `mbsim`: simulate the models of this crate, write CSV, a JSON summary and plots, list the
//! models, print their generated kernels, and reproduce the thesis' tables. See
//! `mbsim --help`; the implementation is `models::app`.

fn main() {
    if let Err(e) = models::app::main_with(std::env::args().skip(1)) {
        eprintln!("mbsim: error: {e}");
        std::process::exit(1);
    }
}
