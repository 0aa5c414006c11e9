//! Mechanisms of the sources as annotated models.
//!
//! Scheme (one per model, simple to extend):
//! - `src/<model>.rs` holds the annotated struct, `#[macros::model(…)]`; `lib.rs` declares it as
//!   a module, so the crate compiles the macro's expansion — the same path a user's crate takes.
//! - `src/generated/<model>.rs` is the reviewed copy of that expansion, written by
//!   `cargo xtask generate` (stamped `@generated`, prettyplease-formatted). It is not compiled
//!   (the struct would exist twice); it exists so that every change to a model's kernels shows
//!   up as a diff in review. `tests/fresh.rs` (and `cargo xtask generate --check` in CI) fails
//!   when a copy is stale, and compares it byte for byte with the macro's expansion.
//!
//! Adding a model: write `src/<name>.rs` with an annotated struct, add `pub mod <name>;` and a
//! re-export here, run `cargo xtask generate`, and commit both files.

pub mod andrews;
pub mod app;
pub mod crank_slider_wu;
pub mod haug_pendulum;
pub mod me451_pendulum;
pub mod pendulum;
pub mod rolling_disc;
pub mod singular_slider_crank;
pub mod slider_crank_reformulated;
pub mod slider_crank_tsda;
pub mod two_arm_robot;
pub mod two_link;
pub mod two_link_case2;

pub use andrews::Andrews;
pub use crank_slider_wu::CrankSliderWu;
pub use haug_pendulum::HaugPendulum;
pub use me451_pendulum::Me451Pendulum;
pub use pendulum::Pendulum;
pub use rolling_disc::RollingDisc;
pub use singular_slider_crank::SingularSliderCrank;
pub use slider_crank_reformulated::SliderCrankReformulated;
pub use slider_crank_tsda::SliderCrankTsda;
pub use two_arm_robot::TwoArmRobot;
pub use two_link::TwoLink;
pub use two_link_case2::TwoLinkCase2;
