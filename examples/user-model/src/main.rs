//! The whole `mbsim` command set (simulate, animate, sweep, kinematics, inverse,
//! equilibrium, check, list, …) for this crate's own models: one line.

mbsim_cli::cli_main!(mbsim_example_user_model::ENTRIES);
