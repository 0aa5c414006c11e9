//! The models the `mbsim` command knows: the catalog of `mbsim-models` (each entry sits next to
//! its model), looked up by name.

pub use mbsim::runtime::catalog::ModelEntry;

/// Every model, in the order `mbsim list` shows them.
pub fn models() -> &'static [ModelEntry] {
    mbsim_models::catalog()
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
