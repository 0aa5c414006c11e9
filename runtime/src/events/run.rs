//! The event loop: segment after segment of any method on the model in its current mode
//! ([`super::mode`]), with the actions applied between segments.
//!
//! After an impact the velocities solve the impulse equations with the constraints,
//! [M Gᵀ; G 0][Δv; Π] = [0; r] with r = −(G v⁻ + c) on the constraint rows (kept consistent) and
//! r = −(1 + e)(g_q v⁻ + g_t) on the impacting rows, so ġ⁺ = −e ġ⁻ exactly and the kinetic
//! energy lost is that of Newton's law with the mechanism's constraints. After every event the
//! state is projected onto the constraints of the new mode ([`crate::initialize`], positions by
//! minimum-norm Gauss–Newton, velocities by orthogonal projection), which moves it only by the
//! drift the segment left. A contact closes (becomes a row g = 0) when the next flight would be
//! shorter than [`EventOptions::zeno_time`] (accumulating impacts: the bouncing ball comes to
//! rest instead of grinding to a step-size underflow), or at the start when g = 0, ġ = 0 and
//! the free motion would penetrate.

use crate::error::{Kernel, SimError};
use crate::init::{InitOptions, initialize};
use crate::integrator::{Integrator, OutputGrid, Problem, Solution};
use crate::kernels::check;
use crate::kkt::{KktWorkspace, Metric, accelerations_into};
use crate::naming::EventNames;
use crate::output::{Observer, Sample, Stats, StepInfo};
use crate::system::ConstrainedSystem;

use super::mode::{Mode, ModeSystem};
use super::{Action, EventKind, EventRecord, Events};

/// Settings of the event loop.
#[derive(Clone, Debug, PartialEq)]
pub struct EventOptions {
    /// A contact closes when the flight after an impact, 2 e |ġ⁻| / |g̈|, would be shorter
    /// than this (seconds), or when the rebound's height (e ġ⁻)² / (2 |g̈|) would be below
    /// what g resolves (1e3 ε times the coordinates' scale). Default 1e-9 s; on the bouncing
    /// ball of e = 0.8 dropped from 1 m the height test closes it first, after 65 impacts,
    /// 1.8e-6 s before the accumulation point.
    pub zeno_time: f64,
    /// Limit on events in one run, and on segments (an error beyond it). Default 100 000.
    pub max_events: usize,
}

impl Default for EventOptions {
    fn default() -> Self {
        Self {
            zeno_time: 1e-9,
            max_events: 100_000,
        }
    }
}

/// What the user's handler decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventResponse {
    /// Go on (with the state as the handler left it, projected onto the constraints).
    Continue,
    /// End the run here.
    Stop,
}

/// The user's handler of `handler` events: the event's name, its time, and the state to change.
pub type Handler<'h> = dyn FnMut(&'static str, f64, &mut [f64], &mut [f64]) -> EventResponse + 'h;

/// The result of [`simulate`].
#[derive(Clone, Debug, PartialEq)]
pub struct EventRun {
    /// The end of the run (t_end, or the time of a stop), with the statistics of every segment
    /// summed (`stats.events` counts the events).
    pub solution: Solution,
    /// Every event, in time order.
    pub events: Vec<EventRecord>,
    /// Whether a stop event (or the handler) ended the run before t_end.
    pub stopped: bool,
    /// Integrations run (one more than the events that did not stop the run).
    pub segments: usize,
}

/// Integrate `problem` with `method` through every event of `sys` (see the module docs). A
/// system without events is one plain run.
pub fn simulate<S, I, O>(
    sys: &S,
    method: &I,
    problem: &Problem,
    options: &EventOptions,
    mut handler: Option<&mut Handler<'_>>,
    observer: &mut O,
) -> Result<EventRun, SimError>
where
    S: ConstrainedSystem + ?Sized,
    I: Integrator + ?Sized,
    O: Observer + ?Sized,
{
    let Some(events) = sys.as_events() else {
        let solution = method.integrate_into(sys, problem, observer)?;
        return Ok(EventRun {
            solution,
            events: Vec::new(),
            stopped: false,
            segments: 1,
        });
    };
    let times = problem.output_times();
    let dir = problem.direction();
    let (mut t, mut q, mut v) = (problem.t0, problem.q0.clone(), problem.v0.clone());
    let mut mode = initial_mode(sys, events, t, &mut q, &mut v)?;
    let mut records: Vec<EventRecord> = Vec::new();
    let mut stats: Option<Stats> = None;
    let mut segments = 0;
    loop {
        let view = ModeSystem::new(sys, events, mode.clone());
        let remaining: Vec<f64> = times
            .iter()
            .copied()
            .filter(|&s| {
                if segments == 0 {
                    true
                } else {
                    dir * (s - t) > 0.0
                }
            })
            .collect();
        let mut output = remaining;
        if segments > 0 && !times.is_empty() {
            output.insert(0, t);
        }
        let segment = Problem {
            t0: t,
            t_end: problem.t_end,
            q0: q.clone(),
            v0: v.clone(),
            output: if times.is_empty() {
                OutputGrid::None
            } else {
                OutputGrid::Times(output)
            },
        };
        segments += 1;
        let mut adapter = ModelRows::new(&view, observer);
        let solution = if dir * (problem.t_end - t) > 0.0 || segments == 1 {
            method.integrate_into(&view, &segment, &mut adapter)?
        } else {
            Solution {
                t,
                q: q.clone(),
                v: v.clone(),
                stats: Stats::default(),
                event: None,
            }
        };
        merge(&mut stats, &solution.stats);
        let Some(hit) = solution.event.clone() else {
            let mut stats = stats.unwrap_or_default();
            stats.events = records.len();
            return Ok(EventRun {
                solution: Solution { stats, ..solution },
                events: records,
                stopped: false,
                segments,
            });
        };
        if records.len() >= options.max_events || segments > options.max_events {
            return Err(SimError::TooManyEvents {
                t: hit.t,
                events: records.len(),
            });
        }
        t = hit.t;
        q.copy_from_slice(&solution.q);
        v.copy_from_slice(&solution.v);
        let before = records.len();
        let stop = apply(
            &view,
            &hit.slots,
            t,
            (&mut q, &mut v),
            &mut mode,
            options,
            &mut handler,
            &mut records,
        )?;
        let after = ModeSystem::new(sys, events, mode.clone());
        project(&after, t, &mut q, &mut v)?;
        for r in &mut records[before..] {
            r.q_after.copy_from_slice(&q);
            r.v_after.copy_from_slice(&v);
        }
        if stop {
            let mut stats = stats.unwrap_or_default();
            stats.events = records.len();
            return Ok(EventRun {
                solution: Solution {
                    t,
                    q,
                    v,
                    stats,
                    event: Some(hit),
                },
                events: records,
                stopped: true,
                segments,
            });
        }
    }
}

/// Sum the counters of a segment into the run's.
fn merge(total: &mut Option<Stats>, s: &Stats) {
    let Some(t) = total else {
        *total = Some(s.clone());
        return;
    };
    t.nfcn += s.nfcn;
    t.nstep += s.nstep;
    t.naccpt += s.naccpt;
    t.nrejct += s.nrejct;
    t.nstab += s.nstab;
    t.failed += s.failed;
    t.output_solves += s.output_solves;
    t.stabilization_time += s.stabilization_time;
    t.max_drift = t.max_drift.worst(s.max_drift);
    t.redundant_drift = t.redundant_drift.worst(s.redundant_drift);
    t.event_evaluations += s.event_evaluations;
    if s.naccpt > 0 {
        t.h_range = if t.naccpt == s.naccpt {
            s.h_range
        } else {
            (t.h_range.0.min(s.h_range.0), t.h_range.1.max(s.h_range.1))
        };
    }
    if let Some(c) = s.conditioning
        && t.conditioning.is_none_or(|w| c.spread > w.spread)
    {
        t.conditioning = Some(c);
    }
    for (name, value) in s.extra.iter() {
        t.extra.add(name, value);
    }
    t.partitions.extend(s.partitions.iter().cloned());
    t.redundancy.extend(s.redundancy.iter().cloned());
}

/// The mode at the start: contacts touching with the free motion pressing into them closed,
/// friction contacts slipping with the sign of v_rel (or sticking if they can).
fn initial_mode<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    events: &dyn Events,
    t: f64,
    q: &mut [f64],
    v: &mut [f64],
) -> Result<Mode, SimError> {
    let ne = events.event_names().len();
    let mut mode = Mode::default();
    let mut g = vec![0.0; ne];
    events.events_into(t, q, v, &mut g);
    let names = EventNames {
        events: events.event_names(),
        coordinates: sys.coordinate_names(),
    };
    check(&names, Kernel::EventFunctions, &g, (t, q, v))?;
    let rate = contact_rates(events, sys.coordinate_names(), (t, q, v))?;
    let scale = q.iter().fold(1.0_f64, |s, x| s.max(x.abs()));
    let touch = 1e-10 * scale;
    for i in 0..ne {
        match events.event_spec(i).action {
            Action::Impact { .. } => {
                if g[i] < -touch {
                    return Err(SimError::InvalidProblem {
                        what: format!(
                            "the initial state penetrates contact `{}`: g = {:e} < 0",
                            events.event_names()[i],
                            g[i]
                        ),
                    });
                }
                if g[i] <= touch && rate[i] <= touch {
                    let free = ModeSystem::new(sys, events, mode.clone());
                    if free_acceleration(&free, i, t, q, v)? < 0.0 {
                        mode.set_contact(i, true);
                    } else {
                        mode.signs.push((i, 1.0));
                    }
                } else if g[i] <= touch {
                    mode.signs.push((i, 1.0));
                }
            }
            Action::Friction { .. } => {
                let slip = (g[i].abs() > touch).then(|| g[i].signum());
                mode.set_friction(i, slip);
                if slip.is_none() {
                    let choice = stick_or_slip(sys, events, &mode, i, t, q, v)?;
                    mode.set_friction(i, choice);
                    if let Some(sign) = choice {
                        mode.signs.push((i, sign));
                    }
                }
            }
            Action::Stop | Action::Handler => {}
        }
    }
    let view = ModeSystem::new(sys, events, mode.clone());
    project(&view, t, q, v)?;
    Ok(mode)
}

/// ġ = g_q v + g_t of every slot (impact slots' relative velocity).
fn contact_rates(
    events: &dyn Events,
    coordinates: &'static [&'static str],
    (t, q, v): (f64, &[f64], &[f64]),
) -> Result<Vec<f64>, SimError> {
    let names = EventNames {
        events: events.event_names(),
        coordinates,
    };
    let ne = events.event_names().len();
    let mut jac = nalgebra::DMatrix::zeros(ne, q.len());
    let mut rate = vec![0.0; ne];
    events.event_jacobian_into(t, q, jac.as_view_mut());
    check(&names, Kernel::EventJacobian, jac.as_slice(), (t, q, v))?;
    events.event_offset_into(t, q, &mut rate);
    check(&names, Kernel::EventOffset, &rate, (t, q, v))?;
    for (i, r) in rate.iter_mut().enumerate() {
        *r += (0..q.len()).map(|j| jac[(i, j)] * v[j]).sum::<f64>();
    }
    Ok(rate)
}

/// g̈ of impact slot `slot` under the free motion of `view` (its accelerations, contact open):
/// g̈ = g_q v̇ − γ_g.
fn free_acceleration<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    slot: usize,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<f64, SimError> {
    let d = view.dims();
    let ne = view.events.event_names().len();
    let (vdot, _) = solve(view, t, q, v)?;
    let mut jac = nalgebra::DMatrix::zeros(ne, d.n);
    let mut gamma = vec![0.0; ne];
    view.events.event_jacobian_into(t, q, jac.as_view_mut());
    let names = EventNames {
        events: view.events.event_names(),
        coordinates: view.coordinate_names(),
    };
    check(&names, Kernel::EventJacobian, jac.as_slice(), (t, q, v))?;
    view.events.event_gamma_into(t, q, v, &mut gamma);
    check(&names, Kernel::EventGamma, &gamma, (t, q, v))?;
    let jv: f64 = (0..d.n).map(|j| jac[(slot, j)] * vdot[j]).sum();
    Ok(jv - gamma[slot])
}

/// Whether friction `slot` (held at v_rel = 0 in `mode`) sticks (`None`) or slips, and which
/// way: stick when |λ| ≤ μ_s N, else slip along sign(λ) (the friction force −λ opposes it).
fn stick_or_slip<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    events: &dyn Events,
    mode: &Mode,
    slot: usize,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<Option<f64>, SimError> {
    let mut sticking = mode.clone();
    sticking.set_friction(slot, None);
    let view = ModeSystem::new(sys, events, sticking);
    let (_, lambda) = solve(&view, t, q, v)?;
    let row = view.row_of(slot).expect("a sticking slot has a row");
    let mut normal = vec![0.0; events.event_names().len()];
    events.event_normal_into(t, q, v, &mut normal);
    let names = EventNames {
        events: events.event_names(),
        coordinates: sys.coordinate_names(),
    };
    check(&names, Kernel::EventNormal, &normal, (t, q, v))?;
    let Action::Friction { mu_static, .. } = events.event_spec(slot).action else {
        unreachable!("stick_or_slip is called for friction slots")
    };
    let force = lambda[row];
    Ok(if force.abs() <= mu_static * normal[slot] {
        None
    } else {
        Some(force.signum())
    })
}

/// Apply the actions of the slots that fired at `t`; true when the run stops.
#[allow(clippy::too_many_arguments)] // the state, the mode and the record are all changed
fn apply<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    slots: &[usize],
    t: f64,
    (q, v): (&mut Vec<f64>, &mut Vec<f64>),
    mode: &mut Mode,
    options: &EventOptions,
    handler: &mut Option<&mut Handler<'_>>,
    records: &mut Vec<EventRecord>,
) -> Result<bool, SimError> {
    let events = view.events;
    let names = events.event_names();
    let (q0, v0) = (q.clone(), v.clone());
    let mut stop = false;
    let mut kinds: Vec<(usize, EventKind)> = Vec::new();
    let mut impacts: Vec<(usize, f64)> = Vec::new();
    mode.fired.clear();
    mode.signs.clear();
    for &slot in slots {
        let spec = events.event_spec(slot);
        if matches!(spec.action, Action::Stop | Action::Handler) {
            mode.fired.push(slot);
        }
        let kind = match spec.action {
            Action::Stop => {
                stop = true;
                EventKind::Stop
            }
            Action::Handler => {
                let response = match handler.as_mut() {
                    Some(h) => h(names[slot], t, q, v),
                    None => EventResponse::Continue,
                };
                stop |= response == EventResponse::Stop;
                EventKind::Handler {
                    stopped: response == EventResponse::Stop,
                }
            }
            Action::Impact { .. } if mode.contacts.contains(&slot) => {
                mode.set_contact(slot, false);
                mode.signs.push((slot, 1.0));
                EventKind::LiftOff
            }
            Action::Impact { restitution } => {
                let rate = contact_rates(events, view.coordinate_names(), (t, q, v))?[slot];
                let g_ddot = free_acceleration(view, slot, t, q, v)?;
                // The next flight: after the rebound −e ġ, or (ġ ≥ 0: g found at 0 while already
                // separating, a crossing of the interpolant's round-off) at ġ itself.
                let separating = if rate < 0.0 { restitution } else { 1.0 };
                let flight = 2.0 * separating * rate.abs() / g_ddot.abs();
                // Or the rebound would rise less than g can resolve (round-off of its terms).
                let height = (separating * rate).powi(2) / (2.0 * g_ddot.abs());
                let closing =
                    g_ddot < 0.0 && (flight < options.zeno_time || height < resolution(q));
                if !closing && rate >= -grazing_speed(v) {
                    // g reached 0 without approaching: a grazing touch, or round-off of a g
                    // that just left 0. No impact; the slot restarts disarmed until |g| leaves
                    // its round-off (restarting it armed would find the same crossing again).
                    mode.fired.push(slot);
                    continue;
                }
                if closing {
                    mode.set_contact(slot, true);
                    impacts.push((slot, 0.0));
                    EventKind::ContactClosed {
                        approach_speed: rate,
                    }
                } else {
                    impacts.push((slot, restitution));
                    mode.signs.push((slot, 1.0));
                    EventKind::Impact {
                        restitution,
                        approach_speed: rate,
                        separation_speed: f64::NAN,
                    }
                }
            }
            Action::Friction { .. } if mode.sticking.contains(&slot) => {
                let sign = breakaway_sign(view, slot, t, q, v)?;
                mode.set_friction(slot, Some(sign));
                mode.signs.push((slot, sign));
                EventKind::Slip { sign }
            }
            Action::Friction { .. } => {
                mode.set_friction(slot, None);
                let choice = stick_or_slip(view.inner, events, mode, slot, t, q, v)?;
                mode.set_friction(slot, choice);
                if let Some(sign) = choice {
                    mode.signs.push((slot, sign));
                }
                match choice {
                    None => EventKind::Stick,
                    Some(sign) => EventKind::Slip { sign },
                }
            }
        };
        kinds.push((slot, kind));
    }
    if !impacts.is_empty() {
        impulse(view, mode, &impacts, t, q, v)?;
        let rates = contact_rates(events, view.coordinate_names(), (t, q, v))?;
        for (slot, kind) in &mut kinds {
            if let EventKind::Impact {
                separation_speed, ..
            } = kind
            {
                *separation_speed = rates[*slot];
            }
        }
    }
    for (slot, kind) in kinds {
        records.push(EventRecord {
            t,
            name: names[slot],
            kind,
            q_before: q0.clone(),
            v_before: v0.clone(),
            q_after: q.clone(),
            v_after: v.clone(),
        });
    }
    Ok(stop)
}

/// The smallest contact gap a position-level g can resolve: round-off at the coordinates' scale.
fn resolution(q: &[f64]) -> f64 {
    1e3 * f64::EPSILON * q.iter().fold(1.0_f64, |s, x| s.max(x.abs()))
}

/// An approach speed below this is a grazing touch, not an impact: round-off of ġ = g_q v + g_t
/// at the velocities' scale.
fn grazing_speed(v: &[f64]) -> f64 {
    1e3 * f64::EPSILON * v.iter().fold(1.0_f64, |s, x| s.max(x.abs()))
}

/// The direction a sticking contact starts to slip: sign(λ) of its row at the event.
fn breakaway_sign<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    slot: usize,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<f64, SimError> {
    let (_, lambda) = solve(view, t, q, v)?;
    let row = view.row_of(slot).expect("a sticking slot has a row");
    Ok(lambda[row].signum())
}

/// v̇ and λ of `view` at (t, q, v): the KKT solve the actions decide by (once per event, so
/// its storage is made here).
fn solve<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    t: f64,
    q: &[f64],
    v: &[f64],
) -> Result<(Vec<f64>, Vec<f64>), SimError> {
    let d = view.dims();
    let mut kkt = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    accelerations_into(view, t, q, v, None, &mut kkt, 0.0, &mut vdot, &mut lambda)?;
    Ok((vdot, lambda))
}

/// The impulse equations with the constraints of `mode` (closed contacts and sticking rows
/// included) and the impacting rows `impacts` (slot, e): v ← v + Δv.
fn impulse<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    mode: &Mode,
    impacts: &[(usize, f64)],
    t: f64,
    q: &[f64],
    v: &mut [f64],
) -> Result<(), SimError> {
    let mut with_rows = mode.clone();
    for &(slot, _) in impacts {
        with_rows.set_contact(slot, true);
    }
    let sys = ModeSystem::new(view.inner, view.events, with_rows);
    let d = sys.dims();
    let mut ws = KktWorkspace::new(d);
    crate::kernels::mass(&sys, t, q, &mut ws.mass)?;
    crate::kernels::jacobian(&sys, t, q, &mut ws.jac)?;
    let mut residual = vec![0.0; d.constraint_rows()];
    crate::kernels::velocity_residual(&sys, t, q, v, (&ws.jac).into(), &mut ws.tmp, &mut residual)?;
    let mut rc: Vec<f64> = residual.iter().map(|r| -r).collect();
    for &(slot, e) in impacts {
        let row = sys.row_of(slot).expect("an impacting slot has a row");
        rc[row] = -(1.0 + e) * residual[row];
    }
    ws.factor(&sys, Metric::Mass, t, 0.0)?;
    ws.solve_projection(&rc);
    // A restitution or a residual gone bad (NaN, ∞) reaches Δv: named, never applied.
    let names = EventNames {
        events: view.events.event_names(),
        coordinates: sys.coordinate_names(),
    };
    check(&names, Kernel::ImpulseSolution, &ws.rhs[..d.n], (t, q, v))?;
    for (vi, dv) in v.iter_mut().zip(&ws.rhs[..d.n]) {
        *vi += dv;
    }
    Ok(())
}

/// Project (q, v) onto the constraints of `view` (only by what they violate). Velocities in
/// the mass metric ([`initialize`]'s default): the change is then an impulse, Δv = −M⁻¹ Gᵀ μ,
/// as a mode switch's velocity jump is physically.
fn project<S: ConstrainedSystem + ?Sized>(
    view: &ModeSystem<'_, S>,
    t: f64,
    q: &mut [f64],
    v: &mut [f64],
) -> Result<(), SimError> {
    let scale = q
        .iter()
        .chain(v.iter())
        .fold(1.0_f64, |s, x| s.max(x.abs()));
    let opts = InitOptions {
        tol: 1e-13 * scale,
        ..InitOptions::default()
    };
    let report = initialize(view, t, q, v, &opts)?;
    q.copy_from_slice(&report.q);
    v.copy_from_slice(&report.v);
    Ok(())
}

/// The observer of a segment: samples with λ reduced to the model's own rows.
struct ModelRows<'o, 'v, S: ?Sized, O: ?Sized> {
    view: &'v ModeSystem<'v, S>,
    inner: &'o mut O,
    lambda: Vec<f64>,
}

impl<'o, 'v, S: ConstrainedSystem + ?Sized, O: Observer + ?Sized> ModelRows<'o, 'v, S, O> {
    fn new(view: &'v ModeSystem<'v, S>, inner: &'o mut O) -> Self {
        let rows = view.inner.dims().constraint_rows();
        Self {
            view,
            inner,
            lambda: vec![0.0; rows],
        }
    }
}

impl<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized> Observer for ModelRows<'_, '_, S, O> {
    fn output(&mut self, s: &Sample<'_>) {
        // A sample without λ (`SampleContent::State`) has no rows to map.
        if s.lambda.is_empty() {
            self.inner.output(s);
            return;
        }
        self.view.model_multipliers(s.lambda, &mut self.lambda);
        self.inner.output(&Sample {
            lambda: &self.lambda,
            ..*s
        });
    }
    fn step(&mut self, info: &StepInfo) {
        self.inner.step(info);
    }
}
