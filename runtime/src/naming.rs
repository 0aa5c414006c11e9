//! What an entry of a kernel's output is, by name, for [`SimError::NonFiniteKernel`] and the
//! singular-mass diagnosis.
//!
//! A kernel output is a vector or a column-major matrix whose rows and columns run over the
//! coordinates (n), the holonomic rows (m), the nonholonomic rows (k) or all constraint rows
//! (m + k), as the kernel table says ([`mbsim_kernel_table::Shape`]). An index into it is
//! named after the model's coordinate names ([`ConstrainedSystem::coordinate_names`]) and
//! constraint names ([`ConstrainedSystem::constraint_names`]): entry 7 of the 3 × 3 mass matrix
//! is "(`y2`, `phi2`)". The outputs that are not kernel rows (the KKT solution, the events'
//! functions and their Jacobian) are named the same way from what their entries hold. Naming
//! runs only when a check has already failed, so it may allocate.
//!
//! [`SimError::NonFiniteKernel`]: crate::error::SimError::NonFiniteKernel

use mbsim_kernel_table::{Dim, Shape};

use crate::error::Kernel;
use crate::system::ConstrainedSystem;

/// Names the entries of kernel outputs (lazily: called on a failed check only).
pub(crate) trait EntryNames {
    /// "(`row`, `column`)" for a matrix entry, "`name`" for a vector entry, with `entry` the
    /// column-major index into `kernel`'s output.
    fn describe(&self, kernel: Kernel, entry: usize) -> String;
}

/// The names of a model's coordinates and constraint rows.
pub(crate) struct ModelNames<'a, S: ?Sized>(pub &'a S);

impl<S: ConstrainedSystem + ?Sized> EntryNames for ModelNames<'_, S> {
    fn describe(&self, kernel: Kernel, entry: usize) -> String {
        let d = self.0.dims();
        let rows = self.0.constraint_names();
        let coordinates = self.0.coordinate_names();
        let name = |dim: Dim, i: usize| -> String {
            match dim {
                Dim::N => quoted(coordinates.get(i).copied(), "q", i),
                Dim::M | Dim::Mk => quoted(rows.get(i).map(String::as_str), "row", i),
                Dim::K => quoted(rows.get(d.m + i).map(String::as_str), "row", d.m + i),
                Dim::One => "the value".to_string(),
            }
        };
        match kernel.shape() {
            Some(Shape::Vector(dim)) => name(dim, entry),
            Some(Shape::Matrix(r, c)) => {
                let nrows = r.of(d.n, d.m, d.k).max(1);
                format!("({}, {})", name(r, entry % nrows), name(c, entry / nrows))
            }
            None if kernel == Kernel::KktSolution && entry < d.n => {
                format!("the acceleration of {}", name(Dim::N, entry))
            }
            None if kernel == Kernel::KktSolution => {
                format!("the multiplier of {}", name(Dim::Mk, entry - d.n))
            }
            None if kernel == Kernel::ImpulseSolution => {
                format!("the velocity jump of {}", name(Dim::N, entry))
            }
            None => format!("entry {entry}"),
        }
    }
}

/// The names of a model's events (their functions, offsets, right sides and normal forces are
/// one entry per event; their Jacobian is events × coordinates).
pub(crate) struct EventNames {
    /// The events' names, in the model's order.
    pub events: &'static [&'static str],
    /// The model's coordinate names.
    pub coordinates: &'static [&'static str],
}

impl EntryNames for EventNames {
    fn describe(&self, kernel: Kernel, entry: usize) -> String {
        let event = |i: usize| quoted(self.events.get(i).copied(), "event", i);
        match kernel {
            Kernel::EventJacobian => {
                let ne = self.events.len().max(1);
                let j = entry / ne;
                let coordinate = quoted(self.coordinates.get(j).copied(), "q", j);
                format!("({}, {coordinate})", event(entry % ne))
            }
            Kernel::ImpulseSolution => format!(
                "the velocity jump of {}",
                quoted(self.coordinates.get(entry).copied(), "q", entry)
            ),
            _ => event(entry),
        }
    }
}

/// "`name`", or "q[3]" / "row 3" / "event 3" without a name.
fn quoted(name: Option<&str>, kind: &str, i: usize) -> String {
    match name {
        Some(n) => format!("`{n}`"),
        None if kind == "q" => format!("q[{i}]"),
        None => format!("{kind} {i}"),
    }
}

/// The coordinates a null direction `x` of M on ker G moves, largest share first: every
/// coordinate whose |x_j| is at least a tenth of the largest (the motion without inertia),
/// named after the model.
pub(crate) fn moving_coordinates(x: &[f64], names: &[&str]) -> Vec<crate::error::Coordinate> {
    let largest = x.iter().fold(0.0_f64, |s, v| s.max(v.abs()));
    let mut moving: Vec<usize> = (0..x.len())
        .filter(|&j| largest > 0.0 && x[j].abs() >= 0.1 * largest)
        .collect();
    moving.sort_by(|&a, &b| x[b].abs().total_cmp(&x[a].abs()).then(a.cmp(&b)));
    moving
        .into_iter()
        .map(|j| crate::error::Coordinate::named(j, names))
        .collect()
}
