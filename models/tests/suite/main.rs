//! The models' integration tests as one test binary (one link, one instantiation of the
//! generic numerics, instead of one per file); each module is the former `tests/<name>.rs`.
//! `tests/reexport.rs` stays its own crate root: it names its façade path from the root.

/// The runtime's hand-written test models (the 10-window four-bar chain, the crank-angle
/// chain's closed forms), shared with the runtime's tests.
#[path = "../../../runtime/tests/suite/common/mod.rs"]
#[allow(clippy::all, dead_code)]
mod runtime_models;

mod adams;
mod ali3p_redundant;
mod andrews;
mod bricard_points;
mod conformance;
mod damped_chain;
mod deformable_slider_crank;
mod error_texts;
mod events;
mod four_bar_chain;
mod fresh;
mod implicit_me451;
mod include_generated;
mod init_round_off;
mod kinematics_paths;
mod lagrange;
mod macro_vs_interpreter;
mod models;
mod names_and_parameters;
mod partition;
mod passages;
/// The passage matrix, shared with `benches/passages.rs` (which uses all of it).
#[allow(dead_code)]
mod passages_matrix;
/// RKSTAB's drift controls through the passages, shared with `benches/passages.rs`.
mod passages_stabilizations;
mod passages_stabilized;
mod rank_change;
mod rank_regained;
mod redundant;
mod serial_arm;
mod sparse_path;
mod spatial;
mod statics_paths;
mod structural_redundant;
mod tangent_nonzeros;
