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
            eprintln!("mbsim: cannot write to stdout: {e}");
            std::process::exit(1);
        }
    }};
}
pub(crate) use say;

pub mod analysis;
pub mod animate;
pub mod cli;
pub mod config;
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
pub mod views;

use std::path::PathBuf;

/// Everything that can go wrong in a command.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// The model name is not in the registry.
    #[error("unknown model `{name}` (models: {known})")]
    UnknownModel {
        /// The name given.
        name: String,
        /// The registry's names.
        known: String,
    },
    /// `--param` names a parameter the model does not have.
    #[error(transparent)]
    UnknownParameter(#[from] mbsim::runtime::ParameterError),
    /// A numeric argument out of its range, or malformed.
    #[error("invalid {what} `{value}`: {why}")]
    BadValue {
        /// Which argument.
        what: &'static str,
        /// The value given.
        value: String,
        /// What is wrong with it.
        why: &'static str,
    },
    /// The table name of `repro` is unknown.
    #[error("unknown table `{0}` (tables: 3.1, 4.1, 4.2, 4.6, 4.7, 4.8, p10, p11, all)")]
    UnknownTable(String),
    /// The integration or the initialization failed.
    #[error("simulation failed: {0}")]
    Sim(#[from] mbsim::runtime::SimError),
    /// Writing an output file failed.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A model file (`mbsim eval`, `mbsim generate`) cannot be read, is invalid, or its
    /// evaluation or generated files are not what was asked for; the message says where.
    #[error("{0}")]
    ModelFile(String),
    /// A `--q`, `--v`, `--lock` or config entry names a coordinate the model does not have.
    #[error("{what} names unknown coordinate `{name}` (coordinates of `{model}`: {known})")]
    UnknownCoordinate {
        /// Which flag or config entry.
        what: String,
        /// The name given.
        name: String,
        /// The model.
        model: String,
        /// Its coordinates, comma separated.
        known: String,
    },
    /// A vector (`--q0`, `--v0`, a config array) of the wrong length.
    #[error("{what} has {got} entries, expected {expected} (coordinates of `{model}`: {known})")]
    WrongLength {
        /// Which flag or config entry.
        what: String,
        /// Entries given.
        got: usize,
        /// Entries expected (n).
        expected: usize,
        /// The model.
        model: String,
        /// Its coordinates, comma separated.
        known: String,
    },
    /// A value that is NaN or infinite where a number is needed.
    #[error("{what} must be finite, got {value}")]
    NotFinite {
        /// Which flag or config entry (with the coordinate or parameter name).
        what: String,
        /// The value given.
        value: f64,
    },
    /// The `--config` file cannot be read or does not describe a run (unknown keys are named).
    #[error("config {path}: {message}")]
    Config {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        message: String,
    },
    /// The model cannot do what the command needs (no drawing for `animate`, say).
    #[error("model `{model}` {why}")]
    Unsupported {
        /// The model.
        model: String,
        /// What it lacks.
        why: String,
    },
    /// Drawing a plot failed.
    #[error("cannot draw {path}: {message}")]
    Plot {
        /// The file.
        path: PathBuf,
        /// The plotting library's message.
        message: String,
    },
}

/// The whole command set for `entries`, with the process's arguments: prints the error and
/// exits non-zero on failure. What `cli_main!` expands to.
pub fn main(entries: &'static [registry::ModelEntry]) {
    registry::install(entries);
    if let Err(e) = main_with(std::env::args().skip(1)) {
        eprintln!("mbsim: error: {e}");
        std::process::exit(1);
    }
}

/// `fn main()` running the whole command set (`simulate`, `animate`, `sweep`, the analyses,
/// `list`, …) on the given models: `mbsim_cli::cli_main!(ENTRIES);` where `ENTRIES` is an array
/// or slice of [`registry::ModelEntry`] with a `'static` lifetime.
#[macro_export]
macro_rules! cli_main {
    ($entries:expr) => {
        fn main() {
            $crate::main(&$entries);
        }
    };
}

/// Run the command line `args` (without the program name) on the installed models
/// ([`registry::install`]; the built-in catalog when none were installed).
pub fn main_with(args: impl IntoIterator<Item = String>) -> Result<(), AppError> {
    use clap::Parser;
    let argv = std::iter::once("mbsim".to_string()).chain(args);
    let parsed = match cli::Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    cli::run(parsed)
}
