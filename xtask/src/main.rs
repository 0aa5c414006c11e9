//! Project automation, run as `cargo xtask <task>` (alias in `.cargo/config.toml`):
//!
//! - `test [cargo test args…]`: oracle environment, `cargo fmt --check`, `generate --check`,
//!   then `cargo test --workspace` (see `tasks.rs`);
//! - `oracle-env`: the pinned Python oracle environment in `.venv`;
//! - `generate [--check]`: the committed expansions of `models/src/*` (see `generate.rs`);
//!   `generate <file.rs> --out DIR [--check]` does the same for any file;
//! - `eval <file.rs> [--model NAME] --t T --q a,b,… --v a,b,… [--param name=value]…`: every
//!   kernel of a model at one state, as JSON, without compiling anything (see `eval.rs`).

use anyhow::{Result, bail};
use std::path::PathBuf;
use xtask::{eval, generate, tasks, workspace_root};

const USAGE: &str = "usage: cargo xtask <task>
  test [cargo test args…]
  oracle-env
  generate [--check]
  generate <file.rs> --out DIR [--check]
  eval <file.rs> [--model NAME] --t T --q a,b,… --v a,b,… [--param name=value]…";

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
        Some("generate") => generate_task(&root, &args[1..]),
        Some("eval") => {
            let json = eval::run(&args[1..])?;
            println!("{json}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            bail!("unknown or missing task {:?}", args.first());
        }
    }
}

fn generate_task(root: &std::path::Path, args: &[String]) -> Result<()> {
    let check = args.iter().any(|a| a == "--check");
    let mut rest = args.iter().filter(|a| *a != "--check");
    let outcome = match rest.next() {
        None => generate::models(root, check)?,
        Some(file) => {
            let (Some(flag), Some(out), None) = (rest.next(), rest.next(), rest.next()) else {
                bail!("{USAGE}");
            };
            if flag != "--out" {
                bail!("expected `--out DIR` after the file, found `{flag}`\n{USAGE}");
            }
            generate::user_file(&PathBuf::from(file), &PathBuf::from(out), check)?
        }
    };
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
