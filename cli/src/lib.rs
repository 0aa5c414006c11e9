//! The `mbsim` command as a library: argument parsing ([`cli`]), the model registry
//! ([`registry`]), a simulation run ([`simulate`]) and its files ([`output`], [`plot`]), and the
//! reproduction of the thesis' tables ([`repro`]). `src/main.rs` only calls [`main_with`].
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
pub mod cli;
pub mod eval;
pub mod generate;
pub mod method;
pub mod output;
pub mod plot;
pub mod progress;
pub mod registry;
pub mod repro;
pub mod simulate;

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
    /// Drawing a plot failed.
    #[error("cannot draw {path}: {message}")]
    Plot {
        /// The file.
        path: PathBuf,
        /// The plotting library's message.
        message: String,
    },
}

/// Run the command line `args` (without the program name): the whole `mbsim` program.
pub fn main_with(args: impl IntoIterator<Item = String>) -> Result<(), AppError> {
    use clap::Parser;
    let argv = std::iter::once("mbsim".to_string()).chain(args);
    let parsed = match cli::Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    cli::run(parsed)
}
