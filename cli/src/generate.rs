//! `mbsim generate <file.rs> --out DIR [--check]`: write (or compare) the expansion of every
//! annotated model of a user's file, exactly what the proc-macro expands to
//! (`mbsim_codegen::frontend::file::render`), one `<snake_name>.rs` per model. `--check` writes
//! nothing and fails when a file is missing or differs. Model errors are `file:line:col: message`.
//! Also the model-file reader of `mbsim eval`.

use mbsim_codegen::Model;
use mbsim_codegen::frontend::file;
use std::path::{Path, PathBuf};

use crate::error::AppError;

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files that were up to date.
    pub fresh: Vec<PathBuf>,
    /// Files written (write mode) or found stale or missing (check mode).
    pub changed: Vec<PathBuf>,
}

/// Generate (or check) the models of `path` into `out`.
pub fn run(path: &Path, out: &Path, check: bool) -> Result<Outcome, AppError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| AppError::Io { path, source }
    };
    let text = std::fs::read_to_string(path).map_err(io(path))?;
    let label = path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    let models = file::models_in_source(&text).map_err(|e| located(path, &e))?;
    let mut outcome = Outcome::default();
    if !check {
        std::fs::create_dir_all(out).map_err(io(out))?;
    }
    for model in models {
        let source = file::render(&label, &model).map_err(|e| located(path, &e))?;
        let target = out.join(file::file_name(&model.name));
        if std::fs::read_to_string(&target).ok().as_deref() == Some(source.as_str()) {
            outcome.fresh.push(target);
            continue;
        }
        if !check {
            std::fs::write(&target, source).map_err(io(&target))?;
        }
        outcome.changed.push(target);
    }
    if check && !outcome.changed.is_empty() {
        let list: Vec<String> = outcome
            .changed
            .iter()
            .map(|p| format!("  {}", p.display()))
            .collect();
        return Err(AppError::ModelFile(format!(
            "generated files are stale (run `mbsim generate {} --out {}`):\n{}",
            path.display(),
            out.display(),
            list.join("\n")
        )));
    }
    Ok(outcome)
}

/// The model `name` (or the only one) of the annotated file `path`, validated.
pub fn read_model(path: &Path, name: Option<&str>) -> Result<Model, AppError> {
    let text = std::fs::read_to_string(path).map_err(|source| AppError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let found = file::models_in_source(&text).map_err(|e| located(path, &e))?;
    let names: Vec<&str> = found.iter().map(|m| m.name.as_str()).collect();
    let file = path.display();
    let chosen = match (name, found.len()) {
        (Some(name), _) => found.iter().find(|m| m.name == name).ok_or_else(|| {
            AppError::ModelFile(format!(
                "{file}: no model `{name}` (models in this file: {})",
                names.join(", ")
            ))
        })?,
        (None, 1) => &found[0],
        (None, 0) => {
            return Err(AppError::ModelFile(format!(
                "{file}: no `#[model(…)]` struct in this file"
            )));
        }
        (None, _) => {
            return Err(AppError::ModelFile(format!(
                "{file}: several models ({}); pick one with --model",
                names.join(", ")
            )));
        }
    };
    chosen.build().map_err(|e| located(path, &e))
}

/// A syn error located in `file`, as `file:line:col: message` lines (one per combined error).
pub fn located(file: &Path, error: &syn::Error) -> AppError {
    let lines: Vec<String> = error
        .clone()
        .into_iter()
        .map(|e| {
            let start = e.span().start();
            format!(
                "{}:{}:{}: {e}",
                file.display(),
                start.line,
                start.column + 1
            )
        })
        .collect();
    AppError::ModelFile(lines.join("\n"))
}
