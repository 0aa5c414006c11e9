//! Adams methods (digest §2.5): Adams–Bashforth alone (AB_k), Wu's AMPC_k (PECE with AB_k and
//! the order-k Adams–Moulton corrector) and MAMPC_k (PECE with AB_k and the order-(k+1)
//! corrector, which is also Haug's "PECE of order k"), at constant step ([`Adams`]), and Haug's
//! variable-step variable-order PECE ([`Abm`], §7.4.4–7.4.5), on constrained systems through the
//! integrator layer; the same step on plain first-order ODEs ([`integrate_ode`], for Haug's
//! scalar examples).
//!
//! \[WU\] writes MAMPC_m as the W1/W2 blend of AB_m and the (m−1)-step AM corrector (27a–c);
//! Theorem 1 shows the blend *is* the m-step AM corrector evaluated with f^p, which is how it
//! is computed here (the blend's weights are checked against it in `coefficients.rs`).
//! Drift control is the layer's: Baumgarte through γ̂ in every KKT solve (as Wu), or a
//! post-step correction (PStab, GCP, …) applied to the corrected value before the final
//! evaluation, so that only corrected, stabilized slopes enter the history.

pub mod coefficients;
mod engine;
mod fixed;
mod ode;
mod quadrature;
pub mod stability;
mod variable;

pub use fixed::Adams;
pub use ode::{FirstOrderOde, OdeStats, integrate_ode};
pub use variable::Abm;

use crate::error::SimError;
use crate::integrator::common::invalid;

/// The largest predictor order of the Adams methods (the variable-order ABM and the fixed ones).
pub const MAX_ORDER: usize = 12;

/// Which Adams formula.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdamsKind {
    /// Adams–Bashforth of order k alone (\[WU\] ABP_k): one evaluation per step.
    Ab,
    /// PECE: AB_k predictor, the order-k Adams–Moulton corrector ((k−1)-step, \[WU\] AMPC_k).
    Ampc,
    /// PECE: AB_k predictor, the order-(k+1) Adams–Moulton corrector (k-step; \[WU\] MAMPC_k,
    /// \[HAUG\]'s PECE of order k).
    Mampc,
}

impl AdamsKind {
    /// The corrector's node count for predictor order `k` (f^p and the newest slopes).
    pub(crate) fn corrector_nodes(self, k: usize) -> Option<usize> {
        match self {
            AdamsKind::Ab => None,
            AdamsKind::Ampc => Some(k),
            AdamsKind::Mampc => Some(k + 1),
        }
    }

    /// The order of the method with predictor order `k`.
    pub fn order(self, k: usize) -> usize {
        match self {
            AdamsKind::Ab | AdamsKind::Ampc => k,
            AdamsKind::Mampc => k + 1,
        }
    }

    /// The short name used in reports (`ab`, `ampc`, `mampc`).
    pub fn name(self) -> &'static str {
        match self {
            AdamsKind::Ab => "ab",
            AdamsKind::Ampc => "ampc",
            AdamsKind::Mampc => "mampc",
        }
    }
}

/// How the first k − 1 steps, which lack the history of slopes, are taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AdamsStart {
    /// \[HAUG\] §7.4.4: self-starting, the order grows 1, 2, …, k over the first steps.
    Ramp,
    /// An accurate one-step start (RK4 with substeps doubled until two results agree to 1e-13
    /// relative; \[WU\] uses RKF at truncation error 1e-15), then order k from step k − 1 on.
    RungeKutta,
}

/// A constant-step Adams scheme: the formula, the predictor order k and the start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AdamsScheme {
    /// The formula.
    pub kind: AdamsKind,
    /// The predictor order k (1..=[`MAX_ORDER`]).
    pub order: usize,
    /// The start.
    pub start: AdamsStart,
}

impl AdamsScheme {
    /// `kind` of order `order` with `start`.
    pub fn new(kind: AdamsKind, order: usize, start: AdamsStart) -> Self {
        Self { kind, order, start }
    }

    /// The name in reports: `mampc3`, `ab5`, …
    pub fn name(&self) -> String {
        format!("{}{}", self.kind.name(), self.order)
    }

    /// The order is in 1..=[`MAX_ORDER`].
    pub fn validate(&self) -> Result<(), SimError> {
        if (1..=MAX_ORDER).contains(&self.order) {
            Ok(())
        } else {
            Err(invalid(
                "order",
                &self.order.to_string(),
                "the predictor order of an Adams method must be in 1..=12",
            ))
        }
    }

    /// The predictor order for the step that starts with `slopes` slopes in the history.
    pub(crate) fn order_at(&self, slopes: usize) -> usize {
        self.order.min(slopes.max(1))
    }

    /// Whether the step that starts with `slopes` slopes in the history is a start step.
    pub(crate) fn starting(&self, slopes: usize) -> bool {
        self.start == AdamsStart::RungeKutta && slopes < self.order
    }
}
