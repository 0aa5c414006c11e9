//! The statics refuse a driven model up front (issue 27): `equilibrium` (reduced Newton) and
//! `settle` (dynamic settling) look for a state at rest under time-independent constraints,
//! which a driving (rheonomic) row Φ_i(t, q) = θ − f(t) contradicts: settling integrates
//! while the drivers keep moving and never comes to rest (the A02 chain's driven form ran
//! past 2 minutes; the driven two-link arm failed after 13157 iterations with a bare
//! "equilibrium not found"). A row is driving when Φ_t,i(t, q) ≠ 0 at the state examined
//! (the model's Φ_t kernel); a driver whose Φ_t happens to vanish there (f(t) = t² at t = 0)
//! is not seen by this test. The error names the rows and points to `inverse`, which solves
//! a driven model's motion and its driving forces.

use crate::error::SimError;
use crate::kernels;
use crate::system::ConstrainedSystem;
use crate::table::{KernelArgs, KernelId, KernelOut};

/// `Err(SimError::NotAnalyzable)` naming the driving rows of `sys` at (t, q), if any.
pub(super) fn refuse_driving<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    mode: &'static str,
    t: f64,
    q: &[f64],
) -> Result<(), SimError> {
    let d = sys.dims();
    let mut phi_t = vec![0.0; d.m];
    let args = KernelArgs {
        t,
        q,
        v: &[],
        lambda: &[],
        w: &[],
    };
    kernels::checked(sys, KernelId::PhiT, &args, KernelOut::Vector(&mut phi_t))?;
    let names = sys.constraint_names();
    let driving: Vec<&str> = (phi_t.iter().enumerate())
        .filter(|(_, x)| **x != 0.0)
        .map(|(i, _)| names.get(i).map_or("?", String::as_str))
        .collect();
    if driving.is_empty() {
        return Ok(());
    }
    Err(SimError::NotAnalyzable {
        mode,
        needs: "time-independent constraints (no driving rows: Phi_t = 0)",
        n: d.n,
        m: d.m,
        k: d.k,
        rank: super::check(sys, t, q)?.jacobian.rank,
        advice: format!(
            "driving (rheonomic) rows {} depend on time (Phi_t != 0 at t = {t}); remove the \
             drivers for statics, or use `inverse` for the driven motion and its driving forces",
            driving.join(", ")
        ),
    })
}
