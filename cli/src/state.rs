//! The initial state a run starts from: the model's guess, overridden by a whole vector
//! (`--q0 a,b,c`, `--v0`, or `q0 = […]` in the config file) and then by single coordinates by
//! name (`--q theta=0.3`, `--v theta=1`, `[initial.q]`), with the coordinates that the
//! consistent initialization must not move (`--lock theta`, `lock = […]`). Every name and
//! length is checked against the model before anything runs; the report of
//! [`mbsim::runtime::initialize`] (what moved, by how much) is printed by [`moved_text`].

use mbsim::runtime::{ConstrainedSystem, InitReport};

use crate::error::AppError;

/// The initial state asked for, before it is checked against a model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StateRequest {
    /// The whole q0 (replaces the model's guess).
    pub q0: Option<Vec<f64>>,
    /// The whole v0.
    pub v0: Option<Vec<f64>>,
    /// Single coordinates by name, applied after `q0`.
    pub q: Vec<(String, f64)>,
    /// Single velocities by coordinate name, applied after `v0`.
    pub v: Vec<(String, f64)>,
    /// Coordinates (and their velocities) the consistent initialization keeps fixed.
    pub lock: Vec<String>,
}

/// A checked initial guess.
#[derive(Clone, Debug, PartialEq)]
pub struct Guess {
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
    /// Indices of the locked coordinates.
    pub locked: Vec<usize>,
}

impl StateRequest {
    /// Apply the request to the model's guess `(q, v)`; every name, length and value is
    /// checked (an error names the offending entry and lists the model's coordinates).
    pub fn apply(
        &self,
        sys: &dyn ConstrainedSystem,
        (mut q, mut v): (Vec<f64>, Vec<f64>),
    ) -> Result<Guess, AppError> {
        let names = sys.coordinate_names();
        if let Some(q0) = &self.q0 {
            q = whole(sys, "q0", q0)?;
        }
        if let Some(v0) = &self.v0 {
            v = whole(sys, "v0", v0)?;
        }
        for (name, value) in &self.q {
            q[index(sys, "q", name)?] = finite(&format!("q {name}"), *value)?;
        }
        for (name, value) in &self.v {
            v[index(sys, "v", name)?] = finite(&format!("v {name}"), *value)?;
        }
        let locked = self
            .lock
            .iter()
            .map(|name| index(sys, "lock", name))
            .collect::<Result<Vec<_>, _>>()?;
        debug_assert_eq!((q.len(), v.len()), (names.len(), names.len()));
        Ok(Guess { q, v, locked })
    }
}

/// `value` if finite, else [`AppError::NotFinite`] naming `what`.
pub fn finite(what: &str, value: f64) -> Result<f64, AppError> {
    if value.is_finite() {
        Ok(value)
    } else {
        Err(AppError::NotFinite {
            what: what.to_string(),
            value,
        })
    }
}

fn whole(sys: &dyn ConstrainedSystem, what: &str, values: &[f64]) -> Result<Vec<f64>, AppError> {
    let names = sys.coordinate_names();
    if values.len() != names.len() {
        return Err(AppError::WrongLength {
            what: what.to_string(),
            got: values.len(),
            expected: names.len(),
            model: sys.name().to_string(),
            known: names.join(", "),
        });
    }
    for (name, &x) in names.iter().zip(values) {
        finite(&format!("{what} entry `{name}`"), x)?;
    }
    Ok(values.to_vec())
}

/// The index of the coordinate `name`, or an error naming it.
pub fn index(sys: &dyn ConstrainedSystem, what: &str, name: &str) -> Result<usize, AppError> {
    let names = sys.coordinate_names();
    names
        .iter()
        .position(|c| *c == name)
        .ok_or_else(|| AppError::UnknownCoordinate {
            what: what.to_string(),
            name: name.to_string(),
            model: sys.name().to_string(),
            known: names.join(", "),
        })
}

/// `NAME=VALUE` as a pair, or an error naming the flag.
pub fn pair(what: &'static str, text: &str) -> Result<(String, f64), AppError> {
    let bad = |why| AppError::BadValue {
        what,
        value: text.to_string(),
        why,
    };
    let (name, value) = text
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=VALUE"))?;
    let value: f64 = value.trim().parse().map_err(|_| bad("not a number"))?;
    if !value.is_finite() {
        return Err(bad("must be finite"));
    }
    Ok((name.trim().to_string(), value))
}

/// What the consistent initialization did, one line: iterations, every coordinate and
/// velocity that moved with its change, and the locked coordinates.
pub fn moved_text(names: &[&str], report: &InitReport, locked: &[usize]) -> String {
    let list = |moved: &[(usize, f64)], suffix: &str| {
        let items: Vec<String> = moved
            .iter()
            .map(|&(i, d)| format!("{}{suffix} by {d:+.3e}", names.get(i).unwrap_or(&"?")))
            .collect();
        if items.is_empty() {
            "nothing".to_string()
        } else {
            items.join(", ")
        }
    };
    let locked: Vec<&str> = locked
        .iter()
        .map(|&i| *names.get(i).unwrap_or(&"?"))
        .collect();
    format!(
        "consistent initialization: {} iteration(s); moved q: {}; moved v: {}{}",
        report.iterations,
        list(&report.moved_q, ""),
        list(&report.moved_v, "_dot"),
        if locked.is_empty() {
            String::new()
        } else {
            format!("; locked: {}", locked.join(", "))
        }
    )
}
