//! The Adams family (digest §2.5): coefficients and stability analysis. The lead's
//! integrators land beside these.

pub mod coefficients;
pub mod stability;
