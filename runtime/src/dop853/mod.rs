//! DOP853 with post-stabilization: Hairer's eighth-order Dormand–Prince pair (`dop853.f`,
//! Hairer–Nørsett–Wanner I §II.10) with the drift control of RKSTAB (\[CHIN\] §4.2–4.3)
//! applied to every accepted step, and its 7th-order dense output.
//!
//! One attempt from (t_n, z_n), z = (q, v), f = (v, v̇) from the KKT solve:
//! 1. k_1 = f(t_n, z_n) is the previous step's k_13 (FSAL); stages 2..12 as in `dop853.f`;
//! 2. z~ = z_n + h Σ b_j k_j (8th order, unstabilized);
//! 3. the error of z~: `dop853.f`'s blend of the 5th- and 3rd-order estimates,
//!    err = |h| ‖e5‖² / √(N (‖e5‖² + 0.01 ‖e3‖²)) in the weights
//!    sk_i = atol_i + rtol_i max(|z_n,i|, |z~_i|) ([`ErrorEstimate::Unstabilized`], the
//!    default). A rejected attempt ends here: 11 right-hand sides and no projection, as
//!    `dop853.f` counts them;
//! 4. an accepted attempt: k'_13 = f(t_n + h, z~), then z_{n+1} = stabilize(z~) (PStab etc.;
//!    skipped if the drift of z~ is ≤ DATOL > 0: that test reads G from k'_13's factors, and
//!    the drift it measured is the step point's, which the driver then does not evaluate
//!    again, `Stepper::known_drift`). PStab, S-both and velocity-only take the
//!    augmented matrix K = [M G0ᵀ; G0 0] at q~ from that evaluation's factors (\[CHIN\]
//!    (4.15) "reuses the matrix of the Section 2.1 solve"), so a projection costs its
//!    residuals and solves only, no assembly or factorization (Andrews: about one
//!    right-hand side instead of two). k_13 = (v_{n+1}, v̇(t_n + h, z~)): the stabilized
//!    velocities and the accelerations of z~. The accelerations differ from those of
//!    z_{n+1} by O(‖z_{n+1} − z~‖), the size of the correction, which is the constraint part
//!    of the local error, O(h⁹); k_13 is the next step's k_1 (weight h) and not part of
//!    DOP853's error estimate, so this changes the next step by O(h¹⁰), below its own local
//!    error — away from rank loss: the constant is the accelerations' Lipschitz constant,
//!    which grows with the KKT matrix's conditioning near a singular position (pivot spread
//!    ~1/d² at distance d from the A02 chain's horizontal position). Near such positions the
//!    estimate may stop measuring truncation; a second test then decides (below, "Singular
//!    passages"). The other stabilizations (GGᵀ, S-full, GCP, hybrid) correct first and evaluate
//!    k_13 = f(t_n + h, z_{n+1});
//! 5. the layer's adaptive controller with `dop853.f`'s defaults (p + 1 = 8, β = 0, step
//!    ratio in [1/3, 6]: [`Dop853::default_step_control`]).
//!
//! Why the unstabilized estimate: RKSTAB estimates after the stabilization because its k_7,
//! evaluated at the stabilized point (4.11), is a stage of the embedded 4th-order solution
//! (4.13). DOP853's estimates use k_1..k_12 only; the correction only removes the part of
//! the local error that leaves the constraints, so z~'s error bounds z_{n+1}'s. RKSTAB's
//! rule stays available ([`ErrorEstimate::Stabilized`]: every attempt stabilized, both
//! differences taken from the stabilized result, h e = (z_{n+1} − z~) + h Σ (b_j − b̂_j) k_j,
//! and k_13 = f(t_n + h, z_{n+1}) after an accepted attempt only).
//!
//! Dense output: the three extra stages 14–16 are evaluated only for a step in which an
//! output time or an event's interior point falls (counted in `Stats::output_solves`), from
//! the step's stages kept aside at acceptance; the interpolant meets z_{n+1} and k_13 at the
//! step's end, and the next step's starts from both, so it is C¹ across steps as RKSTAB's.
//!
//! # Singular passages
//!
//! Measured on the IFToMM A02 chain (crank form, rtol 1e-12, where G = 2ℓ² sin θ D vanishes
//! at the horizontal position): a step whose stages straddle the passage is rejected by the
//! unstabilized estimate at every step size. The chain's exact motion keeps the cranks
//! parallel, so the relative (differential) modes are seeded by round-off only, but the
//! index-1 field amplifies a residual J of the position constraint into relative
//! accelerations ~J/τ³ at time τ from the passage, and DOP853's stages lie far off the
//! constraint manifold: relative stage accelerations of 1e3…6e4 rad/s² where DOPRI5's stay ≤ 4e-2, an
//! estimate ~1e-6 rad/s in the relative velocities (the directions PStab removes) and ~1e-9 in
//! the common one, falling by a factor 1.4 where h^8 predicts 2600. The controller then lands
//! ever nearer the passage (h 8e-4, 1.4e-4, 4.5e-5, … 1e-13) and every accepted state carries
//! a larger relative acceleration (k_1's 1e-9 → 2e4), until the step size underflows. RKSTAB
//! passes because its estimate contains the correction: z_{n+1} − ẑ with k_7 at the
//! stabilized point, where the relative-velocity parts of h Σ E_j k_j (8e-8) and of
//! z_{n+1} − z~ (−9e-8) cancel.
//!
//! The rule (`Stepper853::noise_signature`): when an attempt from the same t as the last,
//! rejected one, with a shorter step, is rejected again and its estimate fell by less than
//! (h / h_r)^4 (half the order of a truncation estimate), the estimate is taken as not
//! measuring truncation. That attempt, and every further one from the same t until one is
//! accepted, is then made as RKSTAB's: a DOPRI5 step with the stabilization applied and the
//! error of the stabilized result, whose stages stay near the manifold (`passage.rs`; k_7 at
//! the stabilized end is the next step's k_1, `contd5` serves the samples inside it). An
//! ordinary rejection (estimate falling like h^8) never reaches the rule, so runs without
//! repeated non-shrinking rejections are bit-identical (the conformance snapshot did not
//! change; on Andrews, `runtime/tests/suite/dop853.rs`, rtol 1e-8, 1e-10 and 1e-12 are
//! unchanged, 1209 / 2033 / 3297 NFCN; at 1e-6 the rule fired on ordinary rejections of
//! steps that were not yet asymptotic, NFCN 682 → 809, until it was bounded by the rank loss
//! it is for: it counts only while the KKT pivot spread has grown [`SIGNATURE_GROWTH`]-fold
//! over the run's first, which Andrews' never does, so 682 again). Runs with
//! passage steps report them in `Stats::extra` (`passage_attempts`, `passage_steps`,
//! `eighth_order_attempts`).
//!
//! Two more signatures of the same kind, for the approach that the rule above did not stop
//! (measured on the three cells that still collapsed): (a) an *approach*: every attempt
//! across the passage is rejected once with an estimate of 1e3…1e5, the next, a third as
//! long, ends short of the passage and is accepted ordinarily (estimate ~1e-2), so the rule
//! never sees a second rejection from the same t, and the accepted ends creep up on the
//! passage (crank 1e-12 at t = 13.0376: 2.9e-4, 1.0e-4, 3.3e-5, … 5.7e-9 s) while k_1's
//! relative accelerations grow 11 → 5e7 rad/s². So the last rejection (t_r, h_r, e_r) is
//! kept across acceptances, and a first attempt from a later t whose interval lies inside
//! [t_r, t_r + h_r] is tested as above against e_r; (b) once an attempt from t showed a
//! signature, every further attempt from that t is a passage step. Without (b) crank 1e-12
//! failed at 16.97, without (a) at 13.04 (measured with the tangential judgment below).
//!
//! Why not the estimate's tangential part, which judged these attempts first (e − P G e per
//! block with K of the last stage, the error of the stabilized result up to the correction's
//! second-order terms): every cell passed, but on the body form at rtol 1e-11 it accepted a
//! step of 2.7e-2 s across the passage at t = 16.445 (estimate 2.7e5, tangential part
//! 1.2e-2) whose common velocity was off by 1.6e-8 rad/s — both of DOP853's solutions carry
//! the same contaminated stages, so their difference cannot see it — and near the top of the
//! next swing that grew into a phase error of 3.3e-7 rad. Step doubling of the stabilized
//! result confirmed such errors (up to 3e-4 rad/s in the common velocity over a passage
//! step). Passage steps taken only where the tangential part accepted failed crank 1e-4 and
//! 1e-12 (the steps crept up on the passage); capping the tangentially accepted step
//! (h ≤ 0.34 or 0.1 of the rejected one) collapsed the body form at 1e-10 … 1e-12.
//!
//! A02 chain over 20 s against the exact reduction (`cargo bench -p mbsim-models --bench
//! passages -- dop853`), projected samples ([`Dop853::default_samples`]), tangential judgment →
//! passage steps: crank form 1e-4 3.7e-1 → 1.03, 1e-5 1.7e-3 → 1.7e-1, 1e-6 2.9e-3 (both),
//! 1e-7 2.2e-4 → 2.8e-4, 1e-8 4.5e-6 → 4.7e-6, 1e-9 5.4e-7 → 4.5e-7, 1e-10 3.1e-8 → 7.2e-8,
//! 1e-11 1.5e-9 → 7.6e-9, 1e-12 1.6e-9 → 8.3e-10; body form 1e-4 7.1e-2 → 6.9e-3, 1e-5 3.9e-2
//! → 7.1e-3, 1e-6 3.0e-4 (both), 1e-7 3.7e-6 → 3.2e-6, 1e-8 4.6e-7 → 4.7e-7, 1e-9 3.0e-7 →
//! 7.0e-8, 1e-10 7.5e-8 → 1.4e-8, 1e-11 3.4e-7 → 6.6e-9, 1e-12 2.4e-6 → 2.1e-9 (RKSTAB on the
//! crank form 1.4e-2, 4.0e-2 at 1e-4, 1e-5 and 4.1e-6 … 4.3e-9 at 1e-9 … 1e-12; on the body
//! form 2.2e-9 at 1e-11). The crank form's loose cells are a steady drift of the common phase
//! over DOP853's ~100 steps of 0.2 s (1e-4: 7.8e-4, 1.0e-1, 2.9e-1, 9.9e-1 at t = 1, 5, 11,
//! 18.5 s, the cranks parallel to 1e-12), where the rule also fires on ordinary rejections of
//! steps that are not yet asymptotic (1e-4: 5 times, 3 away from any passage; 1e-5: at t =
//! 2.17, h = 0.38, an estimate that fell 3.2-fold where h^4 predicts 3.5); with the signature's
//! order 3 or 2 instead of 4 they measure 0.48 / 0.51 and 0.12 / 7.7e-3, but crank 1e-11
//! 9.9e-7 and (order 2) crank 1e-12 1.2e-6, so the order stays 4. The spread bound
//! ([`SIGNATURE_GROWTH`], 2026-11-30) removed those firings: crank form 1e-4 1.03 → 0.48,
//! 1e-5 0.17 → 7.7e-3 (DOP853 itself on the 1-DOF reduction, SciPy: 0.49 and 7.9e-3), 1e-7
//! 2.8e-4 → 2.2e-4, 1e-8 4.7e-6 → 4.5e-6, 1e-11 7.57e-9 → 7.65e-9; body form 1e-9 7.0e-8 →
//! 3.8e-7 (worse: a firing at growth below 20 had helped it), 1e-10 1.4e-8 → 1.1e-8, 1e-11
//! 6.6e-9 → 6.5e-9, 1e-12 2.1e-9 → 1.65e-9; the other eight cells unchanged. Bounds of 40
//! and 60 gave the same table; 20 kept the crank 1e-5 cell at 0.17 (its firing at growth 36),
//! 100 gave it 3.5e-2 and body 1e-4 1.1e-2, 300 crank 1e-12 1.2e-6. Tried, not adopted:
//! [`ErrorEstimate::Stabilized`] on the chain (crank 1e-10 stops singular at t = 16.45,
//! 1e-12 underflows at 10.55, body 1e-12 stops at 14.48; body 1e-10 2.8e-7).
//!
//! Tried, not adopted (with the tangential judgment): (1) also judging the first rejection
//! tangentially when the last stage's pivot spread exceeds 1e3 and the projection measured
//! its round-off floor: the clause fired on Andrews (pivot spread > 1e3 from its scaling) and
//! let an error of 7.8e-11 through at rtol 1e-12 (3.5e-13 without), and on the slider-crank
//! with a spring-damper (spreads 1.2e3, 6.0e3), while most firings on the chain had spreads
//! 1–10, so the spread does not tell a passage; (2) the rank-loss guard of the constant-step
//! methods (the cranks' relative angles kept free of amplified round-off): crank 1e-12 got
//! past 1.244 to 2.687, where the velocity corrections' noise, 1.5e-10 for every h, rejected
//! through the corrected estimate.
//!
//! Counters follow `dop853.f`: NFCN = 11 NSTEP + NSTAB + 2 (f(t0) and the `HINIT` probe;
//! k_13 once per projected attempt; with passage steps 11 per attempt that evaluated DOP853's
//! stages, `eighth_order_attempts`, and 6 per passage attempt, one stabilization each in
//! NSTAB); NSTAB = the attempts the unstabilized estimate accepts
//! (NACCPT plus those the correction's estimate then rejects), or NSTEP under
//! [`ErrorEstimate::Stabilized`] (whose NFCN = 11 NSTEP + NACCPT + 2).

mod passage;
mod tableau;

use crate::error::SimError;
use crate::integrator::driver::{Attempt, Stepper, StepperCounters};
use crate::integrator::{CommonOptions, Integrator, Problem, SampleKind, Solution};
use crate::options::{ErrorEstimate, StepControl, Tolerance};
use crate::output::Observer;
use crate::rhs::Rhs;
use crate::rkstab::{Explicit, ExplicitStart, integrate_explicit};
use crate::stabilize::{NoiseSignature, Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;

use passage::{Measure, PassageStep};
use tableau::{A, BHH, C, D, ER};

/// Stages of the step proper (without the FSAL stage 13).
const STAGES: usize = 12;

/// The growth of the KKT pivot spread over the run's first (its largest since the last
/// accepted step) that the noise signature needs: 60. Measured on the A02 chain's crank form
/// (`passages -- dop853`): the signature fired at rtol 1e-5 on an ordinary rejection of a
/// step of 0.38 s at t = 2.17 whose stages reached toward a horizontal position (growth 36),
/// and the passage attempts of rtol 1e-12 need it at growths above 100 (a bound of 300 let
/// that cell end 1.2e-6 off, against 8.3e-10). Andrews' spread never grows over its first,
/// so the rule no longer fires there on rejections of steps not yet asymptotic (rtol 1e-6).
const SIGNATURE_GROWTH: f64 = 60.0;

/// The order p of the noise signature (`Stepper853::noise_signature`): a rejected estimate
/// that fell by less than (h / h_r)^p from the last one at the same point, half the order 8 of
/// a truncation estimate, does not measure truncation.
const NOISE_ORDER: i32 = 4;

/// Stabilized DOP853 and its options (the method-specific part; the shared part is
/// [`Dop853::common`]). Defaults: `atol = rtol / 10`, PStab on every accepted step (DATOL =
/// 0), the unstabilized error estimate (module docs), `dop853.f`'s step control, and samples
/// between step points post-stabilized ([`Dop853::default_samples`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Dop853 {
    /// Relative tolerance (scalar or one per component of (q, v)).
    pub rtol: Tolerance,
    /// Absolute tolerance.
    pub atol: Tolerance,
    /// Which local error estimate drives the step control.
    pub error_estimate: ErrorEstimate,
    /// Step-size control parameters ([`Dop853::default_step_control`]).
    pub step_control: StepControl,
    /// The options every method shares (stabilization, DATOL, limits, samples).
    pub common: CommonOptions,
}

impl Dop853 {
    /// `rtol` with `atol = rtol / 10`, PStab on every accepted step, the unstabilized error
    /// estimate, projected samples.
    pub fn new(rtol: f64) -> Self {
        let common = CommonOptions::default();
        Self {
            rtol: Tolerance::Scalar(rtol),
            atol: Tolerance::Scalar(rtol / 10.0),
            error_estimate: ErrorEstimate::Unstabilized,
            step_control: Self::default_step_control(),
            common: CommonOptions {
                samples: Self::default_samples(common.stabilization),
                ..common
            },
        }
    }

    /// How DOP853 makes samples between step points by default: post-stabilized
    /// ([`SampleKind::Projected`], what `mbsim simulate` does for every method) under the drift
    /// controls that correct the state after a step, the interpolant as it is otherwise. Its
    /// continuous extension combines 16 stages, which near a rank loss of G lie far off the
    /// constraint manifold (module docs, "Singular passages"), and there the interpolant errs
    /// in the directions G loses, where Φ hardly sees it: on the IFToMM A02 chain (crank form,
    /// rtol 1e-10, samples every 5 ms) the cranks of interpolated samples spread by up to
    /// 2.8e-6 rad inside the step over the passage at t = 3.209, while the step points and the
    /// projected samples keep them within 1e-12; over the 20 s the error against the exact
    /// reduction was 7.9e-7 interpolated and is 3.1e-8 projected (rtol 1e-12: 1.9e-6 and
    /// 1.6e-9). RKSTAB's and ABM's interpolants, from stages near the manifold, gave the same
    /// errors either way there, so their default stays [`SampleKind::Interpolated`].
    pub fn default_samples(stabilization: Stabilization) -> SampleKind {
        if stabilization.is_post_step() {
            SampleKind::Projected
        } else {
            SampleKind::Interpolated
        }
    }

    /// `dop853.f`'s defaults: safety 0.9, step ratio in [0.333, 6], β = 0 (no Lund term).
    pub fn default_step_control() -> StepControl {
        StepControl {
            safety: 0.9,
            min_ratio: 0.333,
            max_ratio: 6.0,
            beta: 0.0,
            ..StepControl::default()
        }
    }

    /// The same method with another stabilization, and the samples of its default for it
    /// ([`Dop853::default_samples`]; set `common.samples` afterwards to choose them).
    pub fn with_stabilization(mut self, stabilization: Stabilization) -> Self {
        self.common.stabilization = stabilization;
        self.common.samples = Self::default_samples(stabilization);
        self
    }

    /// The same method with other common options.
    pub fn with_common(mut self, common: CommonOptions) -> Self {
        self.common = common;
        self
    }
}

impl Integrator for Dop853 {
    fn name(&self) -> String {
        "dop853".to_string()
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
            orders: (7, 8),
        };
        integrate_explicit(sys, problem, observer, how, || {
            Stepper853::new(sys, self, &problem.q0, &problem.v0)
        })
    }
}

/// The continuous extension of the last accepted step: its stages (k_1..k_13 kept aside at
/// acceptance, k_14..k_16 once needed), its start and its coefficients.
struct Dense {
    /// k_1..k_16 of the step (index 12: k_13 at its end, module docs step 4; 13..15 the extra
    /// stages).
    k: [Vec<f64>; 16],
    z0: Vec<f64>,
    t: f64,
    h: f64,
    /// The eight coefficient vectors of `contd8` (ready once `prepared`).
    cont: [Vec<f64>; 8],
    prepared: bool,
}

impl Dense {
    fn new(len: usize) -> Self {
        Self {
            k: std::array::from_fn(|_| vec![0.0; len]),
            z0: vec![0.0; len],
            t: 0.0,
            h: 0.0,
            cont: std::array::from_fn(|_| vec![0.0; len]),
            prepared: false,
        }
    }

    /// The extra stages 14..16 and the coefficients of the step from `z0` to `z1`.
    fn prepare<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        rhs: &mut Rhs,
        z1: &[f64],
        stage: &mut [f64],
    ) -> Result<(), SimError> {
        let (t, h) = (self.t, self.h);
        for s in 13..16 {
            combine(stage, &self.z0, h, A[s], &self.k);
            rhs.eval(sys, t + C[s] * h, stage, h, &mut self.k[s])?;
        }
        let [c0, c1, c2, c3, rest @ ..] = &mut self.cont;
        for i in 0..z1.len() {
            let ydiff = z1[i] - self.z0[i];
            let bspl = h * self.k[0][i] - ydiff;
            c0[i] = self.z0[i];
            c1[i] = ydiff;
            c2[i] = bspl;
            c3[i] = ydiff - h * self.k[12][i] - bspl;
        }
        for (row, out) in D.iter().zip(rest.iter_mut()) {
            for (i, o) in out.iter_mut().enumerate() {
                *o = h * row.iter().map(|&(j, d)| d * self.k[j][i]).sum::<f64>();
            }
        }
        self.prepared = true;
        Ok(())
    }

    /// `contd8`: z(t) for t in the prepared step, into `out`.
    fn eval_into(&self, t: f64, out: &mut [f64]) {
        let s = (t - self.t) / self.h;
        let s1 = 1.0 - s;
        let [c0, c1, c2, c3, c4, c5, c6, c7] = &self.cont;
        for i in 0..out.len() {
            let conpar = c4[i] + s * (c5[i] + s1 * (c6[i] + s * c7[i]));
            out[i] = c0[i] + s * (c1[i] + s1 * (c2[i] + s * (c3[i] + s1 * conpar)));
        }
    }
}

/// `out = z + h Σ_j a_j k_j` over the nonzero entries `row` of a row of A. The sum runs stage
/// by stage over whole vectors (contiguous, no per-entry indexing), in the order and from the
/// start value (−0.0) of `Iterator::sum`, so every component is the same float as summed
/// component by component.
fn combine(out: &mut [f64], z: &[f64], h: f64, row: &[(usize, f64)], k: &[Vec<f64>]) {
    out.fill(-0.0);
    for &(j, a) in row {
        for (o, kj) in out.iter_mut().zip(&k[j]) {
            *o += a * kj;
        }
    }
    for (o, zc) in out.iter_mut().zip(z) {
        *o = zc + h * *o;
    }
}

/// The DOP853 step with post-stabilization and its preallocated workspace.
struct Stepper853 {
    rtol: Tolerance,
    atol: Tolerance,
    error_estimate: ErrorEstimate,
    datol: f64,
    rhs: Rhs,
    stab: Stabilizer,
    /// k_1..k_13 of the current attempt (index 12: k_13, module docs step 4).
    k: [Vec<f64>; 13],
    z: Vec<f64>,
    stage: Vec<f64>,
    znew: Vec<f64>,
    zstab: Vec<f64>,
    dense: Dense,
    /// Right-hand sides spent on dense output.
    dense_solves: usize,
    /// The attempt's 5th- and 3rd-order estimates ([`Stepper853::estimates`]).
    diff: [Vec<f64>; 2],
    /// The DOPRI5 step taken across singular passages (`passage.rs`).
    passage: PassageStep,
    /// Attempts that evaluated DOP853's stages (all but the passage step's own).
    eighth_order_attempts: usize,
    /// The rejections the noise signature of a passage is read from.
    signature: NoiseSignature,
    /// The KKT pivot spread's growth over the run's first, its peak since the last accepted
    /// step: the noise signature counts only where it exceeds [`SIGNATURE_GROWTH`].
    spread: crate::stabilize::SpreadGrowth,
}

impl Stepper853 {
    fn new<S: ConstrainedSystem + ?Sized>(sys: &S, m: &Dop853, q0: &[f64], v0: &[f64]) -> Self {
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
            dense: Dense::new(len),
            dense_solves: 0,
            diff: std::array::from_fn(|_| vec![0.0; len]),
            passage: PassageStep::new(
                len,
                stabilization,
                Stabilizer::new(Stabilization::PStab, dims).with_kkt_solver(m.common.kkt),
            ),
            eighth_order_attempts: 0,
            signature: NoiseSignature::new(NOISE_ORDER),
            spread: crate::stabilize::SpreadGrowth::default(),
        }
    }

    /// The stages 2..12 and the unstabilized 8th-order result `znew`.
    fn stages<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        for i in 1..STAGES {
            combine(&mut self.stage, &self.z, h, A[i], &self.k);
            self.rhs
                .eval(sys, t + C[i] * h, &self.stage, h, &mut self.k[i])?;
            self.spread.note(self.rhs.last_spread());
        }
        combine(&mut self.znew, &self.z, h, A[STAGES], &self.k);
        Ok(())
    }

    /// An attempt the unstabilized error accepts: k_13 and the stabilized end `zstab`. With a
    /// projection that uses the dynamics' K, k_13 = f(t, z~) comes first and the projection
    /// reuses its factors; k_13 keeps its accelerations from z~ and takes the stabilized
    /// velocities (module docs, step 4). Otherwise stabilize, then k_13 = f(t, z_{n+1}).
    fn finish_accepted<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<bool, SimError> {
        let n = self.z.len() / 2;
        let (q, v) = self.zstab.split_at_mut(n);
        if !self.stab.projects_with_dynamics_matrix() {
            let stabilized = self.stab.apply(sys, t, h, q, v, self.datol)?;
            self.rhs.eval(sys, t, &self.zstab, h, &mut self.k[STAGES])?;
            return Ok(stabilized);
        }
        self.rhs.eval(sys, t, &self.znew, h, &mut self.k[STAGES])?;
        let factored = self.rhs.last_kkt();
        let stabilized = self
            .stab
            .apply_factored(sys, t, h, q, v, self.datol, factored)?;
        self.k[STAGES][..n].copy_from_slice(v);
        Ok(stabilized)
    }

    /// The attempt's 5th- and 3rd-order estimates per component, `diff[0]` and `diff[1]`
    /// (both from k_1..k_12, which the stabilization leaves alone).
    fn estimates(&mut self) {
        let [e5, e3] = &mut self.diff;
        for c in 0..self.z.len() {
            let k = |j: usize| self.k[j][c];
            let b_sum: f64 = A[STAGES].iter().map(|&(j, b)| b * k(j)).sum();
            e3[c] = b_sum - BHH.iter().map(|&(j, b)| b * k(j)).sum::<f64>();
            e5[c] = ER.iter().map(|&(j, e)| e * k(j)).sum();
        }
    }

    /// `dop853.f`'s scaled error norm of the attempt (the 5th-order estimate damped by the
    /// 3rd-order one) from [`Stepper853::estimates`], with the stabilization's correction
    /// z_{n+1} − z~ once applied.
    fn error_norm(&self, h: f64) -> f64 {
        let len = self.z.len();
        let (mut err5, mut err3) = (0.0, 0.0);
        for c in 0..len {
            // The stabilization's correction (zero before it is applied: zstab = z~).
            let correction = (self.zstab[c] - self.znew[c]) / h;
            let e3 = self.diff[1][c] + correction;
            let e5 = self.diff[0][c] + correction;
            let sk = self.atol.get(c) + self.rtol.get(c) * self.z[c].abs().max(self.zstab[c].abs());
            let sk = self.stab.floored_scale(c, sk);
            err3 += (e3 / sk) * (e3 / sk);
            err5 += (e5 / sk) * (e5 / sk);
        }
        combined_norm(h, err5, err3, len)
    }
}

/// `dop853.f`'s combination of the summed squares of the 5th- and 3rd-order estimates over
/// `len` components into one scaled error for a step of size `h`.
fn combined_norm(h: f64, err5: f64, err3: f64, len: usize) -> f64 {
    let mut deno = err5 + 0.01 * err3;
    if deno <= 0.0 {
        deno = 1.0;
    }
    h.abs() * err5 * (1.0 / (len as f64 * deno)).sqrt()
}

impl Stepper853 {
    /// Whether the unstabilized estimate `error` of the attempt (t, h) shows the noise
    /// signature (module docs, "Singular passages"; [`NoiseSignature`] with order
    /// [`NOISE_ORDER`]), while G is losing rank (the spread grown [`SIGNATURE_GROWTH`]-fold).
    /// For PStab-like projections only.
    fn noise_signature(&mut self, t: f64, h: f64, error: f64) -> bool {
        self.stab.projects_with_dynamics_matrix()
            && self.spread.grown(SIGNATURE_GROWTH)
            && self.signature.test(t, h, error)
    }

    /// Under S-both, the accepted state projected by PStab once (`passage.rs`).
    fn project_start<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<(), SimError> {
        let start = (&mut self.z[..], &mut self.k[0][..]);
        (self.passage).project_start((sys, &mut self.rhs), (t, h), start.0, start.1)
    }

    /// The attempt (t, h) as the passage step's (`passage.rs`).
    fn passage_attempt<S: ConstrainedSystem + ?Sized>(
        &mut self,
        sys: &S,
        t: f64,
        h: f64,
    ) -> Result<Attempt, SimError> {
        self.project_start(sys, t, h)?;
        let measure = Measure {
            rtol: &self.rtol,
            atol: &self.atol,
            datol: self.datol,
        };
        let shared = (sys, &mut self.rhs, &mut self.stab);
        let (z, k1) = (&self.z[..], &self.k[0][..]);
        (self.passage).attempt(shared, &measure, (t, h), z, k1, &mut self.zstab)
    }
}

impl ExplicitStart for Stepper853 {
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

    /// With passage steps only (runs without are reported as before): their attempts and
    /// accepted steps, and the attempts that evaluated DOP853's stages (NFCN = 11 of those +
    /// NSTAB + 5 passage attempts + 2); under S-both, the accepted states PStab projected
    /// (`passage.rs`; each one PStab in NSTAB and one right-hand side).
    fn report_extra(&self, stats: &mut crate::Stats) {
        let (attempts, accepted) = self.passage.counts;
        if attempts > 0 {
            stats.extra.set("passage_attempts", attempts as u64);
            stats.extra.set("passage_steps", accepted as u64);
            let eighth = self.eighth_order_attempts as u64;
            stats.extra.set("eighth_order_attempts", eighth);
        }
        let restarts = self.passage.start_evaluations as u64;
        if restarts > 0 {
            stats.extra.set("passage_start_projections", restarts);
        }
    }
}

impl<S: ConstrainedSystem + ?Sized> Stepper<S> for Stepper853 {
    fn state(&self) -> &[f64] {
        &self.z
    }

    /// One attempt of size h from (t, z) with k[0] = f(t, z); leaves the stabilized result in
    /// `zstab` and, if the error accepts it, k_13 in k[12] (module docs: which error, which
    /// point).
    fn attempt(&mut self, sys: &S, t: f64, h: f64) -> Result<Attempt, SimError> {
        self.passage.pending = false;
        if self.signature.shown_at(t) {
            return self.passage_attempt(sys, t, h);
        }
        if self.passage.start_due(t) {
            self.project_start(sys, t, h)?;
        }
        self.stages(sys, t, h)?;
        self.eighth_order_attempts += 1;
        self.estimates();
        self.zstab.copy_from_slice(&self.znew);
        let n = self.z.len() / 2;
        let (error, stabilized) = match self.error_estimate {
            ErrorEstimate::Stabilized => {
                let (q, v) = self.zstab.split_at_mut(n);
                let stabilized = self.stab.apply(sys, t + h, h, q, v, self.datol)?;
                let error = self.error_norm(h);
                if error <= 1.0 {
                    self.rhs
                        .eval(sys, t + h, &self.zstab, h, &mut self.k[STAGES])?;
                }
                (error, stabilized)
            }
            ErrorEstimate::Unstabilized => {
                // zstab = z~ still: the estimate of the unstabilized result.
                let error = self.error_norm(h);
                if self.noise_signature(t, h, error) {
                    return self.passage_attempt(sys, t, h);
                }
                // A NaN estimate rejects, as the controller would.
                if error > 1.0 || error.is_nan() {
                    self.signature.note_rejected(t, h, error);
                    (error, false)
                } else {
                    let stabilized = self.finish_accepted(sys, t + h, h)?;
                    // The correction must fit the tolerance too (module docs, step 4); a NaN
                    // there rejects too (`f64::max` would drop it).
                    let corrected = self.error_norm(h);
                    if corrected > 1.0 || corrected.is_nan() {
                        self.passage.note_correction_rejected(t);
                    }
                    let error = if corrected.is_nan() {
                        corrected
                    } else {
                        error.max(corrected)
                    };
                    (error, stabilized)
                }
            }
        };
        Ok(Attempt {
            error,
            stabilized,
            verdict: None,
        })
    }

    fn accept(&mut self, t: f64, h: f64) {
        self.signature.note_accepted();
        self.spread.clear_peak();
        self.stab.note_accepted();
        if self.passage.pending {
            let k7 = self.passage.accept((t, h), &self.z, &self.zstab);
            self.k[0].copy_from_slice(k7);
            std::mem::swap(&mut self.z, &mut self.zstab);
            return;
        }
        self.passage.last_accepted = false;
        let dense = &mut self.dense;
        (dense.t, dense.h, dense.prepared) = (t, h, false);
        for (kept, k) in dense.k.iter_mut().zip(self.k.iter_mut()) {
            std::mem::swap(kept, k);
        }
        // FSAL: the next step's k_1 is this step's k_13.
        self.k[0].copy_from_slice(&dense.k[STAGES]);
        std::mem::swap(&mut dense.z0, &mut self.z);
        std::mem::swap(&mut self.z, &mut self.zstab);
    }

    fn interpolate(&mut self, sys: &S, t: f64, out: &mut [f64]) -> Result<(), SimError> {
        if self.passage.last_accepted {
            self.passage.interpolate(t, out);
            return Ok(());
        }
        if !self.dense.prepared {
            self.dense
                .prepare(sys, &mut self.rhs, &self.z, &mut self.stage)?;
            self.dense_solves += 3;
        }
        self.dense.eval_into(t, out);
        Ok(())
    }

    fn stabilizer(&self) -> Option<&Stabilizer> {
        Some(&self.stab)
    }

    fn row_selection(&self) -> Option<&crate::redundancy::RowSelection> {
        Some(self.rhs.row_selection())
    }

    /// An eighth-order step whose drift was within DATOL: its test measured the accepted state.
    fn known_drift(&self) -> Option<crate::drift::Drift> {
        if self.passage.last_accepted {
            return None;
        }
        self.stab.unchanged_drift()
    }

    fn counters(&self) -> StepperCounters {
        // PStab's projections of S-both's passage attempts (`passage.rs`).
        let (passage_stab, passage_time) = match &self.passage.pstab {
            Some(p) => (p.applications, p.time),
            None => (0, std::time::Duration::ZERO),
        };
        StepperCounters {
            nfcn: self.rhs.nfcn - self.dense_solves,
            nstab: self.stab.applications + passage_stab,
            stabilization_time: self.stab.time + passage_time,
            output_solves: self.dense_solves,
            conditioning: self.rhs.conditioning,
        }
    }
}
