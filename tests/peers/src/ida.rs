//! SUNDIALS IDA (variable-order BDF, dense direct linear solver with difference-quotient
//! Jacobian) on the index-1 ODE form, written as the implicit residual
//! r(t, y, y') = y' − (v, v̇(q, v)) with y = (q, v).
//!
//! This is the only module of the workspace with `unsafe` code: the C API of SUNDIALS. Every
//! pointer handed to IDA is owned by [`ida`] for the duration of the call and freed before it
//! returns; the residual callback only turns IDA's vectors into slices of length 2n.
#![allow(unsafe_code)] // FFI to SUNDIALS IDA; see the module docs.

use std::os::raw::{c_int, c_long, c_void};

use mbsim_runtime::{ConstrainedSystem, KktWorkspace, accelerations_into};
use sundials_sys as sun;

use crate::RunResult;

/// What the residual callback needs; IDA passes it back as `user_data`.
struct Ctx<'a> {
    sys: &'a dyn ConstrainedSystem,
    kkt: KktWorkspace,
    vdot: Vec<f64>,
    lambda: Vec<f64>,
    n: usize,
    calls: usize,
}

unsafe extern "C" fn residual(
    t: f64,
    yy: sun::N_Vector,
    yp: sun::N_Vector,
    rr: sun::N_Vector,
    user: *mut c_void,
) -> c_int {
    // SAFETY: `user` is the `Ctx` that `ida` registered and keeps alive during IDASolve; the
    // three vectors are serial vectors of length 2n created by `ida` (or IDA clones of them).
    let ctx = unsafe { &mut *(user as *mut Ctx) };
    let n = ctx.n;
    let (y, yp, r) = unsafe {
        (
            std::slice::from_raw_parts(sun::N_VGetArrayPointer(yy), 2 * n),
            std::slice::from_raw_parts(sun::N_VGetArrayPointer(yp), 2 * n),
            std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(rr), 2 * n),
        )
    };
    ctx.calls += 1;
    let (q, v) = y.split_at(n);
    if accelerations_into(
        ctx.sys,
        t,
        q,
        v,
        None,
        &mut ctx.kkt,
        0.0,
        &mut ctx.vdot,
        &mut ctx.lambda,
    )
    .is_err()
    {
        return 1; // recoverable: IDA retries with a smaller step
    }
    for i in 0..n {
        r[i] = yp[i] - v[i];
        r[n + i] = yp[n + i] - ctx.vdot[i];
    }
    0
}

/// IDA with rtol and atol = rtol/10 from (q0, v0) on [0, t_end]. `Err` carries IDA's return
/// flag (or −100 when the initial KKT solve fails).
pub fn ida(
    sys: &dyn ConstrainedSystem,
    rtol: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Result<RunResult, c_int> {
    let n = sys.dims().n;
    let mut ctx = Ctx {
        sys,
        kkt: KktWorkspace::new(sys.dims()),
        vdot: vec![0.0; n],
        lambda: vec![0.0; sys.dims().constraint_rows()],
        n,
        calls: 0,
    };
    // Consistent y'(0) = (v0, v̇(q0, v0)).
    accelerations_into(
        sys,
        0.0,
        q0,
        v0,
        None,
        &mut ctx.kkt,
        0.0,
        &mut ctx.vdot,
        &mut ctx.lambda,
    )
    .map_err(|_| -100)?;
    let y0: Vec<f64> = [q0, v0].concat();
    let yp0: Vec<f64> = [v0, &ctx.vdot].concat();
    let len = (2 * n) as sun::sunindextype;
    // SAFETY: straight-line use of the SUNDIALS C API; every object created here is destroyed
    // below on all paths, and `ctx` outlives the solver.
    unsafe {
        let mut sunctx: sun::SUNContext = std::ptr::null_mut();
        if sun::SUNContext_Create(sun::SUN_COMM_NULL, &mut sunctx) != 0 {
            return Err(-101);
        }
        let yy = sun::N_VNew_Serial(len, sunctx);
        let yp = sun::N_VNew_Serial(len, sunctx);
        std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(yy), 2 * n).copy_from_slice(&y0);
        std::slice::from_raw_parts_mut(sun::N_VGetArrayPointer(yp), 2 * n).copy_from_slice(&yp0);
        let mut mem = sun::IDACreate(sunctx);
        let a = sun::SUNDenseMatrix(len, len, sunctx);
        let ls = sun::SUNLinSol_Dense(yy, a, sunctx);
        let mut flag = sun::IDAInit(mem, Some(residual), 0.0, yy, yp);
        for f in [
            sun::IDASStolerances(mem, rtol, rtol / 10.0),
            sun::IDASetUserData(mem, &mut ctx as *mut Ctx as *mut c_void),
            sun::IDASetLinearSolver(mem, ls, a),
            sun::IDASetMaxNumSteps(mem, 1_000_000 as c_long),
        ] {
            if flag == 0 {
                flag = f;
            }
        }
        let mut t_ret = 0.0;
        if flag == 0 {
            flag = sun::IDASolve(mem, t_end, &mut t_ret, yy, yp, sun::IDA_NORMAL);
        }
        let mut nsteps: c_long = 0;
        sun::IDAGetNumSteps(mem, &mut nsteps);
        let q = std::slice::from_raw_parts(sun::N_VGetArrayPointer(yy), 2 * n)[..n].to_vec();
        sun::IDAFree(&mut mem);
        sun::SUNLinSolFree(ls);
        sun::SUNMatDestroy(a);
        sun::N_VDestroy(yy);
        sun::N_VDestroy(yp);
        sun::SUNContext_Free(&mut sunctx);
        if flag < 0 {
            return Err(flag);
        }
        Ok(RunResult {
            q,
            nfcn: ctx.calls,
            nstep: nsteps as usize,
        })
    }
}
