//! The noise signature of a singular passage in an adaptive explicit method's rejections.
//!
//! Near a rank loss of G (the A02 chain's horizontal position) the stages of an attempt that
//! crosses the passage lie where the index-1 field amplifies round-off and drift into the
//! directions G loses, and the local error estimate measures that, not truncation: it no
//! longer falls like h^{p+1} when the step is shortened, and often grows. Recorded here: the
//! last rejected attempt (t_r, h_r, e_r), kept across acceptances (the accepted ends creep up
//! on the passage), and the t from which an attempt showed the signature. An attempt (t, h)
//! with estimate e > 1 shows it when an attempt from this t showed it already, or when
//! [t, t + h] lies inside [t_r, t_r + h_r], h is shorter and e > e_r (h / h_r)^k with k the
//! method's signature order (half its estimate's order or less: DOP853 4, DOPRI5 2). An
//! ordinary rejection, whose estimate falls like a truncation error, never shows it. The
//! methods then make the attempts from that t with a step that crosses the passage
//! (`dop853/passage.rs`: RKSTAB's DOPRI5 step; `rkstab.rs`: PStab instead of the
//! projection-complete controls).

/// The record of rejections that the signature is read from (module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct NoiseSignature {
    /// k: a rejected estimate that fell by less than (h / h_r)^k shows the signature.
    order: i32,
    /// The last rejected attempt (t, h, error).
    rejected: Option<(f64, f64, f64)>,
    /// The t from which an attempt showed the signature (until a step is accepted).
    at: Option<f64>,
}

impl NoiseSignature {
    /// No rejection yet, signature order `order`.
    pub(crate) fn new(order: i32) -> Self {
        Self {
            order,
            rejected: None,
            at: None,
        }
    }

    /// Whether an attempt from t showed the signature since the last accepted step.
    pub(crate) fn shown_at(&self, t: f64) -> bool {
        self.at == Some(t)
    }

    /// Whether the attempt (t, h) with estimate `error` shows the signature (module docs); if
    /// it does, later attempts from t are [`NoiseSignature::shown_at`] it.
    pub(crate) fn test(&mut self, t: f64, h: f64, error: f64) -> bool {
        let shows = self.shows(t, h, error);
        if shows {
            self.at = Some(t);
        }
        shows
    }

    fn shows(&self, t: f64, h: f64, error: f64) -> bool {
        if !(error.is_finite() && error > 1.0) {
            return false;
        }
        if self.at == Some(t) {
            return true;
        }
        let Some((t_r, h_r, e_r)) = self.rejected else {
            return false;
        };
        let dir = h.signum();
        let spans = (t - t_r) * dir >= 0.0 && (t_r + h_r - (t + h)) * dir >= 0.0;
        spans && h.abs() < h_r.abs() && error > e_r * (h / h_r).powi(self.order)
    }

    /// Attempts from t show the signature (a failure that stands for it).
    pub(crate) fn mark(&mut self, t: f64) {
        self.at = Some(t);
    }

    /// The attempt (t, h) with estimate `error` was rejected.
    pub(crate) fn note_rejected(&mut self, t: f64, h: f64, error: f64) {
        self.rejected = Some((t, h, error));
    }

    /// A step was accepted: the next attempts start from a new t.
    pub(crate) fn note_accepted(&mut self) {
        self.at = None;
    }
}
