//! [`AppError`], everything that can go wrong in a command: a bad argument prints one clear
//! line and exits non-zero; nothing in the command set panics on user input.

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
    /// A previous run's file (`check --from DIR`) is missing a column, unreadable, or of
    /// another model.
    #[error("{path}: {message}")]
    RunFile {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// `sweep-merge`: the shards do not make one whole sweep (manifests that disagree, runs
    /// twice or missing, with the shard to rerun).
    #[error("sweep-merge: {0}")]
    Merge(String),
    /// `repro`: acceptance checks of this code against its sources failed (listed above the
    /// error); rejected readings and contradictions of a source are never counted.
    #[error("{0} acceptance check(s) failed")]
    ChecksFailed(usize),
}
