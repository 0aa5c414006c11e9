//! The 14-bar truss of [`crate::truss14`] over-constrained: its tip constraint written twice,
//! the second time scaled by a factor `copy` (`slot_copy = copy · slot`,
//! `prescribed_copy = copy · prescribed`). E = Φ_D has two rows of rank 1, so S = E M⁻¹ Eᵀ is
//! singular; HPIM and NPC leave one row out ([`mbsim::runtime::redundancy`]) and must move the
//! structure exactly as the single constraint does.
//!
//! The copy is evaluated by the generated kernels as `copy` times the row's own expression,
//! rounded: with a factor that is not a power of two (1.5, 3) the dependency holds only to
//! round-off, as for a joint a user writes twice. Which row is left out follows `mbsim check`'s
//! choice (the first row in the model's order whose remaining norm is at least half the
//! largest): the copy for |copy| ≤ 2, the original for |copy| > 2.

use mbsim::model;
use mbsim::runtime::Structural;

use crate::truss14::{Loading, structure};

/// Constraint (i) twice: node a in the circular slot, and again scaled by `copy`.
#[model(
    coordinates: [u1, v1, u2, v2, u3, v3, u4, v4, u5, v5, u6, v6, ua, va],
    holonomic: [
        slot = (ua - ex).powi(2) + (va - ey).powi(2) - r.powi(2),
        slot_copy = copy * ((ua - ex).powi(2) + (va - ey).powi(2) - r.powi(2)),
    ],
    mass: diag(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    force: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Truss14SlotTwice {
    /// Slot centre offset e_x [m] (0.05).
    pub ex: f64,
    /// Slot centre offset e_y [m] (0).
    pub ey: f64,
    /// Slot radius r [m] (0.05).
    pub r: f64,
    /// Scale of the second copy.
    pub copy: f64,
}

/// Constraint (ii) twice: v_a = amp sin(ω t), and again scaled by `copy`.
#[model(
    coordinates: [u1, v1, u2, v2, u3, v3, u4, v4, u5, v5, u6, v6, ua, va],
    holonomic: [
        prescribed = va - amp * (omega * t).sin(),
        prescribed_copy = copy * (va - amp * (omega * t).sin()),
    ],
    mass: diag(1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0),
    force: [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
)]
#[derive(Clone, Debug, PartialEq)]
pub struct Truss14PrescribedTwice {
    /// Amplitude [m] (0.005).
    pub amp: f64,
    /// Angular frequency [rad/s] (2π).
    pub omega: f64,
    /// Scale of the second copy.
    pub copy: f64,
}

/// [`crate::truss14::slot`] with the slot written twice (the second scaled by `copy`).
pub fn slot_twice(loading: Loading, copy: f64) -> Structural<Truss14SlotTwice> {
    let slot = Truss14SlotTwice {
        ex: 0.05,
        ey: 0.0,
        r: 0.05,
        copy,
    };
    Structural::new(structure(loading), slot)
}

/// [`crate::truss14::prescribed`] with the prescribed motion written twice (the second scaled
/// by `copy`); its initial state is [`crate::truss14::prescribed_initial`].
pub fn prescribed_twice(loading: Loading, copy: f64) -> Structural<Truss14PrescribedTwice> {
    let c = Truss14PrescribedTwice {
        amp: 0.005,
        omega: 2.0 * std::f64::consts::PI,
        copy,
    };
    Structural::new(structure(loading), c)
}
