//! The runtime's integration tests as one test binary (one link, one instantiation of the
//! generic numerics, instead of one per file); each module is the former `tests/<name>.rs`.
//! The allocation-counting tests stay separate binaries (`tests/*no_alloc.rs`): their global
//! allocator would count the other tests' allocations.

mod common;
mod implicit_models;

mod adams;
mod adams_stability;
mod ali3p;
mod analysis;
mod andrews;
mod banded_kkt;
mod conditioning;
mod conditioning_structural;
mod conformance;
mod continuous;
mod diagnosis;
mod dop853;
mod failures;
mod four_bar_chain;
mod hpim;
mod hpim_oracle;
mod implicit;
mod implicit_failures;
mod implicit_nonholonomic;
mod implicit_sparse;
mod initialization;
mod kernels_fd;
mod mechanisms;
mod npc;
mod partition;
mod problem_and_options;
mod radau;
mod rolling_disc;
mod short_last_step;
mod slider_crank;
mod table_3_1;
