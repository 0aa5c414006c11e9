//! Inverse dynamics (\[HAUG\] §7.1, digest §2.8 step 4): along the kinematic solution of a fully
//! driven model, λ from Φ_qᵀ λ = Q − M a, and for every constraint row its reaction — the
//! generalized force −λ_i ∇Φ_i it exerts on the coordinates (M a = Q − Φ_qᵀ λ). A driving
//! constraint's reaction is the driving force or torque: for a driver θ − f(t) = 0 on a joint
//! angle, the torque applied at that joint is −λ.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::system::ConstrainedSystem;

use super::kinematics::{KinematicOptions, KinematicPoint, Kinematics, kinematics};

/// The force one constraint row exerts at one point.
#[derive(Clone, Debug, PartialEq)]
pub struct Reaction {
    /// Row index (into λ and G).
    pub row: usize,
    /// The row's name (its label in the model, otherwise `phi_i`).
    pub name: String,
    /// Its multiplier λ_i.
    pub lambda: f64,
    /// −λ_i ∇Φ_i: the generalized force on each coordinate (length n).
    pub generalized: Vec<f64>,
}

/// Kinematics plus reactions at every point.
#[derive(Clone, Debug, PartialEq)]
pub struct InverseDynamics {
    /// The kinematic solution (with λ).
    pub kinematics: Kinematics,
    /// `reactions[i]` belongs to `kinematics.points[i]`, one entry per constraint row.
    pub reactions: Vec<Vec<Reaction>>,
}

/// The reaction of every constraint row at `point`.
pub fn reactions<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    point: &KinematicPoint,
) -> Result<Vec<Reaction>, SimError> {
    let d = sys.dims();
    let mut g = DMatrix::zeros(d.constraint_rows(), d.n);
    kernels::jacobian(sys, point.t, &point.q, &mut g)?;
    let names = sys.constraint_names();
    Ok((0..d.constraint_rows())
        .map(|i| Reaction {
            row: i,
            name: names[i].clone(),
            lambda: point.lambda[i],
            generalized: (0..d.n).map(|j| -point.lambda[i] * g[(i, j)]).collect(),
        })
        .collect())
}

/// Inverse dynamics of `sys` at `times` (kinematic analysis, then the reactions).
pub fn inverse_dynamics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    times: &[f64],
    q_guess: &[f64],
    opts: &KinematicOptions,
) -> Result<InverseDynamics, SimError> {
    let kinematics = kinematics(sys, times, q_guess, opts)?;
    let reactions = kinematics
        .points
        .iter()
        .map(|p| reactions(sys, p))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(InverseDynamics {
        kinematics,
        reactions,
    })
}
