//! The `test` and `oracle-env` tasks and the process helper they share.
//!
//! - `test`: the README's test command — makes sure the Python oracle environment exists
//!   (`oracle-env`), checks formatting, checks that the committed generated models are fresh
//!   (`generate --check`), that the publishable crates package (`cargo package --list`), then
//!   runs every test of the workspace.
//! - `oracle-env`: creates `.venv` with the pinned SymPy/SymEngine used by the oracle tests and
//!   the peer benchmarks, SciPy and EXUDYN for `repro iftomm` (`tests/oracle/requirements.txt`)
//!   and the Python package's tools (maturin, pytest, FMPy, and Ray, Dask, pandas, psutil for
//!   the distributed sweeps: `python/requirements.txt`), if it is missing or incomplete.
//! - `python`: the Python package and the FMU export — builds the extension into `.venv`
//!   (`maturin develop --release`), the `mbsim` binary and the FMI library (release: the
//!   same compiled dependencies as the extension), then runs pytest on `python/tests`.

use anyhow::{Context, Result, bail};
use std::path::Path;
use std::process::Command;

/// The packages a user can depend on: `cargo package --list` must work for each.
const PUBLISHABLE: [&str; 6] = [
    "mbsim",
    "mbsim-runtime",
    "mbsim-kernel-table",
    "mbsim-dae",
    "mbsim-codegen",
    "mbsim-macros",
];

/// Oracle environment, formatting check, generated-code freshness, packaging of the publishable
/// crates, then `cargo test --workspace`.
pub fn test(root: &Path, extra: &[String]) -> Result<()> {
    oracle_env(root)?;
    run(
        Command::new("cargo")
            .args(["fmt", "--all", "--", "--check"])
            .current_dir(root),
        "cargo fmt --check",
    )?;
    crate::generate::models(root, true)?;
    for package in PUBLISHABLE {
        run(
            Command::new("cargo")
                .args([
                    "package",
                    "--list",
                    "--allow-dirty",
                    "--quiet",
                    "-p",
                    package,
                ])
                .stdout(std::process::Stdio::null())
                .current_dir(root),
            &format!("cargo package --list -p {package}"),
        )?;
    }
    run(
        Command::new("cargo")
            // mbsim-peers is the benchmark crate of the peer solvers (russell_ode; SUNDIALS behind
            // a feature), whose dependencies only it compiles; a cold CI run must stay under 20
            // minutes on 2 cores and measured 21 min with it. Its agreement test runs with
            // `cargo test -p mbsim-peers`, its benchmark with `cargo bench -p mbsim-peers`.
            .args([
                "test",
                "--workspace",
                "--exclude",
                "mbsim-peers",
                // The Python bindings have no Rust tests (pytest runs them in `python`), and
                // a test-profile build of PyO3 and NumPy would only cost CI time.
                "--exclude",
                "mbsim-python",
                "--no-fail-fast",
            ])
            .args(extra)
            .current_dir(root),
        "cargo test --workspace",
    )?;
    python(root)
}

/// Build the Python package into `.venv` and the `mbsim` binary and FMI library it is
/// compared with, in release (one profile: they share every compiled dependency), then run
/// pytest on `python/tests`. Missing tools fail loudly (`oracle_env` installs them).
pub fn python(root: &Path) -> Result<()> {
    oracle_env(root)?;
    let venv = root.join(".venv");
    let bin = venv.join("bin");
    let path = std::env::join_paths(std::iter::once(bin.clone()).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .context("PATH with .venv/bin")?;
    run(
        Command::new(bin.join("maturin"))
            .args(["develop", "--release", "--quiet"])
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", &path)
            .current_dir(root.join("python")),
        "maturin develop --release (python/)",
    )?;
    run(
        Command::new("cargo")
            .args([
                "build",
                "--release",
                "--quiet",
                "-p",
                "mbsim-cli",
                "-p",
                "mbsim-fmi",
                "--bin",
                "mbsim",
                "--lib",
            ])
            .current_dir(root),
        "cargo build --release -p mbsim-cli -p mbsim-fmi --bin mbsim --lib",
    )?;
    let release = root.join("target/release");
    run(
        Command::new(bin.join("python"))
            .args(["-m", "pytest", "-q", "python/tests"])
            .env("MBSIM_BIN", release.join("mbsim"))
            .env("MBSIM_FMI_LIBRARY", release.join("libmbsim_fmi.so"))
            .env("MBSIM_CACHE", root.join("target/mbsim-python-cache"))
            .env("PATH", &path)
            .current_dir(root),
        "pytest python/tests",
    )
}

/// Create `.venv` with the pinned oracle packages unless it already imports them.
pub fn oracle_env(root: &Path) -> Result<()> {
    let python = root.join(".venv/bin/python");
    let requirements = root.join("tests/oracle/requirements.txt");
    let probe = "import sympy, symengine, mpmath, numpy, scipy, exudyn, pytest, fmpy; \
                 import maturin; import ray, distributed, pandas, psutil, pyarrow, polars";
    if python.exists()
        && Command::new(&python)
            .args(["-c", probe])
            .output()
            .is_ok_and(|o| o.status.success())
    {
        return Ok(());
    }
    eprintln!(
        "xtask: creating .venv with the pinned oracle packages ({})",
        requirements.display()
    );
    run(
        Command::new("python3")
            .args(["-m", "venv", ".venv"])
            .current_dir(root),
        "python3 -m venv .venv",
    )?;
    run(
        Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", "-r"])
            .arg(&requirements)
            .arg("-r")
            .arg(root.join("python/requirements.txt"))
            .current_dir(root),
        "pip install -r tests/oracle/requirements.txt -r python/requirements.txt",
    )?;
    let check = Command::new(&python)
        .args(["-c", probe])
        .output()
        .context("run the oracle interpreter")?;
    if !check.status.success() {
        bail!(
            "the oracle environment is still incomplete: {}",
            String::from_utf8_lossy(&check.stderr)
        );
    }
    Ok(())
}

/// Run a command, failing with `what` when it cannot start or exits unsuccessfully.
pub fn run(cmd: &mut Command, what: &str) -> Result<()> {
    let status = cmd
        .status()
        .with_context(|| format!("could not start `{what}`"))?;
    if !status.success() {
        bail!("`{what}` failed ({status})");
    }
    Ok(())
}
