//! The models the command knows: the entries handed to [`crate::main`] by the program that
//! embeds the command set (a user's crate: its own models), or, in the built-in `mbsim`
//! binary, the catalog of `mbsim-models` (each entry sits next to its model). Looked up by name.
//!
//! The entries are installed once per process, before any command runs ([`install`]); every
//! command reads them through [`models`], so the command set is the same for every model list.

use std::sync::OnceLock;

pub use mbsim::runtime::catalog::ModelEntry;

use crate::error::AppError;

static MODELS: OnceLock<&'static [ModelEntry]> = OnceLock::new();

/// Use `entries` as this process's models (the first call wins; later calls are ignored, so
/// tests that call [`crate::main_with`] repeatedly with the same list are fine).
pub fn install(entries: &'static [ModelEntry]) {
    let _ = MODELS.set(entries);
}

/// Every model, in the order `mbsim list` shows them.
pub fn models() -> &'static [ModelEntry] {
    MODELS.get().copied().unwrap_or_else(builtin)
}

/// Whether the models in use are the built-in catalog (the `mbsim` binary), not a user's.
#[cfg(feature = "builtin")]
pub fn is_builtin_catalog() -> bool {
    std::ptr::eq(models().as_ptr(), mbsim_models::catalog().as_ptr())
}

/// The built-in catalog (empty without the `builtin` feature).
fn builtin() -> &'static [ModelEntry] {
    #[cfg(feature = "builtin")]
    return mbsim_models::catalog();
    #[cfg(not(feature = "builtin"))]
    return &[];
}

/// Models kept out of [`models`] because they cannot be simulated (defective on purpose, for
/// `mbsim check`); only the built-in catalog has them.
pub fn defective() -> &'static [ModelEntry] {
    #[cfg(feature = "builtin")]
    return mbsim_models::defective();
    #[cfg(not(feature = "builtin"))]
    return &[];
}

/// The model called `name`.
pub fn find(name: &str) -> Option<&'static ModelEntry> {
    mbsim::runtime::catalog::find(models(), name)
}

/// The known names, comma separated (for error messages).
pub fn names() -> String {
    models()
        .iter()
        .map(|m| m.name)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The model called `name`, or an error listing the known ones.
pub fn entry(name: &str) -> Result<&'static ModelEntry, AppError> {
    find(name).ok_or_else(|| AppError::UnknownModel {
        name: name.to_string(),
        known: names(),
    })
}

/// The model `name` from the models or the defective ones (`check` examines both).
pub fn entry_or_defective(name: &str) -> Result<&'static ModelEntry, AppError> {
    find(name)
        .or_else(|| mbsim::runtime::catalog::find(defective(), name))
        .ok_or_else(|| AppError::UnknownModel {
            name: name.to_string(),
            known: names(),
        })
}

static PROGRAM: OnceLock<&'static str> = OnceLock::new();

/// Use `name` as the program's name in usage, help and error lines (the first call wins).
pub fn set_program(name: &'static str) {
    let _ = PROGRAM.set(name);
}

/// The program's name: the binary that embeds the command set (`mbsim` for the built-in one).
pub fn program() -> &'static str {
    PROGRAM.get().copied().unwrap_or("mbsim")
}
