//! The Adams step shared by every Adams method: the history of slopes, the predictor and
//! corrector on arbitrary (variable-step) nodes, the error estimates of neighbouring orders,
//! the accurate Runge–Kutta start and the continuous extension.
//!
//! One step from (t_n, z_n) of size h with k = the predictor's order:
//! - **P**: z^p = z_n + h Σ_{j<k} w_j f_{n−j} (AB_k: the polynomial through the k newest slopes,
//!   integrated over [t_n, t_n + h]);
//! - **E**: f^p = f(t_n + h, z^p) (PECE kinds only);
//! - **C**: z^c = z_n + h (w_0 f^p + Σ_j w_{j+1} f_{n−j}) through k (AMPC_k, order k) or k + 1
//!   (MAMPC_k = Haug's PECE, order k + 1) nodes;
//! - the layer's post-step correction of the [`Field`] (PStab, GCP, … or nothing);
//! - **E**: f_{n+1} = f(t_n + h, z_{n+1}) enters the history (PECE: only corrected values do).
//!
//! With fewer slopes in the history than the order needs (the first steps), every formula uses
//! what there is: Haug's self-starting order ramp 1, 2, …, k (§7.4.4). Weights come from
//! `quadrature.rs`, so unequal steps are handled exactly (variable-coefficient Adams).
//!
//! # Projection with the predictor's factors
//!
//! PECE evaluates f^p = f(t_n + h, z^p), which factors K = [M Gᵀ; G 0] at q^p, and then
//! post-stabilizes z^c, O(h^{k+1}) from z^p. The variable-step [`super::Abm`] solves that
//! correction with the factors at q^p (\[CHIN\] (4.15)'s F may be frozen at any point within
//! O(h) of the manifold), every residual, G v included, evaluated at the corrected point
//! (`Stabilizer::apply_nearby_factored`), instead of assembling and factoring K at q^c: the
//! projection then costs its residuals and solves. With the factors frozen O(h^{k+1}) away each
//! pass contracts the residual by O(h^{k+1}) instead of to round-off at once, so PStab's two
//! passes leave the constraints where the own factors did (the ABM suite asserts the drift).
//! Measured on Andrews (`one_run abm`, callgrind, 10 runs): rtol 1e-8 292.6 M → 263.4 M
//! instructions (−10 %) at unchanged NFCN and digits; over 12 tolerances 3e-7 … 1e-12 results
//! identical to 3e-9, and the fitted cost at 8 / 9 / 10 correct digits is 0.895 / 0.885 /
//! 0.875 of the own-factors projection's (cost = NFCN × instructions per right-hand side;
//! digits scatter ±0.4 between neighbouring tolerances either way). On the IFToMM A02 chain
//! over 20 s (17 tolerances 1e-8 … 1e-12, both forms, `passages` bench) the NFCN at equal
//! error match the own factors' within the sweep's scatter (±5 %); single cells move within
//! that scatter (crank form 1e-8 9.9e-5 → 2.8e-4, 1e-10 1.2e-6 → 5.1e-7). Gating the reuse
//! on the pivot spread (own factors once it grew 10- or 100-fold) changed nothing measurable
//! and is not done. The constant-step methods keep their own factorization (Wu's tables as
//! printed).
//!
//! The corrector sums over (f^p, f_n, …) through c nodes are kept per c for the attempt
//! ([`CorrectorSums`]): the corrector and the error estimates of the orders k − 1, k, k + 1
//! need the counts k … k + 3, seven sums of which four differ, so each is computed once. The
//! kept sum is the one a new computation would give, bit for bit (same nodes, same arithmetic).

use crate::error::SimError;

use super::quadrature::{MAX_NODES, lagrange_integrals};

/// What an Adams step needs from the problem: the slope, the post-step correction and the
/// error scale (z is the first-order state).
pub(crate) trait Field {
    /// `f = z'(t, z)`; `h` labels errors.
    fn eval(&mut self, t: f64, z: &[f64], h: f64, f: &mut [f64]) -> Result<(), SimError>;
    /// Correct z in place after a step (post-stabilization); whether a correction was applied.
    fn project(&mut self, t: f64, h: f64, z: &mut [f64]) -> Result<bool, SimError>;
    /// [`Field::project`] right after `eval` at the predicted point z^p: a field may solve
    /// with what that evaluation factored there (module docs).
    fn project_after_predicted(&mut self, t: f64, h: f64, z: &mut [f64]) -> Result<bool, SimError> {
        self.project(t, h, z)
    }
    /// The error scale of component `c` given the tolerance scale `sk` (∞ drops the component).
    fn scale(&self, c: usize, sk: f64) -> f64;
}

/// The newest slopes f_n, f_{n−1}, … and their times (index 0 is the newest).
#[derive(Clone, Debug)]
pub(crate) struct History {
    times: Vec<f64>,
    slopes: Vec<Vec<f64>>,
    len: usize,
}

impl History {
    fn new(capacity: usize, dim: usize) -> Self {
        Self {
            times: vec![0.0; capacity],
            slopes: vec![vec![0.0; dim]; capacity],
            len: 0,
        }
    }

    /// Make (t, f) the newest entry (no allocation: the oldest buffer is reused).
    fn push(&mut self, t: f64, f: &[f64]) {
        self.times.rotate_right(1);
        self.slopes.rotate_right(1);
        self.times[0] = t;
        self.slopes[0].copy_from_slice(f);
        self.len = (self.len + 1).min(self.times.len());
    }

    /// Number of stored slopes.
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

/// The state, history and scratch of an Adams method; allocated once per run.
#[derive(Clone, Debug)]
pub(crate) struct Engine {
    pub(crate) hist: History,
    /// The accepted state z_n.
    pub(crate) z: Vec<f64>,
    zp: Vec<f64>,
    fp: Vec<f64>,
    /// The last attempt's result (corrected and projected).
    zc: Vec<f64>,
    /// f at `zc`.
    fc: Vec<f64>,
    /// The start of the last accepted step, for the continuous extension.
    z_prev: Vec<f64>,
    t_prev: f64,
    h_prev: f64,
    /// Node count of the last accepted step's corrector (its interpolant).
    nodes_prev: usize,
    /// Node count of the current attempt's corrector.
    nodes_now: usize,
    sum_a: Vec<f64>,
    sum_b: Vec<f64>,
    nodes: [f64; MAX_NODES],
    weights: [f64; MAX_NODES],
    /// RK4 stage slopes of the start.
    rk: [Vec<f64>; 2],
    corrector: CorrectorSums,
    /// Right-hand-side evaluations of the Runge–Kutta start.
    pub(crate) start_nfcn: usize,
}

impl Engine {
    /// An engine at z0 with room for `capacity` slopes.
    pub(crate) fn new(z0: &[f64], capacity: usize) -> Self {
        let d = z0.len();
        Self {
            hist: History::new(capacity, d),
            z: z0.to_vec(),
            zp: vec![0.0; d],
            fp: vec![0.0; d],
            zc: vec![0.0; d],
            fc: vec![0.0; d],
            z_prev: z0.to_vec(),
            t_prev: 0.0,
            h_prev: 0.0,
            nodes_prev: 1,
            nodes_now: 1,
            sum_a: vec![0.0; d],
            sum_b: vec![0.0; d],
            nodes: [0.0; MAX_NODES],
            weights: [0.0; MAX_NODES],
            rk: [vec![0.0; d], vec![0.0; d]],
            corrector: CorrectorSums::new(d),
            start_nfcn: 0,
        }
    }

    /// The newest slope in the history.
    pub(crate) fn newest_slope(&self) -> &[f64] {
        &self.hist.slopes[0]
    }

    /// Make `t` the exact time of z_n (the driver's step points are t0 + i h, not sums).
    pub(crate) fn set_time(&mut self, t: f64) {
        self.corrector.forget();
        self.hist.times[0] = t;
    }

    /// Evaluate f(t, z_n) into the history (the first slope of a run).
    pub(crate) fn begin<F: Field>(&mut self, field: &mut F, t: f64) -> Result<(), SimError> {
        self.corrector.forget();
        field.eval(t, &self.z, 0.0, &mut self.fc)?;
        self.hist.push(t, &self.fc);
        Ok(())
    }

    /// `sum_a = h Σ_j w_j g_j` over the first `count` of g = (f^p, f_n, f_{n−1}, …) when
    /// `with_fp`, else g = (f_n, f_{n−1}, …), integrated from t_n = history time 0 over θh.
    fn quadrature(&mut self, h: f64, theta: f64, count: usize, with_fp: bool) {
        let t_n = self.hist.times[0];
        let offset = usize::from(with_fp);
        for j in 0..count {
            self.nodes[j] = if with_fp && j == 0 {
                1.0
            } else {
                (self.hist.times[j - offset] - t_n) / h
            };
        }
        lagrange_integrals(&self.nodes[..count], theta, &mut self.weights[..count]);
        let out = &mut self.sum_a;
        out.iter_mut().for_each(|x| *x = 0.0);
        for j in 0..count {
            let g = if with_fp && j == 0 {
                &self.fp
            } else {
                &self.hist.slopes[j - offset]
            };
            let w = h * self.weights[j];
            out.iter_mut().zip(g).for_each(|(o, gc)| *o += w * gc);
        }
    }

    /// `h Σ_j w_j g_j` over the first `count` of g = (f^p, f_n, f_{n−1}, …), integrated over the
    /// whole step, into `self.corrector.sums[count]`; computed once per attempt and h.
    fn corrector_sum(&mut self, h: f64, count: usize) {
        let kept = &mut self.corrector;
        if kept.h.to_bits() != h.to_bits() {
            kept.forget();
            kept.h = h;
        }
        if !kept.valid[count] {
            self.quadrature(h, 1.0, count, true);
            let kept = &mut self.corrector;
            std::mem::swap(&mut kept.sums[count], &mut self.sum_a);
            kept.valid[count] = true;
        }
    }

    /// P(E)C(E) of predictor order `k` from (t_n, z_n) with step `h` (the history's newest time
    /// is t_n). `corrector` is the corrector's node count (None: AB alone). Leaves the result
    /// in `zc`, its slope in `fc`; returns whether the field corrected it.
    pub(crate) fn attempt<F: Field>(
        &mut self,
        field: &mut F,
        h: f64,
        k: usize,
        corrector: Option<usize>,
    ) -> Result<bool, SimError> {
        self.corrector.forget();
        let t_new = self.hist.times[0] + h;
        let kp = k.min(self.hist.len());
        self.quadrature(h, 1.0, kp, false);
        for c in 0..self.z.len() {
            self.zp[c] = self.z[c] + self.sum_a[c];
        }
        match corrector {
            None => {
                self.zc.copy_from_slice(&self.zp);
                self.nodes_now = kp;
            }
            Some(nodes) => {
                field.eval(t_new, &self.zp, h, &mut self.fp)?;
                let kc = nodes.min(self.hist.len() + 1);
                self.corrector_sum(h, kc);
                let sum = &self.corrector.sums[kc];
                for c in 0..self.z.len() {
                    self.zc[c] = self.z[c] + sum[c];
                }
                self.nodes_now = kc;
            }
        }
        let corrected = match corrector {
            None => field.project(t_new, h, &mut self.zc)?,
            Some(_) => field.project_after_predicted(t_new, h, &mut self.zc)?,
        };
        field.eval(t_new, &self.zc, h, &mut self.fc)?;
        Ok(corrected)
    }

    /// The scaled RMS difference between the correctors through `nodes` and `nodes − 1` nodes
    /// (f^p, f_n, …): the local error estimate of the lower one (Haug's τ^c, (7.4.16), for
    /// unequal steps). `None` when the history is too short.
    pub(crate) fn difference_estimate<F: Field>(
        &mut self,
        field: &F,
        h: f64,
        nodes: usize,
        tol: (&dyn Fn(usize) -> f64, &dyn Fn(usize) -> f64),
    ) -> Option<f64> {
        if nodes < 2 || nodes > self.hist.len() + 1 || nodes > MAX_NODES {
            return None;
        }
        self.corrector_sum(h, nodes);
        self.corrector_sum(h, nodes - 1);
        Some(self.scaled_norm(field, tol, |e| {
            let sums = &e.corrector.sums;
            sums[nodes].iter().zip(&sums[nodes - 1]).map(|(a, b)| a - b)
        }))
    }

    /// The scaled RMS of z^c − z^p (the start-up estimate while no difference is available).
    pub(crate) fn predictor_estimate<F: Field>(
        &self,
        field: &F,
        tol: (&dyn Fn(usize) -> f64, &dyn Fn(usize) -> f64),
    ) -> f64 {
        self.scaled_norm(field, tol, |e| e.zc.iter().zip(&e.zp).map(|(a, b)| a - b))
    }

    fn scaled_norm<'e, F: Field, I: Iterator<Item = f64>>(
        &'e self,
        field: &F,
        (rtol, atol): (&dyn Fn(usize) -> f64, &dyn Fn(usize) -> f64),
        diff: impl Fn(&'e Self) -> I,
    ) -> f64 {
        let mut sum = 0.0;
        for (c, e) in diff(self).enumerate() {
            let sk = atol(c) + rtol(c) * self.z[c].abs().max(self.zc[c].abs());
            let sk = field.scale(c, sk);
            sum += (e / sk) * (e / sk);
        }
        (sum / self.z.len() as f64).sqrt()
    }

    /// Make the last attempt the accepted state at t_n + h.
    pub(crate) fn accept(&mut self, h: f64) {
        self.corrector.forget();
        self.t_prev = self.hist.times[0];
        self.h_prev = h;
        self.nodes_prev = self.nodes_now.max(1);
        std::mem::swap(&mut self.z_prev, &mut self.z);
        std::mem::swap(&mut self.z, &mut self.zc);
        self.hist.push(self.t_prev + h, &self.fc);
    }

    /// The continuous extension of the last accepted step at `t`: the corrector polynomial
    /// through f_{n+1}, f_n, … integrated from t_n, plus the linear share of the step's
    /// post-correction so that it meets z_{n+1} at the end.
    pub(crate) fn interpolate(&mut self, t: f64, out: &mut [f64]) {
        let (h, count) = (self.h_prev, self.nodes_prev.min(self.hist.len()));
        let theta = (t - self.t_prev) / h;
        // The history's newest entry is t_{n+1}; nodes relative to t_n.
        for j in 0..count {
            self.nodes[j] = (self.hist.times[j] - self.t_prev) / h;
        }
        lagrange_integrals(&self.nodes[..count], theta, &mut self.weights[..count]);
        let mut at_theta = [0.0; MAX_NODES];
        at_theta[..count].copy_from_slice(&self.weights[..count]);
        lagrange_integrals(&self.nodes[..count], 1.0, &mut self.weights[..count]);
        for (c, o) in out.iter_mut().enumerate() {
            let (mut part, mut whole) = (0.0, 0.0);
            for j in 0..count {
                let g = self.hist.slopes[j][c];
                part += at_theta[j] * g;
                whole += self.weights[j] * g;
            }
            let end_gap = self.z[c] - (self.z_prev[c] + h * whole);
            *o = self.z_prev[c] + h * part + theta * end_gap;
        }
    }

    /// One step of size `h` by classical RK4 on `substeps` doubling until two successive
    /// results agree to 1e-13 (1 + |z|) in every component (at most 2¹² substeps), then the
    /// field's correction and f at the result: an accurate start for the first k − 1 steps
    /// (\[WU\] starts with RKF at truncation error 1e-15). Leaves the result in `zc`/`fc`.
    pub(crate) fn runge_kutta_start<F: Field>(
        &mut self,
        field: &mut F,
        h: f64,
    ) -> Result<bool, SimError> {
        // The start uses f^p as scratch.
        self.corrector.forget();
        let t = self.hist.times[0];
        let mut substeps = 1;
        self.rk4(field, t, h, substeps)?;
        loop {
            self.zp.copy_from_slice(&self.zc);
            substeps *= 2;
            self.rk4(field, t, h, substeps)?;
            let agree = self
                .zc
                .iter()
                .zip(&self.zp)
                .all(|(a, b)| (a - b).abs() <= 1e-13 * (1.0 + a.abs()));
            if agree || substeps >= 4096 {
                break;
            }
        }
        let corrected = field.project(t + h, h, &mut self.zc)?;
        field.eval(t + h, &self.zc, h, &mut self.fc)?;
        // The continuous extension of a start step: the slopes at both ends (a quadratic in
        // θ, exact for constant accelerations); one node made it a chord, on which an event
        // inside a segment's first step was located (a ball's short rebound went unseen).
        self.nodes_now = 2;
        Ok(corrected)
    }

    /// `zc` = RK4 with `n` equal substeps over [t, t + h] from z (scratch: fp, rk, sum_a, sum_b).
    fn rk4<F: Field>(&mut self, field: &mut F, t: f64, h: f64, n: usize) -> Result<(), SimError> {
        let dt = h / n as f64;
        self.zc.copy_from_slice(&self.z);
        let [k_a, k_b] = &mut self.rk;
        for i in 0..n {
            let ti = t + i as f64 * dt;
            field.eval(ti, &self.zc, h, &mut self.fp)?;
            self.sum_b.copy_from_slice(&self.fp);
            // k2 from k1 (fp), k3 from k2, k4 from k3; sum_b accumulates k1 + 2k2 + 2k3 + k4.
            rk_stage(
                field,
                (ti, h),
                (&self.zc, 0.5 * dt),
                &self.fp,
                &mut self.sum_a,
                k_a,
            )?;
            axpy(&mut self.sum_b, 2.0, k_a);
            rk_stage(
                field,
                (ti, h),
                (&self.zc, 0.5 * dt),
                k_a,
                &mut self.sum_a,
                k_b,
            )?;
            axpy(&mut self.sum_b, 2.0, k_b);
            rk_stage(field, (ti, h), (&self.zc, dt), k_b, &mut self.sum_a, k_a)?;
            axpy(&mut self.sum_b, 1.0, k_a);
            self.start_nfcn += 4;
            axpy(&mut self.zc, dt / 6.0, &self.sum_b);
        }
        Ok(())
    }
}

/// One RK4 stage: `out = f(t + c, z + c·slope)` with c the stage offset, via `scratch`.
fn rk_stage<F: Field>(
    field: &mut F,
    (t, h): (f64, f64),
    (z, c): (&[f64], f64),
    slope: &[f64],
    scratch: &mut [f64],
    out: &mut [f64],
) -> Result<(), SimError> {
    for ((s, zc), k) in scratch.iter_mut().zip(z).zip(slope) {
        *s = zc + c * k;
    }
    field.eval(t + c, scratch, h, out)
}

/// `y += a x`.
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    y.iter_mut().zip(x).for_each(|(yc, xc)| *yc += a * xc);
}

/// The corrector sums of one attempt by node count (see the module docs), valid for one step
/// size `h` and until f^p or the history changes.
#[derive(Clone, Debug)]
struct CorrectorSums {
    sums: Vec<Vec<f64>>,
    valid: [bool; MAX_NODES + 1],
    h: f64,
}

impl CorrectorSums {
    fn new(dim: usize) -> Self {
        Self {
            sums: vec![vec![0.0; dim]; MAX_NODES + 1],
            valid: [false; MAX_NODES + 1],
            h: 0.0,
        }
    }

    fn forget(&mut self) {
        self.valid = [false; MAX_NODES + 1];
    }
}
