//! FMI 2.0 co-simulation export of a model (`mbsim fmu MODEL --out model.fmu`).
//!
//! - [`variables`], the FMU's variables of a model — its runtime parameters, the integration
//!   settings (`method`, `stabilization`, `rtol`, `atol`, `h`), the initial guesses
//!   (`<q>_0`, `<q>_dot_0`) and the outputs named after the coordinates (`<q>`, `<q>_dot`),
//!   the constraint rows (`lambda_<row>`) and the drift (`phi_norm`, `phidot_norm`), each with
//!   its value reference;
//! - [`description`], modelDescription.xml;
//! - [`archive`], the .fmu (a zip, stored, deterministic) from the description and the shared
//!   library `mbsim-fmi` (`fmu/capi`, the C API; the one crate with unsafe code) built for
//!   the same models; its co-simulation instance (`fmu/capi/src/slave.rs`, safe code) runs
//!   `doStep` on the product's integrators through the CLI library, which this crate does not
//!   depend on, so that the CLI's thin `mbsim fmu` subcommand can depend on it.

pub mod archive;
pub mod description;
pub mod variables;

pub use archive::{export, find_library};
pub use description::description;
pub use variables::{Kind, Variable, variables};
