//! Model errors: every way a model description can be wrong, each naming the offending
//! expression (printed as an s-expression) and where it sits in the model.

use crate::parse::ParseError;

/// A model that cannot be turned into kernels.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// An expression uses a symbol that is not a coordinate, velocity, parameter or `t`.
    #[error("{location}: unknown symbol `{name}` in `{expr}`")]
    UnknownSymbol {
        /// Where in the model (e.g. `holonomic[1]`).
        location: String,
        /// The symbol's name.
        name: String,
        /// The offending expression.
        expr: String,
    },
    /// An expression could not be read (unknown function, unknown symbol, syntax).
    #[error("{location}: {source} in `{text}`")]
    Parse {
        /// Where in the model.
        location: String,
        /// The text that was being read.
        text: String,
        /// What went wrong.
        source: ParseError,
    },
    /// A matrix or vector of the wrong shape.
    #[error("{what} must be {expected_rows}×{expected_cols}, found {found_rows}×{found_cols}")]
    ShapeMismatch {
        /// Which output (e.g. `mass matrix`).
        what: &'static str,
        /// Rows required.
        expected_rows: usize,
        /// Columns required.
        expected_cols: usize,
        /// Rows given.
        found_rows: usize,
        /// Columns given (of the first offending row).
        found_cols: usize,
    },
    /// A holonomic constraint (or the mass matrix) that depends on velocities.
    #[error(
        "{location}: `{expr}` depends on the velocity `{velocity}`; {what} may depend only on t, q and parameters"
    )]
    VelocityDependence {
        /// Where in the model.
        location: String,
        /// What kind of expression it is.
        what: &'static str,
        /// The offending expression.
        expr: String,
        /// The velocity it mentions.
        velocity: String,
    },
    /// A nonholonomic constraint that is not linear in the velocities.
    #[error(
        "{location}: nonholonomic constraint `{expr}` is not linear in the velocities (∂/∂{velocity} = `{derivative}` still depends on v)"
    )]
    NotLinearInVelocity {
        /// Where in the model.
        location: String,
        /// The offending constraint.
        expr: String,
        /// The velocity whose coefficient depends on v.
        velocity: String,
        /// That coefficient.
        derivative: String,
    },
    /// A mass matrix whose entries (i, j) and (j, i) differ.
    #[error(
        "mass matrix is not symmetric: [{row}][{col}] = `{upper}` but [{col}][{row}] = `{lower}`"
    )]
    NotSymmetric {
        /// Row of the upper entry.
        row: usize,
        /// Column of the upper entry.
        col: usize,
        /// Entry (row, col).
        upper: String,
        /// Entry (col, row).
        lower: String,
    },
    /// A constant that is NaN or infinite.
    #[error("{location}: non-finite constant {value}")]
    NonFiniteConstant {
        /// Where in the model.
        location: String,
        /// The value.
        value: f64,
    },
    /// A division by an expression that is identically zero (`x / 0`).
    #[error("{location}: division by zero in `{expr}`")]
    DivisionByZero {
        /// Where in the model.
        location: String,
        /// The offending expression.
        expr: String,
    },
    /// A name that cannot be a Rust identifier (it becomes a struct field or a struct name).
    #[error(
        "`{name}` is not a valid identifier (letters, digits and `_`, not starting with a digit)"
    )]
    InvalidName {
        /// The name.
        name: String,
    },
    /// Two coordinates or parameters with the same name (or one named `t`).
    #[error("the name `{name}` is declared twice")]
    DuplicateName {
        /// The name.
        name: String,
    },
}
