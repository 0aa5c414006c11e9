//! [`Interpreted`]: a model read from source, run by the `codegen` interpreter behind the
//! runtime's traits, so `mbsim eval` uses the runtime's own KKT solve
//! (`mbsim_runtime::accelerations_into`) and its dispatch over the kernel table, with no
//! compilation. The trait methods are expanded from the kernel table like the traits
//! themselves: a new kernel needs no code here.

use mbsim::runtime::table::{KernelArgs, KernelId, KernelOut};
use mbsim::runtime::{
    ConstrainedSystem, Dims, DynamicsOut, Energy, MatOut, ParameterError, Sparsity, TangentSystem,
};
use mbsim_codegen::{Env, Kernels, Model};

/// A model and its derived kernels, evaluated by the interpreter at runtime parameter values.
pub struct Interpreted {
    /// The model (its pool holds every kernel's expressions).
    pub model: Model,
    /// The derived kernels (with tangents when the model asks for them).
    pub kernels: Kernels,
    params: Vec<f64>,
    /// Leaked once per process: the traits hand out `'static` names (a short-lived CLI
    /// evaluates one model).
    name: &'static str,
    coordinates: &'static [&'static str],
    parameters: &'static [&'static str],
}

impl Interpreted {
    /// Derive `model`'s kernels; every parameter starts at 0.
    pub fn new(mut model: Model) -> Interpreted {
        let kernels = mbsim_codegen::kernels::derive(&mut model);
        let leak = |s: &str| -> &'static str { Box::leak(s.to_string().into_boxed_str()) };
        let coordinates: Vec<&'static str> =
            model.coordinates.iter().map(|c| leak(&c.name)).collect();
        let parameters: Vec<&'static str> =
            model.parameters.iter().map(|p| leak(&p.name)).collect();
        Interpreted {
            params: vec![0.0; model.parameters.len()],
            name: leak(&model.name),
            coordinates: Box::leak(coordinates.into_boxed_slice()),
            parameters: Box::leak(parameters.into_boxed_slice()),
            model,
            kernels,
        }
    }

    /// Whether the model provides kernel `id` (tangents and energies are optional).
    pub fn has(&self, id: KernelId) -> bool {
        self.kernels.entries(id).is_some()
    }

    /// The row-major values of kernel `id` at `args`.
    pub fn values(&self, id: KernelId, args: &KernelArgs<'_>) -> Vec<f64> {
        let entries = self
            .kernels
            .entries(id)
            .unwrap_or_else(|| panic!("model {} has no kernel `{id}`", self.name));
        self.model.pool.eval_many(entries, &self.env(args))
    }

    /// The source form of entry `i` of kernel `id` (for messages about non-finite values).
    pub fn expression(&self, id: KernelId, i: usize) -> String {
        let entries = self.kernels.entries(id).expect("a provided kernel");
        self.model.pool.to_sexpr(entries[i])
    }

    fn env(&self, a: &KernelArgs<'_>) -> Env {
        let pool = &self.model.pool;
        let mut env = Env::new();
        env.set(pool, self.model.time, a.t);
        for (i, c) in self.model.coordinates.iter().enumerate() {
            env.set(pool, c.q, a.q[i]);
            if let Some(&v) = a.v.get(i) {
                env.set(pool, c.v, v);
            }
        }
        for (p, &x) in self.model.parameters.iter().zip(&self.params) {
            env.set(pool, p.sym, x);
        }
        if let Some(t) = &self.kernels.tangents {
            for (&s, &x) in t.lambda.iter().zip(a.lambda).chain(t.w.iter().zip(a.w)) {
                env.set(pool, s, x);
            }
        }
        env
    }

    /// Kernel `id` at `args` into `out` (row-major values into a vector or a matrix view).
    fn write(&self, id: KernelId, args: KernelArgs<'_>, out: KernelOut<'_>) {
        let values = self.values(id, &args);
        match out {
            KernelOut::Vector(v) => v.copy_from_slice(&values),
            KernelOut::Matrix(mut m) => {
                let cols = m.ncols();
                for (i, x) in values.into_iter().enumerate() {
                    m[(i / cols, i % cols)] = x;
                }
            }
        }
    }

    fn sparsity(&self, id: KernelId) -> Sparsity {
        let d = self.dims();
        let (rows, cols) = id.spec().shape.size(d.n, d.m, d.k);
        let entries = self.kernels.entries(id).expect("a core kernel");
        let nonzeros: Vec<(usize, usize)> = (0..rows * cols)
            .filter(|&i| {
                self.model
                    .pool
                    .as_number(entries[i])
                    .is_none_or(|x| !x.is_zero())
            })
            .map(|i| (i / cols, i % cols))
            .collect();
        Sparsity {
            rows,
            cols,
            nonzeros: Box::leak(nonzeros.into_boxed_slice()),
        }
    }
}

/// One method per row of a group: evaluate through [`Interpreted::write`].
macro_rules! interpreted_methods {
    ($($variant:ident $method:ident $name:literal [$($input:ident),*] $kind:ident($($dim:ident),*) $doc:literal;)*) => {
        $(
            fn $method(&self, t: f64, q: &[f64], $($input: &[f64],)* out: interpreted_methods!(@out $kind)) {
                #[allow(unused_mut)]
                let mut args = KernelArgs { t, q, v: &[], lambda: &[], w: &[] };
                $( args.$input = $input; )*
                self.write(KernelId::$variant, args, interpreted_methods!(@wrap $kind out));
            }
        )*
    };
    (@out vector) => { &mut [f64] };
    (@out matrix) => { MatOut<'_> };
    (@wrap vector $out:ident) => { KernelOut::Vector($out) };
    (@wrap matrix $out:ident) => { KernelOut::Matrix($out) };
}

macro_rules! core_impl {
    (core { $($rows:tt)* } $($rest:tt)*) => {
        impl ConstrainedSystem for Interpreted {
            fn name(&self) -> &'static str { self.name }
            fn dims(&self) -> Dims {
                Dims { n: self.model.n(), m: self.kernels.phi.len(), k: self.kernels.nh_offset.len() }
            }
            fn coordinate_names(&self) -> &'static [&'static str] { self.coordinates }
            fn parameter_names(&self) -> &'static [&'static str] { self.parameters }
            fn parameter(&self, name: &str) -> Option<f64> {
                self.parameters.iter().position(|p| *p == name).map(|i| self.params[i])
            }
            fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ParameterError> {
                match self.parameters.iter().position(|p| *p == name) {
                    Some(i) => {
                        self.params[i] = ParameterError::finite(self.name, self.parameters[i], value)?;
                        Ok(())
                    }
                    None => Err(ParameterError::Unknown {
                        model: self.name,
                        name: name.to_string(),
                        known: self.parameters.join(", "),
                    }),
                }
            }
            fn constraint_names(&self) -> Vec<String> { self.model.constraint_names() }
            fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
                let d = self.dims();
                let DynamicsOut { mass, force, mut jacobian, gamma } = out;
                self.mass_into(t, q, mass);
                self.force_into(t, q, v, force);
                self.phi_q_into(t, q, jacobian.view_mut((0, 0), (d.m, d.n)));
                self.nh_matrix_into(t, q, jacobian.view_mut((d.m, 0), (d.k, d.n)));
                self.gamma_into(t, q, v, gamma);
            }
            fn phi_q_sparsity(&self) -> Sparsity { self.sparsity(KernelId::PhiQ) }
            fn l_sparsity(&self) -> Sparsity { self.sparsity(KernelId::L) }
            interpreted_methods! { $($rows)* }
        }
    };
}

macro_rules! optional_impls {
    (core { $($core:tt)* } tangent { $($tangent:tt)* } energy { $($energy:tt)* }) => {
        /// Panics on a model without tangent kernels (check [`Interpreted::has`]).
        impl TangentSystem for Interpreted { interpreted_methods! { $($tangent)* } }
        /// Panics on a model without a Lagrangian (check [`Interpreted::has`]).
        impl Energy for Interpreted { interpreted_methods! { $($energy)* } }
    };
}

mbsim::runtime::table::kernel_table!(core_impl);
mbsim::runtime::table::kernel_table!(optional_impls);
