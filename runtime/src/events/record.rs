//! What the event loop reports of each event: time, name, what happened, and the state on
//! both sides (`events.csv` of the CLI is one row per record).

/// What happened at an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EventKind {
    /// A `stop` event ended the run.
    Stop,
    /// The user's handler ran (`stopped`: it asked to end the run).
    Handler {
        /// Whether the handler ended the run.
        stopped: bool,
    },
    /// An impact: ġ⁻ < 0 before, ġ⁺ = −e ġ⁻ after (the impulse solved with the constraints).
    Impact {
        /// The restitution coefficient e.
        restitution: f64,
        /// ġ⁻ = g_q v⁻ + g_t (negative: approaching).
        approach_speed: f64,
        /// ġ⁺ after the impulse.
        separation_speed: f64,
    },
    /// Impacts accumulated (the next flight would be shorter than
    /// [`super::EventOptions::zeno_time`], or its height below round-off of g): a plastic
    /// impact, then g = 0 is kept as a constraint. (A contact pressed at the start is closed
    /// before the first segment and not recorded.)
    ContactClosed {
        /// ġ⁻ before the plastic impact (0 at the start).
        approach_speed: f64,
    },
    /// A persistent contact's force would have become tensile: the row is released.
    LiftOff,
    /// A slipping friction contact reached v_rel = 0 and its force fits the static cone.
    Stick,
    /// A friction contact slips, in direction `sign` of v_rel (breakaway from sticking, a
    /// reversal, or the start).
    Slip {
        /// +1 or −1.
        sign: f64,
    },
}

impl EventKind {
    /// A short word for tables (`stop`, `handler`, `impact`, `contact`, `lift-off`, `stick`,
    /// `slip`).
    pub fn word(&self) -> &'static str {
        match self {
            EventKind::Stop => "stop",
            EventKind::Handler { .. } => "handler",
            EventKind::Impact { .. } => "impact",
            EventKind::ContactClosed { .. } => "contact",
            EventKind::LiftOff => "lift-off",
            EventKind::Stick => "stick",
            EventKind::Slip { .. } => "slip",
        }
    }
}

/// One event as the event loop handled it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRecord {
    /// Located time.
    pub t: f64,
    /// The event's name (as in the model).
    pub name: &'static str,
    /// What happened.
    pub kind: EventKind,
    /// q before the action.
    pub q_before: Vec<f64>,
    /// v before the action.
    pub v_before: Vec<f64>,
    /// q after the action (and the projection onto the constraints of the new mode).
    pub q_after: Vec<f64>,
    /// v after.
    pub v_after: Vec<f64>,
}
