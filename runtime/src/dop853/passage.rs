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

use crate::dense::DenseOutput;
use crate::error::SimError;
use crate::integrator::driver::Attempt;
use crate::options::Tolerance;
use crate::rhs::Rhs;
use crate::rkstab::{dopri5_stages, error_norm};
use crate::stabilize::Stabilizer;
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
}

/// The tolerances and DATOL an attempt is measured with.
pub(super) struct Measure<'a> {
    pub(super) rtol: &'a Tolerance,
    pub(super) atol: &'a Tolerance,
    pub(super) datol: f64,
}

impl PassageStep {
    pub(super) fn new(len: usize) -> Self {
        Self {
            k: std::array::from_fn(|_| vec![0.0; len]),
            stage: vec![0.0; len],
            znew: vec![0.0; len],
            dense: DenseOutput::new(len),
            pending: false,
            last_accepted: false,
            counts: (0, 0),
        }
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
        self.last_accepted = true;
        self.counts.1 += 1;
        &self.k[6]
    }

    /// z(t) inside the last accepted passage step.
    pub(super) fn interpolate(&self, t: f64, out: &mut [f64]) {
        self.dense.eval_into(t, out);
    }
}
