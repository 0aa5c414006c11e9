//! Project automation, run as `cargo xtask <task>` (alias in `.cargo/config.toml`):
//!
//! - `test [cargo test args…]`: oracle environment, `cargo fmt --check`, `generate --check`,
//!   then `cargo test --workspace` (see `tasks.rs`);
//! - `oracle-env`: the pinned Python oracle environment in `.venv`;
//! - `python`: the Python package built into `.venv`, its pytest suite and the FMU tests (the
//!   last step of `test`);
//! - `generate [--check]`: the committed expansions of `models/src/*` (see `generate.rs`).
//!
//! A user's own files are the CLI's business: `mbsim generate <file.rs> --out DIR [--check]` and
//! `mbsim eval <file.rs> …`.

use anyhow::{Result, bail};
use xtask::{generate, tasks, workspace_root};

const USAGE: &str = "usage: cargo xtask <task>
  test [cargo test args…]
  oracle-env
  python
  generate [--check]
(a user's own model file: `mbsim generate <file.rs> --out DIR`, `mbsim eval <file.rs> …`)";

fn main() {
    if let Err(e) = run() {
        eprintln!("xtask: error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let root = workspace_root();
    match args.first().map(String::as_str) {
        Some("test") => tasks::test(&root, &args[1..]),
        Some("oracle-env") => tasks::oracle_env(&root),
        Some("python") => tasks::python(&root),
        Some("generate") => generate_task(&root, &args[1..]),
        _ => {
            eprintln!("{USAGE}");
            bail!("unknown or missing task {:?}", args.first());
        }
    }
}

fn generate_task(root: &std::path::Path, args: &[String]) -> Result<()> {
    let check = args.iter().any(|a| a == "--check");
    if let Some(extra) = args.iter().find(|a| *a != "--check") {
        bail!("unexpected argument `{extra}`\n{USAGE}");
    }
    let outcome = generate::models(root, check)?;
    let verb = if check { "up to date" } else { "written" };
    for path in &outcome.changed {
        eprintln!(
            "xtask: {} {}",
            if check { "stale" } else { verb },
            path.display()
        );
    }
    eprintln!(
        "xtask: {} generated file(s) fresh, {} {}",
        outcome.fresh.len(),
        outcome.changed.len(),
        if check { "stale" } else { "written" }
    );
    Ok(())
}
