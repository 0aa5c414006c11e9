//! The model in one mode of its events: closed contacts as holonomic rows g = 0 appended to Φ,
//! sticking friction contacts as nonholonomic rows w v + w₀ = 0 appended to A, slipping ones as
//! the force −μ_k N sign(v_rel) wᵀ added to Q. Every method integrates this view unchanged.
//!
//! Rows: G = [Φ_q (m); contact rows (c); A (k); stick rows (s)], γ likewise. Its own event
//! functions replace, for a closed contact, g by its multiplier λ (lift-off: λ rising through 0,
//! since M v̇ + Gᵀλ = Q makes a compressive contact λ < 0), and for a sticking contact v_rel by
//! |λ| − μ_s N (breakaway: rising); a slipping contact watches v_rel fall (or rise) to 0.

use std::cell::RefCell;
use std::sync::Mutex;

use nalgebra::DMatrix;

use crate::kkt::{KktWorkspace, accelerations_into};
use crate::system::{ConstrainedSystem, Dims, DynamicsOut, MatOut, ParameterError, Sparsity};

use super::{Action, Direction, EventSpec, Events};

/// The state of every event slot that has one.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Mode {
    /// Closed contacts (impact slots kept at g = 0), in slot order.
    pub(crate) contacts: Vec<usize>,
    /// Sticking friction slots, in slot order.
    pub(crate) sticking: Vec<usize>,
    /// Slipping friction slots and the sign of their v_rel.
    pub(crate) slipping: Vec<(usize, f64)>,
    /// Slots that start the next segment disarmed.
    pub(crate) fired: Vec<usize>,
    /// Slots that start the next segment on a known side ([`Events::signs_at_start`]).
    pub(crate) signs: Vec<(usize, f64)>,
}

impl Mode {
    pub(crate) fn slip_sign(&self, slot: usize) -> Option<f64> {
        self.slipping.iter().find(|(s, _)| *s == slot).map(|p| p.1)
    }

    /// Make `slot` a closed contact (or release it).
    pub(crate) fn set_contact(&mut self, slot: usize, closed: bool) {
        self.contacts.retain(|&s| s != slot);
        if closed {
            self.contacts.push(slot);
            self.contacts.sort_unstable();
        }
    }

    /// Make friction `slot` stick (`None`) or slip with `Some(sign)`.
    pub(crate) fn set_friction(&mut self, slot: usize, slip: Option<f64>) {
        self.sticking.retain(|&s| s != slot);
        self.slipping.retain(|(s, _)| *s != slot);
        match slip {
            None => {
                self.sticking.push(slot);
                self.sticking.sort_unstable();
            }
            Some(sign) => {
                self.slipping.push((slot, sign));
                self.slipping.sort_by_key(|p| p.0);
            }
        }
    }
}

/// Scratch for the event kernels (ne rows).
struct Scratch {
    jac: DMatrix<f64>,
    l: DMatrix<f64>,
    values: Vec<f64>,
    gamma: Vec<f64>,
    normal: Vec<f64>,
    zeros: Vec<f64>,
}

/// Storage of the multiplier solve behind the mode's own event functions.
struct Solve {
    kkt: KktWorkspace,
    vdot: Vec<f64>,
    lambda: Vec<f64>,
    /// N of every slot at the same state.
    normal: Vec<f64>,
}

/// `inner` in `mode` (see the module docs).
pub(crate) struct ModeSystem<'a, S: ?Sized> {
    pub(crate) inner: &'a S,
    pub(crate) events: &'a dyn Events,
    pub(crate) mode: Mode,
    inner_dims: Dims,
    dims: Dims,
    scratch: RefCell<Scratch>,
    solve: RefCell<Option<Solve>>,
}

impl<'a, S: ConstrainedSystem + ?Sized> ModeSystem<'a, S> {
    pub(crate) fn new(inner: &'a S, events: &'a dyn Events, mode: Mode) -> Self {
        let d = inner.dims();
        let ne = events.event_names().len();
        let dims = Dims {
            n: d.n,
            m: d.m + mode.contacts.len(),
            k: d.k + mode.sticking.len(),
        };
        Self {
            inner,
            events,
            mode,
            inner_dims: d,
            dims,
            scratch: RefCell::new(Scratch {
                jac: DMatrix::zeros(ne, d.n),
                l: DMatrix::zeros(ne, d.n),
                values: vec![0.0; ne],
                gamma: vec![0.0; ne],
                normal: vec![0.0; ne],
                zeros: vec![0.0; d.n],
            }),
            solve: RefCell::new(None),
        }
    }

    /// The row of G (and λ) of contact `slot` or of sticking `slot`.
    pub(crate) fn row_of(&self, slot: usize) -> Option<usize> {
        let d = self.inner_dims;
        if let Some(i) = self.mode.contacts.iter().position(|&s| s == slot) {
            return Some(d.m + i);
        }
        let i = self.mode.sticking.iter().position(|&s| s == slot)?;
        Some(self.dims.m + d.k + i)
    }

    /// The model's rows of a λ of this view (length m + k of the inner model).
    pub(crate) fn model_multipliers(&self, lambda: &[f64], out: &mut [f64]) {
        let d = self.inner_dims;
        out[..d.m].copy_from_slice(&lambda[..d.m]);
        out[d.m..].copy_from_slice(&lambda[self.dims.m..self.dims.m + d.k]);
    }

    /// Copy the event kernel rows `slots` of `from` (ne × n) into rows `at..` of `out`.
    fn rows_into(from: &DMatrix<f64>, slots: &[usize], at: usize, out: &mut MatOut<'_>) {
        for (r, &slot) in slots.iter().enumerate() {
            for j in 0..from.ncols() {
                out[(at + r, j)] = from[(slot, j)];
            }
        }
    }

    /// Move rows [from, from + count) of `out` down by `by` (the model's A rows below the
    /// appended contact rows), bottom first.
    fn shift_rows(out: &mut MatOut<'_>, from: usize, count: usize, by: usize) {
        if by == 0 {
            return;
        }
        for r in (from..from + count).rev() {
            for j in 0..out.ncols() {
                out[(r + by, j)] = out[(r, j)];
            }
        }
    }

    /// The contact rows into rows m.. of `out` (Φ_q or G), and with `sticks` (`out` is all
    /// of G) the stick rows below the model's A.
    fn event_rows(&self, t: f64, q: &[f64], out: &mut MatOut<'_>, sticks: bool) {
        let d = self.inner_dims;
        let mut s = self.scratch.borrow_mut();
        self.events.event_jacobian_into(t, q, s.jac.as_view_mut());
        Self::rows_into(&s.jac, &self.mode.contacts, d.m, out);
        if sticks {
            Self::rows_into(&s.jac, &self.mode.sticking, self.dims.m + d.k, out);
        }
    }

    fn event_gamma(&self, t: f64, q: &[f64], v: &[f64], gamma: &mut [f64]) {
        let d = self.inner_dims;
        gamma.copy_within(d.m..d.m + d.k, self.dims.m);
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        self.events.event_gamma_into(t, q, v, &mut s.gamma);
        for (i, &slot) in self.mode.contacts.iter().enumerate() {
            gamma[d.m + i] = s.gamma[slot];
        }
        for (i, &slot) in self.mode.sticking.iter().enumerate() {
            gamma[self.dims.m + d.k + i] = s.gamma[slot];
        }
    }

    fn add_slip_forces(&self, t: f64, q: &[f64], v: &[f64], force: &mut [f64]) {
        if self.mode.slipping.is_empty() {
            return;
        }
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        self.events.event_jacobian_into(t, q, s.jac.as_view_mut());
        self.events.event_normal_into(t, q, v, &mut s.normal);
        for &(slot, sign) in &self.mode.slipping {
            let Action::Friction { mu_kinetic, .. } = self.events.event_spec(slot).action else {
                continue;
            };
            let magnitude = mu_kinetic * s.normal[slot] * sign;
            for (j, f) in force.iter_mut().enumerate() {
                *f -= magnitude * s.jac[(slot, j)];
            }
        }
    }

    /// v̇, λ and N of this view at (t, q, v), into the solve storage; `None` on a failed
    /// solve.
    fn multipliers(&self, t: f64, q: &[f64], v: &[f64]) -> Option<std::cell::RefMut<'_, Solve>> {
        let mut cell = self.solve.borrow_mut();
        let solve = cell.get_or_insert_with(|| Solve {
            kkt: KktWorkspace::new(self.dims),
            vdot: vec![0.0; self.dims.n],
            lambda: vec![0.0; self.dims.constraint_rows()],
            normal: vec![0.0; self.events.event_names().len()],
        });
        let Solve {
            kkt,
            vdot,
            lambda,
            normal,
        } = solve;
        accelerations_into(self, t, q, v, None, kkt, 0.0, vdot, lambda).ok()?;
        self.events.event_normal_into(t, q, v, normal);
        Some(std::cell::RefMut::map(cell, |c| {
            c.as_mut().expect("set above")
        }))
    }
}

/// Patterns built once per (base pattern, appended rows) and kept for the process: a
/// [`Sparsity`] holds a `'static` slice, and a run has few modes.
static PATTERNS: Mutex<Vec<(PatternKey, Pattern)>> = Mutex::new(Vec::new());

type Pattern = &'static [(usize, usize)];

type PatternKey = (usize, usize, usize, usize, usize, usize);

/// `base` (rows < `split` kept, rows ≥ `split` moved down by `extra`) with dense rows
/// `split..split + extra` of `cols` columns inserted.
fn with_dense_rows(base: Sparsity, split: usize, extra: usize) -> Sparsity {
    let key = (
        base.nonzeros.as_ptr() as usize,
        base.nonzeros.len(),
        base.rows,
        base.cols,
        split,
        extra,
    );
    let mut cache = PATTERNS.lock().unwrap_or_else(|e| e.into_inner());
    let nonzeros = match cache.iter().find(|(k, _)| *k == key) {
        Some((_, p)) => *p,
        None => {
            let mut p: Vec<(usize, usize)> = base
                .nonzeros
                .iter()
                .map(|&(r, c)| if r < split { (r, c) } else { (r + extra, c) })
                .collect();
            p.extend((split..split + extra).flat_map(|r| (0..base.cols).map(move |c| (r, c))));
            p.sort_unstable();
            let leaked: &'static [(usize, usize)] = Box::leak(p.into_boxed_slice());
            cache.push((key, leaked));
            leaked
        }
    };
    Sparsity {
        rows: base.rows + extra,
        cols: base.cols,
        nonzeros,
    }
}

impl<S: ConstrainedSystem + ?Sized> ConstrainedSystem for ModeSystem<'_, S> {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn dims(&self) -> Dims {
        self.dims
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        self.inner.coordinate_names()
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        self.inner.parameter_names()
    }
    fn parameter(&self, name: &str) -> Option<f64> {
        self.inner.parameter(name)
    }
    fn set_parameter(&mut self, name: &str, _value: f64) -> Result<(), ParameterError> {
        Err(ParameterError::Unknown {
            model: self.inner.name(),
            name: name.to_string(),
            known: "none (a mode view cannot change its model)".to_string(),
        })
    }

    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let m = self.inner_dims.m;
        self.inner.phi_into(t, q, &mut out[..m]);
        let mut s = self.scratch.borrow_mut();
        let s = &mut *s;
        self.events.events_into(t, q, &s.zeros, &mut s.values);
        for (i, &slot) in self.mode.contacts.iter().enumerate() {
            out[m + i] = s.values[slot];
        }
    }
    fn phi_q_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        let m = self.inner_dims.m;
        self.inner.phi_q_into(t, q, out.rows_mut(0, m));
        self.event_rows(t, q, &mut out, false);
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let m = self.inner_dims.m;
        self.inner.phi_t_into(t, q, &mut out[..m]);
        let mut s = self.scratch.borrow_mut();
        self.events.event_offset_into(t, q, &mut s.values);
        for (i, &slot) in self.mode.contacts.iter().enumerate() {
            out[m + i] = s.values[slot];
        }
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        let k = self.inner_dims.k;
        self.inner.nh_matrix_into(t, q, out.rows_mut(0, k));
        let mut s = self.scratch.borrow_mut();
        self.events.event_jacobian_into(t, q, s.jac.as_view_mut());
        Self::rows_into(&s.jac, &self.mode.sticking, k, &mut out);
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let k = self.inner_dims.k;
        self.inner.nh_offset_into(t, q, &mut out[..k]);
        let mut s = self.scratch.borrow_mut();
        self.events.event_offset_into(t, q, &mut s.values);
        for (i, &slot) in self.mode.sticking.iter().enumerate() {
            out[k + i] = s.values[slot];
        }
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        let d = self.inner_dims;
        self.inner.gamma_into(t, q, v, &mut out[..d.m + d.k]);
        self.event_gamma(t, q, v, out);
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], mut out: MatOut<'_>) {
        let m = self.inner_dims.m;
        self.inner.l_into(t, q, v, out.rows_mut(0, m));
        let mut s = self.scratch.borrow_mut();
        self.events.event_l_into(t, q, v, s.l.as_view_mut());
        Self::rows_into(&s.l, &self.mode.contacts, m, &mut out);
    }
    fn mass_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.inner.mass_into(t, q, out);
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.inner.force_into(t, q, v, out);
        self.add_slip_forces(t, q, v, out);
    }

    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        let d = self.inner_dims;
        let DynamicsOut {
            mass,
            force,
            mut jacobian,
            gamma,
        } = out;
        let inner_out = DynamicsOut {
            mass,
            force: &mut *force,
            jacobian: jacobian.rows_mut(0, d.m + d.k),
            gamma: &mut gamma[..d.m + d.k],
        };
        self.inner.dynamics_into(t, q, v, inner_out);
        Self::shift_rows(&mut jacobian, d.m, d.k, self.mode.contacts.len());
        self.event_rows(t, q, &mut jacobian, true);
        self.event_gamma(t, q, v, gamma);
        self.add_slip_forces(t, q, v, force);
    }

    fn phi_q_sparsity(&self) -> Sparsity {
        let base = self.inner.phi_q_sparsity();
        match self.mode.contacts.len() {
            0 => base,
            c => with_dense_rows(base, base.rows, c),
        }
    }
    fn l_sparsity(&self) -> Sparsity {
        let base = self.inner.l_sparsity();
        match self.mode.contacts.len() {
            0 => base,
            c => with_dense_rows(base, base.rows, c),
        }
    }
    fn mass_sparsity(&self) -> Option<Sparsity> {
        self.inner.mass_sparsity()
    }
    fn a_sparsity(&self) -> Option<Sparsity> {
        let base = self.inner.a_sparsity()?;
        Some(match self.mode.sticking.len() {
            0 => base,
            s => with_dense_rows(base, base.rows, s),
        })
    }

    fn constraint_names(&self) -> Vec<String> {
        let d = self.inner_dims;
        let mut names = self.inner.constraint_names();
        let names_ev = self.events.event_names();
        let contacts = self.mode.contacts.iter().map(|&s| names_ev[s].to_string());
        names.splice(d.m..d.m, contacts);
        names.extend((self.mode.sticking.iter()).map(|&s| format!("{}_stick", names_ev[s])));
        names
    }

    fn as_energy(&self) -> Option<&dyn crate::tangent::Energy> {
        self.inner.as_energy()
    }
    fn as_drawing(&self) -> Option<&dyn crate::drawing::Drawing> {
        self.inner.as_drawing()
    }
    fn as_events(&self) -> Option<&dyn Events> {
        Some(self)
    }
}

impl<S: ConstrainedSystem + ?Sized> Events for ModeSystem<'_, S> {
    fn event_names(&self) -> &'static [&'static str] {
        self.events.event_names()
    }
    fn event_spec(&self, i: usize) -> EventSpec {
        let spec = self.events.event_spec(i);
        let direction = if self.mode.contacts.contains(&i) || self.mode.sticking.contains(&i) {
            Direction::Rising
        } else if let Some(sign) = self.mode.slip_sign(i) {
            if sign > 0.0 {
                Direction::Falling
            } else {
                Direction::Rising
            }
        } else {
            spec.direction
        };
        EventSpec { direction, ..spec }
    }
    fn events_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events.events_into(t, q, v, out);
        if self.mode.contacts.is_empty() && self.mode.sticking.is_empty() {
            return;
        }
        let solved = self.multipliers(t, q, v);
        for &slot in self.mode.contacts.iter().chain(&self.mode.sticking) {
            let row = self.row_of(slot).expect("an active slot has a row");
            out[slot] = match (&solved, self.events.event_spec(slot).action) {
                (None, _) => f64::NAN,
                (Some(s), Action::Friction { mu_static, .. }) => {
                    s.lambda[row].abs() - mu_static * s.normal[slot]
                }
                (Some(s), _) => s.lambda[row],
            };
        }
    }
    fn event_jacobian_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.events.event_jacobian_into(t, q, out);
    }
    fn event_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.events.event_offset_into(t, q, out);
    }
    fn event_gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events.event_gamma_into(t, q, v, out);
    }
    fn event_l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.events.event_l_into(t, q, v, out);
    }
    fn event_normal_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events.event_normal_into(t, q, v, out);
    }
    fn disarmed_at_start(&self) -> Vec<usize> {
        self.mode.fired.clone()
    }
    fn signs_at_start(&self) -> Vec<(usize, f64)> {
        self.mode.signs.clone()
    }
}
