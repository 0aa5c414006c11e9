//! Constant-step explicit Runge–Kutta with stabilization: the driver for table reproductions
//! (\[CHIN\] Table 3.1 uses Heun's RK2 with h = 0.01, 0.001) and for convergence studies.
//!
//! Each step: the explicit stages of [`FixedStepOptions::tableau`] on z = (q, v) with
//! f = (v, v̇) from the KKT solve, then the post-stabilization (every step, DATOL = 0), then the
//! drift of the stabilized state is measured; [`FixedStepReport::max_drift`] is the maximum
//! over all steps (the thesis' "maximum drift"). No FSAL, no error control: NFCN = s·NSTEP.
//! Workspaces are allocated once per call; steps allocate nothing.

use crate::error::SimError;
use crate::output::{Observer, Stats, StepInfo};
use crate::rhs::Rhs;
use crate::stabilize::{Drift, Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;
use crate::tableau::ExplicitTableau;

/// Settings of a constant-step run.
#[derive(Clone, Copy, Debug)]
pub struct FixedStepOptions {
    /// The explicit method.
    pub tableau: ExplicitTableau,
    /// Step size (the span must be an integer number of steps, to 1e-9 relative).
    pub h: f64,
    /// Drift control.
    pub stabilization: Stabilization,
    /// Emit an output sample every this many steps (and at t0); 0 emits none.
    pub output_every: usize,
}

/// Result of a constant-step run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FixedStepReport {
    /// Counters (NFCN, NSTEP = NACCP, NSTAB, stabilization time).
    pub stats: Stats,
    /// Maximum over steps of the drift after stabilization.
    pub max_drift: Drift,
}

/// Integrate from (t0, q, v) to `t_end` with constant steps; `q`, `v` end at the final state
/// (or the last completed step on failure).
#[allow(clippy::too_many_arguments)] // model, options, time span, state and observer
pub fn integrate_fixed_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
    sys: &S,
    opts: &FixedStepOptions,
    t0: f64,
    t_end: f64,
    q: &mut [f64],
    v: &mut [f64],
    observer: &mut O,
) -> Result<FixedStepReport, SimError> {
    let dims = sys.dims();
    let n = dims.n;
    assert!(
        q.len() == n && v.len() == n,
        "integrate_fixed_into: q and v need length n"
    );
    let steps_f = (t_end - t0) / opts.h;
    let steps = steps_f.round() as usize;
    assert!(
        opts.h > 0.0 && (steps_f - steps as f64).abs() <= 1e-9 * steps_f.max(1.0),
        "integrate_fixed_into: (t_end - t0) / h must be a positive integer"
    );
    let tab = &opts.tableau;
    let s = tab.stages();
    let mut rhs = Rhs::new(dims, opts.stabilization.baumgarte().copied());
    let mut stab = Stabilizer::new(opts.stabilization, dims);
    let mut k: Vec<Vec<f64>> = vec![vec![0.0; 2 * n]; s];
    let mut z: Vec<f64> = q.iter().chain(v.iter()).copied().collect();
    let mut stage = z.clone();
    let mut max_drift = Drift::default();
    if opts.output_every > 0 {
        rhs.emit(sys, t0, &z, observer)?;
    }
    let mut result = Ok(());
    for step in 0..steps {
        let t = t0 + step as f64 * opts.h;
        let h = opts.h;
        let mut run = || -> Result<bool, SimError> {
            for i in 0..s {
                for c in 0..2 * n {
                    let sum: f64 = tab.a[i].iter().enumerate().map(|(j, a)| a * k[j][c]).sum();
                    stage[c] = z[c] + h * sum;
                }
                rhs.eval(sys, t + tab.c[i] * h, &stage, h, &mut k[i])?;
            }
            for c in 0..2 * n {
                z[c] += h * (0..s).map(|j| tab.b[j] * k[j][c]).sum::<f64>();
            }
            let (zq, zv) = z.split_at_mut(n);
            let stabilized = stab.apply(sys, t + h, h, zq, zv, 0.0)?;
            let d = stab.drift(sys, t + h, zq, zv)?;
            max_drift.position = max_drift.position.max(d.position);
            max_drift.velocity = max_drift.velocity.max(d.velocity);
            Ok(stabilized)
        };
        match run() {
            Ok(stabilized) => observer.step(&StepInfo {
                t,
                h,
                accepted: true,
                error: 0.0,
                stabilized,
            }),
            Err(e) => {
                result = Err(e);
                break;
            }
        }
        if opts.output_every > 0 && (step + 1) % opts.output_every == 0 {
            let t_out = if step + 1 == steps { t_end } else { t + h };
            if let Err(e) = rhs.emit(sys, t_out, &z, observer) {
                result = Err(e);
                break;
            }
        }
    }
    q.copy_from_slice(&z[..n]);
    v.copy_from_slice(&z[n..]);
    result?;
    let stats = Stats {
        nfcn: rhs.nfcn,
        nstep: steps,
        naccpt: steps,
        nstab: stab.applications,
        output_solves: rhs.output_solves,
        stabilization_time: stab.time,
        ..Stats::default()
    };
    Ok(FixedStepReport { stats, max_drift })
}
