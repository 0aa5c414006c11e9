//! `mbsim fmu MODEL --out model.fmu`: the thin shell over `mbsim-fmu` (description, archive)
//! with the C API library `mbsim-fmi` built for the built-in catalog. A user's crate exports
//! its own models with a cdylib of `mbsim-fmi` without `builtin` (README, "FMU export").

use std::path::Path;

use super::AppError;
use super::registry::ModelEntry;

/// Write the FMU of `entry` to `out`.
pub fn export(entry: &ModelEntry, out: &Path) -> Result<(), AppError> {
    if !cfg!(feature = "builtin") {
        return Err(AppError::Unsupported {
            model: entry.name.to_string(),
            why: "is a user crate's model: its FMU needs a cdylib of mbsim-fmi (without the \
                  `builtin` feature) naming the entries with `mbsim_fmi::fmi_entries!` (see the \
                  README's FMU export)"
                .into(),
        });
    }
    let library = mbsim_fmu::find_library().map_err(AppError::ModelFile)?;
    mbsim_fmu::export(entry, &library, out).map_err(AppError::ModelFile)?;
    crate::say!(
        "wrote {} (FMI 2.0 co-simulation, model identifier `{}`, library {})",
        out.display(),
        mbsim_fmu::description::identifier(entry),
        library.display()
    );
    Ok(())
}
