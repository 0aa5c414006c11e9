//! Issue 27 item 2 for the analyses: kinematic analysis and inverse dynamics of the driven A02
//! chain in body coordinates (`four-bar-chain-driven`: n = m = 243, 0 DOF), dense path against
//! banded path in one run.
//!
//! "Dense" is [`KinematicSolver::Dense`]: the code path before the banded one existed
//! (`initialize` at every grid point — its Newton, projection and KKT solve already banded on
//! the nonzeros — then `check`'s rank test and SVD of the dense Φ_q and a dense determinant).
//! "Banded" is the default for this model ([`KinematicSolver::Auto`]): Newton, velocities,
//! determinant and condition estimate on the banded LU of Φ_q, a and λ from the banded KKT
//! solve (`runtime/src/analysis/kinematics_banded.rs`). `cargo bench -p mbsim-models --bench
//! sparse_kinematics` prints the mean thread CPU time per call over the catalog's grid (0 to
//! 1 s every 0.01 s: 101 points), per point, and crank 0's tip angle at the end as a check that
//! both computed the same motion.

use std::time::Duration;

use mbsim::runtime::ConstrainedSystem;
use mbsim::runtime::analysis::{self, KinematicOptions, KinematicSolver};
use mbsim_models::FourBarChainDriven;
use mbsim_testkit::CpuClock;

/// The catalog's grid: 0 to 1 s every 0.01 s.
fn grid() -> Vec<f64> {
    (0..=100).map(|i| i as f64 * 0.01).collect()
}

/// Mean thread CPU of kinematics (`inverse` false) or inverse dynamics with `solver`, and
/// the last point's angle of crank 0 (coordinate φ₀, index 2·81).
fn analyse(sys: &dyn ConstrainedSystem, solver: KinematicSolver, inverse: bool) -> (Duration, f64) {
    let (q0, _) = FourBarChainDriven::initial(sys);
    let times = grid();
    let opts = KinematicOptions {
        solver,
        ..KinematicOptions::default()
    };
    let mut angle = f64::NAN;
    let cpu = CpuClock::new(Duration::from_millis(500))
        .warm_up()
        .mean(|| {
            let kin = match inverse {
                true => analysis::inverse_dynamics(sys, &times, &q0, &opts).map(|r| r.kinematics),
                false => analysis::kinematics(sys, &times, &q0, &opts),
            };
            let kin = kin.expect("analysis of the driven chain");
            angle = kin.points.last().map_or(f64::NAN, |p| p.q[2 * 81]);
        });
    (cpu, angle)
}

fn main() {
    let sys = FourBarChainDriven::unit();
    let points = grid().len() as u32;
    println!("four-bar-chain-driven (n = m = 243), {points} grid points, thread CPU time");
    for (mode, inverse) in [("kinematics", false), ("inverse", true)] {
        for (label, solver) in [
            ("dense", KinematicSolver::Dense),
            ("banded", KinematicSolver::Auto),
        ] {
            let (cpu, angle) = analyse(&sys, solver, inverse);
            println!(
                "{mode:<10} {label:<6} {cpu:>10.2?} per call {:>9.1?} per point  crank 0 at the end \
                 {angle:.15e}",
                cpu / points
            );
        }
    }
}
