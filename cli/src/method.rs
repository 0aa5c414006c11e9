//! The integration methods and drift controls selectable on the command line, and the one
//! place that turns them into a runtime method ([`Chosen`]).
//!
//! `--method` picks the integrator (RKSTAB, the variable-order ABM, the constant-step Adams
//! family), `--stabilization` the layer's drift control, and the method's own options come
//! from `--rtol/--atol` (adaptive methods) or `--h/--order/--start` (constant-step Adams).
//! An option that the chosen method does not use is an error, not silently ignored.

use clap::ValueEnum;
use mbsim::runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Baumgarte, CommonOptions, ConstrainedSystem,
    Integrator, Observer, Problem, Rkstab, SimError, Solution, Stabilization,
};

use super::AppError;

/// The integrator on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// RKSTAB: adaptive DOPRI5(4) with the stabilization applied inside the step (default).
    Rkstab,
    /// Variable-step, variable-order PECE Adams (Haug §7.4.4–7.4.5), orders up to --order.
    Abm,
    /// Constant-step Adams–Bashforth of order --order, step --h.
    Ab,
    /// Constant-step PECE, AB and the same-order Adams–Moulton corrector (Wu's AMPC).
    Ampc,
    /// Constant-step PECE, AB and the one-order-higher corrector (Wu's MAMPC, Haug's PECE).
    Mampc,
}

/// Drift control on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Stabilize {
    /// PStab = S-both2, two projection passes (the thesis' RKSTAB default).
    Pstab,
    /// S-full (Algorithm 3.2).
    Sfull,
    /// S-both, one projection pass.
    Sboth,
    /// Velocity-only projection.
    Velocity,
    /// PStab with the identity metric (GGᵀ variant).
    Ggt,
    /// Baumgarte with --alpha/--beta (Haug/Wu form; default B(20, 100) = alpha = beta = 10).
    Baumgarte,
    /// No stabilization (index-1 form, drift grows; Haug's direct integration).
    None,
}

/// The start of a constant-step Adams method.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Start {
    /// Accurate Runge–Kutta steps until the history is full (Wu).
    Rk,
    /// Haug's self-starting order ramp 1, 2, …, k.
    Ramp,
}

/// The method options given on the command line, before validation.
#[derive(Clone, Copy, Debug)]
pub struct MethodRequest {
    /// The integrator.
    pub method: Method,
    /// Relative and absolute tolerances (adaptive methods).
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Constant step size (constant-step methods).
    pub h: Option<f64>,
    /// Order (Adams: the predictor order; ABM: the highest one).
    pub order: Option<usize>,
    /// Start of a constant-step Adams method.
    pub start: Option<Start>,
}

/// The drift control `kind` with Baumgarte gains `alpha`, `beta` where they apply.
pub fn stabilization(
    kind: Stabilize,
    alpha: Option<f64>,
    beta: Option<f64>,
) -> Result<Stabilization, AppError> {
    if kind != Stabilize::Baumgarte && (alpha.is_some() || beta.is_some()) {
        return Err(AppError::BadValue {
            what: "--alpha/--beta",
            value: format!("{kind:?}").to_lowercase(),
            why: "Baumgarte gains need --stabilization baumgarte",
        });
    }
    Ok(match kind {
        Stabilize::Pstab => Stabilization::PStab,
        Stabilize::Sfull => Stabilization::SFull,
        Stabilize::Sboth => Stabilization::SBoth,
        Stabilize::Velocity => Stabilization::VelocityOnly,
        Stabilize::Ggt => Stabilization::GGt,
        Stabilize::None => Stabilization::None,
        Stabilize::Baumgarte => {
            let gain = |what, x: Option<f64>| {
                let x = x.unwrap_or(10.0);
                if x.is_finite() && x >= 0.0 {
                    Ok(x)
                } else {
                    Err(AppError::BadValue {
                        what,
                        value: x.to_string(),
                        why: "must be finite and not negative",
                    })
                }
            };
            Stabilization::Baumgarte(Baumgarte {
                alpha: gain("--alpha", alpha)?,
                beta: gain("--beta", beta)?,
            })
        }
    })
}

/// A runtime method chosen on the command line.
#[derive(Clone, Debug)]
pub enum Chosen {
    /// RKSTAB.
    Rkstab(Rkstab),
    /// The variable-order ABM.
    Abm(Abm),
    /// A constant-step Adams method.
    Adams(Adams),
}

impl Chosen {
    /// Build the method of `req` with the shared options `common`.
    pub fn build(req: &MethodRequest, common: CommonOptions) -> Result<Chosen, AppError> {
        let constant_step = matches!(req.method, Method::Ab | Method::Ampc | Method::Mampc);
        let unused = |what: &'static str, why: &'static str| AppError::BadValue {
            what,
            value: format!("{:?}", req.method).to_lowercase(),
            why,
        };
        if !constant_step && (req.h.is_some() || req.start.is_some()) {
            return Err(unused(
                "--h/--start",
                "only the constant-step Adams methods take them",
            ));
        }
        if req.method == Method::Rkstab && req.order.is_some() {
            return Err(unused("--order", "RKSTAB has a fixed order (5)"));
        }
        Ok(match req.method {
            Method::Rkstab => Chosen::Rkstab(
                Rkstab::new(req.rtol)
                    .with_atol(req.atol)
                    .with_common(common),
            ),
            Method::Abm => {
                let mut m = Abm::new(req.rtol);
                m.atol = mbsim::runtime::Tolerance::Scalar(req.atol);
                m.max_order = req.order.unwrap_or(mbsim::runtime::adams::MAX_ORDER);
                m.common = common;
                Chosen::Abm(m)
            }
            Method::Ab | Method::Ampc | Method::Mampc => {
                let kind = match req.method {
                    Method::Ab => AdamsKind::Ab,
                    Method::Ampc => AdamsKind::Ampc,
                    Method::Mampc | Method::Rkstab | Method::Abm => AdamsKind::Mampc,
                };
                let start = match req.start.unwrap_or(Start::Rk) {
                    Start::Rk => AdamsStart::RungeKutta,
                    Start::Ramp => AdamsStart::Ramp,
                };
                let h = req.h.ok_or(AppError::BadValue {
                    what: "--h",
                    value: "missing".to_string(),
                    why: "a constant-step Adams method needs a step size",
                })?;
                let scheme = AdamsScheme::new(kind, req.order.unwrap_or(4), start);
                Chosen::Adams(Adams { scheme, h, common })
            }
        })
    }

    /// The options every method shares.
    pub fn common_mut(&mut self) -> &mut CommonOptions {
        match self {
            Chosen::Rkstab(m) => &mut m.common,
            Chosen::Abm(m) => &mut m.common,
            Chosen::Adams(m) => &mut m.common,
        }
    }

    /// Whether the method adapts its step to a tolerance.
    pub fn is_adaptive(&self) -> bool {
        match self {
            Chosen::Rkstab(_) | Chosen::Abm(_) => true,
            Chosen::Adams(_) => false,
        }
    }
}

impl Integrator for Chosen {
    fn name(&self) -> String {
        match self {
            Chosen::Rkstab(m) => m.name(),
            Chosen::Abm(m) => m.name(),
            Chosen::Adams(m) => m.name(),
        }
    }

    fn common(&self) -> &CommonOptions {
        match self {
            Chosen::Rkstab(m) => m.common(),
            Chosen::Abm(m) => m.common(),
            Chosen::Adams(m) => m.common(),
        }
    }

    fn integrate_into<S: ConstrainedSystem + ?Sized, O: Observer + ?Sized>(
        &self,
        sys: &S,
        problem: &Problem,
        observer: &mut O,
    ) -> Result<Solution, SimError> {
        match self {
            Chosen::Rkstab(m) => m.integrate_into(sys, problem, observer),
            Chosen::Abm(m) => m.integrate_into(sys, problem, observer),
            Chosen::Adams(m) => m.integrate_into(sys, problem, observer),
        }
    }
}
