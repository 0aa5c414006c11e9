//! Model descriptions: coordinates, parameters, constraints, mass matrix and forces in one pool.
//!
//! A [`ModelBuilder`] collects the pieces (built with the pool's constructors, or read from
//! s-expressions with [`ModelBuilder::parse`]); [`ModelBuilder::build`] validates them into a
//! [`Model`]: shapes, symmetry of M, no velocities where only positions may appear, linearity of
//! nonholonomic constraints in v, no undeclared symbols. Validation errors name the offending
//! expression and its place.

use crate::error::ModelError;
use crate::pool::{ExprId, Pool, SymbolKind};

/// A generalized coordinate and its velocity.
#[derive(Clone, Debug)]
pub struct Coordinate {
    /// Name of the coordinate (the velocity is named `<name>_dot`).
    pub name: String,
    /// The coordinate symbol q_i.
    pub q: ExprId,
    /// The velocity symbol v_i = q̇_i.
    pub v: ExprId,
}

/// A model parameter: a runtime field of the model struct.
#[derive(Clone, Debug)]
pub struct Parameter {
    /// Name (the struct field).
    pub name: String,
    /// The parameter symbol.
    pub sym: ExprId,
}

/// A validated model. Matrices are row-major `Vec<ExprId>`.
#[derive(Clone, Debug)]
pub struct Model {
    /// Name of the model (the struct name in generated code).
    pub name: String,
    /// The expression arena holding every expression below.
    pub pool: Pool,
    /// The time symbol `t`.
    pub time: ExprId,
    /// Coordinates q with velocities v, in order.
    pub coordinates: Vec<Coordinate>,
    /// Runtime parameters, in order.
    pub parameters: Vec<Parameter>,
    /// Holonomic constraints Φ(t, q), `m` rows.
    pub holonomic: Vec<ExprId>,
    /// Nonholonomic constraints, each an expression A_i(t,q)·v + b_i(t,q), `k` rows.
    pub nonholonomic: Vec<ExprId>,
    /// Mass matrix M(t, q), `n × n` row-major.
    pub mass: Vec<ExprId>,
    /// Applied generalized forces Q(t, q, v), `n` entries.
    pub force: Vec<ExprId>,
    /// Kinetic and potential energy (T, V) of a Lagrangian model; `None` for a model given by M
    /// and Q. Emitted as the `Energy` kernels.
    pub energy: Option<(ExprId, ExprId)>,
    /// Derive and emit the tangent kernels (`TangentSystem`); `tangents: true` in the annotation.
    pub tangents: bool,
    /// M and Q come from placed bodies in the structured form ([`crate::bodies`]): their
    /// composite sums are nodes of the pool that canonical flattening folds into their users,
    /// so the kernels' schedules look for sub-sums over the whole pool
    /// ([`crate::cse::Schedule::with_pool_subsums`]).
    pub structured: bool,
    /// Labels of the constraint rows, holonomic rows first; `None` for an unlabeled row (named
    /// `phi_<i>` / `nh_<i>`, counting from 1, by [`Model::constraint_names`]).
    pub constraint_labels: Vec<Option<String>>,
}

impl Model {
    /// Number of coordinates.
    pub fn n(&self) -> usize {
        self.coordinates.len()
    }

    /// The coordinate symbols q.
    pub fn q(&self) -> Vec<ExprId> {
        self.coordinates.iter().map(|c| c.q).collect()
    }

    /// The velocity symbols v.
    pub fn v(&self) -> Vec<ExprId> {
        self.coordinates.iter().map(|c| c.v).collect()
    }

    /// The names of the `m + k` constraint rows: the label if given, else `phi_<i>` (holonomic)
    /// or `nh_<i>` (nonholonomic), counting from 1 — the runtime's default names.
    pub fn constraint_names(&self) -> Vec<String> {
        let m = self.holonomic.len();
        let default = |r: usize| match r < m {
            true => format!("phi_{}", r + 1),
            false => format!("nh_{}", r + 1 - m),
        };
        (0..m + self.nonholonomic.len())
            .map(|r| match self.constraint_labels.get(r) {
                Some(Some(label)) => label.clone(),
                Some(None) | None => default(r),
            })
            .collect()
    }
}

/// Collects a model's pieces; see the module documentation.
#[derive(Clone, Debug)]
pub struct ModelBuilder {
    model: Model,
    names: Vec<String>,
    mass_rows: Option<Vec<Vec<ExprId>>>,
    errors: Vec<ModelError>,
}

impl ModelBuilder {
    /// A new, empty model; `t` is declared.
    pub fn new(name: &str) -> ModelBuilder {
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        let errors = if valid {
            Vec::new()
        } else {
            vec![ModelError::InvalidName {
                name: name.to_string(),
            }]
        };
        let mut pool = Pool::new();
        let time = pool.symbol("t", SymbolKind::Time);
        let model = Model {
            name: name.to_string(),
            pool,
            time,
            coordinates: Vec::new(),
            parameters: Vec::new(),
            holonomic: Vec::new(),
            nonholonomic: Vec::new(),
            mass: Vec::new(),
            force: Vec::new(),
            energy: None,
            tangents: false,
            structured: false,
            constraint_labels: Vec::new(),
        };
        ModelBuilder {
            model,
            names: vec!["t".into()],
            mass_rows: None,
            errors,
        }
    }

    /// The pool, for building expressions.
    pub fn pool(&mut self) -> &mut Pool {
        &mut self.model.pool
    }

    /// The time symbol.
    pub fn time(&self) -> ExprId {
        self.model.time
    }

    /// Declare a coordinate; returns `(q, v)`. The velocity is named `<name>_dot`.
    pub fn coordinate(&mut self, name: &str) -> (ExprId, ExprId) {
        let i = self.model.coordinates.len();
        self.claim(name);
        let velocity_name = velocity_name(name);
        self.claim(&velocity_name);
        let q = self.model.pool.symbol(name, SymbolKind::Coordinate(i));
        let v = self
            .model
            .pool
            .symbol(&velocity_name, SymbolKind::Velocity(i));
        self.model.coordinates.push(Coordinate {
            name: name.to_string(),
            q,
            v,
        });
        (q, v)
    }

    /// Declare a runtime parameter.
    pub fn parameter(&mut self, name: &str) -> ExprId {
        let i = self.model.parameters.len();
        self.claim(name);
        let sym = self.model.pool.symbol(name, SymbolKind::Parameter(i));
        self.model.parameters.push(Parameter {
            name: name.to_string(),
            sym,
        });
        sym
    }

    /// A float constant from user input; records an error (and returns 0) when not finite.
    pub fn constant(&mut self, value: f64, location: &str) -> ExprId {
        match self.model.pool.try_float(value) {
            Some(e) => e,
            None => {
                self.errors.push(ModelError::NonFiniteConstant {
                    location: location.into(),
                    value,
                });
                self.model.pool.zero()
            }
        }
    }

    /// Read an s-expression over the declared symbols; errors are recorded with `location` and
    /// reported by [`ModelBuilder::build`] (a placeholder 0 is returned meanwhile).
    pub fn parse(&mut self, text: &str, location: &str) -> ExprId {
        match self.model.pool.parse(text) {
            Ok(e) => e,
            Err(source) => {
                self.errors.push(ModelError::Parse {
                    location: location.into(),
                    text: text.into(),
                    source,
                });
                self.model.pool.zero()
            }
        }
    }

    /// Add holonomic constraints Φ_i(t, q) = 0.
    pub fn holonomic(&mut self, rows: &[ExprId]) -> &mut Self {
        self.model.holonomic.extend_from_slice(rows);
        self
    }

    /// Add nonholonomic constraints A_i(t, q)·v + b_i(t, q) = 0, each given as one expression.
    pub fn nonholonomic(&mut self, rows: &[ExprId]) -> &mut Self {
        self.model.nonholonomic.extend_from_slice(rows);
        self
    }

    /// Set the mass matrix (rows of entries).
    pub fn mass(&mut self, rows: Vec<Vec<ExprId>>) -> &mut Self {
        self.mass_rows = Some(rows);
        self
    }

    /// Set a diagonal mass matrix.
    pub fn mass_diagonal(&mut self, diagonal: &[ExprId]) -> &mut Self {
        let zero = self.model.pool.zero();
        let n = diagonal.len();
        let rows = (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| if i == j { diagonal[i] } else { zero })
                    .collect()
            })
            .collect();
        self.mass(rows)
    }

    /// Set the applied generalized forces Q(t, q, v).
    pub fn force(&mut self, entries: &[ExprId]) -> &mut Self {
        self.model.force = entries.to_vec();
        self
    }

    /// Record the kinetic energy T and the potential V of a Lagrangian model (exported as the
    /// `Energy` kernels; M and Q are set separately, see [`crate::lagrange`]).
    pub fn energy(&mut self, kinetic: ExprId, potential: ExprId) -> &mut Self {
        self.model.energy = Some((kinetic, potential));
        self
    }

    /// Ask for the tangent kernels.
    pub fn tangents(&mut self, on: bool) -> &mut Self {
        self.model.tangents = on;
        self
    }

    /// Mark M and Q as the structured form of placed bodies (see [`Model::structured`]).
    pub fn structured(&mut self, on: bool) -> &mut Self {
        self.model.structured = on;
        self
    }

    /// Label the constraint rows (holonomic first; `None` keeps the default name). Labels must
    /// be distinct from each other and from the default names of other rows; checked by
    /// [`ModelBuilder::build`], which reports a clash as a duplicate name.
    pub fn constraint_labels(&mut self, labels: Vec<Option<String>>) -> &mut Self {
        self.model.constraint_labels = labels;
        self
    }

    /// Validate and return the model.
    pub fn build(mut self) -> Result<Model, ModelError> {
        if let Some(e) = self.errors.into_iter().next() {
            return Err(e);
        }
        let n = self.model.n();
        let rows = self.mass_rows.take().unwrap_or_default();
        if rows.len() != n || rows.iter().any(|r| r.len() != n) {
            let found_cols = rows.iter().map(Vec::len).find(|&c| c != n).unwrap_or(n);
            return Err(shape("mass matrix", n, n, rows.len(), found_cols));
        }
        self.model.mass = rows.into_iter().flatten().collect();
        if self.model.force.len() != n {
            return Err(shape("force vector", n, 1, self.model.force.len(), 1));
        }
        let names = self.model.constraint_names();
        if let Some(i) = (0..names.len()).find(|&i| names[..i].contains(&names[i])) {
            return Err(ModelError::DuplicateName {
                name: names[i].clone(),
            });
        }
        crate::validate::validate(&mut self.model)?;
        Ok(self.model)
    }

    fn claim(&mut self, name: &str) {
        if !is_symbol_name(name) {
            self.errors.push(ModelError::InvalidName {
                name: name.to_string(),
            });
        }
        let taken_in_pool = self.model.pool.lookup_symbol(name).is_some();
        if self.names.iter().any(|n| n == name) || taken_in_pool {
            self.errors.push(ModelError::DuplicateName {
                name: name.to_string(),
            });
        }
        self.names.push(name.to_string());
    }
}

/// Whether `name` is an identifier (`theta`) or a member of an indexed family (`theta[3]`: an
/// identifier and one decimal index, as the front end names the members of
/// `coordinates: [theta[0..=N]]` and of array parameters `m: [f64; 41]`).
pub fn is_symbol_name(name: &str) -> bool {
    let is_ident = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    match split_indexed(name) {
        Some((base, _)) => is_ident(base),
        None => is_ident(name),
    }
}

/// `theta[3]` → `("theta", 3)`; `None` for a plain name.
pub fn split_indexed(name: &str) -> Option<(&str, usize)> {
    let (base, rest) = name.split_once('[')?;
    let digits = rest.strip_suffix(']')?;
    let valid = !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit());
    valid
        .then(|| digits.parse().ok())
        .flatten()
        .map(|i| (base, i))
}

/// The velocity of coordinate `name`: `x` → `x_dot`, `theta[3]` → `theta_dot[3]`.
pub fn velocity_name(name: &str) -> String {
    match split_indexed(name) {
        Some((base, i)) => format!("{base}_dot[{i}]"),
        None => format!("{name}_dot"),
    }
}

fn shape(what: &'static str, er: usize, ec: usize, fr: usize, fc: usize) -> ModelError {
    ModelError::ShapeMismatch {
        what,
        expected_rows: er,
        expected_cols: ec,
        found_rows: fr,
        found_cols: fc,
    }
}
