//! Repository hygiene (matklad's "tidy" tests): every Rust file opens with a `//!` paragraph
//! saying what it owns (generated files: the `// @generated` stamp), no test is skipped (the `ignore` attribute) or expects a panic (the
//! `should_panic` attribute; assert the `Err` instead),
//! and no file grows past the size where it should be split.

use std::path::{Path, PathBuf};

/// Files above this many lines must be split by concern (STYLE-ANCHORS rule 10, ~800 lines);
/// generated code is exempt.
const MAX_LINES: usize = 900;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir)
        .expect("readable directory")
        .flatten()
    {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() {
            if !matches!(name.as_str(), "target" | ".git" | ".venv" | "out" | "ui") {
                rust_files(&path, out);
            }
        } else if name.ends_with(".rs") {
            out.push(path);
        }
    }
}

fn workspace_files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = Vec::new();
    for krate in [
        "mbsim", "codegen", "runtime", "models", "cli", "tests", "xtask", "python", "fmu",
    ] {
        rust_files(&root.join(krate), &mut files);
    }
    files.sort();
    files
}

#[test]
fn every_file_starts_with_a_module_doc() {
    let missing: Vec<String> = workspace_files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).expect("utf-8 source");
            // Generated files open with the `// @generated` stamp instead (includable).
            let generated = text.starts_with(mbsim_codegen::frontend::file::STAMP_PREFIX);
            !text.trim_start().starts_with("//!") && !generated
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "files without a `//!` paragraph:\n{}",
        missing.join("\n")
    );
}

#[test]
fn no_skipped_or_panic_expecting_tests() {
    let ignore = ["#[", "ignore]"].concat();
    let should_panic = ["#[", "should_panic"].concat();
    let offenders: Vec<String> = workspace_files()
        .into_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).expect("utf-8 source");
            text.contains(&ignore) || text.contains(&should_panic)
        })
        .map(|p| p.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "skipped or panic-expecting tests in:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn files_stay_small() {
    let large: Vec<String> = workspace_files()
        .into_iter()
        .filter(|p| !p.components().any(|c| c.as_os_str() == "generated"))
        .filter_map(|p| {
            let lines = std::fs::read_to_string(&p)
                .expect("utf-8 source")
                .lines()
                .count();
            (lines > MAX_LINES).then(|| format!("{} ({lines} lines)", p.display()))
        })
        .collect();
    assert!(large.is_empty(), "files to split:\n{}", large.join("\n"));
}

/// The names of the `[dependencies]` table of a crate's manifest (not dev- or build-).
fn normal_dependencies(krate: &str) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let manifest = std::fs::read_to_string(root.join(krate).join("Cargo.toml")).expect("manifest");
    let mut in_table = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_table = line == "[dependencies]";
        } else if in_table && let Some((name, _)) = line.split_once('=') {
            names.push(name.trim().trim_end_matches(".workspace").to_string());
        }
    }
    names.sort();
    names
}

/// A user of the mechanisms compiles none of the CLI's dependencies (clap, plotters, csv,
/// indicatif): `mbsim-models` depends on the façade alone, and the façade on the annotation, the
/// runtime, the semi-explicit DAE crate (`mbsim::dae`, itself on nalgebra and thiserror) and
/// nalgebra.
#[test]
fn models_depend_on_the_facade_alone() {
    assert_eq!(normal_dependencies("models"), ["mbsim"]);
    assert_eq!(
        normal_dependencies("mbsim"),
        ["mbsim-dae", "mbsim-macros", "mbsim-runtime", "nalgebra"]
    );
}
