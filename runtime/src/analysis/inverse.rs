//! Inverse dynamics (\[HAUG\] §7.1, digest §2.8 step 4): along the kinematic solution of a fully
//! driven model, λ from Φ_qᵀ λ = Q − M a, and for every constraint row its reaction — the
//! generalized force −λ_i ∇Φ_i it exerts on the coordinates (M a = Q − Φ_qᵀ λ). A driving
//! constraint's reaction is the driving force or torque: for a driver θ − f(t) = 0 on a joint
//! angle, the torque applied at that joint is −λ.
//!
//! The multipliers come with the kinematic solution ([`kinematics`]: the KKT solve at each
//! point, banded for a large sparse model). G for the reactions is evaluated as its nonzeros
//! when the model has the sparse forms, and a reaction keeps only the entries of its row of G's
//! structural pattern ([`Reaction::generalized`]: (coordinate, value) pairs; a few per row on
//! a model in body coordinates instead of n), which is what `mbsim inverse` writes.

use nalgebra::DMatrix;

use crate::error::SimError;
use crate::kernels;
use crate::sparse::SparseKkt;
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
    /// −λ_i ∇Φ_i, the generalized force on the coordinates, as (coordinate, value) pairs in
    /// increasing coordinate order over row i's structural nonzeros of G (the model's stated
    /// pattern — `phi_q_sparsity`, `a_sparsity` or every entry of an A row — plus, where G is
    /// evaluated dense, any entry nonzero at this point outside it). Every other coordinate
    /// gets −λ_i·0: [`Reaction::on`] reads one, [`Reaction::dense`] writes all n.
    pub generalized: Vec<(usize, f64)>,
}

impl Reaction {
    /// The generalized force on coordinate `j` (−λ_i·0 off the row's pattern).
    pub fn on(&self, j: usize) -> f64 {
        match self.generalized.binary_search_by_key(&j, |e| e.0) {
            Ok(k) => self.generalized[k].1,
            Err(_) => -self.lambda * 0.0,
        }
    }

    /// The generalized force on every one of the `n` coordinates.
    pub fn dense(&self, n: usize) -> Vec<f64> {
        (0..n).map(|j| self.on(j)).collect()
    }
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
    reactions_with(sys, point, &mut sparse_jacobian(sys))
}

/// The nonzeros' storage of G for a model with the sparse kernel forms (`None`: dense G).
fn sparse_jacobian<S: ConstrainedSystem + ?Sized>(sys: &S) -> Option<SparseKkt> {
    sys.has_nonzero_forms()
        .then(|| SparseKkt::for_system(sys, sys.dims()))
}

/// [`reactions`] with G evaluated into `sparse` when given (its nonzeros only: no dense G of
/// the model's size, and the reactions keep those entries alone).
fn reactions_with<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    point: &KinematicPoint,
    sparse: &mut Option<SparseKkt>,
) -> Result<Vec<Reaction>, SimError> {
    let d = sys.dims();
    let rows = d.constraint_rows();
    let mut generalized: Vec<Vec<(usize, f64)>> = vec![Vec::new(); rows];
    match sparse {
        Some(sp) => {
            sp.eval_jacobian(sys, point.t, &point.q)?;
            for (&(i, j), &g) in sp.jac.entries().iter().zip(&sp.jac.values) {
                generalized[i].push((j, -point.lambda[i] * g));
            }
        }
        None => {
            let mut g = DMatrix::zeros(rows, d.n);
            kernels::jacobian(sys, point.t, &point.q, &mut g)?;
            let mut stated = DMatrix::from_element(rows, d.n, false);
            for (i, j) in crate::sparse::jacobian_pattern(sys, d) {
                stated[(i, j)] = true;
            }
            for (i, row) in generalized.iter_mut().enumerate() {
                let kept = (0..d.n).filter(|&j| stated[(i, j)] || g[(i, j)] != 0.0);
                row.extend(kept.map(|j| (j, -point.lambda[i] * g[(i, j)])));
            }
        }
    }
    let names = sys.constraint_names();
    Ok((generalized.into_iter().enumerate())
        .map(|(i, generalized)| Reaction {
            row: i,
            name: names[i].clone(),
            lambda: point.lambda[i],
            generalized,
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
    let mut sparse = sparse_jacobian(sys);
    let reactions = kinematics
        .points
        .iter()
        .map(|p| reactions_with(sys, p, &mut sparse))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(InverseDynamics {
        kinematics,
        reactions,
    })
}
