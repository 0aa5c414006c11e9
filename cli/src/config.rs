//! `--config run.toml`: the options of a run in a small file; flags given on the command line
//! override it. Unknown keys are errors that name the key (serde's `deny_unknown_fields`), so a
//! typo never silently does nothing.
//!
//! ```toml
//! [parameters]              # by name, like --param
//! mom = 0.04
//!
//! [initial]
//! q0 = [-0.0617, 0.0, 0.4553, 0.2227, 0.4873, -0.2227, 1.2305]   # whole vector (optional)
//! q = { theta = 0.01 }      # single coordinates by name, after q0
//! v = { beta = 10.0 }
//! lock = ["beta"]           # kept fixed by the consistent initialization
//!
//! [method]                  # like --method, --stabilization, --rtol, …
//! name = "rkstab"
//! stabilization = "pstab"
//! rtol = 1e-8
//!
//! [output]                  # like --t-end, --dt-out, --out, --svg, --wrap-angles
//! t_end = 0.03
//! dt_out = 1e-4
//! out = "out/andrews"
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::AppError;

/// The whole file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// Runtime parameters by name.
    #[serde(default)]
    pub parameters: BTreeMap<String, f64>,
    /// The initial state.
    #[serde(default)]
    pub initial: Initial,
    /// The method and its options.
    #[serde(default)]
    pub method: MethodSection,
    /// The output grid and files.
    #[serde(default)]
    pub output: OutputSection,
}

/// `[initial]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Initial {
    /// Whole q0.
    pub q0: Option<Vec<f64>>,
    /// Whole v0.
    pub v0: Option<Vec<f64>>,
    /// Coordinates by name.
    #[serde(default)]
    pub q: BTreeMap<String, f64>,
    /// Velocities by coordinate name.
    #[serde(default)]
    pub v: BTreeMap<String, f64>,
    /// Locked coordinates.
    #[serde(default)]
    pub lock: Vec<String>,
}

/// `[method]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSection {
    /// `--method`.
    pub name: Option<String>,
    /// `--stabilization`.
    pub stabilization: Option<String>,
    /// `--rtol`.
    pub rtol: Option<f64>,
    /// `--atol`.
    pub atol: Option<f64>,
    /// `--datol`.
    pub datol: Option<f64>,
    /// `--h`.
    pub h: Option<f64>,
    /// `--order`.
    pub order: Option<usize>,
    /// `--alpha`.
    pub alpha: Option<f64>,
    /// `--beta`.
    pub beta: Option<f64>,
    /// `--gamma`.
    pub gamma: Option<f64>,
    /// `--samples`.
    pub samples: Option<String>,
    /// `--max-steps`.
    pub max_steps: Option<usize>,
}

/// `[output]`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OutputSection {
    /// `--t-end`.
    pub t_end: Option<f64>,
    /// `--dt-out`.
    pub dt_out: Option<f64>,
    /// `--out`.
    pub out: Option<PathBuf>,
    /// `--svg`.
    pub svg: Option<bool>,
    /// `--wrap-angles` (names; empty = every coordinate).
    pub wrap_angles: Option<Vec<String>>,
    /// `--write` (items).
    pub write: Option<Vec<String>>,
    /// `--format`.
    pub format: Option<String>,
}

/// Read and parse `path`.
pub fn load(path: &Path) -> Result<FileConfig, AppError> {
    let bad = |message: String| AppError::Config {
        path: path.to_path_buf(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|e| bad(e.to_string()))?;
    toml::from_str(&text).map_err(|e| bad(e.to_string().trim_end().replace('\n', " | ")))
}
