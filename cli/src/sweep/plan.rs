//! A sweep prepared once and run in pieces: [`Plan`] checks the options, the axes and the
//! columns against the model, knows how many runs there are and runs any list of run indices
//! (in parallel with rayon), returning their `sweep.csv` rows. `mbsim sweep` runs its shard
//! through it; the Python package's distributed backends (Ray, Dask) build one per task from
//! the same arguments and run the task's indices, so a run's row is the same whatever ran it.

use indicatif::ProgressBar;
use rayon::prelude::*;

use super::SweepArgs;
use super::axes::{self, Axis};
use super::columns::{self, Column};
use super::rows::{self, Layout};
use crate::error::AppError;
use crate::simulate::args::SimConfig;

/// A checked sweep: its run configuration, axes, columns and number of runs.
pub struct Plan {
    cfg: SimConfig,
    axes: Vec<Axis>,
    columns: Vec<Column>,
    seed: u64,
    total: usize,
    layout: Layout,
}

impl Plan {
    /// Check `args` (every option, axis and column against the model) without running.
    pub fn new(args: &SweepArgs) -> Result<Plan, AppError> {
        args.sim.only_for_simulate(
            "an option of `simulate` only (a sweep records every run's final state and CPU time)",
        )?;
        let cfg = args.sim.config()?;
        let probe = crate::simulate::build(&cfg)?;
        let axes = axes::axes(args, probe.as_ref())?;
        let columns = columns::parse_all(probe.as_ref(), &args.columns)?;
        let total = axes::total(args.draws, &axes)?;
        let layout = Layout {
            axes: axes.iter().map(|a| a.name.clone()).collect(),
            names: probe
                .coordinate_names()
                .iter()
                .map(|c| c.to_string())
                .collect(),
            energy: probe.as_energy().is_some(),
            columns: columns.iter().map(|c| c.header.clone()).collect(),
        };
        Ok(Plan {
            cfg,
            axes,
            columns,
            seed: args.seed,
            total,
            layout,
        })
    }

    /// The number of runs of the whole sweep (every shard).
    pub fn runs_total(&self) -> usize {
        self.total
    }

    /// The header of `sweep.csv`.
    pub fn header(&self) -> Vec<String> {
        self.layout.header()
    }

    /// The run configuration (model, method, tolerances, output directory).
    pub fn config(&self) -> &SimConfig {
        &self.cfg
    }

    pub(super) fn axes(&self) -> &[Axis] {
        &self.axes
    }

    pub(super) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The runs of shard `shard` of `shards` (indices ≡ shard mod shards), in order.
    pub fn shard_indices(&self, shard: usize, shards: usize) -> Vec<usize> {
        (shard..self.total).step_by(shards.max(1)).collect()
    }

    /// Run `indices` (each below [`runs_total`](Self::runs_total)) on `threads` threads
    /// (rayon's default: one per core) and return their rows, in the order given; `bar`
    /// advances by one per finished run. A failed run is a row with its error, never a
    /// missing row; an index out of range is an error before anything runs.
    pub fn rows(
        &self,
        indices: &[usize],
        threads: Option<usize>,
        bar: Option<&ProgressBar>,
    ) -> Result<Vec<Vec<String>>, AppError> {
        if let Some(&bad) = indices.iter().find(|&&i| i >= self.total) {
            return Err(AppError::BadValue {
                what: "run index",
                value: format!("{bad} (the sweep has runs 0..{})", self.total),
                why: "beyond the sweep's last run",
            });
        }
        let threads = threads.unwrap_or_else(rayon::current_num_threads).max(1);
        if threads == 1 {
            // A task of a distributed backend: no pool to start, the caller's thread runs it.
            return Ok(indices.iter().map(|&i| self.row(i, bar)).collect());
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| AppError::ModelFile(format!("cannot start {threads} threads: {e}")))?;
        Ok(pool.install(|| indices.par_iter().map(|&i| self.row(i, bar)).collect()))
    }

    /// Run `i` and its row.
    fn row(&self, i: usize, bar: Option<&ProgressBar>) -> Vec<String> {
        let values = axes::values(self.seed, &self.axes, i);
        let outcome = rows::one(&self.cfg, (&self.axes, &self.columns), &values);
        if let Some(bar) = bar {
            bar.inc(1);
        }
        self.layout.cells(i, &outcome)
    }
}
