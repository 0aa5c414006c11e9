//! [`Faulty`]: a model wrapper that makes one kernel return a chosen value (NaN, ±∞) in its
//! first entry at a chosen call (and, if lasting, at every later one), everything else
//! forwarded to the wrapped model. The fused
//! `dynamics_into` counts as a call of each kernel whose output it holds (M, Q, G = [Φ_q; A],
//! γ), so a fault reaches every integrator whichever path it takes. A model with events keeps
//! them (`as_events`), with faults of their own: `EventFunctions` (g), `EventJacobian` (∂g/∂q),
//! and `ImpulseSolution`, which replaces an impact's restitution (read at each event) by the
//! value, so a bad number enters the impulse equations.

use std::cell::Cell;

use mbsim::runtime::events::{Action, EventSpec, Events};
use mbsim::runtime::{
    ConstrainedSystem, Dims, DynamicsOut, GeneratedDiagnostics, Kernel, MatOut, ParameterError,
    Sparsity,
};

/// Which kernel misbehaves, at which call (0-based), with which value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Fault {
    /// The kernel (one of `Phi`, `PhiQ`, `PhiT`, `Gamma`, `L`, `Mass`, `Force`, and for a
    /// model with events `EventFunctions`, `EventJacobian`, `ImpulseSolution`).
    pub kernel: Kernel,
    /// The call that returns the bad value (counting the kernel's calls from 0).
    pub call: u64,
    /// The value written into the output's first entry.
    pub value: f64,
    /// Whether every later call is faulty too (a model gone bad for good), or only that one (a
    /// transient fault, which the driver's retry of a failed attempt absorbs, counting it in
    /// `Stats::failed`).
    pub lasting: bool,
}

/// A model whose kernel [`Fault::kernel`] returns [`Fault::value`] at call [`Fault::call`].
pub struct Faulty {
    inner: Box<dyn ConstrainedSystem>,
    fault: Fault,
    calls: Cell<u64>,
    fired: Cell<bool>,
}

impl Faulty {
    /// Wrap `inner`.
    pub fn new(inner: Box<dyn ConstrainedSystem>, fault: Fault) -> Faulty {
        Faulty {
            inner,
            fault,
            calls: Cell::new(0),
            fired: Cell::new(false),
        }
    }

    /// Whether the fault has been injected.
    pub fn fired(&self) -> bool {
        self.fired.get()
    }

    /// Count a call of `kernel`; true when this call is the faulty one.
    fn strikes(&self, kernel: Kernel) -> bool {
        if kernel != self.fault.kernel {
            return false;
        }
        let n = self.calls.get();
        self.calls.set(n + 1);
        let hit = n == self.fault.call || (self.fault.lasting && n > self.fault.call);
        if hit {
            self.fired.set(true);
        }
        hit
    }

    fn vector(&self, kernel: Kernel, out: &mut [f64]) {
        if self.strikes(kernel) && !out.is_empty() {
            out[0] = self.fault.value;
        }
    }

    fn matrix(&self, kernel: Kernel, out: &mut MatOut<'_>) {
        if self.strikes(kernel) && out.nrows() > 0 && out.ncols() > 0 {
            out[(0, 0)] = self.fault.value;
        }
    }
}

impl ConstrainedSystem for Faulty {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn dims(&self) -> Dims {
        self.inner.dims()
    }
    fn coordinate_names(&self) -> &'static [&'static str] {
        self.inner.coordinate_names()
    }
    fn parameter_names(&self) -> &'static [&'static str] {
        self.inner.parameter_names()
    }
    fn parameter(&self, name: &str) -> Option<f64> {
        self.inner.parameter(name)
    }
    fn set_parameter(&mut self, name: &str, value: f64) -> Result<(), ParameterError> {
        self.inner.set_parameter(name, value)
    }
    fn phi_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.inner.phi_into(t, q, out);
        self.vector(Kernel::Phi, out);
    }
    fn phi_q_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        self.inner.phi_q_into(t, q, out.as_view_mut());
        self.matrix(Kernel::PhiQ, &mut out);
    }
    fn phi_t_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.inner.phi_t_into(t, q, out);
        self.vector(Kernel::PhiT, out);
    }
    fn nh_matrix_into(&self, t: f64, q: &[f64], out: MatOut<'_>) {
        self.inner.nh_matrix_into(t, q, out);
    }
    fn nh_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.inner.nh_offset_into(t, q, out);
    }
    fn gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.inner.gamma_into(t, q, v, out);
        self.vector(Kernel::Gamma, out);
    }
    fn l_into(&self, t: f64, q: &[f64], v: &[f64], mut out: MatOut<'_>) {
        self.inner.l_into(t, q, v, out.as_view_mut());
        self.matrix(Kernel::L, &mut out);
    }
    fn mass_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        self.inner.mass_into(t, q, out.as_view_mut());
        self.matrix(Kernel::Mass, &mut out);
    }
    fn force_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.inner.force_into(t, q, v, out);
        self.vector(Kernel::Force, out);
    }
    fn dynamics_into(&self, t: f64, q: &[f64], v: &[f64], out: DynamicsOut<'_>) {
        let DynamicsOut {
            mut mass,
            force,
            mut jacobian,
            gamma,
        } = out;
        self.inner.dynamics_into(
            t,
            q,
            v,
            DynamicsOut {
                mass: mass.as_view_mut(),
                force: &mut *force,
                jacobian: jacobian.as_view_mut(),
                gamma: &mut *gamma,
            },
        );
        self.matrix(Kernel::Mass, &mut mass);
        self.vector(Kernel::Force, force);
        self.matrix(Kernel::PhiQ, &mut jacobian);
        self.vector(Kernel::Gamma, gamma);
    }
    fn phi_q_sparsity(&self) -> Sparsity {
        self.inner.phi_q_sparsity()
    }
    fn l_sparsity(&self) -> Sparsity {
        self.inner.l_sparsity()
    }
    fn mass_sparsity(&self) -> Option<Sparsity> {
        self.inner.mass_sparsity()
    }
    fn a_sparsity(&self) -> Option<Sparsity> {
        self.inner.a_sparsity()
    }
    fn constraint_names(&self) -> Vec<String> {
        self.inner.constraint_names()
    }
    fn generated_diagnostics(&self) -> Option<GeneratedDiagnostics> {
        self.inner.generated_diagnostics()
    }
    fn as_events(&self) -> Option<&dyn Events> {
        self.inner.as_events().map(|_| self as &dyn Events)
    }
}

impl Faulty {
    fn events(&self) -> &dyn Events {
        self.inner
            .as_events()
            .expect("called through as_events, so the model has events")
    }
}

impl Events for Faulty {
    fn event_names(&self) -> &'static [&'static str] {
        self.events().event_names()
    }
    fn event_spec(&self, i: usize) -> EventSpec {
        let mut spec = self.events().event_spec(i);
        if let Action::Impact { restitution } = &mut spec.action
            && self.strikes(Kernel::ImpulseSolution)
        {
            *restitution = self.fault.value;
        }
        spec
    }
    fn events_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events().events_into(t, q, v, out);
        self.vector(Kernel::EventFunctions, out);
    }
    fn event_jacobian_into(&self, t: f64, q: &[f64], mut out: MatOut<'_>) {
        self.events().event_jacobian_into(t, q, out.as_view_mut());
        self.matrix(Kernel::EventJacobian, &mut out);
    }
    fn event_offset_into(&self, t: f64, q: &[f64], out: &mut [f64]) {
        self.events().event_offset_into(t, q, out);
    }
    fn event_gamma_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events().event_gamma_into(t, q, v, out);
    }
    fn event_l_into(&self, t: f64, q: &[f64], v: &[f64], out: MatOut<'_>) {
        self.events().event_l_into(t, q, v, out);
    }
    fn event_normal_into(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        self.events().event_normal_into(t, q, v, out);
    }
    fn disarmed_at_start(&self) -> Vec<usize> {
        self.events().disarmed_at_start()
    }
    fn signs_at_start(&self) -> Vec<(usize, f64)> {
        self.events().signs_at_start()
    }
}
