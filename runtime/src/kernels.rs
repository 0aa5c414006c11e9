//! Checked kernel calls: every kernel output is tested for NaN/∞ before it is used.
//!
//! These wrappers are the only place the integrators call [`ConstrainedSystem`] kernels. One
//! wrapper serves every row of the kernel table ([`checked`], through the table's dispatch
//! [`crate::table::call`]; [`checked_tangent`] for the tangent rows): it writes into
//! preallocated storage and turns the first non-finite entry into
//! [`SimError::NonFiniteKernel`] naming the kernel, the entry and the state. The named wrappers
//! below are shorthands of it, plus the stacked quantities G = [Φ_q; A], the velocity residual
//! G v + [Φ_t; b] and the fused kernel.

use nalgebra::DMatrix;

use crate::error::{Kernel, SimError};
use crate::naming::{EntryNames, ModelNames};
use crate::sparse::Jac;
use crate::system::{ConstrainedSystem, DynamicsOut};
use crate::table::{self, KernelArgs, KernelId, KernelOut};
use crate::tangent::TangentSystem;

/// Any `core` row of the kernel table, evaluated into `out` and checked.
pub fn checked<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    id: KernelId,
    args: &KernelArgs<'_>,
    mut out: KernelOut<'_>,
) -> Result<(), SimError> {
    table::call(sys, id, args, out.reborrow());
    finite(&ModelNames(sys), id, args, &out)
}

/// Any `core` or `tangent` row of the kernel table, evaluated into `out` and checked.
pub fn checked_tangent<S: TangentSystem + ?Sized>(
    sys: &S,
    id: KernelId,
    args: &KernelArgs<'_>,
    mut out: KernelOut<'_>,
) -> Result<(), SimError> {
    table::call_tangent(sys, id, args, out.reborrow());
    finite(&ModelNames(sys), id, args, &out)
}

/// `Err(NonFiniteKernel)` for the first non-finite entry of a kernel's output (column-major);
/// `v` is reported when the row takes it.
fn finite(
    names: &dyn EntryNames,
    id: KernelId,
    args: &KernelArgs<'_>,
    out: &KernelOut<'_>,
) -> Result<(), SimError> {
    match out.first_non_finite() {
        None => Ok(()),
        Some(entry) => Err(SimError::NonFiniteKernel {
            kernel: id.into(),
            entry,
            at: names.describe(id.into(), entry),
            t: args.t,
            q: args.q.to_vec(),
            v: if id.spec().takes(table::Input::V) {
                args.v.to_vec()
            } else {
                Vec::new()
            },
        }),
    }
}

/// Arguments (t, q) or (t, q, v).
fn args<'a>(t: f64, q: &'a [f64], v: &'a [f64]) -> KernelArgs<'a> {
    KernelArgs {
        t,
        q,
        v,
        lambda: &[],
        w: &[],
    }
}

/// `Err(NonFiniteKernel)` for the first non-finite entry of `data`, named by `names`.
pub(crate) fn check(
    names: &dyn EntryNames,
    kernel: Kernel,
    data: &[f64],
    (t, q, v): (f64, &[f64], &[f64]),
) -> Result<(), SimError> {
    match data.iter().position(|x| !x.is_finite()) {
        None => Ok(()),
        Some(entry) => Err(SimError::NonFiniteKernel {
            kernel,
            entry,
            at: names.describe(kernel, entry),
            t,
            q: q.to_vec(),
            v: v.to_vec(),
        }),
    }
}

/// G = [Φ_q(t, q); A(t, q)] into `jac` (`(m + k) × n`).
pub(crate) fn jacobian<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    jac: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    let d = sys.dims();
    let a = args(t, q, &[]);
    let phi_q = KernelOut::Matrix(jac.view_mut((0, 0), (d.m, d.n)));
    checked(sys, KernelId::PhiQ, &a, phi_q)?;
    let nh = KernelOut::Matrix(jac.view_mut((d.m, 0), (d.k, d.n)));
    checked(sys, KernelId::NhMatrix, &a, nh)
}

/// M(t, q) into `mass`.
pub(crate) fn mass<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    mass: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    let out = KernelOut::Matrix(mass.as_view_mut());
    checked(sys, KernelId::Mass, &args(t, q, &[]), out)
}

/// Q(t, q, v) into `force` (length n).
pub(crate) fn force<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    force: &mut [f64],
) -> Result<(), SimError> {
    checked(
        sys,
        KernelId::Force,
        &args(t, q, v),
        KernelOut::Vector(force),
    )
}

/// Φ(t, q) into `phi` (length m).
pub(crate) fn phi<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    phi: &mut [f64],
) -> Result<(), SimError> {
    checked(sys, KernelId::Phi, &args(t, q, &[]), KernelOut::Vector(phi))
}

/// The nonholonomic offset b(t, q) of A(t, q) v + b = 0 into `offset` (length k).
pub(crate) fn nh_offset<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    offset: &mut [f64],
) -> Result<(), SimError> {
    checked(
        sys,
        KernelId::NhOffset,
        &args(t, q, &[]),
        KernelOut::Vector(offset),
    )
}

/// L(t, q, v) = ∂(Φ_q v)/∂q into `l` (`m × n`).
pub(crate) fn l<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    l: &mut DMatrix<f64>,
) -> Result<(), SimError> {
    let out = KernelOut::Matrix(l.as_view_mut());
    checked(sys, KernelId::L, &args(t, q, v), out)
}

/// The velocity residual `out = G v + [Φ_t; b]` (length m + k), with `jac` = G already
/// evaluated at (t, q) and `tmp` scratch of length m + k.
pub(crate) fn velocity_residual<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    jac: Jac<'_>,
    tmp: &mut [f64],
    out: &mut [f64],
) -> Result<(), SimError> {
    let d = sys.dims();
    let (phi_t, offset) = tmp.split_at_mut(d.m);
    let a = args(t, q, &[]);
    checked(sys, KernelId::PhiT, &a, KernelOut::Vector(phi_t))?;
    checked(sys, KernelId::NhOffset, &a, KernelOut::Vector(offset))?;
    // Every out[i] sums tmp[i] + Σ_j G_ij v_j in the order j = 0, 1, … on either storage.
    let rows = d.m + d.k;
    out[..rows].copy_from_slice(&tmp[..rows]);
    jac.mul_add(v, &mut out[..rows]);
    Ok(())
}

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
) {
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
}

/// The first non-finite entry of the outputs of [`dynamics`], in the order M, Q, Φ_q, A, γ.
#[allow(clippy::too_many_arguments)] // the four outputs mirror `DynamicsOut`
pub(crate) fn check_dynamics<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    t: f64,
    q: &[f64],
    v: &[f64],
    mass: &mut DMatrix<f64>,
    force: &mut [f64],
    jac: &mut DMatrix<f64>,
    gamma: &mut [f64],
) -> Result<(), SimError> {
    let (a, d) = (args(t, q, v), sys.dims());
    let names = ModelNames(sys);
    finite(
        &names,
        KernelId::Mass,
        &a,
        &KernelOut::Matrix(mass.as_view_mut()),
    )?;
    finite(&names, KernelId::Force, &a, &KernelOut::Vector(force))?;
    finite(
        &names,
        KernelId::PhiQ,
        &a,
        &KernelOut::Matrix(jac.view_mut((0, 0), (d.m, d.n))),
    )?;
    finite(
        &names,
        KernelId::NhMatrix,
        &a,
        &KernelOut::Matrix(jac.view_mut((d.m, 0), (d.k, d.n))),
    )?;
    finite(&names, KernelId::Gamma, &a, &KernelOut::Vector(gamma))
}
