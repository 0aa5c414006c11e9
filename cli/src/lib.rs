//! The `mbsim` command set as a library, for any list of models: argument parsing ([`cli`]),
//! the model registry ([`registry`]), the run options from flags and a TOML file ([`config`],
//! [`state`]), a simulation run ([`simulate`]) and its files ([`output`], [`plot`],
//! [`plot_grid`]), the planar animation ([`animate`]), parameter sweeps ([`sweep`]), the
//! analysis modes ([`analysis`]) and, with the `builtin` feature, the reproduction of the
//! thesis' tables (`repro`).
//!
//! A user's crate gets the whole command set for its own models with one line, in the spirit
//! of `criterion_main!`:
//!
//! ```ignore
//! mbsim_cli::cli_main!(MY_MODELS); // MY_MODELS: [ModelEntry; N], a `static` or `const`
//! ```
//!
//! which is `fn main() { mbsim_cli::main(&MY_MODELS) }`. The built-in `mbsim` binary
//! (`src/main.rs`) is one such user, with the catalog of `mbsim-models`.
//!
//! Errors are values ([`AppError`]): a bad argument prints one clear line and exits non-zero;
//! nothing here panics on user input.

/// `println!` that ends the process quietly when stdout is a closed pipe (`mbsim repro | head`)
/// instead of panicking; other write errors are reported on stderr.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(e) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("{}: cannot write to stdout: {e}", $crate::registry::program());
            std::process::exit(1);
        }
    }};
}
pub(crate) use say;

pub mod analysis;
pub mod animate;
pub mod check;
pub mod cli;
pub mod config;
pub mod error;
pub mod eval;
pub mod fmu;
pub mod generate;
pub mod method;
pub mod output;
pub mod plot;
pub mod plot_grid;
pub mod progress;
pub mod registry;
#[cfg(feature = "builtin")]
pub mod repro;
pub mod simulate;
pub mod state;
pub mod sweep;
pub mod timing;
pub mod trajectory;
pub mod views;

pub use error::AppError;

/// The whole command set for `entries`, with the process's arguments: prints the error and
/// exits non-zero on failure. The program's name in usage, help and error lines is the file
/// name of the running binary (`argv[0]`); [`main_named`] sets it explicitly.
pub fn main(entries: &'static [registry::ModelEntry]) {
    let program = std::env::args_os()
        .next()
        .and_then(|a| {
            std::path::Path::new(&a)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "mbsim".to_string());
    main_named(Box::leak(program.into_boxed_str()), entries);
}

/// [`main`] with the program's name given (what `cli_main!` passes: the binary's Cargo name).
pub fn main_named(program: &'static str, entries: &'static [registry::ModelEntry]) {
    registry::set_program(program);
    registry::install(entries);
    if let Err(e) = main_with(std::env::args().skip(1)) {
        eprintln!("{program}: error: {e}");
        std::process::exit(1);
    }
}

/// `fn main()` running the whole command set (`simulate`, `animate`, `sweep`, the analyses,
/// `list`, …) on the given models: `mbsim_cli::cli_main!(ENTRIES);` where `ENTRIES` is an array
/// or slice of [`registry::ModelEntry`] with a `'static` lifetime. Usage, help and errors name
/// the binary (`CARGO_BIN_NAME`), not `mbsim`.
#[macro_export]
macro_rules! cli_main {
    ($entries:expr) => {
        fn main() {
            match ::core::option_env!("CARGO_BIN_NAME") {
                Some(program) => $crate::main_named(program, &$entries),
                None => $crate::main(&$entries),
            }
        }
    };
}

/// Run the command line `args` (without the program name) on the installed models
/// ([`registry::install`]; the built-in catalog when none were installed).
pub fn main_with(args: impl IntoIterator<Item = String>) -> Result<(), AppError> {
    cli::run(cli::parse(args))
}
