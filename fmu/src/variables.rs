//! The variables of a model's FMU and their value references. The order is fixed (settings,
//! parameters, initial guesses, outputs), so the description and the C API agree by
//! construction; Real, Integer and String variables have value references counted
//! separately, as FMI 2.0 allows (a reference is unique per type).

use mbsim::runtime::ConstrainedSystem;

/// What a variable is.
#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    /// A String setting (`method`, `stabilization`), with its default.
    Setting(&'static str),
    /// A Real setting (`rtol`, `atol`, `h`: 0 means "not given"), with its default.
    Tolerance(f64),
    /// A runtime parameter of the model, with its default value.
    Parameter(f64),
    /// The initial guess of coordinate `i` (made consistent when initialization ends).
    InitialPosition(usize, f64),
    /// The initial guess of velocity `i`.
    InitialVelocity(usize, f64),
    /// Output: coordinate `i`.
    Position(usize),
    /// Output: velocity `i`.
    Velocity(usize),
    /// Output: the multiplier of constraint row `i`.
    Multiplier(usize),
    /// Output: |Φ| at the communication point.
    DriftPosition,
    /// Output: |Φ̇| at the communication point.
    DriftVelocity,
}

/// One FMU variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// Its name in modelDescription.xml.
    pub name: String,
    /// Its value reference (per type).
    pub vr: u32,
    /// What it is.
    pub kind: Kind,
    /// The description attribute.
    pub description: String,
}

impl Variable {
    /// Whether it is a String variable.
    pub fn is_string(&self) -> bool {
        matches!(self.kind, Kind::Setting(_))
    }

    /// Whether it is an output.
    pub fn is_output(&self) -> bool {
        matches!(
            self.kind,
            Kind::Position(_)
                | Kind::Velocity(_)
                | Kind::Multiplier(_)
                | Kind::DriftPosition
                | Kind::DriftVelocity
        )
    }
}

/// Every variable of the FMU of `sys` with the initial guess `(q0, v0)` and default `rtol`.
pub fn variables(sys: &dyn ConstrainedSystem, q0: &[f64], v0: &[f64], rtol: f64) -> Vec<Variable> {
    let mut out = Vec::new();
    let mut real = 0u32;
    let mut string = 0u32;
    let mut push = |name: String, kind: Kind, description: String| {
        let counter = if matches!(kind, Kind::Setting(_)) {
            &mut string
        } else {
            &mut real
        };
        out.push(Variable {
            name,
            vr: *counter,
            kind,
            description,
        });
        *counter += 1;
    };
    push(
        "method".into(),
        Kind::Setting("rkstab"),
        "integrator, as mbsim simulate --method (rkstab, dop853, abm, ab, ampc, mampc, newmark, hht, generalized-alpha, radau, hpim, npc, ali3p)".into(),
    );
    push(
        "stabilization".into(),
        Kind::Setting(""),
        "drift control, as --stabilization (pstab, sfull, sboth, velocity, ggt, baumgarte, none, gcp, hybrid; empty: the method's default)".into(),
    );
    push(
        "rtol".into(),
        Kind::Tolerance(rtol),
        "relative tolerance".into(),
    );
    push(
        "atol".into(),
        Kind::Tolerance(0.0),
        "absolute tolerance (0: rtol / 10)".into(),
    );
    push(
        "h".into(),
        Kind::Tolerance(0.0),
        "step size of the constant-step methods (0: not given)".into(),
    );
    for &p in sys.parameter_names() {
        push(
            p.to_string(),
            Kind::Parameter(sys.parameter(p).unwrap_or(0.0)),
            "model parameter".into(),
        );
    }
    let names = sys.coordinate_names();
    for (i, c) in names.iter().enumerate() {
        push(
            format!("{c}_0"),
            Kind::InitialPosition(i, q0[i]),
            format!("initial guess of {c}"),
        );
    }
    for (i, c) in names.iter().enumerate() {
        push(
            format!("{c}_dot_0"),
            Kind::InitialVelocity(i, v0[i]),
            format!("initial guess of {c}_dot"),
        );
    }
    for (i, c) in names.iter().enumerate() {
        push(c.to_string(), Kind::Position(i), "coordinate".into());
    }
    for (i, c) in names.iter().enumerate() {
        push(format!("{c}_dot"), Kind::Velocity(i), "velocity".into());
    }
    for (i, row) in sys.constraint_names().iter().enumerate() {
        push(
            format!("lambda_{row}"),
            Kind::Multiplier(i),
            "multiplier of the constraint row".into(),
        );
    }
    push(
        "phi_norm".into(),
        Kind::DriftPosition,
        "position drift |Phi|".into(),
    );
    push(
        "phidot_norm".into(),
        Kind::DriftVelocity,
        "velocity drift |Phi_dot|".into(),
    );
    out
}
