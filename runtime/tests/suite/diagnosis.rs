//! The diagnoses carried by the typed failures: which block of a singular KKT matrix failed
//! (the constraint Jacobian, with its dependent rows, or the mass matrix on ker G), and which
//! rows a failed consistent initialization leaves violated.

use crate::common;

use common::Sys;
use common::models::{Broken, Defect, FourBarChain, Pendulum};
use mbsim_runtime::error::{InitStage, SingularBlock, ViolatedRow};
use mbsim_runtime::{
    ConstrainedSystem, InitOptions, KktWorkspace, SimError, accelerations_into, initialize,
};

/// One KKT solve at (q, v); the error if it fails.
fn kkt_error<S: ConstrainedSystem>(sys: &S, q: &[f64], v: &[f64]) -> Option<SimError> {
    let d = sys.dims();
    let mut ws = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    accelerations_into(sys, 0.0, q, v, None, &mut ws, 0.0, &mut vdot, &mut lambda).err()
}

/// A redundant row is left out by the KKT solve itself: λ = 0 on it, the copy carries the
/// whole reaction (the rod twice at rest: λ₀ = m g / (2 ℓ) ⋅ …, whatever its value, λ₁ = 0).
#[test]
fn redundant_constraints_are_left_out_of_the_kkt_solve() {
    let (q, v) = Pendulum::UNIT.at_rest(0.5);
    let sys = Sys(Broken(Defect::RedundantConstraint));
    let d = sys.dims();
    let mut ws = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    accelerations_into(
        &sys,
        0.0,
        &q,
        &v,
        None,
        &mut ws,
        0.0,
        &mut vdot,
        &mut lambda,
    )
    .expect("solves with row 1 left out");
    assert_eq!(ws.row_selection().left_out(), &[1]);
    assert_eq!(lambda[1], 0.0);
    assert!(
        lambda[0] != 0.0 && vdot.iter().all(|a| a.is_finite()),
        "{lambda:?} {vdot:?}"
    );
    // The same accelerations as the model with the copy deleted by hand.
    let mut ws1 = KktWorkspace::new(Sys(Pendulum::UNIT).dims());
    let (mut vdot1, mut lambda1) = (vec![0.0; 2], vec![0.0; 1]);
    accelerations_into(
        &Sys(Pendulum::UNIT),
        0.0,
        &q,
        &v,
        None,
        &mut ws1,
        0.0,
        &mut vdot1,
        &mut lambda1,
    )
    .expect("solves");
    for i in 0..2 {
        assert!(
            (vdot[i] - vdot1[i]).abs() <= 1e-14 * (1.0 + vdot1[i].abs()),
            "{vdot:?} {vdot1:?}"
        );
    }
}

#[test]
fn a_massless_free_direction_blames_the_mass_matrix() {
    let (q, v) = Pendulum::UNIT.at_rest(0.5);
    let err = kkt_error(&Sys(Broken(Defect::MassVanishes { from: 0.0 })), &q, &v).unwrap();
    let SimError::SingularKkt {
        ref block,
        ref dependent_rows,
        ..
    } = err
    else {
        panic!("expected SingularKkt, got {err:?}")
    };
    assert!(
        matches!(&block, SingularBlock::MassOnKernel { coordinates } if coordinates.len() == 2),
        "{block:?}"
    );
    assert!(dependent_rows.is_empty());
    let text = err.to_string();
    assert!(
        text.contains("mass matrix M is not positive definite on its null space")
            && text.contains("it moves q["),
        "{text}"
    );
}

/// The chain on its branch at angle θ: every row of G is 2ℓ² sin θ (1, −1) up to round-off, so
/// G nearly loses rank as a whole while M stays positive definite. The LU fails below
/// θ ≈ 1.4e-8 (measured); the rows then have norm ≤ 2√2 θ ≈ 4e-8 ≤ τ_G = √(N ε K ω) ≈ 6.6e-8
/// (N = 7, K = ω = max|M| = 5/3), so all are dependent. The previous diagnosis (row test at
/// √ε · max(row norm, max|M|) ≈ 2.5e-8) found no dependent row for θ in (0.9e-8, 1.4e-8) and
/// so blamed M.
#[test]
fn a_nearly_singular_configuration_blames_the_jacobian() {
    let sys = Sys(FourBarChain::unit(3));
    let n = sys.dims().n;
    for theta in [1e-9, 1.25e-8] {
        let err = kkt_error(&sys, &vec![theta; n], &vec![0.0; n])
            .unwrap_or_else(|| panic!("θ = {theta:e}: the KKT matrix must be singular"));
        match err {
            SimError::SingularKkt {
                block: SingularBlock::Jacobian,
                dependent_rows,
                ..
            } => {
                let rows: Vec<usize> = dependent_rows.iter().map(|r| r.row).collect();
                assert_eq!(rows, vec![0, 1, 2], "θ = {theta:e}");
            }
            e => panic!("θ = {theta:e}: expected the Jacobian block, got {e:?}"),
        }
    }
    // Just above the LU threshold the solve succeeds: the diagnosis is not consulted there.
    assert!(kkt_error(&sys, &vec![2e-8; n], &vec![0.0; n]).is_none());
}

#[test]
fn a_failed_initialization_names_the_violated_rows() {
    // x locked at 2ℓ: x² + y² = ℓ² has no real solution; row 0 stays at |Φ| ≥ 3/2.
    let opts = InitOptions {
        locked: vec![0],
        ..InitOptions::default()
    };
    let err = initialize(&Sys(Pendulum::UNIT), 0.0, &[2.0, -0.7], &[0.0, 0.0], &opts).unwrap_err();
    let SimError::InitializationFailed {
        stage,
        iterations,
        ref violated,
        residual,
    } = err
    else {
        panic!("expected InitializationFailed, got {err:?}")
    };
    assert_eq!(
        (stage, iterations),
        (InitStage::Positions, opts.max_iterations)
    );
    assert_eq!(violated.len(), 1);
    assert_eq!(violated[0].row, 0);
    assert_eq!(violated[0].residual.abs(), residual);
    assert!(residual >= 1.5, "{residual}");
    let text = err.to_string();
    assert!(
        text.contains("(positions, Φ = 0)") && text.contains("`phi_1` (row 0, "),
        "{text}"
    );
}

#[test]
fn violated_rows_are_listed_largest_first() {
    let names: Vec<String> = ["a", "b", "c", "d", "e"].map(String::from).to_vec();
    let rows = ViolatedRow::collect(&[1e-14, -3.0, 0.5, f64::NAN, -0.5, 2e-12], 1e-12, &names);
    let order: Vec<usize> = rows.iter().map(|r| r.row).collect();
    // NaN first (worst), then by |r|, ties by index; 1e-14 is within the tolerance.
    assert_eq!(order, vec![3, 1, 2, 4, 5]);
    assert_eq!(rows[1].residual, -3.0);
    // Rows are named after the model's constraints; a row beyond the names gets its index.
    let named: Vec<&str> = rows.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(named, vec!["d", "b", "c", "e", "row 5"]);
}
