//! Equilibrium by dynamic settling (\[HAUG\] §7.5 route 1, digest §2.7): integrate from rest
//! with added damping until the mechanism stops. The only route that also finds the stable
//! equilibrium a dissipative system actually reaches when there are several.
//!
//! The model's applied force becomes Q(t, q, v) − c v ([`Damped`]); RKSTAB with PStab
//! integrates from (q0 projected onto Φ = 0, v = 0) in windows of `window` seconds until
//! ‖v‖∞ ≤ `tol` and the reduced gradient ‖Zᵀ(−Q(t, q, 0))‖∞ ≤ `force_tol` (the mechanism is at
//! rest and nothing pushes it along an admissible direction), or `t_max` is reached
//! ([`SimError::EquilibriumFailed`]).

use super::kinematics::KinematicSolver;
use crate::error::SimError;
use crate::init::{InitOptions, initialize};
use crate::integrator::{Integrator, Problem};
use crate::output::Recorder;
use crate::rkstab::Rkstab;
use crate::system::{ConstrainedSystem, Dims, DynamicsOut, MatOut, ParameterError, Sparsity};

/// Settings of [`settle`].
#[derive(Clone, Debug, PartialEq)]
pub struct SettlingOptions {
    /// Added damping c in Q − c v (generalized force per generalized velocity; default 1).
    pub damping: f64,
    /// RKSTAB relative tolerance (default 1e-8, atol = rtol/10).
    pub rtol: f64,
    /// Length of an integration window between rest tests \[s\] (default 1).
    pub window: f64,
    /// Give up after this time \[s\] (default 1000).
    pub t_max: f64,
    /// Rest test on ‖v‖∞ (default 1e-8).
    pub tol: f64,
    /// Rest test on the reduced gradient (default 1e-6).
    pub force_tol: f64,
    /// Dense or banded rest test (the reduced gradient's λ and tangent basis, as
    /// [`super::EquilibriumOptions::solver`]; default [`KinematicSolver::Auto`]).
    pub solver: KinematicSolver,
}

impl Default for SettlingOptions {
    fn default() -> Self {
        Self {
            damping: 1.0,
            rtol: 1e-8,
            window: 1.0,
            t_max: 1000.0,
            tol: 1e-8,
            force_tol: 1e-6,
            solver: KinematicSolver::Auto,
        }
    }
}

/// Where the mechanism came to rest.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    /// "dynamic settling".
    pub method: &'static str,
    /// Coordinates at rest.
    pub q: Vec<f64>,
    /// Multipliers there (least squares of Gᵀλ = Q at rest).
    pub lambda: Vec<f64>,
    /// Time taken \[s\].
    pub time: f64,
    /// ‖v‖∞ at the end.
    pub speed: f64,
    /// Reduced gradient at the end.
    pub residual: f64,
    /// Accepted steps over all windows.
    pub steps: usize,
}

/// A model with added viscous damping −c v on every coordinate.
pub struct Damped<'a, S: ?Sized> {
    /// The undamped model.
    pub inner: &'a S,
    /// The damping coefficient c.
    pub c: f64,
}

macro_rules! delegate {
    ($($method:ident ($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {
        $(fn $method(&self, $($arg: $ty),*) -> $out { self.inner.$method($($arg),*) })*
    };
}

impl<S: ConstrainedSystem + ?Sized> ConstrainedSystem for Damped<'_, S> {
    delegate! {
        name() -> &'static str;
        dims() -> Dims;
        coordinate_names() -> &'static [&'static str];
        parameter_names() -> &'static [&'static str];
        parameter(name: &str) -> Option<f64>;
        phi_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        phi_q_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        phi_t_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        nh_matrix_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        nh_offset_into(t: f64, q: &[f64], out: &mut [f64]) -> ();
        gamma_into(t: f64, q: &[f64], v: &[f64], out: &mut [f64]) -> ();
        l_into(t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) -> ();
        mass_into(t: f64, q: &[f64], out: MatOut<'_>) -> ();
        phi_q_sparsity() -> Sparsity;
        l_sparsity() -> Sparsity;
        constraint_names() -> Vec<String>;
    }

    fn set_parameter(&mut self, name: &str, _value: f64) -> Result<(), ParameterError> {
        Err(ParameterError::Unknown {
            model: self.inner.name(),
            name: name.to_string(),
            known: "none (a damped view cannot change its model)".to_string(),
        })
    }

    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.inner.force_into(t, q, v, out);
        for (f, vi) in out.iter_mut().zip(v) {
            *f -= self.c * vi;
        }
    }

    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        let DynamicsOut {
            mass,
            force,
            jacobian,
            gamma,
        } = out;
        let inner_out = DynamicsOut {
            mass,
            force: &mut *force,
            jacobian,
            gamma,
        };
        self.inner.dynamics_into(t, q, v, inner_out);
        for (f, vi) in force.iter_mut().zip(v) {
            *f -= self.c * vi;
        }
    }
}

/// Settle `sys` from rest at `q0` (see the module docs).
pub fn settle<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    q0: &[f64],
    opts: &SettlingOptions,
) -> Result<Settled, SimError> {
    validate(opts)?;
    let n = sys.dims().n;
    let damped = Damped {
        inner: sys,
        c: opts.damping,
    };
    let start = initialize(sys, 0.0, q0, &vec![0.0; n], &InitOptions::default())?;
    super::driving::refuse_driving(sys, "dynamic settling", 0.0, &start.q)?;
    let (mut q, mut v, mut t, mut steps) = (start.q, start.v, 0.0, 0);
    let method = Rkstab::new(opts.rtol);
    loop {
        let speed = v.iter().fold(0.0_f64, |s, x| s.max(x.abs()));
        let local = super::equilibrium::local(sys, t, &q, opts.solver)?;
        let residual = local.gradient.amax();
        if speed <= opts.tol && residual <= opts.force_tol {
            return Ok(Settled {
                method: "dynamic settling",
                lambda: local.lambda.iter().copied().collect(),
                q,
                time: t,
                speed,
                residual,
                steps,
            });
        }
        if t >= opts.t_max {
            return Err(SimError::EquilibriumFailed {
                method: "dynamic settling",
                residual: speed.max(residual),
                iterations: steps,
            });
        }
        let problem = Problem::new(t, t + opts.window, &q, &v);
        let solution = method.integrate_into(&damped, &problem, &mut Recorder::default())?;
        (q, v, t) = (solution.q, solution.v, solution.t);
        steps += solution.stats.naccpt;
    }
}

fn validate(opts: &SettlingOptions) -> Result<(), SimError> {
    let fields = [
        ("SettlingOptions::damping", opts.damping),
        ("SettlingOptions::rtol", opts.rtol),
        ("SettlingOptions::window", opts.window),
        ("SettlingOptions::t_max", opts.t_max),
        ("SettlingOptions::tol", opts.tol),
        ("SettlingOptions::force_tol", opts.force_tol),
    ];
    for (option, value) in fields {
        if !(value.is_finite() && value > 0.0) {
            return Err(SimError::InvalidOption {
                option,
                value: value.to_string(),
                reason: "must be finite and positive",
            });
        }
    }
    Ok(())
}
