//! The command line: the top-level clap definition ([`Cli`], [`Command`]) and the dispatch to
//! the subcommands, each of which owns its arguments (`simulate::args`, `animate`, `sweep`,
//! `analysis`, `check`, `eval`): this file imports them, they never import it.
//!
//! clap rejects unknown subcommands, flags and `--method`/`--stabilization` values itself (exit
//! status 2, with the list of valid values); the subcommands reject what clap cannot see:
//! unknown models and parameters, `t_end <= 0`, negative or non-finite tolerances (exit status 1).
//!
//! Usage, help and error lines carry the name of the binary that embeds the command set
//! ([`registry::program`]: a user's crate's own binary name, `mbsim` for the built-in one).

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::error::AppError;
use crate::registry;

/// Constrained multibody models: simulate, animate, sweep, analyse, check.
#[derive(Debug, Parser)]
#[command(name = "mbsim", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Simulate a model with RKSTAB (DOPRI5 + stabilization); write trajectory.csv,
    /// summary.json and plots into --out.
    Simulate(crate::simulate::args::SimulateArgs),
    /// Simulate, then draw the mechanism moving: animation.gif, frame.png and animation.html
    /// (an SVG player with a time slider) in --out. Needs a model that declares `draw`.
    Animate(crate::animate::AnimateArgs),
    /// Run a model over a grid or random samples of parameters and initial values, in
    /// parallel; one row per run in sweep.csv (failures recorded with their error).
    Sweep(crate::sweep::SweepArgs),
    /// Merge the output directories of `sweep --shard I/N` into one sweep.csv and sweep.json;
    /// checks that the manifests agree and every run is there once, names a shard to rerun.
    SweepMerge(crate::sweep::merge::MergeArgs),
    /// List the models and their sources.
    List,
    /// Print a model's generated kernels (the committed macro expansion).
    Kernels {
        /// Model name (see `mbsim list`).
        model: String,
    },
    /// Every kernel of an annotated model file at one state, with accelerations and
    /// multipliers from the runtime's KKT solve, as JSON (nothing is compiled).
    Eval(crate::eval::EvalArgs),
    /// Write the expansion of every model of an annotated file into DIR (or check it).
    Generate {
        /// The model file.
        file: PathBuf,
        /// Output directory.
        #[arg(long)]
        out: PathBuf,
        /// Write nothing; fail when a file is missing or differs.
        #[arg(long)]
        check: bool,
    },
    /// Kinematic analysis of a fully driven (0-DOF) model: q, v, a along the time grid;
    /// writes kinematics.csv, summary.json and plots into --out.
    Kinematics(crate::analysis::AnalysisArgs),
    /// Inverse dynamics of a fully driven model: the kinematics plus the multipliers and the
    /// reaction (driving) force of every named constraint row (reactions.csv).
    Inverse(crate::analysis::AnalysisArgs),
    /// Static equilibrium: reduced Newton on the potential energy (models with tangent and
    /// energy kernels) and/or dynamic settling with added damping; writes equilibrium.json.
    Equilibrium(crate::analysis::EquilibriumArgs),
    /// Diagnostics: n, m, k, rank of G, degrees of freedom, redundant constraint rows by name,
    /// at the model's guess, at given coordinates (--q), or at a time of a previous run
    /// (--at TIME --from DIR).
    Check(crate::check::CheckArgs),
    /// Export an FMI 2.0 co-simulation FMU (modelDescription.xml and the C API library; the
    /// method, stabilization and tolerances are FMU parameters). See `mbsim-fmu`.
    Fmu {
        /// Model name (see `mbsim list`).
        model: String,
        /// The .fmu file to write.
        #[arg(long)]
        out: PathBuf,
    },
    #[cfg(feature = "builtin")]
    /// Reproduce a published table: Chin's 3.1, 4.1, 4.2, 4.6, 4.7, 4.8, p10, p11, chin5; Wu's wu2, wu3,
    /// wu-alpha; Haug's 7.4.1, 7.4.2, 7.4.3, 7.4.4, 7.4.6, 7.4.7, 7.4.8, ex7.4.5, 7.4.11;
    /// pstab-adams (PStab on Adams methods, ours); iftomm (the IFToMM basic set A01-A05 beside
    /// EXUDYN; not in all); or all.
    Repro {
        /// Table name.
        table: String,
        /// Directory for the CSV files and plots.
        #[arg(long, default_value = "out/repro")]
        out: PathBuf,
    },
}

/// The clap command under the program's name: usage lines, `about` and every help text that
/// names the built-in binary (`see `mbsim list``) name the embedding binary instead.
pub fn command() -> clap::Command {
    let cmd = renamed(Cli::command(), registry::program());
    // `repro` reproduces the sources' tables on the built-in catalog: not a command of a
    // user's binary (which may still be built with the `builtin` feature when it shares a
    // workspace, as this repository's example does, through feature unification).
    #[cfg(feature = "builtin")]
    let cmd = match registry::is_builtin_catalog() {
        true => cmd,
        false => cmd.mut_subcommand("repro", |s| s.hide(true)),
    };
    cmd
}

/// `cmd` and its subcommands with the command `mbsim` (as in "see `mbsim list`") replaced by
/// `program` in names and help texts; crate names such as `mbsim_cli` are left alone.
fn renamed(cmd: clap::Command, program: &'static str) -> clap::Command {
    let swap = |text: &clap::builder::StyledStr| {
        text.to_string()
            .replace("`mbsim ", &format!("`{program} "))
            .replace("`mbsim`", &format!("`{program}`"))
    };
    let mut cmd = cmd.mut_args(|arg| {
        let help = arg.get_help().map(swap);
        let long = arg.get_long_help().map(swap);
        let arg = match help {
            Some(h) => arg.help(h),
            None => arg,
        };
        match long {
            Some(h) => arg.long_help(h),
            None => arg,
        }
    });
    if let Some(about) = cmd.get_about().map(swap) {
        cmd = cmd.about(about);
    }
    if let Some(about) = cmd.get_long_about().map(swap) {
        cmd = cmd.long_about(about);
    }
    if cmd.get_name() == "mbsim" {
        cmd = cmd.name(program).bin_name(program);
    }
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |s| renamed(s, program));
    }
    cmd
}

/// Parse `args` (without the program name) under the program's name; clap's own errors and
/// `--help` exit here, as clap does.
pub fn parse(args: impl IntoIterator<Item = String>) -> Cli {
    let argv = std::iter::once(registry::program().to_string()).chain(args);
    let matches = command().get_matches_from(argv);
    match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.format(&mut command()).exit(),
    }
}

/// Run a parsed command line.
pub fn run(cli: Cli) -> Result<(), AppError> {
    match cli.command {
        Command::Simulate(args) => crate::simulate::command(&args),
        Command::Animate(args) => crate::animate::run(&args),
        Command::Sweep(args) => crate::sweep::run(&args),
        Command::SweepMerge(args) => crate::sweep::merge::run(&args),
        Command::List => {
            for m in registry::models() {
                crate::say!(
                    "{:<26} {}\n{:<26} source: {}",
                    m.name,
                    m.title,
                    "",
                    m.source
                );
            }
            Ok(())
        }
        Command::Kernels { model: name } => {
            crate::say!("{}", registry::entry(&name)?.kernels.trim_end());
            Ok(())
        }
        Command::Eval(a) => {
            crate::say!("{}", crate::eval::run(&a.input())?);
            Ok(())
        }
        Command::Generate { file, out, check } => {
            let outcome = crate::generate::run(&file, &out, check)?;
            let verb = if check { "stale" } else { "written" };
            eprintln!(
                "{}: {} generated file(s) fresh, {} {verb}",
                registry::program(),
                outcome.fresh.len(),
                outcome.changed.len()
            );
            Ok(())
        }
        Command::Kinematics(a) => crate::analysis::kinematic(&a, false),
        Command::Inverse(a) => crate::analysis::kinematic(&a, true),
        Command::Equilibrium(a) => crate::analysis::equilibrium(&a),
        Command::Check(a) => crate::check::check(&a),
        Command::Fmu { model: name, out } => crate::fmu::export(registry::entry(&name)?, &out),
        #[cfg(feature = "builtin")]
        Command::Repro { table, out } => crate::repro::run(&table, &out),
    }
}
