//! Checked kernel calls: every kernel output is tested for NaN/∞ before it is used.
//!
//! These wrappers are the only place the integrators call [`ConstrainedSystem`] kernels. Each
//! one writes into preallocated storage and turns the first non-finite entry into
//! [`SimError::NonFiniteKernel`] naming the kernel, the entry and the state. They also assemble
//! the stacked quantities: G = [Φ_q; A] and the velocity residual G v + [Φ_t; b].

use nalgebra::DMatrix;

use crate::error::{Kernel, SimError};
use crate::system::{ConstrainedSystem, DynamicsOut};

/// `Err(NonFiniteKernel)` for the first non-finite entry of `data`.
pub(crate) fn check(
    kernel: Kernel,
    data: &[f64],
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<(), SimError> {
    match data.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(entry) => Err(SimError::NonFiniteKernel {
            kernel,
            entry,
            t,
            q: q.to_vec(),
            v: v.to_vec(),
        }),
    }
}

/// Check a stacked G = [Φ_q; A] (column-major) and attribute a bad entry to Φ_q or A.
fn check_jacobian(jac: &DMatrix<f64>, m: usize, t: f64, q: &[f64]) -> Result<(), SimError> {
    let rows = jac.nrows();
    let Some(idx) = jac.as_slice().iter().position(|x| !x.is_finite()) else {
        return Ok(());
    };
    let (i, j) = (idx % rows, idx / rows);
    let (kernel, entry) = if i < m {
        (Kernel::PhiQ, j * m + i)
    } else {
        (Kernel::NhMatrix, j * (rows - m) + i - m)
    };
    Err(SimError::NonFiniteKernel {
        kernel,
        entry,
        t,
        q: q.to_vec(),
        v: Vec::new(),
    })
}

/// G = [Φ_q(t, q); A(t, q)] into `jac` (`(m + k) × n`).
pub(crate) fn jacobian<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    jac: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    let d = sys.dims();
    sys.phi_q_into(t, q, jac.view_mut((0, 0), (d.m, d.n)));
    sys.nh_matrix_into(t, q, jac.view_mut((d.m, 0), (d.k, d.n)));
    check_jacobian(jac, d.m, t, q)
}

/// M(t, q) into `mass`.
pub(crate) fn mass<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    mass: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    sys.mass_into(t, q, mass.as_view_mut());
    check(Kernel::Mass, mass.as_slice(), t, q, &[])
}

/// Φ(t, q) into `phi` (length m).
pub(crate) fn phi<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    phi: &mut [f64],
) -> Result<(), SimError> {
    sys.phi_into(t, q, phi);
    check(Kernel::Phi, phi, t, q, &[])
}

/// L(t, q, v) = ∂(Φ_q v)/∂q into `l` (`m × n`).
pub(crate) fn l<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    l: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    sys.l_into(t, q, v, l.as_view_mut());
    check(Kernel::L, l.as_slice(), t, q, v)
}

/// The velocity residual `out = G v + [Φ_t; b]` (length m + k), with `jac` = G already
/// evaluated at (t, q) and `tmp` scratch of length m + k.
pub(crate) fn velocity_residual<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    jac: &DMatrix<f64>,
    tmp: &mut [f64],
    out: &mut [f64],
) -> Result<(), SimError> {
    let d = sys.dims();
    sys.phi_t_into(t, q, &mut tmp[..d.m]);
    check(Kernel::PhiT, &tmp[..d.m], t, q, &[])?;
    sys.nh_offset_into(t, q, &mut tmp[d.m..]);
    check(Kernel::NhOffset, &tmp[d.m..], t, q, &[])?;
    for i in 0..d.m + d.k {
        let mut s = tmp[i];
        for j in 0..d.n {
            s += jac[(i, j)] * v[j];
        }
        out[i] = s;
    }
    Ok(())
}

/// M, Q, G, γ through the fused kernel, each checked.
#[allow(clippy::too_many_arguments)] // the four outputs mirror `DynamicsOut`
pub(crate) fn dynamics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    mass: &mut DMatrix<f64>,
    force: &mut [f64],
    jac: &mut DMatrix<f64>,
    gamma: &mut [f64],
) -> Result<(), SimError> {
    let m = sys.dims().m;
    sys.dynamics_into(
        t,
        q,
        v,
        DynamicsOut {
            mass: mass.as_view_mut(),
            force,
            jacobian: jac.as_view_mut(),
            gamma,
        },
    );
    check(Kernel::Mass, mass.as_slice(), t, q, &[])?;
    check(Kernel::Force, force, t, q, v)?;
    check_jacobian(jac, m, t, q)?;
    check(Kernel::Gamma, gamma, t, q, v)
}
