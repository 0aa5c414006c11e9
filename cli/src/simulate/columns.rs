//! What `simulate` writes: the `--write` selection (coordinates, velocities, accelerations,
//! multipliers, each by name pattern, and the drift) turned into the trajectory's columns, and
//! the default output grid that suits the model and the selection.
//!
//! An item is `KIND` or `KIND:PATTERN` with KIND one of `q`, `v`, `vdot`, `lambda`, `drift`;
//! the pattern matches coordinate names (`q`, `v`, `vdot`) or constraint names (`lambda`),
//! `*` any run of characters, `?` one, everything else itself (so `theta[3]` is a name, not a
//! class). Columns come in a fixed order whatever the order of the items: `t`, the
//! coordinates, `<name>_dot`, `<name>_ddot`, `lambda_<i>` (1-based row of G = [Φ_q; A]), then
//! `phi_norm` and `phidot_norm`; each kind in the model's order. The default selection
//! `q,v,lambda,drift` gives the columns `trajectory.csv` always had.

use crate::error::AppError;

/// The quantities written, as indices into the model's coordinates and constraint rows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// Coordinates written as q.
    pub q: Vec<usize>,
    /// Coordinates whose velocity is written.
    pub v: Vec<usize>,
    /// Coordinates whose acceleration is written.
    pub vdot: Vec<usize>,
    /// Constraint rows whose multiplier is written.
    pub lambda: Vec<usize>,
    /// Whether the two drift norms are written.
    pub drift: bool,
}

/// Where a column's values come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// The time.
    Time,
    /// Coordinate i.
    Q(usize),
    /// Velocity i.
    V(usize),
    /// Acceleration i.
    Vdot(usize),
    /// Multiplier of row i.
    Lambda(usize),
    /// ‖Φ‖∞.
    PhiNorm,
    /// ‖Φ_q v + Φ_t‖∞ (with A v + b).
    PhidotNorm,
}

/// One column of the trajectory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Column {
    /// Its header.
    pub name: String,
    /// Its values.
    pub source: Source,
}

/// The items of the default selection.
pub const DEFAULT_ITEMS: [&str; 4] = ["q", "v", "lambda", "drift"];

impl Selection {
    /// Everything `trajectory.csv` had before `--write`: all q, v and λ, and the drift.
    pub fn everything(coordinates: usize, constraint_rows: usize) -> Selection {
        Selection {
            q: (0..coordinates).collect(),
            v: (0..coordinates).collect(),
            vdot: Vec::new(),
            lambda: (0..constraint_rows).collect(),
            drift: true,
        }
    }

    /// The selection of `items` (`--write`) against the model's names.
    pub fn parse(
        items: &[String],
        coordinates: &[&str],
        constraints: &[String],
    ) -> Result<Selection, AppError> {
        let mut s = Selection::default();
        let constraints: Vec<&str> = constraints.iter().map(String::as_str).collect();
        for item in items {
            let (kind, pattern) = match item.split_once(':') {
                Some((k, p)) => (k.trim(), Some(p.trim())),
                None => (item.trim(), None),
            };
            let (names, into) = match kind {
                "q" => (coordinates, &mut s.q),
                "v" => (coordinates, &mut s.v),
                "vdot" => (coordinates, &mut s.vdot),
                "lambda" => (&constraints[..], &mut s.lambda),
                "drift" if pattern.is_none() => {
                    s.drift = true;
                    continue;
                }
                _ => return Err(bad_item(item)),
            };
            let found = matching(names, pattern);
            if found.is_empty() && pattern.is_some() {
                return Err(AppError::BadValue {
                    what: "--write",
                    value: item.clone(),
                    why: "the pattern matches no name (see `mbsim check MODEL` for the names; \
                          `*` matches any run of characters, `?` one)",
                });
            }
            into.extend(found);
        }
        for list in [&mut s.q, &mut s.v, &mut s.vdot, &mut s.lambda] {
            list.sort_unstable();
            list.dedup();
        }
        Ok(s)
    }

    /// Whether the samples need v̇ or λ (a KKT solve each).
    pub fn needs_dynamics(&self) -> bool {
        !self.vdot.is_empty() || !self.lambda.is_empty()
    }

    /// The columns, `t` first.
    pub fn columns(&self, coordinates: &[&str]) -> Vec<Column> {
        let mut out = vec![column("t".into(), Source::Time)];
        out.extend(
            self.q
                .iter()
                .map(|&i| column(coordinates[i].into(), Source::Q(i))),
        );
        let dot = |i: usize| column(format!("{}_dot", coordinates[i]), Source::V(i));
        out.extend(self.v.iter().map(|&i| dot(i)));
        let ddot = |i: usize| column(format!("{}_ddot", coordinates[i]), Source::Vdot(i));
        out.extend(self.vdot.iter().map(|&i| ddot(i)));
        let lambda = |i: usize| column(format!("lambda_{}", i + 1), Source::Lambda(i));
        out.extend(self.lambda.iter().map(|&i| lambda(i)));
        if self.drift {
            out.push(column("phi_norm".into(), Source::PhiNorm));
            out.push(column("phidot_norm".into(), Source::PhidotNorm));
        }
        out
    }
}

fn column(name: String, source: Source) -> Column {
    Column { name, source }
}

fn bad_item(item: &str) -> AppError {
    AppError::BadValue {
        what: "--write",
        value: item.to_string(),
        why: "expected q, v, vdot, lambda (each optionally :PATTERN) or drift",
    }
}

/// The indices of `names` that `pattern` matches (all without a pattern).
fn matching(names: &[&str], pattern: Option<&str>) -> Vec<usize> {
    (0..names.len())
        .filter(|&i| pattern.is_none_or(|p| glob(p.as_bytes(), names[i].as_bytes())))
        .collect()
}

/// Whether `text` matches `pattern` (`*` any run, `?` one character, the rest literally);
/// the classic greedy matcher with one backtrack point, linear in practice.
pub fn glob(pattern: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, t));
                p += 1;
            }
            Some(&c) if c == b'?' || c == text[t] => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((sp, st)) => {
                    star = Some((sp, st + 1));
                    (p, t) = (sp + 1, st + 1);
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

/// At most this many values (rows × columns) in a trajectory on the default grid.
pub const DEFAULT_VALUES: f64 = 5e5;

/// The default output spacing of a run over [0, `t_end`] writing `columns` columns: the
/// model's own `dt_out` (its time scale), coarsened through 1, 2, 5, 10, 20, 50, … times it
/// until the trajectory has at most [`DEFAULT_VALUES`] values, and never coarser than
/// `t_end`. A model's default run keeps its grid; a long run of a large model gets a coarser
/// one (the 243-coordinate A02 chain over 20 s: 0.05 s instead of 0.001 s, 401 rows).
pub fn default_dt_out(model_dt: f64, t_end: f64, columns: usize) -> f64 {
    let rows = |dt: f64| (t_end / dt).floor() + 2.0;
    let mut decade = 1.0;
    loop {
        for factor in [1.0, 2.0, 5.0] {
            let dt = model_dt * (factor * decade);
            if dt >= t_end || rows(dt) * columns as f64 <= DEFAULT_VALUES {
                return dt.min(t_end);
            }
        }
        decade *= 10.0;
    }
}
