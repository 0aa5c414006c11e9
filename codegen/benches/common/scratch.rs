//! A scratch crate beside the benchmarks, depending on the façade, for timing `cargo build
//! --release` of generated code (shared by `lagrange.rs` and `structured.rs`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The workspace root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The crate `name` in the bench's scratch directory, with `placeholder` (`"src/lib.rs"` or
/// `"src/main.rs"`) empty, built once so its dependencies are out of later timings.
pub fn scratch_crate(name: &str, placeholder: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::create_dir_all(dir.join("src")).expect("scratch crate dir");
    let facade = root().join("mbsim").canonicalize().expect("façade crate");
    let manifest = format!(
        "[package]\nname = \"{}\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nmbsim = {{ path = {:?} }}\n\n[workspace]\n",
        name.replace('-', "_"),
        facade.display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).expect("manifest");
    let body = match placeholder.ends_with("main.rs") {
        true => "fn main() {}",
        false => "",
    };
    std::fs::write(dir.join(placeholder), body).expect("placeholder");
    cargo_build(&dir);
    dir
}

/// `cargo build --release` of the scratch crate in `dir`, in its own target directory (the
/// bench's environment may name the workspace's).
pub fn cargo_build(dir: &Path) {
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--quiet"])
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .current_dir(dir)
        .status()
        .expect("run cargo");
    assert!(
        status.success(),
        "the scratch crate does not build ({})",
        dir.display()
    );
}
