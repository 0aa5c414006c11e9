//! The step DOP853 takes across a singular passage: RKSTAB's, DOPRI5(4) with the stabilization
//! applied to every attempt and the error of the stabilized result (\[CHIN\] (4.11), (4.13)).
//!
//! Near a rank loss of G, DOP853's 12 stages lie far off the constraint manifold, where the
//! index-1 field amplifies round-off into the directions G loses (module docs of `dop853`,
//! "Singular passages"), and its estimate there measures that noise, not truncation. The
//! tangential part of that estimate, which judged such attempts before, let steps of 2.7e-2
//! through across the passage at t = 16.445 on the A02 chain in body coordinates at rtol 1e-11
//! whose common-mode velocity was off by 1.6e-8 rad/s (against about 5e-11 the tolerance
//! asks): both of DOP853's solutions inherit the same contaminated stages, so their
//! difference does not see it. RKSTAB crosses the same passages with its error growing
//! linearly (2.9e-9 at t = 16.75 over 20 s at 1e-11): DOPRI5's stages stay near the manifold
//! (relative accelerations ≤ 4e-2 rad/s² where DOP853's reach 6e4) and its estimate contains
//! the correction. So once an attempt shows the noise signature, DOP853 hands the attempts
//! from that t to this step, with the step sizes its controller proposes, until one is
//! accepted; its k_7, evaluated at the stabilized end, is the next step's k_1 and its
//! `contd5` interpolant serves the samples inside it.
//!
//! Under S-both the attempts are projected by PStab instead, from the accepted state projected
//! by PStab once (what RKSTAB's passage projection does, `rkstab_passage.rs`): S-both's one
//! pass leaves a remainder of the second order in its correction, which a stabilized estimate
//! measures again as error at every step size. Measured on Andrews (rtol 1e-5 … 1e-7, no
//! passage: the signature fired on rejections of steps not yet asymptotic): the passage
//! step's estimate stalled at 1.31 from h = 1e-4 down to 3e-8 and the run underflowed at
//! t = 0.0102. The same remainder stalls DOP853's own check of the correction (step 4 of the
//! module docs): at rtol 1e-6, t = 0.029868, an accepted state whose S-both pass left it gave
//! corrected estimates of 12.4 … 23.9 at every h from 1.3e-4 down to 1e-16. So under S-both an
//! attempt that its correction rejects (the unstabilized estimate accepted it) has the
//! accepted state projected by PStab before the next attempt from that t, once. Velocity-only
//! keeps its own correction throughout: G(q) v = 0 is linear in v, its one pass leaves no
//! remainder.

use crate::dense::DenseOutput;
use crate::error::SimError;
use crate::integrator::driver::Attempt;
use crate::options::Tolerance;
use crate::rhs::Rhs;
use crate::rkstab::{dopri5_stages, error_norm};
use crate::stabilize::{Stabilization, Stabilizer};
use crate::system::ConstrainedSystem;

/// The DOPRI5 attempt's workspace and the interpolant of the last accepted one.
pub(super) struct PassageStep {
    /// k_1..k_7 of the attempt (k_7 at the stabilized end).
    k: [Vec<f64>; 7],
    stage: Vec<f64>,
    /// The unstabilized 5th-order result z~.
    znew: Vec<f64>,
    dense: DenseOutput,
    /// Whether the current attempt is this step's.
    pub(super) pending: bool,
    /// Whether the last accepted step was this step's (its interpolant serves the samples).
    pub(super) last_accepted: bool,
    /// Attempts made so far, and of those accepted.
    pub(super) counts: (usize, usize),
    /// PStab for the attempts under S-both (module docs), else `None`.
    pub(super) pstab: Option<Stabilizer>,
    /// The t whose accepted state `pstab` projected before the first attempt from it.
    start_projected: Option<f64>,
    /// The t of the last attempt that S-both's correction rejected.
    correction_rejected: Option<f64>,
    /// The right-hand sides evaluated again at a state `pstab` projected.
    pub(super) start_evaluations: usize,
}

/// The tolerances and DATOL an attempt is measured with.
pub(super) struct Measure<'a> {
    pub(super) rtol: &'a Tolerance,
    pub(super) atol: &'a Tolerance,
    pub(super) datol: f64,
}

impl PassageStep {
    /// The workspace for states of length `len` under the drift control `kind`.
    pub(super) fn new(len: usize, kind: Stabilization, pstab: Stabilizer) -> Self {
        Self {
            k: std::array::from_fn(|_| vec![0.0; len]),
            stage: vec![0.0; len],
            znew: vec![0.0; len],
            dense: DenseOutput::new(len),
            pending: false,
            last_accepted: false,
            counts: (0, 0),
            pstab: (kind == Stabilization::SBoth).then_some(pstab),
            start_projected: None,
            correction_rejected: None,
            start_evaluations: 0,
        }
    }

    /// An attempt from t was rejected by S-both's correction after its unstabilized estimate
    /// accepted it (module docs).
    pub(super) fn note_correction_rejected(&mut self, t: f64) {
        self.correction_rejected = Some(t);
    }

    /// Whether the accepted state at t is to be projected by PStab before an eighth-order
    /// attempt from it: S-both's correction rejected the last attempt from t.
    pub(super) fn start_due(&self, t: f64) -> bool {
        self.pstab.is_some()
            && self.correction_rejected == Some(t)
            && self.start_projected != Some(t)
    }

    /// Under S-both, before the first passage attempt from t or when [`PassageStep::start_due`]:
    /// the accepted state `z` projected by PStab and `k1` = f(t, z) evaluated again if that
    /// moved it (module docs).
    pub(super) fn project_start<S: ConstrainedSystem + ?Sized>(
        &mut self,
        (sys, rhs): (&S, &mut Rhs),
        (t, h): (f64, f64),
        z: &mut [f64],
        k1: &mut [f64],
    ) -> Result<(), SimError> {
        let Some(pstab) = &mut self.pstab else {
            return Ok(());
        };
        if self.start_projected == Some(t) {
            return Ok(());
        }
        self.start_projected = Some(t);
        let (q, v) = z.split_at_mut(z.len() / 2);
        if pstab.apply(sys, t, h, q, v, 0.0)? {
            rhs.eval(sys, t, z, h, k1)?;
            self.start_evaluations += 1;
        }
        Ok(())
    }

    /// One attempt of size h from (t, z) with k_1 = f(t, z): the stabilized result into
    /// `zstab`, k_7 = f(t + h, zstab), and the stabilized error estimate.
    #[allow(clippy::too_many_arguments)] // the state, its slope and the shared workspace
    pub(super) fn attempt<S: ConstrainedSystem + ?Sized>(
        &mut self,
        (sys, rhs, stab): (&S, &mut Rhs, &mut Stabilizer),
        measure: &Measure<'_>,
        (t, h): (f64, f64),
        z: &[f64],
        k1: &[f64],
        zstab: &mut [f64],
    ) -> Result<Attempt, SimError> {
        self.pending = true;
        self.counts.0 += 1;
        let stab = self.pstab.as_mut().unwrap_or(stab);
        self.k[0].copy_from_slice(k1);
        let scratch = (&mut self.stage[..], &mut self.znew[..]);
        dopri5_stages((sys, &mut *rhs), (t, h), z, &mut self.k, scratch, |_| ())?;
        zstab.copy_from_slice(&self.znew);
        let (q, v) = zstab.split_at_mut(z.len() / 2);
        let stabilized = stab.apply(sys, t + h, h, q, v, measure.datol)?;
        rhs.eval(sys, t + h, zstab, h, &mut self.k[6])?;
        let tolerances = (measure.rtol, measure.atol);
        let ends = (z, &self.znew[..], &zstab[..]);
        Ok(Attempt {
            error: error_norm(h, &self.k, ends, tolerances, stab, true),
            stabilized,
            verdict: None,
        })
    }

    /// The attempt from (t, z) of size h to `zstab` is accepted: its interpolant, and its k_7
    /// (the next step's k_1).
    pub(super) fn accept(&mut self, (t, h): (f64, f64), z: &[f64], zstab: &[f64]) -> &[f64] {
        self.dense.prepare(t, h, z, zstab, &self.k);
        self.pending = false;
        if let Some(pstab) = &mut self.pstab {
            pstab.note_accepted();
        }
        self.last_accepted = true;
        self.counts.1 += 1;
        &self.k[6]
    }

    /// z(t) inside the last accepted passage step.
    pub(super) fn interpolate(&self, t: f64, out: &mut [f64]) {
        self.dense.eval_into(t, out);
    }
}
