//! Mechanisms of the sources as annotated models.
//!
//! Scheme (one per model, simple to extend):
//! - `src/<model>.rs` holds the annotated struct, `#[mbsim::model(…)]`; `lib.rs` declares it as
//!   a module, so the crate compiles the macro's expansion — the same path a user's crate takes.
//! - `src/generated/<model>.rs` is the reviewed copy of that expansion, written by
//!   `cargo xtask generate` (stamped `@generated`, prettyplease-formatted). It is not compiled
//!   (the struct would exist twice); it exists so that every change to a model's kernels shows
//!   up as a diff in review. `tests/fresh.rs` (and `cargo xtask generate --check` in CI) fails
//!   when a copy is stale, and compares it byte for byte with the macro's expansion.
//!
//! - Next to each model, `pub const ENTRY: ModelEntry` is its catalog entry (name, source,
//!   default parameters, initial guess, default run) for front ends such as the `mbsim` command
//!   (crate `mbsim-cli`); [`catalog`] lists them. This crate depends on the façade `mbsim` only:
//!   a user of the mechanisms compiles none of the command's dependencies.
//!
//! Adding a model: write `src/<name>.rs` with an annotated struct and its `ENTRY`, add
//! `pub mod <name>;`, a re-export and a line in [`catalog`] here, run `cargo xtask generate`,
//! and commit both files.

// Parameter docs give units in brackets (`[kg]`, `[rad]`), as the sources print them; they are
// not intra-doc links.
#![allow(rustdoc::broken_intra_doc_links)]

pub mod andrews;
pub mod belt_friction;
pub mod bouncing_ball;
pub mod bricard;
pub mod bricard_points;
pub mod crank_slider_wu;
pub mod deformable_slider_crank;
pub mod five_link;
pub mod flyball_governor;
pub mod four_bar_chain;
pub mod four_bar_chain_bodies;
pub mod four_bar_chain_driven;
pub mod four_bar_chain_extra;
pub mod four_bar_change_point;
pub mod haug_pendulum;
pub mod heavy_top;
pub mod lift_off;
pub mod me451_pendulum;
pub mod parallelogram_lock;
pub mod pendulum;
pub mod redundant_pendulum;
pub mod rigid_slider_crank_ch5;
pub mod rolling_disc;
pub mod serial_arm;
pub mod singular_slider_crank;
pub mod slewing_beam;
pub mod slider_crank_reformulated;
pub mod slider_crank_stop;
pub mod slider_crank_tsda;
pub mod spatial_double_pendulum;
pub mod spatial_slider_crank;
pub mod spring_bar;
pub mod triple_crank;
pub mod truss14;
pub mod truss14_twice;
pub mod two_arm_robot;
pub mod two_link;
pub mod two_link_case2;
pub mod two_link_case2_driven;
pub mod wall_pendulum;

pub use andrews::Andrews;
pub use belt_friction::BeltFriction;
pub use bouncing_ball::BouncingBall;
pub use bricard::Bricard;
pub use bricard_points::{BricardPoints, BricardPointsReduced};
pub use crank_slider_wu::CrankSliderWu;
pub use deformable_slider_crank::DeformableSliderCrank;
pub use five_link::FiveLink;
pub use flyball_governor::FlyballGovernor;
pub use four_bar_chain::FourBarChain;
pub use four_bar_chain_bodies::FourBarChainBodies;
pub use four_bar_chain_driven::FourBarChainDriven;
pub use four_bar_chain_extra::{FourBarChainExtra, FourBarChainExtraReduced};
pub use four_bar_change_point::FourBarChangePoint;
pub use haug_pendulum::HaugPendulum;
pub use heavy_top::HeavyTop;
pub use lift_off::LiftOff;
pub use me451_pendulum::Me451Pendulum;
pub use parallelogram_lock::ParallelogramLock;
pub use pendulum::Pendulum;
pub use redundant_pendulum::RedundantPendulum;
pub use rigid_slider_crank_ch5::RigidSliderCrankCh5;
pub use rolling_disc::RollingDisc;
pub use serial_arm::SerialArm;
pub use singular_slider_crank::SingularSliderCrank;
pub use slewing_beam::SlewingBeamTie;
pub use slider_crank_reformulated::SliderCrankReformulated;
pub use slider_crank_stop::SliderCrankStop;
pub use slider_crank_tsda::SliderCrankTsda;
pub use spatial_double_pendulum::SpatialDoublePendulum;
pub use spatial_slider_crank::SpatialSliderCrank;
pub use spring_bar::SpringBar;
pub use triple_crank::{TripleCrank, TripleCrankReduced};
pub use truss14::{Truss14Prescribed, Truss14Slot};
pub use truss14_twice::{Truss14PrescribedTwice, Truss14SlotTwice};
pub use two_arm_robot::TwoArmRobot;
pub use two_link::TwoLink;
pub use two_link_case2::TwoLinkCase2;
pub use two_link_case2_driven::TwoLinkCase2Driven;
pub use wall_pendulum::WallPendulum;

use mbsim::runtime::catalog::ModelEntry;

/// Every model's catalog entry, in the order `mbsim list` shows them.
pub fn catalog() -> &'static [ModelEntry] {
    &CATALOG
}

static CATALOG: [ModelEntry; 36] = [
    andrews::ENTRY,
    pendulum::ENTRY,
    two_link::ENTRY,
    two_arm_robot::ENTRY,
    two_link_case2::ENTRY,
    slider_crank_tsda::ENTRY,
    singular_slider_crank::ENTRY,
    slider_crank_reformulated::ENTRY,
    rolling_disc::ENTRY,
    crank_slider_wu::ENTRY,
    me451_pendulum::ENTRY,
    haug_pendulum::ENTRY,
    deformable_slider_crank::ENTRY,
    rigid_slider_crank_ch5::ENTRY,
    two_link_case2_driven::ENTRY,
    spring_bar::ENTRY,
    four_bar_change_point::ENTRY,
    four_bar_chain::ENTRY,
    four_bar_chain_bodies::ENTRY,
    four_bar_chain_driven::ENTRY,
    truss14::ENTRY,
    triple_crank::ENTRY,
    bricard::ENTRY,
    bricard_points::ENTRY,
    four_bar_chain_extra::ENTRY,
    parallelogram_lock::ENTRY,
    heavy_top::ENTRY,
    spatial_double_pendulum::ENTRY,
    spatial_slider_crank::ENTRY,
    flyball_governor::ENTRY,
    serial_arm::ENTRY,
    bouncing_ball::ENTRY,
    wall_pendulum::ENTRY,
    lift_off::ENTRY,
    belt_friction::ENTRY,
    slider_crank_stop::ENTRY,
];

/// Models that are defective on purpose, for the diagnostics (`mbsim check`), and the
/// over-constrained Bricard mechanism (IFToMM A04: one redundant row at every configuration):
/// they cannot be simulated by a KKT solve that needs G of full row rank, so they are kept out
/// of [`catalog`] (whose every entry must run).
pub fn defective() -> &'static [ModelEntry] {
    &DEFECTIVE
}

static DEFECTIVE: [ModelEntry; 1] = [redundant_pendulum::ENTRY];
