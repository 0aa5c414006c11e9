//! The committed `src/generated/` files are fresh, and each is byte for byte what the macro
//! expands to: the same generator as `cargo xtask generate --check` (rust-analyzer's
//! `generate(check = true)` test), then, independently of xtask, every committed file against
//! `stamp + prettyplease(mbsim_codegen::frontend::expand(attr, item))` of its annotated source — the
//! very function the proc-macro calls. Also: rustfmt leaves the committed files alone.

use quote::ToTokens;
use std::path::Path;

#[test]
fn generated_files_are_fresh() {
    let root = xtask::workspace_root();
    if let Err(e) = xtask::generate::models(&root, true) {
        panic!("{e:#}");
    }
}

#[test]
fn generated_files_are_the_macro_expansion() {
    use mbsim_codegen::frontend::{expand, file};
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut checked = 0;
    for entry in std::fs::read_dir(&src).expect("models/src") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("read model source");
        let label = format!(
            "models/src/{}",
            path.file_name().expect("file name").to_string_lossy()
        );
        for model in file::models_in_source(&text).expect("parses") {
            let expansion =
                expand(model.attr.clone(), model.item.to_token_stream()).expect("expands");
            let expected = file::stamp(&label, &model.name) + &file::pretty(expansion);
            let generated = src.join("generated").join(file::file_name(&model.name));
            let committed = std::fs::read_to_string(&generated).expect("generated file exists");
            assert!(
                committed == expected,
                "{} is not the macro expansion of {}",
                generated.display(),
                path.display()
            );
            checked += 1;
        }
    }
    assert!(
        checked >= 3,
        "expected the models of src/ to be checked, found {checked}"
    );
}

#[test]
fn rustfmt_leaves_generated_files_alone() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/generated");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("generated dir")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    let status = std::process::Command::new("rustfmt")
        .args(["--edition", "2024", "--check"])
        .args(&files)
        .status();
    assert!(
        status.expect("run rustfmt").success(),
        "rustfmt --check failed on {}",
        dir.display()
    );
}
