//! Kernels by table row: [`call`] evaluates any kernel of the one kernel table
//! (`mbsim_kernel_table`) on a system through one argument struct, so harnesses (the
//! kernel-vs-interpreter comparison, `mbsim eval`, the checked calls in `kernels.rs`) loop over
//! [`KERNELS`] instead of naming each kernel. The dispatch is expanded from the table.

pub use mbsim_kernel_table::{
    Dim, Group, Input, KERNELS, KernelId, KernelSpec, Shape, kernel_table,
};

use crate::system::{ConstrainedSystem, MatOut};
use crate::tangent::{Energy, TangentSystem};

pub use crate::kernels::{checked, checked_tangent};

/// The inputs of a kernel call; a kernel reads the ones its row lists (the others may be empty).
#[derive(Clone, Copy, Debug)]
pub struct KernelArgs<'a> {
    /// Time.
    pub t: f64,
    /// Coordinates, length n.
    pub q: &'a [f64],
    /// Velocities, length n.
    pub v: &'a [f64],
    /// Multipliers, length m + k.
    pub lambda: &'a [f64],
    /// An arbitrary vector, length n.
    pub w: &'a [f64],
}

/// The output of a kernel call, of the row's shape.
pub enum KernelOut<'a> {
    /// A vector output.
    Vector(&'a mut [f64]),
    /// A matrix output.
    Matrix(MatOut<'a>),
}

impl<'a> KernelOut<'a> {
    /// The vector; panics on a matrix (a row of `vector` shape was given a matrix).
    pub fn vector(self) -> &'a mut [f64] {
        match self {
            KernelOut::Vector(v) => v,
            KernelOut::Matrix(_) => panic!("this kernel writes a vector, not a matrix"),
        }
    }

    /// The matrix view; panics on a vector.
    pub fn matrix(self) -> MatOut<'a> {
        match self {
            KernelOut::Matrix(m) => m,
            KernelOut::Vector(_) => panic!("this kernel writes a matrix, not a vector"),
        }
    }

    /// A shorter borrow of the same output.
    pub fn reborrow(&mut self) -> KernelOut<'_> {
        match self {
            KernelOut::Vector(v) => KernelOut::Vector(v),
            KernelOut::Matrix(m) => KernelOut::Matrix(m.as_view_mut()),
        }
    }

    /// Column-major index of the first non-finite entry.
    pub fn first_non_finite(&self) -> Option<usize> {
        match self {
            KernelOut::Vector(v) => v.iter().position(|x| !x.is_finite()),
            // Column by column: a column of a column-major view is a contiguous slice, which
            // scans several times faster than the view's strided iterator (the check runs on
            // every M and G of every step; at n = 243 it was 40 % of a run's time).
            KernelOut::Matrix(m) => (0..m.ncols()).find_map(|j| {
                let column = m.column(j);
                let i = first_non_finite_in(column.as_slice())?;
                Some(j * m.nrows() + i)
            }),
        }
    }
}

/// The index of the first non-finite entry of `xs`. The common case, all finite, is decided by
/// an OR over exponent fields in blocks of 16 that the compiler vectorizes; only a block that
/// holds an infinity or NaN is searched entry by entry.
fn first_non_finite_in(xs: &[f64]) -> Option<usize> {
    const EXPONENT: u64 = 0x7ff0_0000_0000_0000;
    let mut start = 0;
    for block in xs.chunks(16) {
        let any_bad = block.iter().fold(0_u64, |acc, x| {
            acc | u64::from(x.to_bits() & EXPONENT == EXPONENT)
        });
        if any_bad != 0 {
            return block.iter().position(|x| !x.is_finite()).map(|i| start + i);
        }
        start += block.len();
    }
    None
}

/// One match arm per row: rows of a group in `call` mode call the method, rows in `panic` mode
/// panic (the kernel belongs to a trait the bound does not include).
macro_rules! dispatch_fn {
    ($fn_name:ident, $bound:path, $what:literal, [$core:ident $tangent:ident $energy:ident],
     core { $($cv:ident $cm:ident $cn:literal [$($ci:ident),*] $ck:ident($($cd:ident),*) $cdoc:literal;)* }
     tangent { $($tv:ident $tm:ident $tn:literal [$($ti:ident),*] $tk:ident($($td:ident),*) $tdoc:literal;)* }
     energy { $($ev:ident $em:ident $en:literal [$($ei:ident),*] $ek:ident($($ed:ident),*) $edoc:literal;)* }) => {
        #[doc = concat!("Evaluate kernel `id` of ", $what, " into `out` (of the row's shape).")]
        ///
        /// Panics when the kernel belongs to another trait, or on wrong lengths.
        pub fn $fn_name<S: $bound + ?Sized>(sys: &S, id: KernelId, args: &KernelArgs<'_>, out: KernelOut<'_>) {
            match id {
                $( KernelId::$cv => dispatch_fn!(@ $core sys $cm args [$($ci)*] out $ck id), )*
                $( KernelId::$tv => dispatch_fn!(@ $tangent sys $tm args [$($ti)*] out $tk id), )*
                $( KernelId::$ev => dispatch_fn!(@ $energy sys $em args [$($ei)*] out $ek id), )*
            }
        }
    };
    (@ call $sys:ident $method:ident $args:ident [$($input:ident)*] $out:ident $kind:ident $id:ident) => {
        $sys.$method($args.t, $args.q, $($args.$input,)* $out.$kind())
    };
    (@ panic $sys:ident $method:ident $args:ident [$($input:ident)*] $out:ident $kind:ident $id:ident) => {
        panic!("kernel `{}` belongs to the {:?} group, which this bound does not include", $id, $id.spec().group)
    };
}

macro_rules! dispatch_core {
    ($($table:tt)*) => {
        dispatch_fn!(call, ConstrainedSystem, "a `ConstrainedSystem`", [call panic panic], $($table)*);
    };
}
macro_rules! dispatch_tangent {
    ($($table:tt)*) => {
        dispatch_fn!(call_tangent, TangentSystem, "a `TangentSystem` (core and tangent rows)", [call call panic], $($table)*);
    };
}
macro_rules! dispatch_energy {
    ($($table:tt)*) => {
        dispatch_fn!(call_energy, Energy, "an `Energy` system (core and energy rows)", [call panic call], $($table)*);
    };
}

mbsim_kernel_table::kernel_table!(dispatch_core);
mbsim_kernel_table::kernel_table!(dispatch_tangent);
mbsim_kernel_table::kernel_table!(dispatch_energy);
