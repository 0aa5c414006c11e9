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
//! 6. the layer's adaptive controller (Hairer's, p = 4; `integrator/controller.rs`).
//!
//! Under S-full, GCP, the hybrid, S-both and GGᵀ, the attempts across a singular passage (G losing rank) are
//! projected by PStab instead (`rkstab_passage.rs`), where those corrections' estimates
//! measure noise or their matrices turn singular.
//!
//! Counters follow `dopri5.f`: NFCN = 6 NSTEP + 2 (f(t0) and the `HINIT` probe), NREJCT only
//! after the first accepted step, NSTAB on every attempt that was stabilized (rejected ones
//! too). A passage projection (`rkstab_passage.rs`) adds one NSTAB per projected attempt and,
//! each time its first projection of an accepted state moves it, one more NSTAB and 6
//! right-hand sides (f there and the stages again). Runs backward when t_end < t0 (negative steps, as `dopri5.f` with `POSNEG`).

use std::time::Duration;

use crate::dense::DenseOutput;
use crate::error::SimError;
use crate::integrator::controller::Adaptive;
use crate::integrator::driver::{Attempt, Schedule, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, Solution, prepare};
use crate::options::{ErrorEstimate, StepControl, Tolerance};
use crate::output::Observer;
use crate::rhs::Rhs;
use crate::rkstab_passage::PassageProjection;
use crate::stabilize::{Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;
use crate::tableau::{A2, A3, A4, A5, A6, B, C, E};

/// DOPRI5's rows 2..6 of A (row 1 empty); row 7 is B (FSAL).
const A: [&[f64]; 6] = [&[], A2, A3, A4, A5, A6];

/// The RKSTAB method and its options (the method-specific part; the shared part is
/// [`Rkstab::common`]). Defaults follow the thesis' runs and `dopri5.f`: `atol = rtol / 10`,
/// PStab on every step (DATOL = 0), safety 0.9, step ratio in [0.2, 10], β = 0.04.
#[derive(Clone, Debug, PartialEq)]
pub struct Rkstab {
    /// Relative tolerance (scalar or one per component of (q, v)).
    pub rtol: Tolerance,
    /// Absolute tolerance.
    pub atol: Tolerance,
    /// Which local error estimate drives the step control.
    pub error_estimate: ErrorEstimate,
    /// Step-size control parameters.
    pub step_control: StepControl,
    /// The options every method shares (stabilization, DATOL, limits, samples).
    pub common: CommonOptions,
    /// The singular-passage guard (`stabilize/passage.rs`): under the drift controls that
    /// leave a drift at the accepted state (none, Baumgarte, velocity-only, S-both, the
    /// continuous ones), project that state with PStab before an attempt when the KKT pivot
    /// spread says G is losing rank; under the drift-only ones (all of those but S-both) it
    /// also projects the attempts across a passage by PStab (`rkstab_passage.rs`). Default
    /// off (the pure drift control, as Chin's reproductions need it). With it those controls
    /// carry the A02 chain's body form at every tolerance 1e-4 … 1e-12 and its crank-angle
    /// form at all but three cells (module docs of `rkstab_passage.rs`).
    pub passage_guard: bool,
}

impl Rkstab {
    /// `rtol` with the thesis' usual `atol = rtol / 10`, PStab on every step.
    pub fn new(rtol: f64) -> Self {
        Self {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol / 10.0),
            error_estimate: ErrorEstimate::Stabilized,
            step_control: StepControl::default(),
            common: CommonOptions::default(),
            passage_guard: false,
        }
    }

    /// The same method with the singular-passage guard ([`Rkstab::passage_guard`]).
    pub fn with_passage_guard(mut self) -> Self {
        self.passage_guard = true;
        self
    }

    /// The same method with another stabilization.
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self
    }

    /// The same method with another absolute tolerance.
    pub fn with_atol(mut self, atol: f64) -> Self {
        self.atol = Tolerance::Scalar(atol);
        self
    }

    /// The same method with another DATOL.
    pub fn with_datol(mut self, datol: f64) -> Self {
        self.common.datol = datol;
        self
    }

    /// The same method with other common options.
    pub fn with_common(mut self, common: CommonOptions) -> Self {
        self.common = common;
        self
    }
}

impl Integrator for Rkstab {
    fn name(&self) -> String {
        "rkstab".to_string()
    }

    fn common(&self) -> &CommonOptions {
        &self.common
    }

    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        let how = Explicit {
            common: &self.common,
            tolerances: (&self.rtol, &self.atol),
            control: self.step_control,
            orders: (4, 5),
        };
        integrate_explicit(sys, problem, observer, how, || {
            Dopri5::new(sys, self, &problem.q0, &problem.v0)
        })
    }
}

/// What the start and run of an adaptive explicit Runge–Kutta method with FSAL share (RKSTAB,
/// the stabilized DOP853): its options, and the orders of its error estimate (Hairer's
/// controller, p) and of the method (`HINIT`).
pub(crate) struct Explicit<'a> {
    pub(crate) common: &'a CommonOptions,
    pub(crate) tolerances: (&'a Tolerance, &'a Tolerance),
    pub(crate) control: StepControl,
    pub(crate) orders: (usize, u32),
}

/// The parts of such a stepper that the start needs: the field, the state z0, the slope k_1
/// (FSAL) and two scratch vectors (a slope and a stage).
pub(crate) trait ExplicitStart {
    /// (field, z, k_1, scratch slope, scratch stage).
    fn start_parts(&mut self) -> (&mut Rhs, &[f64], &mut [f64], &mut [f64], &mut [f64]);

    /// The method's own counters ([`crate::Stats::extra`]) after a completed run.
    fn report_extra(&self, _stats: &mut crate::Stats) {}
}

/// The run of an adaptive explicit method: `dopri5.f`'s checks of the tolerances (atol > 0,
/// rtol > 10 ε) and the step control, the shared prologue, the stepper `make` gives, f(t0)
/// into k_1, the first step by `HINIT` (unless given), Hairer's controller and the driver.
pub(crate) fn integrate_explicit<S, O, St>(
    sys: &S,
    problem: &Problem,
    observer: &mut O,
    how: Explicit<'_>,
    make: impl FnOnce() -> St,
) -> Result<Solution, SimError>
where
    S: ConstrainedSystem + ?Sized,
    O: Observer + ?Sized,
    St: Stepper<S> + ExplicitStart,
{
    let len = 2 * sys.dims().n;
    let (rtol, atol) = how.tolerances;
    rtol.validate("rtol", len, 10.0 * f64::EPSILON)?;
    atol.validate("atol", len, 0.0)?;
    how.control.validate()?;
    let auto_tol = (0..len).map(|i| atol.get(i)).fold(f64::INFINITY, f64::min);
    let (mut run, mut stats) = prepare(sys, how.common, problem, Some(auto_tol), observer)?;
    let mut stepper = make();
    let span = (problem.t_end - problem.t0).abs();
    let h_max = how.control.h_max.min(span);
    let mut h0 = 0.0;
    if span > 0.0 {
        let (rhs, z, k0, k1, stage) = stepper.start_parts();
        rhs.eval(sys, problem.t0, z, 0.0, k0)?;
        h0 = match how.control.h_init {
            Some(h) => h.min(h_max),
            None => {
                let at = (problem.t0, run.dir, h_max);
                let tol = how.tolerances;
                initial_step(rhs, sys, at, z, k0, (stage, k1), tol, how.orders.1)?
            }
        };
    }
    let control = Adaptive::new(how.control, how.orders.0, h_max);
    run.drive(&mut stepper, Schedule::Adaptive { control, h0 }, &mut stats)?;
    stepper.report_extra(&mut stats);
    let (q, v) = Stepper::<S>::state(&stepper).split_at(len / 2);
    Ok(run.finish(Solution {
        t: problem.t_end,
        q: q.to_vec(),
        v: v.to_vec(),
        stats,
        event: None,
    }))
}

/// The DOPRI5 step with post-stabilization and its preallocated workspace.
struct Dopri5 {
    rtol: Tolerance,
    atol: Tolerance,
    error_estimate: ErrorEstimate,
    datol: f64,
    rhs: Rhs,
    stab: Stabilizer,
    k: [Vec<f64>; 7],
    z: Vec<f64>,
    stage: Vec<f64>,
    znew: Vec<f64>,
    zstab: Vec<f64>,
    dense: DenseOutput,
    /// Whether the singular-passage guard is on ([`Rkstab::passage_guard`]).
    passage_guard: bool,
    /// PStab across singular passages under S-full, GCP, the hybrid, S-both and GGᵀ
    /// (`rkstab_passage.rs`).
    passage: Option<PassageProjection>,
}

impl Dopri5 {
    fn new<S: ConstrainedSystem + ?Sized>(sys: &S, m: &Rkstab, q0: &[f64], v0: &[f64]) -> Self {
        let dims = sys.dims();
        let len = 2 * dims.n;
        let stabilization = m.common.stabilization;
        Self {
            rtol: m.rtol.clone(),
            atol: m.atol.clone(),
            error_estimate: m.error_estimate,
            datol: m.common.datol,
            rhs: Rhs::new(dims, stabilization, m.common.kkt),
            stab: Stabilizer::new(stabilization, dims).with_kkt_solver(m.common.kkt),
            k: std::array::from_fn(|_| vec![0.0; len]),
            z: q0.iter().chain(v0).copied().collect(),
            stage: vec![0.0; len],
            znew: vec![0.0; len],
            zstab: vec![0.0; len],
            dense: DenseOutput::new(len),
            passage_guard: m.passage_guard,
            passage: PassageProjection::for_control(
                stabilization,
                dims,
                Stabilizer::new(Stabilization::PStab, dims).with_kkt_solver(m.common.kkt),
                m.passage_guard,
            ),
        }
    }

    /// The stages 2..6 and the unstabilized 5th-order result `znew`.
    fn stages<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let (stab, passage) = (&mut self.stab, &mut self.passage);
        let scratch = (&mut self.stage[..], &mut self.znew[..]);
        let spread = |spread: f64| note_spread(stab, passage, spread);
        dopri5_stages(
            (sys, &mut self.rhs),
            (t, h),
            &self.z,
            &mut self.k,
            scratch,
            spread,
        )
    }

    /// The scaled RMS norm of the local error estimate.
    fn error_norm(&self, h: f64) -> f64 {
        let stabilized = self.error_estimate == ErrorEstimate::Stabilized;
        let ends = (&self.z[..], &self.znew[..], &self.zstab[..]);
        error_norm(
            h,
            &self.k,
            ends,
            (&self.rtol, &self.atol),
            &self.stab,
            stabilized,
        )
    }

    /// The attempt (t, h), whose stages and z~ are computed, with its end projected by PStab
    /// instead of the chosen control (`rkstab_passage.rs`).
    fn passage_attempt<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<Attempt, SimError> {
        let Some(p) = &mut self.passage else {
            unreachable!("passage attempts only under a control with a passage projection")
        };
        p.pending = true;
        p.counts.0 += 1;
        if p.start_projected != Some(t) {
            // The chosen control's state may carry its own round-off residual, which PStab
            // would correct in every attempt as if it were error: project it once, then the
            // stages from there.
            p.start_projected = Some(t);
            let (q, v) = self.z.split_at_mut(self.k[0].len() / 2);
            if p.pstab.apply(sys, t, h, q, v, 0.0)? {
                self.rhs.eval(sys, t, &self.z, h, &mut self.k[0])?;
                self.stages(sys, t, h)?;
            }
        }
        let Some(p) = &mut self.passage else {
            unreachable!("checked above")
        };
        self.zstab.copy_from_slice(&self.znew);
        let (q, v) = self.zstab.split_at_mut(self.z.len() / 2);
        let stabilized = p.pstab.apply(sys, t + h, h, q, v, self.datol)?;
        self.rhs.eval(sys, t + h, &self.zstab, h, &mut self.k[6])?;
        let estimate = self.error_estimate == ErrorEstimate::Stabilized;
        let ends = (&self.z[..], &self.znew[..], &self.zstab[..]);
        let tolerances = (&self.rtol, &self.atol);
        Ok(Attempt {
            error: error_norm(h, &self.k, ends, tolerances, &p.pstab, estimate),
            stabilized,
            verdict: None,
        })
    }
}

/// A right-hand side's KKT pivot spread, to the guard (`stabilize/passage.rs`) and to the
/// passage projection's bound (`rkstab_passage.rs`).
fn note_spread(stab: &mut Stabilizer, passage: &mut Option<PassageProjection>, spread: f64) {
    stab.note_spread(spread);
    if let Some(p) = passage {
        p.note_spread(spread);
    }
}

/// DOPRI5's stages 2..6 from z with k_1 in `k[0]`, each evaluated stage's KKT pivot spread
/// handed to `spread`, and the unstabilized 5th-order result z~ into `scratch.1` (`scratch.0`:
/// the stage argument).
pub(crate) fn dopri5_stages<S: ConstrainedSystem + ?Sized>(
    (sys, rhs): (&S, &mut Rhs),
    (t, h): (f64, f64),
    z: &[f64],
    k: &mut [Vec<f64>; 7],
    (stage, znew): (&mut [f64], &mut [f64]),
    mut spread: impl FnMut(f64),
) -> Result<(), SimError> {
    for i in 1..6 {
        combine_into(stage, z, h, A[i], k);
        rhs.eval(sys, t + C[i] * h, stage, h, &mut k[i])?;
        spread(rhs.last_spread());
    }
    combine_into(znew, z, h, &B[..6], k);
    Ok(())
}

/// DOPRI5's scaled RMS error norm of a step from z (`ends.0`) with stages `k`, unstabilized
/// result z~ (`ends.1`) and stabilized one z_{n+1} (`ends.2`): h Σ E_j k_j, plus
/// z_{n+1} − z~ when `stabilized` (\[CHIN\] (4.13)), in the weights
/// sk_i = atol_i + rtol_i max(|z_n,i|, |z_{n+1},i|) floored at the stabilizer's round-off.
pub(crate) fn error_norm(
    h: f64,
    k: &[Vec<f64>; 7],
    (z, znew, zstab): (&[f64], &[f64], &[f64]),
    (rtol, atol): (&Tolerance, &Tolerance),
    stab: &Stabilizer,
    stabilized: bool,
) -> f64 {
    let len = z.len();
    let mut sum = 0.0;
    for c in 0..len {
        let mut e = 0.0;
        for j in 0..7 {
            e += E[j] * k[j][c];
        }
        e *= h;
        if stabilized {
            e += zstab[c] - znew[c];
        }
        let sk = atol.get(c) + rtol.get(c) * z[c].abs().max(zstab[c].abs());
        // Never below the round-off the stabilizer measured in this attempt (near singular
        // positions at tight tolerances; `Stabilizer::floored_scale`; bit-identical
        // otherwise).
        let sk = stab.floored_scale(c, sk);
        sum += (e / sk) * (e / sk);
    }
    (sum / len as f64).sqrt()
}

/// `out = z + h Σ_j a_j k_j` (j = 0, 1, … in order), each component's sum formed as
/// `((0 + a_0 k_0,c) + a_1 k_1,c) + …`: the same operations in the same order as a per-component
/// loop, bit for bit, with the sum accumulated in `out` one stage at a time so every pass is a
/// plain elementwise loop (vectorized, no bounds checks per term).
fn combine_into(out: &mut [f64], z: &[f64], h: f64, a: &[f64], k: &[Vec<f64>]) {
    out.fill(0.0);
    for (&aj, kj) in a.iter().zip(k) {
        for (s, &x) in out.iter_mut().zip(kj) {
            *s += aj * x;
        }
    }
    for (o, &zc) in out.iter_mut().zip(z) {
        *o = zc + h * *o;
    }
}

impl ExplicitStart for Dopri5 {
    fn start_parts(&mut self) -> (&mut Rhs, &[f64], &mut [f64], &mut [f64], &mut [f64]) {
        let (k0, rest) = self.k.split_at_mut(1);
        (
            &mut self.rhs,
            &self.z,
            &mut k0[0],
            &mut rest[0],
            &mut self.stage,
        )
    }

    fn report_extra(&self, stats: &mut crate::Stats) {
        if let Some(p) = &self.passage {
            p.report(stats);
        }
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for Dopri5 {
    fn state(&self) -> &[f64] {
        &self.z
    }

    /// One DOPRI5 step attempt of size h from (t, z) with k[0] = f(t, z); leaves the
    /// stabilized result in `zstab` and k_7 in k[6].
    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        // Near a rank loss of G: start from the accepted state projected onto the manifold if
        // the drift control left a drift there (`stabilize/passage.rs`).
        let (q, v) = self.z.split_at_mut(self.k[0].len() / 2);
        if self.passage_guard && self.stab.guard_passage(sys, (t, h), q, v)? {
            self.rhs.eval(sys, t, &self.z, h, &mut self.k[0])?;
        }
        self.stages(sys, t, h)?;
        if let Some(p) = &mut self.passage {
            p.pending = false;
            if p.projects_from(t, h) {
                return self.passage_attempt(sys, t, h);
            }
        }
        self.zstab.copy_from_slice(&self.znew);
        let (q, v) = self.zstab.split_at_mut(self.z.len() / 2);
        let stabilized = match self.stab.apply(sys, t + h, h, q, v, self.datol) {
            Ok(stabilized) => stabilized,
            // A correction that fails where PStab's need not (near a rank loss of G).
            Err(e) if e.is_retryable() && self.passage.is_some() => {
                let p = self.passage.as_mut().expect("checked");
                if p.after_failed_correction(t, h) {
                    return self.passage_attempt(sys, t, h);
                }
                return Err(e);
            }
            Err(e) => return Err(e),
        };
        self.rhs.eval(sys, t + h, &self.zstab, h, &mut self.k[6])?;
        note_spread(&mut self.stab, &mut self.passage, self.rhs.last_spread());
        let error = self.error_norm(h);
        if let Some(p) = &mut self.passage
            && p.shows_signature(t, h, error)
        {
            return self.passage_attempt(sys, t, h);
        }
        Ok(Attempt {
            error,
            stabilized,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        self.dense.prepare(t, h, &self.z, &self.zstab, &self.k);
        self.stab.note_accepted();
        if let Some(p) = &mut self.passage {
            p.note_accepted();
        }
        self.k.swap(0, 6);
        std::mem::swap(&mut self.z, &mut self.zstab);
    }

    fn interpolate(&mut self, _sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        self.dense.eval_into(t, out);
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(self.rhs.row_selection())
    }

    fn counters(&self) -> StepperCounters {
        let (passage_stab, passage_time) = match &self.passage {
            Some(p) => (p.pstab.applications, p.pstab.time),
            None => (0, Duration::ZERO),
        };
        StepperCounters {
            nfcn: self.rhs.nfcn,
            nstab: self.stab.applications + passage_stab,
            stabilization_time: self.stab.time + passage_time,
            output_solves: 0,
            conditioning: self.rhs.conditioning,
        }
    }
}

/// Hairer's `HINIT` for a method of order `order` (`dopri5.f`: 5, `dop853.f`: 8) at `at` =
/// (t, direction, h_max) from z with `f0` = f(t, z): a first guess from ‖z‖ and ‖f‖, refined
/// with one evaluation of f (into `work.1`, its argument in `work.0`).
#[allow(clippy::too_many_arguments)] // the state, its slope, scratch and tolerances are all needed
pub(crate) fn initial_step<S: ConstrainedSystem + ?Sized>(
    rhs: &mut Rhs,
    sys: &S,
    (t, dir, h_max): (f64, f64, f64),
    z: &[f64],
    f0: &[f64],
    (stage, f1): (&mut [f64], &mut [f64]),
    (rtol, atol): (&Tolerance, &Tolerance),
    order: u32,
) -> Result<f64, SimError> {
    let len = z.len();
    let (mut dnf, mut dny) = (0.0, 0.0);
    for c in 0..len {
        let sk = atol.get(c) + rtol.get(c) * z[c].abs();
        dnf += (f0[c] / sk).powi(2);
        dny += (z[c] / sk).powi(2);
    }
    let mut h = if dnf <= 1e-10 || dny <= 1e-10 {
        1e-6
    } else {
        (dny / dnf).sqrt() * 0.01
    };
    h = h.min(h_max);
    for c in 0..len {
        stage[c] = z[c] + dir * h * f0[c];
    }
    rhs.eval(sys, t + dir * h, stage, h, f1)?;
    let mut der2 = 0.0;
    for c in 0..len {
        let sk = atol.get(c) + rtol.get(c) * z[c].abs();
        der2 += ((f1[c] - f0[c]) / sk).powi(2);
    }
    let der2 = der2.sqrt() / h;
    let der12 = der2.max(dnf.sqrt());
    let h1 = if der12 <= 1e-15 {
        (h * 1e-3).max(1e-6)
    } else {
        (0.01 / der12).powf(1.0 / f64::from(order))
    };
    Ok((100.0 * h).min(h1).min(h_max))
}
