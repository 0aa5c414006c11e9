//! `cargo xtask generate [--check]`: write (or compare) the committed expansion of every
//! annotated model of `models/src` (a user's file: `mbsim generate`, in the CLI).
//!
//! For the workspace, every `models/src/*.rs` (not recursing into `generated/`) is searched for
//! `#[model(…)]` structs; each becomes `models/src/generated/<snake_name>.rs`, whose text is
//! `mbsim_codegen::frontend::file::render`: the `@generated` stamp (plain comments, so the file
//! can be `include!`d; `models/src/generated/rustfmt.toml` keeps rustfmt off) plus prettyplease
//! of exactly the tokens the proc-macro expands to; `models/tests/suite/fresh.rs` compares the two byte for byte. `--check` writes nothing and fails when a file is missing,
//! differs, or is a stamped leftover of a model that no longer exists; without `--check` such
//! leftovers are removed. Model errors are printed as `file:line:col: message`.

use anyhow::{Result, bail};
use mbsim_codegen::frontend::file::{self, STAMP_PREFIX};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a run found.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files that were up to date.
    pub fresh: Vec<PathBuf>,
    /// Files written (write mode) or found stale, missing or orphaned (check mode).
    pub changed: Vec<PathBuf>,
}

/// Generate (or check) the workspace's models: `models/src/*.rs` → `models/src/generated/`.
pub fn models(root: &Path, check: bool) -> Result<Outcome> {
    let src = root.join("models/src");
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&src)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    sources.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    sources.sort();
    let labelled: Vec<(PathBuf, String)> = sources
        .into_iter()
        .map(|p| {
            let label = p.strip_prefix(root).unwrap_or(&p).display().to_string();
            (p, label)
        })
        .collect();
    run(&labelled, &src.join("generated"), check)
}

/// Render every model of `sources` into `out` (or compare with it when `check`).
fn run(sources: &[(PathBuf, String)], out: &Path, check: bool) -> Result<Outcome> {
    let mut rendered: BTreeMap<String, (String, PathBuf)> = BTreeMap::new();
    let mut errors = Vec::new();
    for (path, label) in sources {
        let text = std::fs::read_to_string(path)?;
        let models = match file::models_in_source(&text) {
            Ok(m) => m,
            Err(e) => {
                errors.push(crate::located(path, &e));
                continue;
            }
        };
        for model in models {
            let name = file::file_name(&model.name);
            match file::render(label, &model) {
                Ok(source) => {
                    if let Some((_, first)) = rendered.insert(name.clone(), (source, path.clone()))
                    {
                        errors.push(format!(
                            "{}: model file name `{name}` also produced by {}",
                            path.display(),
                            first.display()
                        ));
                    }
                }
                Err(e) => errors.push(crate::located(path, &e)),
            }
        }
    }
    if !errors.is_empty() {
        bail!("{}", errors.join("\n"));
    }
    let mut outcome = Outcome::default();
    if !check {
        std::fs::create_dir_all(out)?;
    }
    for (name, (source, _)) in &rendered {
        let target = out.join(name);
        let current = std::fs::read_to_string(&target).ok();
        if current.as_deref() == Some(source.as_str()) {
            outcome.fresh.push(target);
            continue;
        }
        if !check {
            std::fs::write(&target, source)?;
        }
        outcome.changed.push(target);
    }
    for orphan in orphans(out, &rendered)? {
        if !check {
            std::fs::remove_file(&orphan)?;
        }
        outcome.changed.push(orphan);
    }
    if check && !outcome.changed.is_empty() {
        let list: Vec<String> = outcome
            .changed
            .iter()
            .map(|p| format!("  {}", p.display()))
            .collect();
        bail!(
            "generated model files are stale (run `cargo xtask generate`):\n{}",
            list.join("\n")
        );
    }
    Ok(outcome)
}

/// Stamped files in `out` that no model produces any more.
fn orphans(out: &Path, rendered: &BTreeMap<String, (String, PathBuf)>) -> Result<Vec<PathBuf>> {
    let Ok(entries) = std::fs::read_dir(out) else {
        return Ok(Vec::new());
    };
    let mut found = Vec::new();
    for entry in entries {
        let path = entry?.path();
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let stamped = std::fs::read_to_string(&path).is_ok_and(|t| t.starts_with(STAMP_PREFIX));
        if name.ends_with(".rs") && stamped && !rendered.contains_key(&name) {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}
