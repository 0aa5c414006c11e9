//! The columns a user adds to `sweep.csv` (`--column SPEC`, repeatable), and the energy error.
//!
//! A SPEC is a quantity, optionally reduced over the run: `QUANTITY` or `REDUCTION(QUANTITY)`.
//! - QUANTITY: a coordinate by name (`theta`), its velocity (`theta_dot`) or acceleration
//!   (`theta_ddot`), a multiplier by constraint row name (`lambda_<row>`), `phi_norm` or
//!   `phidot_norm` (the drift), and for a model with energy kernels `energy` (T + V) and
//!   `energy_error` (T + V minus its value at t = 0);
//! - REDUCTION over the samples at t = 0, every accepted step point and t_end: `final` (the value
//!   at t_end, the default), `max`, `min`, `maxabs` (max |x|).
//!
//! The header of the column is the SPEC as written with the reduction spelled out
//! (`maxabs(qf3)`, `final(theta)`). Names are checked against the model before anything runs.
//! Why named quantities and reductions, not arbitrary formulas: every value a run produces is
//! one of these, a reduction is what a sweep summarises a run by (an amplitude, a peak force),
//! and a formula of the final values is one line of post-processing on the CSV; the columns
//! stay cheap (one pass over the step points, no storage). Asking for any column makes every
//! accepted step point a sample (one extra KKT solve per step for λ and v̇).
//!
//! Models with energy kernels (`as_energy()`) also get, without asking, `energy_0` and
//! `energy_error` = E(t_end) − E(0) with E = T + V: a conservation error for a conservative
//! model, the work of the applied forces otherwise (the column does not know which).

use mbsim::runtime::{ConstrainedSystem, Observer, Sample};

use crate::error::AppError;

/// How a quantity is reduced over a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Reduction {
    Final,
    Max,
    Min,
    MaxAbs,
}

impl Reduction {
    const ALL: [(&'static str, Reduction); 4] = [
        ("final", Reduction::Final),
        ("max", Reduction::Max),
        ("min", Reduction::Min),
        ("maxabs", Reduction::MaxAbs),
    ];

    fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(_, r)| *r == self)
            .map_or("?", |(n, _)| n)
    }

    fn start(self) -> f64 {
        match self {
            Reduction::Final => f64::NAN,
            Reduction::Max | Reduction::MaxAbs => f64::NEG_INFINITY,
            Reduction::Min => f64::INFINITY,
        }
    }

    fn fold(self, acc: f64, x: f64) -> f64 {
        match self {
            Reduction::Final => x,
            Reduction::Max => acc.max(x),
            Reduction::Min => acc.min(x),
            Reduction::MaxAbs => acc.max(x.abs()),
        }
    }
}

/// What a column reads from a sample.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Quantity {
    Position(usize),
    Velocity(usize),
    Acceleration(usize),
    Multiplier(usize),
    PhiNorm,
    PhidotNorm,
    Energy,
    EnergyError,
}

/// One `--column`.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Column {
    pub(super) header: String,
    reduction: Reduction,
    quantity: Quantity,
}

/// Parse every `--column` against `sys`.
pub(super) fn parse_all(
    sys: &dyn ConstrainedSystem,
    specs: &[String],
) -> Result<Vec<Column>, AppError> {
    specs.iter().map(|s| parse(sys, s)).collect()
}

fn parse(sys: &dyn ConstrainedSystem, spec: &str) -> Result<Column, AppError> {
    let text = spec.trim();
    let (reduction, inner) = match text.split_once('(') {
        Some((r, rest)) => {
            let inner = rest.strip_suffix(')').ok_or_else(|| AppError::BadValue {
                what: "--column",
                value: spec.to_string(),
                why: "expected QUANTITY or REDUCTION(QUANTITY)",
            })?;
            let reduction = Reduction::ALL
                .iter()
                .find(|(n, _)| *n == r.trim())
                .map(|(_, r)| *r)
                .ok_or_else(|| AppError::BadValue {
                    what: "--column",
                    value: spec.to_string(),
                    why: "unknown reduction (final, max, min, maxabs)",
                })?;
            (reduction, inner.trim())
        }
        None => (Reduction::Final, text),
    };
    let quantity = quantity(sys, inner)?;
    Ok(Column {
        header: format!("{}({inner})", reduction.name()),
        reduction,
        quantity,
    })
}

fn quantity(sys: &dyn ConstrainedSystem, name: &str) -> Result<Quantity, AppError> {
    let coords = sys.coordinate_names();
    let coord = |n: &str| coords.iter().position(|c| *c == n);
    let energy = sys.as_energy().is_some();
    let found = match name {
        "phi_norm" => Some(Quantity::PhiNorm),
        "phidot_norm" => Some(Quantity::PhidotNorm),
        "energy" if energy => Some(Quantity::Energy),
        "energy_error" if energy => Some(Quantity::EnergyError),
        _ => coord(name)
            .map(Quantity::Position)
            .or_else(|| {
                name.strip_suffix("_ddot")
                    .and_then(coord)
                    .map(Quantity::Acceleration)
            })
            .or_else(|| {
                name.strip_suffix("_dot")
                    .and_then(coord)
                    .map(Quantity::Velocity)
            })
            .or_else(|| {
                let row = name.strip_prefix("lambda_")?;
                let rows = sys.constraint_names();
                rows.iter().position(|r| r == row).map(Quantity::Multiplier)
            }),
    };
    found.ok_or_else(|| {
        let rows: Vec<String> = sys
            .constraint_names()
            .iter()
            .map(|r| format!("lambda_{r}"))
            .collect();
        AppError::UnknownCoordinate {
            what: "--column (a coordinate, <coordinate>_dot, <coordinate>_ddot, lambda_<row>, \
                   phi_norm, phidot_norm, energy, energy_error)"
                .to_string(),
            name: name.to_string(),
            model: sys.name().to_string(),
            known: format!(
                "{}; multipliers: {}{}",
                coords.join(", "),
                rows.join(", "),
                if energy {
                    "; energy, energy_error"
                } else {
                    "; no energy kernels"
                }
            ),
        }
    })
}

/// The observer that reduces the columns over the samples of one run.
pub(super) struct Reducer<'a> {
    sys: &'a dyn ConstrainedSystem,
    columns: &'a [Column],
    /// The running reductions, one per column.
    pub(super) values: Vec<f64>,
    energy_0: Option<f64>,
}

impl<'a> Reducer<'a> {
    /// For `columns` of a run of `sys` that starts at (t0, q0, v0).
    pub(super) fn new(
        sys: &'a dyn ConstrainedSystem,
        columns: &'a [Column],
        start: (f64, &[f64], &[f64]),
    ) -> Self {
        let (t0, q0, v0) = start;
        Reducer {
            sys,
            columns,
            values: columns.iter().map(|c| c.reduction.start()).collect(),
            energy_0: sys.as_energy().map(|e| e.total_energy(t0, q0, v0)),
        }
    }

    fn read(&self, quantity: Quantity, s: &Sample<'_>) -> f64 {
        let energy = || {
            self.sys
                .as_energy()
                .map_or(f64::NAN, |e| e.total_energy(s.t, s.q, s.v))
        };
        match quantity {
            Quantity::Position(j) => s.q[j],
            Quantity::Velocity(j) => s.v[j],
            Quantity::Acceleration(j) => s.vdot[j],
            Quantity::Multiplier(j) => s.lambda[j],
            Quantity::PhiNorm => s.drift.position,
            Quantity::PhidotNorm => s.drift.velocity,
            Quantity::Energy => energy(),
            Quantity::EnergyError => energy() - self.energy_0.unwrap_or(f64::NAN),
        }
    }
}

impl Observer for Reducer<'_> {
    fn output(&mut self, s: &Sample<'_>) {
        for (k, c) in self.columns.iter().enumerate() {
            let x = self.read(c.quantity, s);
            self.values[k] = c.reduction.fold(self.values[k], x);
        }
    }
}

/// `energy_0` and `energy_error` = E(t_end) − E(0) of a finished run, when `sys` has energy.
pub(super) fn energy_error(
    sys: &dyn ConstrainedSystem,
    start: (f64, &[f64], &[f64]),
    end: (f64, &[f64], &[f64]),
) -> Option<(f64, f64)> {
    let e = sys.as_energy()?;
    let e0 = e.total_energy(start.0, start.1, start.2);
    Some((e0, e.total_energy(end.0, end.1, end.2) - e0))
}
