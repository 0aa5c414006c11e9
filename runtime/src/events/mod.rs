//! Events: located zero crossings of functions g(t, q, v), and what happens at them — stop the
//! run, call the user's handler, an impact with restitution that becomes a persistent contact
//! when impacts accumulate (and lifts off when the contact force would pull), Coulomb friction
//! switching between stick and slip.
//!
//! Three layers:
//! - [`Events`], the optional view of a model that declares `events: [...]`: names, what each
//!   event does ([`EventSpec`]), g and the derivatives the actions need (∂g/∂q, g_t, the
//!   acceleration right side γ_g and L_g of a contact row; for a friction slot the relative
//!   velocity's row w = ∂v_rel/∂v and the normal force). Generated from the model text
//!   (`codegen/src/frontend/events.rs`), checked against the interpreter and finite differences.
//! - Location (`monitor.rs`), inside the one run loop every method uses: after each accepted
//!   step, g is evaluated at the step's end and at [`crate::CommonOptions::event_subsamples`]
//!   interior points of the method's own interpolant (a g that changes sign twice between two
//!   such points is the only kind missed); the first sub-interval with a crossing in the
//!   event's direction is narrowed by the Illinois method on the interpolant to
//!   4 ε (|t| + |h|); events whose roots lie within that of the earliest one are simultaneous.
//!   The run stops there: samples due before the event are emitted, then one at the event,
//!   and the [`crate::Solution`] carries the [`EventHit`] with the state at the event.
//! - The event loop (`run.rs`, [`simulate`]): integrates segment after segment, each a fresh
//!   run of the method on the model with the constraints of the current mode added
//!   (`mode.rs`: persistent contacts as holonomic rows, sticking friction as nonholonomic
//!   rows), applies the actions between segments (impulse equations with the constraints,
//!   projection onto the constraints), and records every event ([`EventRecord`]).
//!   Multistep histories restart with each segment, and each segment chooses its first step
//!   like a new run.
//!
//! Semantics at the ends: a g that is zero where a segment starts (t0, or the state an event
//! left) does not fire there; its direction is judged from the first point where |g| exceeds
//! 100 times its starting magnitude. Built-in actions know better and say so: a contact that
//! an impact or a lift-off just opened starts on its open side (so a rebound shorter than the
//! next step's first sub-interval is still caught), a friction contact that starts to slip on
//! its slip's side. An event located at t_end is reported and its action applied to the final
//! state.

mod mode;
pub(crate) mod monitor;
mod record;
mod run;

pub use record::{EventKind, EventRecord};
pub use run::{EventOptions, EventResponse, EventRun, Handler, simulate};

use crate::system::MatOut;

/// Which sign changes of g are events.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From g < 0 to g ≥ 0.
    Rising,
    /// From g > 0 to g ≤ 0.
    Falling,
    /// Either.
    Both,
}

impl Direction {
    /// Whether going from `a` to `b` (both nonzero-referenced signs) is a crossing this
    /// direction reports.
    pub fn crosses(self, a: f64, b: f64) -> bool {
        let rising = a < 0.0 && b >= 0.0;
        let falling = a > 0.0 && b <= 0.0;
        match self {
            Direction::Rising => rising,
            Direction::Falling => falling,
            Direction::Both => rising || falling,
        }
    }

    /// The model-language word (`rising`, `falling`, `both`).
    pub fn word(self) -> &'static str {
        match self {
            Direction::Rising => "rising",
            Direction::Falling => "falling",
            Direction::Both => "both",
        }
    }
}

/// What an event does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Action {
    /// End the run at the event.
    Stop,
    /// Call the user's handler ([`Handler`]), which may change q and v or stop the run.
    Handler,
    /// g(t, q) ≥ 0 is a unilateral contact: when g reaches 0 falling, an impact with Newton's
    /// restitution coefficient e (ġ⁺ = −e ġ⁻) solved with the constraints; when impacts
    /// accumulate the contact becomes persistent (g = 0 as a constraint row) until its force
    /// would pull.
    Impact {
        /// Restitution coefficient e ∈ [0, 1].
        restitution: f64,
    },
    /// g = v_rel(t, q, v), linear in v, is the sliding velocity of a Coulomb friction contact
    /// with normal force N(t, q, v) ≥ 0: slipping, the force −μ_k N sign(v_rel) acts along
    /// w = ∂v_rel/∂v; sticking, v_rel = 0 is a constraint row until its force exceeds μ_s N.
    Friction {
        /// Static coefficient μ_s.
        mu_static: f64,
        /// Kinetic coefficient μ_k.
        mu_kinetic: f64,
    },
}

impl Action {
    /// The kind's word (`stop`, `handler`, `impact`, `friction`).
    pub fn word(self) -> &'static str {
        match self {
            Action::Stop => "stop",
            Action::Handler => "handler",
            Action::Impact { .. } => "impact",
            Action::Friction { .. } => "friction",
        }
    }
}

/// One event of a model: its direction and its action.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventSpec {
    /// Which crossings count (an impact is always `Falling`; a friction slot's direction
    /// follows its mode).
    pub direction: Direction,
    /// What happens.
    pub action: Action,
}

/// The event functions of a model, and the derivatives the built-in actions need. Every
/// method takes the same `t, q (, v)` as the kernels and writes every entry of `out`
/// (`ne = event_names().len()` rows; a row that does not apply to an event's kind is 0).
pub trait Events {
    /// The events' names, in the model's order.
    fn event_names(&self) -> &'static [&'static str];
    /// Direction and action of event `i` (parameters, such as a restitution, read now).
    fn event_spec(&self, i: usize) -> EventSpec;
    /// g(t, q, v) of every event, length ne (a friction slot: its v_rel).
    fn events_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// The constraint row each contact or friction slot adds, ne × n: ∂g/∂q of an impact,
    /// w = ∂v_rel/∂v of a friction slot.
    fn event_jacobian_into(&self, t: f64, q: &[f64], out: MatOut<'_>);
    /// Its offset, length ne: g_t of an impact, v_rel at v = 0 of a friction slot.
    fn event_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]);
    /// Its acceleration right side, length ne: γ_g = −(d²g/dt²)|_{v̇=0} of an impact,
    /// −(dv_rel/dt)|_{v̇=0} of a friction slot.
    fn event_gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// L_g = ∂(g_q v)/∂q of the impact slots, ne × n (zero rows elsewhere).
    fn event_l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>);
    /// The normal force N(t, q, v) of the friction slots, length ne (0 elsewhere).
    fn event_normal_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]);
    /// Slots that start a run disarmed (the event loop restarting right after them; see the
    /// module docs). Generated models: none.
    fn disarmed_at_start(&self) -> Vec<usize> {
        Vec::new()
    }
    /// Slots whose sign at the start of a run is known although g is (nearly) zero there, with
    /// that sign: a contact just opened (by an impact or a lift-off) is on its open side
    /// (+1), a friction contact that starts to slip has v_rel of its slip's sign. Generated
    /// models: none.
    fn signs_at_start(&self) -> Vec<(usize, f64)> {
        Vec::new()
    }
}

/// Where a run stopped at an event: the time, the slots that fired there together, and the
/// state before any action.
#[derive(Clone, Debug, PartialEq)]
pub struct EventHit {
    /// The located time.
    pub t: f64,
    /// The event slots (indices into the system's events) found at `t`, in index order.
    pub slots: Vec<usize>,
}
