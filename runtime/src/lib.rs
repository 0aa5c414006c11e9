//! Runtime for constrained multibody simulation.
//!
//! The crate depends only on nalgebra and thiserror. Generated code (from `codegen`, through the
//! proc-macro or `cargo xtask generate`) implements [`ConstrainedSystem`]; integrators consume it.
//! `runtime` never depends on `codegen`.
//!
//! Integrators share one layer ([`integrator`]): a [`Problem`] (t0, t_end, q0, v0, output
//! grid), one [`Integrator`] trait with one signature, [`CommonOptions`] beside each method's
//! own, one run loop with the step-size controller, failure retry, output scheduling, drift
//! monitoring and counters ([`Stats`]). Methods:
//! - [`Rkstab`]: adaptive DOPRI5(4) with post-stabilization (\[CHIN\] RKSTAB);
//! - [`Dop853`]: Hairer's DOP853 (order 8, dense output of order 7) with the same
//!   post-stabilization, for tight tolerances;
//! - [`FixedStep`]: constant-step explicit Runge–Kutta with stabilization (table
//!   reproductions, convergence studies).
//! - [`Implicit`]: Newmark (\[ME451\]), HHT-α and generalized-α on the index-3 DAE with Newton
//!   iterations (`implicit/`), constant or error-controlled steps; [`Radau`]: Radau IIA
//!   (order 5, RADAU5-style) on the same DAE (`radau/`).
//! - [`Hpim`]: the high-precision 2^N matrix-exponential method for structural models
//!   ([`Structure`] + constraint kernels, `structural/`, `hpim/`), and [`Npc`], its paper's
//!   Newmark predictor–corrector.
//! - [`Ali3p`]: the augmented Lagrangian index-3 formulation with projections (trapezoidal
//!   rule, `ali3p/`), which integrates over-constrained models without a row selection.
//! - [`Adams`]: constant-step AB, AMPC and MAMPC (\[WU\], \[HAUG\] PECE) with an RK start or
//!   Haug's order ramp; [`Abm`]: Haug's variable-step variable-order PECE (`adams/`).
//!
//! All but ALI3-P evaluate accelerations through the index-1 KKT solve [`accelerations_into`], control
//! drift with a [`Stabilization`], report through an [`Observer`] and fail with a [`SimError`].
//! [`initialize`] makes a user's initial state consistent.
//!
//! # Codemap
//!
//! - `system.rs`: the kernel contract [`ConstrainedSystem`] (unchanged by the integrators);
//!   `tangent.rs`: the optional [`TangentSystem`] and [`Energy`]; `table.rs`: any kernel by its
//!   row of the one kernel table ([`table::call`]). All three are expanded from that table.
//!   `drawing.rs`: the optional [`Drawing`] of planar and spatial models (points and segments for
//!   animations); the `as_tangents`/`as_energy`/`as_drawing` views of `ConstrainedSystem` reach
//!   the optional parts through a `&dyn ConstrainedSystem`.
//! - `kernels.rs`: checked kernel calls (NaN/∞ → [`SimError::NonFiniteKernel`]), G = [Φ_q; A].
//! - `lu.rs`: in-place pivoted LU ([`lu::DenseLu`]) and the dependent-row diagnosis.
//! - `naming.rs`: kernel entries and singular directions named after the model's coordinates
//!   and constraint rows, for error messages.
//! - `kkt.rs`: [`KktWorkspace`], [`accelerations_into`] (one factorization per evaluation);
//!   `kkt_layout.rs` picks dense or banded per workspace ([`KktSolver`], [`KktLayout`]) from
//!   the model's patterns; `banded.rs` the RCM ordering and the banded LU; `sparse.rs` M and
//!   G as their nonzeros for models with the sparse kernel forms (scattered into the band,
//!   G v over the nonzeros, dense copies on cold paths only).
//! - `baumgarte.rs`: γ̂ and the B(g1, g2) ↔ (α, β) mapping.
//! - `continuous.rs`: Chin's continuous stabilizations (2.58) and (2.63)–(2.64)
//!   ([`Continuous`]): a correction of the field along Gᵀ in every evaluation.
//! - `stabilize/`: [`Stabilization`], [`Stabilizer`] (DATOL, NSTAB, timing); `projection.rs`
//!   (PStab, S-both, velocity-only, GGᵀ, nonholonomic (3.75)); `sfull.rs` (Algorithm 3.2);
//!   `partition.rs` (\[HAUG\] GCP §7.3.2 and the hybrid algorithm §7.3.5).
//! - `drift.rs`: [`DriftMeter`], the one evaluator of ‖Φ‖∞ and ‖G v + [Φ_t; b]‖∞.
//! - `integrator/`: [`Problem`], [`Integrator`], [`CommonOptions`], the run loop
//!   (`driver.rs`), the controllers (`controller.rs`), samples (`sampler.rs`).
//! - `analysis/`: the other analysis modes and the diagnostics ([`analysis`]): kinematic
//!   analysis, inverse dynamics, equilibrium (reduced Newton, settling), `check` (rank, DOF,
//!   redundant rows by name) and the naming of singular configurations in the run loop.
//! - `tableau.rs`, `dense.rs`: DOPRI5 coefficients, fixed-step tableaux, dense output.
//! - `rhs.rs`: f(t, z) = (v, v̇); `rkstab.rs`, `fixed_step.rs`: the methods' steps;
//!   `dop853/`: the stabilized DOP853 step and dense output (`mod.rs`) and its coefficients
//!   with the order conditions up to 8 (`tableau.rs`);
//!   `init.rs`: consistent initialization (velocities in the mass metric, given values kept).
//! - `adams/`: the Adams step on arbitrary past points (`engine.rs`, weights by quadrature in
//!   `quadrature.rs`), the constant-step ([`Adams`], `fixed.rs`) and variable-order ([`Abm`],
//!   `variable.rs`) methods, plain ODEs (`ode.rs`), exact coefficients and stability
//!   polynomials (`coefficients.rs`, `stability.rs`).
//! - `implicit/`: [`Implicit`] — the α family (`scheme.rs`), the Newton iteration with its
//!   iteration matrix from tangent kernels or finite differences (`newton.rs`, `tangents.rs`),
//!   the step on the run loop with error estimate and dense output (`stepper.rs`).
//! - `ali3p/`: [`Ali3p`] — Newton on the trapezoidal q with the augmented-Lagrangian
//!   multiplier update, the velocity and acceleration projections (`step.rs`).
//! - `radau/`: [`Radau`] — Radau IIA s = 3 on the index-3 DAE (`tableau.rs`, the stage Newton
//!   in `newton.rs`, RADAU5's estimate, controller and dense output in `stepper.rs`).
//! - `options.rs`, `output.rs`, `error.rs`: [`Tolerance`], [`StepControl`];
//!   [`Observer`]/[`Recorder`]/[`Stats`]; [`SimError`].
//!
//! Invariants, stated as absences: no allocation after an integrator's construction (tested
//! with a counting allocator); no panic on bad numerics (every numerical failure is a
//! [`SimError`]; only misuse such as wrong slice lengths panics); no second factorization of
//! the KKT matrix per right-hand-side evaluation, and none between the two PStab passes.
//!
//! # Choices made where the sources are ambiguous (numbers refer to SEEDS-DIGEST §4.2)
//!
//! - **8** DOPRI5 coefficients: the standard Hairer–Nørsett–Wanner table ([`tableau`]).
//! - **9** Local error: stabilized 5th-order result minus the modified 4th-order result whose
//!   7th stage is evaluated at the stabilized point (the thesis wording), default
//!   [`ErrorEstimate::Stabilized`]; plain DOPRI5's `h Σ E_j k_j` is available as
//!   [`ErrorEstimate::Unstabilized`].
//! - **10** DATOL test: `max(‖Φ‖∞, ‖Φ_q v + Φ_t‖∞)` (nonholonomic rows included in the second),
//!   unscaled, of the unstabilized result; `DATOL = 0` stabilizes every step without testing.
//! - **11** Baumgarte is a pair: [`Baumgarte`] `{ alpha, beta }` with
//!   `γ̂ = γ − 2α(Φ_q v + Φ_t) − β²Φ`; Chin's `B(g1, g2)` is [`Baumgarte::from_chin`]
//!   (`g1 = 2α`, `g2 = β²`); nonholonomic rows get `−2α (A v + b)`.
//! - **12** PStab: M and G frozen at the unstabilized point and factored once (augmented form
//!   (4.15)); two passes with Jacobi residuals re-evaluated at the current point.
//! - **21** Rheonomic constraints: the velocity invariant and PStab's `r_v` are `Φ_q v + Φ_t`.
//! - **44** The error norm covers all 2n components of (q, v) (Hairer's RMS norm).
//! - **GCP / hybrid** (\[HAUG\] §7.3.2, §7.3.5, digest §2.6) are drift controls of the layer
//!   ([`Stabilization::Partitioned`], [`Stabilization::Hybrid`]), applied after each step like
//!   the projections: the partition from an LU with complete pivoting of Φ_q at the first
//!   predictor, error control on the independent components only (weights ∞ and √(N_i/2n),
//!   so the RMS over 2n is the RMS over the independent ones), re-partition when the block's
//!   pivot against max|Φ_q| halves, velocities partitioned over [Φ_q; A] with nonholonomic
//!   rows; the hybrid adds γ̂ to every solve and corrects only above its tolerance. Haug's
//!   direct integration (§7.3.3) is [`Stabilization::None`]. See `stabilize/partition.rs`.
//! - Counters follow Hairer's `dopri5.f`: `NFCN = 6·NSTEP + 2`, `NREJCT` only after the first
//!   accepted step, `NSTAB` counts rejected attempts too.
#![warn(missing_docs)]

pub mod adams;
pub mod ali3p;
pub mod analysis;
mod augmented_band;
pub mod banded;
pub mod baumgarte;
pub mod catalog;
pub mod continuous;
mod continuous_sparse;
mod dense;
pub mod dop853;
pub mod drawing;
mod drift;
pub mod error;
pub mod events;
pub mod fixed_step;
pub mod hpim;
pub mod implicit;
pub mod init;
mod init_sparse;
pub mod integrator;
mod kernels;
pub mod kkt;
mod kkt_compact;
mod kkt_layout;
pub mod lu;
mod naming;
pub mod options;
pub mod output;
pub mod radau;
pub mod redundancy;
mod redundancy_sparse;
mod rhs;
pub mod rkstab;
mod rkstab_passage;
mod sparse;
pub mod stabilize;
pub mod structural;
pub mod system;
pub mod table;
pub mod tableau;
pub mod tangent;

pub use adams::{Abm, Adams, AdamsKind, AdamsScheme, AdamsStart};
pub use ali3p::{Ali3p, Ali3pPenalty};
pub use baumgarte::Baumgarte;
pub use continuous::{Continuous, ContinuousChoice};
pub use dop853::Dop853;
pub use drawing::Drawing;
pub use drift::DriftMeter;
pub use error::{
    ConstraintRow, Coordinate, DependentRow, InitStage, Kernel, NewtonDiagnosis, SimError,
    SingularBlock, UnderflowCause, ViolatedRow,
};
pub use fixed_step::FixedStep;
pub use hpim::{Expansion, ForceDerivatives, Formulation, Hpim, Npc, Penalty};
pub use implicit::{Implicit, NewtonKind, NewtonOptions, Scheme, StepRule, StepSize};
pub use init::{InitOptions, InitReport, VelocityMetric, initialize};
pub use integrator::{
    CommonOptions, ConsistencyCheck, Integrator, OutputGrid, Problem, SampleContent, SampleKind,
    Solution, integrate,
};
pub use kkt::{Conditioning, KktLayout, KktSolver, KktWorkspace, accelerations_into};
pub use options::{ErrorEstimate, StepControl, Tolerance};
pub use output::{Extra, Observer, Recorder, Sample, Stats, StepInfo};
pub use radau::{Radau, RadauOptions, RadauProbe, radau_system};
pub use redundancy::{Reselection, ReselectionCause, RowSelection};
pub use rkstab::Rkstab;
pub use stabilize::{
    Drift, HybridOptions, PartitionLevel, PartitionOptions, Repartition, RepartitionReason,
    Stabilization, Stabilizer,
};
pub use structural::{Load, Structural, Structure, TimeFunction};
pub use system::{
    ConstrainedSystem, Dims, DynamicsNonzeros, DynamicsOut, GeneratedDiagnostics, MatOut,
    ParameterError, Sparsity, zero_fill,
};
pub use table::{KernelArgs, KernelId, KernelOut};
pub use tangent::{Energy, TangentSystem};
