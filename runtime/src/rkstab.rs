//! RKSTAB: adaptive DOPRI5(4) with post-stabilization (\[CHIN\] §4.2–4.3, digest §2.4).
//!
//! One step from (t_n, z_n), z = (q, v), f = (v, v̇) from the KKT solve:
//! 1. k_1 = f(t_n, z_n) is the previous step's k_7 (FSAL); stages 2..6 as in DOPRI5;
//! 2. z~ = z_n + h Σ b_j k_j (5th order, unstabilized);
//! 3. z_{n+1} = stabilize(z~) (PStab etc.; skipped if the drift of z~ is ≤ DATOL > 0);
//! 4. k_7 = f(t_n + h, z_{n+1}), at the **stabilized** point (4.11);
//! 5. the modified 4th-order result ẑ = z_n + h (Σ_{j≤6} b̂_j k_j + b̂_7 k_7) (4.13) and the
//!    error z_{n+1} − ẑ ([`ErrorEstimate::Stabilized`], ambiguity 9), measured in Hairer's
//!    RMS norm over all 2n components of (q, v) (ambiguity 44) with
//!    sk_i = atol_i + rtol_i max(|z_n,i|, |z_{n+1},i|);
//! 6. Hairer's controller (safety, ratio limits, Lund β, no growth right after a rejection).
//!
//! Counters follow `dopri5.f`: NFCN = 6 NSTEP + 2 (f(t0) and the `HINIT` probe), NREJCT only
//! after the first accepted step, NSTAB on every attempt that was stabilized (rejected ones
//! too). An attempt whose stage hits a singular KKT matrix or a non-finite kernel value is
//! retried with h/4 (counted in `failed`, not in NSTEP) up to
//! [`crate::StepControl::max_failed_attempts`] times in a row; then the error is returned (it is
//! also returned instead of a step-size underflow that the failing attempts caused).
//! Integration runs forward (t_end ≥ t0). Workspaces are allocated in [`Rkstab::new`]; a step
//! allocates nothing.

use crate::dense::DenseOutput;
use crate::error::SimError;
use crate::options::{ErrorEstimate, Options};
use crate::output::{Observer, Recorder, Stats, StepInfo};
use crate::rhs::Rhs;
use crate::stabilize::Stabilizer;
use crate::system::ConstrainedSystem;
use crate::tableau::{A2, A3, A4, A5, A6, B, C, E};

const A: [&[f64]; 6] = [&[], A2, A3, A4, A5, A6];

/// The RKSTAB integrator bound to a model, with its preallocated workspace.
pub struct Rkstab<'a, S: ConstrainedSystem + ?Sized> {
    sys: &'a S,
    opts: Options,
    rhs: Rhs,
    stab: Stabilizer,
    k: [Vec<f64>; 7],
    z: Vec<f64>,
    stage: Vec<f64>,
    znew: Vec<f64>,
    zstab: Vec<f64>,
    zout: Vec<f64>,
    dense: DenseOutput,
}

/// Outcome of one completed step attempt.
struct Attempt {
    error: f64,
    stabilized: bool,
}

impl<'a, S: ConstrainedSystem + ?Sized> Rkstab<'a, S> {
    /// Bind to `sys` with `options`; allocates every workspace.
    pub fn new(sys: &'a S, options: Options) -> Self {
        let dims = sys.dims();
        let len = 2 * dims.n;
        options.rtol.check_len(len, "Rkstab::new rtol");
        options.atol.check_len(len, "Rkstab::new atol");
        Self {
            sys,
            rhs: Rhs::new(dims, options.stabilization.baumgarte().copied()),
            stab: Stabilizer::new(options.stabilization, dims),
            opts: options,
            k: std::array::from_fn(|_| vec![0.0; len]),
            z: vec![0.0; len],
            stage: vec![0.0; len],
            znew: vec![0.0; len],
            zstab: vec![0.0; len],
            zout: vec![0.0; len],
            dense: DenseOutput::new(len),
        }
    }

    /// The options in use.
    pub fn options(&self) -> &Options {
        &self.opts
    }

    /// Integrate from (t0, q, v) to `t_end`, reporting samples at `output_times` (sorted, within
    /// [t0, t_end]) and every step attempt to `observer`. On success `q`, `v` hold the state at
    /// `t_end`; on failure, the last accepted state.
    #[allow(clippy::too_many_arguments)] // time span, state, output grid and observer
    pub fn integrate_into<O: Observer + ?Sized>(
        &mut self,
        t0: f64,
        q: &mut [f64],
        v: &mut [f64],
        t_end: f64,
        output_times: &[f64],
        observer: &mut O,
    ) -> Result<Stats, SimError> {
        let n = self.rhs.dims.n;
        assert!(
            q.len() == n && v.len() == n,
            "Rkstab::integrate_into: q and v need length n"
        );
        assert!(
            t_end >= t0,
            "Rkstab::integrate_into: integration runs forward (t_end >= t0)"
        );
        assert!(
            output_times.windows(2).all(|w| w[0] <= w[1])
                && output_times.iter().all(|&t| t >= t0 && t <= t_end),
            "Rkstab::integrate_into: output times must be sorted and within [t0, t_end]"
        );
        self.rhs.nfcn = 0;
        self.rhs.output_solves = 0;
        self.stab.applications = 0;
        self.stab.time = Default::default();
        self.z[..n].copy_from_slice(q);
        self.z[n..].copy_from_slice(v);
        let mut stats = Stats::default();
        let result = self.run(t0, t_end, output_times, observer, &mut stats);
        q.copy_from_slice(&self.z[..n]);
        v.copy_from_slice(&self.z[n..]);
        stats.nfcn = self.rhs.nfcn;
        stats.output_solves = self.rhs.output_solves;
        stats.nstab = self.stab.applications;
        stats.stabilization_time = self.stab.time;
        result.map(|()| stats)
    }

    fn run<O: Observer + ?Sized>(
        &mut self,
        t0: f64,
        t_end: f64,
        times: &[f64],
        observer: &mut O,
        stats: &mut Stats,
    ) -> Result<(), SimError> {
        let mut next_out = 0;
        while next_out < times.len() && times[next_out] <= t0 {
            self.rhs.emit(self.sys, t0, &self.z, observer)?;
            next_out += 1;
        }
        if t_end == t0 {
            return Ok(());
        }
        let sc = self.opts.step_control;
        let h_max = sc.h_max.min(t_end - t0);
        let (sys, z) = (self.sys, &self.z);
        self.rhs.eval(sys, t0, z, 0.0, &mut self.k[0])?;
        let mut h = match sc.h_init {
            Some(h) => h.min(h_max),
            None => self.initial_step(t0, h_max)?,
        };
        let expo1 = 0.2 - 0.75 * sc.beta;
        let (mut t, mut facold, mut reject, mut last) = (t0, 1e-4_f64, false, false);
        // The failure of the last attempt(s), if they failed, and how many in a row.
        let (mut failure, mut failures): (Option<SimError>, usize) = (None, 0);
        loop {
            if stats.nstep + stats.failed >= self.opts.max_steps {
                return Err(SimError::TooManySteps {
                    t,
                    max_steps: self.opts.max_steps,
                });
            }
            if 0.1 * h.abs() <= t.abs() * f64::EPSILON || h < f64::MIN_POSITIVE {
                // If the step shrank because attempts kept failing, that failure is the cause.
                return Err(failure.unwrap_or(SimError::StepSizeUnderflow { t, h }));
            }
            if t + 1.01 * h - t_end > 0.0 {
                h = t_end - t;
                last = true;
            }
            let attempt = match self.attempt(t, h) {
                Ok(a) => a,
                Err(e @ (SimError::SingularKkt { .. } | SimError::NonFiniteKernel { .. })) => {
                    stats.failed += 1;
                    failures += 1;
                    if failures > sc.max_failed_attempts {
                        return Err(e);
                    }
                    failure = Some(e);
                    observer.step(&StepInfo {
                        t,
                        h,
                        accepted: false,
                        error: f64::INFINITY,
                        stabilized: false,
                    });
                    h *= 0.25;
                    (reject, last) = (true, false);
                    continue;
                }
                Err(e) => return Err(e),
            };
            (failure, failures) = (None, 0);
            stats.nstep += 1;
            let err = attempt.error;
            let fac11 = err.powf(expo1);
            let accepted = err <= 1.0;
            observer.step(&StepInfo {
                t,
                h,
                accepted,
                error: err,
                stabilized: attempt.stabilized,
            });
            if accepted {
                let fac = (fac11 / facold.powf(sc.beta) / sc.safety)
                    .clamp(1.0 / sc.max_ratio, 1.0 / sc.min_ratio);
                let mut h_new = (h / fac).min(h_max);
                facold = err.max(1e-4);
                stats.naccpt += 1;
                self.dense.prepare(t, h, &self.z, &self.zstab, &self.k);
                let t_new = if last { t_end } else { t + h };
                while next_out < times.len() && times[next_out] <= t_new {
                    if times[next_out] == t_new {
                        self.zout.copy_from_slice(&self.zstab);
                    } else {
                        self.dense.eval_into(times[next_out], &mut self.zout);
                    }
                    self.rhs
                        .emit(self.sys, times[next_out], &self.zout, observer)?;
                    next_out += 1;
                }
                if self.opts.output_steps && !(next_out > 0 && times[next_out - 1] == t_new) {
                    self.rhs.emit(self.sys, t_new, &self.zstab, observer)?;
                }
                self.k.swap(0, 6);
                std::mem::swap(&mut self.z, &mut self.zstab);
                t = t_new;
                if last {
                    return Ok(());
                }
                if reject {
                    h_new = h_new.min(h);
                }
                reject = false;
                h = h_new;
            } else {
                let fac = (fac11 / sc.safety).min(1.0 / sc.min_ratio);
                if stats.naccpt >= 1 {
                    stats.nrejct += 1;
                }
                (reject, last) = (true, false);
                h /= fac;
            }
        }
    }

    /// One DOPRI5 step attempt of size h from (t, self.z) with k[0] = f(t, z); leaves the
    /// stabilized result in `zstab` and k_7 in k[6].
    fn attempt(&mut self, t: f64, h: f64) -> Result<Attempt, SimError> {
        let (sys, len, n) = (self.sys, self.z.len(), self.rhs.dims.n);
        for i in 1..6 {
            for c in 0..len {
                let mut s = 0.0;
                for (j, a) in A[i].iter().enumerate() {
                    s += a * self.k[j][c];
                }
                self.stage[c] = self.z[c] + h * s;
            }
            self.rhs
                .eval(sys, t + C[i] * h, &self.stage, h, &mut self.k[i])?;
        }
        for c in 0..len {
            let mut s = 0.0;
            for j in 0..6 {
                s += B[j] * self.k[j][c];
            }
            self.znew[c] = self.z[c] + h * s;
        }
        self.zstab.copy_from_slice(&self.znew);
        let (q, v) = self.zstab.split_at_mut(n);
        let stabilized = self.stab.apply(sys, t + h, h, q, v, self.opts.datol)?;
        self.rhs.eval(sys, t + h, &self.zstab, h, &mut self.k[6])?;
        let mut sum = 0.0;
        for c in 0..len {
            let mut e = 0.0;
            for j in 0..7 {
                e += E[j] * self.k[j][c];
            }
            e *= h;
            if self.opts.error_estimate == ErrorEstimate::Stabilized {
                e += self.zstab[c] - self.znew[c];
            }
            let sk = self.opts.atol.get(c)
                + self.opts.rtol.get(c) * self.z[c].abs().max(self.zstab[c].abs());
            sum += (e / sk) * (e / sk);
        }
        Ok(Attempt {
            error: (sum / len as f64).sqrt(),
            stabilized,
        })
    }

    /// Hairer's `HINIT`: a first guess from ‖z‖ and ‖f‖, refined with one evaluation of f.
    fn initial_step(&mut self, t: f64, h_max: f64) -> Result<f64, SimError> {
        let len = self.z.len();
        let (mut dnf, mut dny) = (0.0, 0.0);
        for c in 0..len {
            let sk = self.opts.atol.get(c) + self.opts.rtol.get(c) * self.z[c].abs();
            dnf += (self.k[0][c] / sk).powi(2);
            dny += (self.z[c] / sk).powi(2);
        }
        let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
            1e-6
        } else {
            (dny / dnf).sqrt() * 0.01
        };
        h = h.min(h_max);
        for c in 0..len {
            self.stage[c] = self.z[c] + h * self.k[0][c];
        }
        let sys = self.sys;
        self.rhs.eval(sys, t + h, &self.stage, h, &mut self.k[1])?;
        let mut der2 = 0.0;
        for c in 0..len {
            let sk = self.opts.atol.get(c) + self.opts.rtol.get(c) * self.z[c].abs();
            der2 += ((self.k[1][c] - self.k[0][c]) / sk).powi(2);
        }
        let der2 = der2.sqrt() / h;
        let der12 = der2.max(dnf.sqrt());
        let h1 = if der12 <= 1e-15 {
            (h * 1e-3).max(1e-6)
        } else {
            (0.01 / der12).powf(0.2)
        };
        Ok((100.0 * h).min(h1).min(h_max))
    }
}

/// Integrate with [`Rkstab`] and record every output sample: the allocating convenience form
/// of [`Rkstab::integrate_into`].
#[must_use = "did you mean Rkstab::integrate_into()?"]
#[allow(clippy::too_many_arguments)] // model, options, time span, state and output grid
pub fn integrate<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    options: Options,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
    output_times: &[f64],
) -> Result<(Recorder, Stats), SimError> {
    let mut rec = Recorder::default();
    let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
    let stats = Rkstab::new(sys, options).integrate_into(
        t0,
        &mut q,
        &mut v,
        t_end,
        output_times,
        &mut rec,
    )?;
    Ok((rec, stats))
}
