//! Peer solvers for the runtime's benchmarks, kept out of `runtime`'s test build.
//!
//! The peers integrate the index-1 ODE form z' = (v, v̇(q, v)) of a [`ConstrainedSystem`], with
//! v̇ from the same KKT solve the runtime uses ([`mbsim_runtime::accelerations_into`]) and no
//! stabilization (so they correspond to the runtime's `Stabilization::None`); `russell_ode`
//! provides DoPri5, DoPri8 and Radau5 (numerical Jacobian), and, with the `ida` feature, SUNDIALS IDA (BDF) on the
//! implicit-residual view of the same ODE. The hand-written test models of
//! `runtime/tests/suite/common` are reused verbatim through [`test_models`].

use std::sync::Mutex;

use mbsim_runtime::{
    ConstrainedSystem, Integrator, KktWorkspace, Problem, Rkstab, Stabilization, accelerations_into,
};
use russell_lab::Vector;
use russell_ode::{Method, NoArgs, OdeSolver, Params, System};

#[cfg(feature = "ida")]
mod ida;
#[cfg(feature = "ida")]
pub use ida::ida;

/// The hand-written models of the runtime's tests (Andrews squeezer et al.).
#[path = "../../../runtime/tests/suite/common/mod.rs"]
pub mod test_models;

/// End state q(t_end) and the number of right-hand-side evaluations of one run.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Coordinates at the end.
    pub q: Vec<f64>,
    /// Right-hand-side (KKT) evaluations.
    pub nfcn: usize,
    /// Steps (accepted + rejected).
    pub nstep: usize,
}

/// RKSTAB with `stab`, rtol, atol = rtol/10, from (q0, v0) on [0, t_end].
pub fn rkstab<S: ConstrainedSystem>(
    sys: &S,
    stab: Stabilization,
    rtol: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Result<RunResult, mbsim_runtime::SimError> {
    rkstab_with(
        sys,
        Rkstab::new(rtol).with_stabilization(stab),
        q0,
        v0,
        t_end,
    )
}

/// RKSTAB with explicit options.
pub fn rkstab_with<S: ConstrainedSystem>(
    sys: &S,
    method: Rkstab,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Result<RunResult, mbsim_runtime::SimError> {
    runtime(sys, &method, q0, v0, t_end)
}

/// Any of the runtime's methods (RKSTAB, the stabilized DOP853, ABM, …) from (q0, v0) on
/// [0, t_end], no samples.
pub fn runtime<S: ConstrainedSystem, I: Integrator>(
    sys: &S,
    method: &I,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Result<RunResult, mbsim_runtime::SimError> {
    let problem = Problem::new(0.0, t_end, q0, v0);
    let end = method.integrate_into(sys, &problem, &mut ())?;
    let s = end.stats;
    Ok(RunResult {
        q: end.q,
        nfcn: s.nfcn,
        nstep: s.nstep,
    })
}

/// A `russell_ode` method on the index-1 ODE form, rtol, atol = rtol/10.
pub fn russell<S: ConstrainedSystem + Sync>(
    sys: &S,
    method: Method,
    rtol: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
) -> Result<RunResult, russell_lab::StrError> {
    let n = sys.dims().n;
    let r = sys.dims().constraint_rows();
    let ws = Mutex::new((KktWorkspace::new(sys.dims()), vec![0.0; n], vec![0.0; r]));
    let system = System::new(
        2 * n,
        |f: &mut Vector, t: f64, z: &Vector, _: &mut NoArgs| {
            let mut guard = ws.lock().map_err(|_| "workspace lock poisoned")?;
            let (kkt, vdot, lambda) = &mut *guard;
            let z = z.as_data();
            accelerations_into(sys, t, &z[..n], &z[n..], None, kkt, 0.0, vdot, lambda)
                .map_err(|_| "KKT solve failed")?;
            for i in 0..n {
                f[i] = z[n + i];
                f[n + i] = vdot[i];
            }
            Ok(())
        },
    );
    let mut params = Params::new(method);
    params.set_tolerances(rtol / 10.0, rtol, None)?;
    params.step.n_step_max = 1_000_000;
    if method == Method::Radau5 {
        params.newton.use_numerical_jacobian = true;
    }
    let mut solver = OdeSolver::new(params, system)?;
    let mut z = Vector::from(&[q0, v0].concat());
    let mut args: NoArgs = 0;
    solver.solve(&mut z, 0.0, t_end, None, &mut args, None)?;
    let st = solver.stats();
    Ok(RunResult {
        q: z.as_data()[..n].to_vec(),
        nfcn: st.n_function,
        nstep: st.n_steps,
    })
}

/// Significant correct digits of `q` against `q_ref`: −log10 max_i |q_i − q_ref,i| (absolute:
/// the Andrews coordinates are angles of size O(0.1…1)); capped at 16.
pub fn significant_digits(q: &[f64], q_ref: &[f64]) -> f64 {
    let err = q
        .iter()
        .zip(q_ref)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    (-err.max(1e-16).log10()).min(16.0)
}
