//! Project automation as a library, so tests can run the same code as `cargo xtask`: the
//! generator (`generate`, also used by `models/tests/suite/fresh.rs` with `check = true`) and the
//! task runners (`tasks`). Evaluating and generating a user's file is the CLI's (`mbsim eval`,
//! `mbsim generate`).

pub mod generate;
pub mod tasks;

use std::path::{Path, PathBuf};

/// The workspace root (xtask lives one level below it).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

/// A syn error located in `file`, as `file:line:col: message` lines (one per combined error).
pub fn located(file: &Path, error: &syn::Error) -> String {
    error
        .clone()
        .into_iter()
        .map(|e| {
            let start = e.span().start();
            format!(
                "{}:{}:{}: {}",
                file.display(),
                start.line,
                start.column + 1,
                e
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
