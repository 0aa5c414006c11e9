//! The options of the partitioned drift controls ([`PartitionOptions`] for GCP,
//! [`HybridOptions`] for Haug's hybrid algorithm) with their validation, and the record of
//! partition choices ([`Repartition`]) that [`crate::Stats::partitions`] holds. The algorithms
//! and the reading of \[HAUG\] §7.3.2/§7.3.5 are in `partition.rs`.

use crate::baumgarte::Baumgarte;
use crate::error::SimError;
use crate::integrator::common::{invalid, positive};

/// Options of generalized coordinate partitioning ([`crate::Stabilization::Partitioned`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PartitionOptions {
    /// Newton on Φ(u, v, t) = 0 stops when ‖Φ‖∞ ≤ this (absolute, in the units of Φ).
    /// Default 1e-12: Newton converges quadratically from a predictor whose ‖Φ‖ is of the
    /// size of the local error, so a tight tolerance costs about one iteration more than a
    /// loose one, and it leaves ‖Φ‖ at the level of the constraint residual of PStab.
    pub newton_tolerance: f64,
    /// Newton iterations allowed per correction (≥ 1). Default 10: from a predictor with
    /// ‖Φ‖ ≤ 1e-2 quadratic convergence reaches 1e-12 in about 4.
    pub max_newton_iterations: usize,
    /// Re-partition when the conditioning estimate of Φ_u (or G_dep) falls below this fraction
    /// of its value when the partition was chosen, in (0, 1). Default 0.5: the amplification
    /// of the independent coordinates' error into the dependent ones, about 1/ρ, may at most
    /// double over the best choice. Measured (pinned RKSTAB on the Cartesian pendulum from
    /// the horizontal, [0, 1] through the bottom, 40…320 steps, max error against rtol 1e-13):
    /// 0.1 gives orders 4.56, 4.20 and errors up to 2.9 times PStab's (the switch comes late,
    /// after the error was amplified up to tenfold); 0.25 gives 5.07, 5.04 (1.8 times); 0.5
    /// gives 5.04, 5.12 (1.3 times); 0.7 gives 4.98, 5.10 (1.1 times), the same two
    /// switches. 0.5 is the round middle ground: a re-partition costs one LU of Φ_q, but
    /// closer to 1 small oscillations of the best choice could make it switch back and forth.
    pub repartition_ratio: f64,
}

impl Default for PartitionOptions {
    fn default() -> Self {
        Self {
            newton_tolerance: 1e-12,
            max_newton_iterations: 10,
            repartition_ratio: 0.5,
        }
    }
}

impl PartitionOptions {
    /// Reject nonsense before any step is taken.
    pub fn validate(&self) -> Result<(), SimError> {
        positive(
            "stabilization: partition newton_tolerance",
            self.newton_tolerance,
        )?;
        if self.max_newton_iterations == 0 {
            return Err(invalid(
                "stabilization: partition max_newton_iterations",
                "0",
                "must be at least 1",
            ));
        }
        let r = self.repartition_ratio;
        if !(r > 0.0 && r < 1.0) {
            return Err(invalid(
                "stabilization: partition repartition_ratio",
                &r.to_string(),
                "must lie in (0, 1)",
            ));
        }
        Ok(())
    }
}

/// Options of Haug's hybrid algorithm ([`crate::Stabilization::Hybrid`]; `partition.rs` for the
/// reading).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HybridOptions {
    /// The Baumgarte gains in every KKT solve. Haug: "small fixed" values, none given;
    /// default α = β = 1 (critically damped, Chin's B(2, 1)). Measured (RK4, pendulum of the
    /// conformance suite, 80…640 steps per period, GCP correction every step): with α = β = 1
    /// the orders are 4.11, 4.04, 4.09 and the errors below GCP's; with \[WU\]'s α = β = 5
    /// 3.20, 3.59, 4.14 with errors up to 3.4 times GCP's — the larger gains make the
    /// modified ODE stiffer than the corrections need.
    pub baumgarte: Baumgarte,
    /// The constraint tolerance of the check (a): correct only when max(‖Φ‖∞, ‖G v +
    /// [Φ_t; b]‖∞) exceeds it. Default 1e-10.
    pub tolerance: f64,
    /// Correct every step (pure GCP) while the smallest pivot of the last correction's block,
    /// over max|G| (now or at the first partition, the larger), is below this (in [0, 1)).
    /// Default 1e-3. It compares entries of G, so it depends on the units of the coordinates
    /// (angles against lengths): raise it for a model whose well-conditioned positions
    /// already have small ratios.
    pub fallback_ratio: f64,
    /// Newton and re-partition options of the correction (b).
    pub partition: PartitionOptions,
}

impl Default for HybridOptions {
    fn default() -> Self {
        Self {
            baumgarte: Baumgarte {
                alpha: 1.0,
                beta: 1.0,
            },
            tolerance: 1e-10,
            fallback_ratio: 1e-3,
            partition: PartitionOptions::default(),
        }
    }
}

impl HybridOptions {
    /// Reject nonsense before any step is taken (the gains are checked with every Baumgarte).
    pub fn validate(&self) -> Result<(), SimError> {
        positive("stabilization: hybrid tolerance", self.tolerance)?;
        let r = self.fallback_ratio;
        if !(r.is_finite() && (0.0..1.0).contains(&r)) {
            return Err(invalid(
                "stabilization: hybrid fallback_ratio",
                &r.to_string(),
                "must lie in [0, 1)",
            ));
        }
        self.partition.validate()
    }
}

/// Which partition a [`Repartition`] changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartitionLevel {
    /// The positions (LU of Φ_q); with no nonholonomic rows also the velocities.
    Positions,
    /// The velocities of a model with nonholonomic rows (LU of G = [Φ_q; A]).
    Velocities,
}

/// Why a partition was chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RepartitionReason {
    /// The first choice of the run.
    Initial,
    /// The block of the dependent columns became ill-conditioned (its estimate fell below
    /// [`PartitionOptions::repartition_ratio`] times its value when chosen).
    IllConditioned,
    /// Newton for the dependent positions failed with the old partition.
    NewtonFailed,
}

/// One choice of independent coordinates, as reported in [`crate::Stats::partitions`].
#[derive(Clone, Debug, PartialEq)]
pub struct Repartition {
    /// The time of the step attempt (the end of the step) at which it was made.
    pub t: f64,
    /// Positions or velocities.
    pub level: PartitionLevel,
    /// Independent coordinates (indices into q, ascending) before (empty for the first).
    pub old_independent: Vec<usize>,
    /// Independent coordinates after.
    pub new_independent: Vec<usize>,
    /// Why.
    pub reason: RepartitionReason,
    /// The conditioning estimate of the old block that triggered it (NaN for the first
    /// choice and for a Newton failure), and of the new block.
    pub ratio: (f64, f64),
}
