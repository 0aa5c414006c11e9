//! The initial state a run starts from: the model's guess, overridden by a whole vector
//! (`--q0 a,b,c`, `--v0`, or `q0 = […]` in the config file: a guess like the model's) and then
//! by single values by name (`--q theta=0.3`, `--v theta=1`, `[initial.q]`: values the user
//! gave, which the consistent initialization keeps where the constraints allow), with the
//! coordinates that it must not move at all (`--lock theta`, `lock = […]`: an error when the
//! constraints cannot hold with them). Every name and length is checked against the model
//! before anything runs; the report of [`mbsim::runtime::initialize`] (what moved, by how
//! much, which given values could not be kept and why) is printed by [`moved_text`].

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
    /// Indices of the coordinates given by name (kept where the constraints allow).
    pub keep_q: Vec<usize>,
    /// Indices of the velocities given by name.
    pub keep_v: Vec<usize>,
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
        let (mut keep_q, mut keep_v) = (Vec::new(), Vec::new());
        for (name, value) in &self.q {
            let i = index(sys, "q", name)?;
            q[i] = finite(&format!("q {name}"), *value)?;
            if !keep_q.contains(&i) {
                keep_q.push(i);
            }
        }
        for (name, value) in &self.v {
            let i = index(sys, "v", name)?;
            v[i] = finite(&format!("v {name}"), *value)?;
            if !keep_v.contains(&i) {
                keep_v.push(i);
            }
        }
        let locked = self
            .lock
            .iter()
            .map(|name| index(sys, "lock", name))
            .collect::<Result<Vec<_>, _>>()?;
        debug_assert_eq!((q.len(), v.len()), (names.len(), names.len()));
        Ok(Guess {
            q,
            v,
            locked,
            keep_q,
            keep_v,
        })
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
/// velocity that moved with its change, the locked coordinates and the given values kept;
/// and a warning line naming the given values the constraints did not allow to keep, and why.
pub fn moved_text(names: &[&str], report: &InitReport, guess: &Guess) -> String {
    let name = |i: usize| *names.get(i).unwrap_or(&"?");
    let list = |moved: &[(usize, f64)], suffix: &str| {
        let items: Vec<String> = moved
            .iter()
            .map(|&(i, d)| format!("{}{suffix} by {d:+.3e}", name(i)))
            .collect();
        if items.is_empty() {
            "nothing".to_string()
        } else {
            items.join(", ")
        }
    };
    let mut text = format!(
        "consistent initialization: {} iteration(s); moved q: {}; moved v: {}",
        report.iterations,
        list(&report.moved_q, ""),
        list(&report.moved_v, "_dot"),
    );
    let locked: Vec<&str> = guess.locked.iter().map(|&i| name(i)).collect();
    if !locked.is_empty() {
        text += &format!("; locked: {}", locked.join(", "));
    }
    let (kept, released) = given_values(names, report, (&guess.keep_q, &guess.keep_v));
    if !kept.is_empty() {
        text += &format!("; kept as given: {}", kept.join(", "));
    }
    if let Some(cause) = &report.release_cause {
        text += &format!(
            "\nwarning: the given {} could not be kept (moved as listed above): with every given \
             value kept, {cause}",
            released.join(", ")
        );
    }
    text
}

/// The names of the given values (`keep`: coordinate and velocity indices) kept and of those
/// released (velocities as `<q>_dot`).
fn given_values(
    names: &[&str],
    report: &InitReport,
    (keep_q, keep_v): (&[usize], &[usize]),
) -> (Vec<String>, Vec<String>) {
    let name = |i: usize, suffix: &str| format!("{}{suffix}", names.get(i).unwrap_or(&"?"));
    let (mut kept, mut released) = (Vec::new(), Vec::new());
    for (given, out, suffix) in [
        (keep_q, &report.released_q, ""),
        (keep_v, &report.released_v, "_dot"),
    ] {
        for &i in given {
            if out.contains(&i) {
                released.push(name(i, suffix));
            } else {
                kept.push(name(i, suffix));
            }
        }
    }
    (kept, released)
}

/// The `initialization` object of `summary.json`: the consistent state, the metric, what
/// moved by coordinate name, the given values kept and released (and why).
pub fn init_json(names: &[&str], report: &InitReport, request: &StateRequest) -> serde_json::Value {
    let by_name = |moved: &[(usize, f64)]| -> serde_json::Map<String, serde_json::Value> {
        moved
            .iter()
            .map(|&(i, d)| (names.get(i).unwrap_or(&"?").to_string(), d.into()))
            .collect()
    };
    let given = |pairs: &[(String, f64)]| -> Vec<usize> {
        let mut found = Vec::new();
        for i in pairs
            .iter()
            .filter_map(|(n, _)| names.iter().position(|c| c == n))
        {
            if !found.contains(&i) {
                found.push(i);
            }
        }
        found
    };
    let (keep_q, keep_v) = (given(&request.q), given(&request.v));
    let (kept, released) = given_values(names, report, (&keep_q, &keep_v));
    serde_json::json!({
        "q0": report.q,
        "v0": report.v,
        "velocity_metric": "mass",
        "locked": request.lock,
        "kept_as_given": kept,
        "released": released,
        "release_cause": report.release_cause.as_ref().map(ToString::to_string),
        "iterations": report.iterations,
        "moved_q": by_name(&report.moved_q),
        "moved_v": by_name(&report.moved_v),
    })
}
