//! The integration methods and drift controls selectable on the command line, and the one
//! place that turns them into a runtime method ([`Chosen`]).
//!
//! `--method` picks the integrator (RKSTAB, the stabilized DOP853, the variable-order ABM, the
//! constant-step Adams family, the implicit index-3 methods (Newmark, HHT, generalized-α, Radau
//! IIA), ALI3-P, HPIM and NPC for structural models), `--stabilization` the layer's drift
//! control, and the method's own options come
//! from `--rtol/--atol` (adaptive methods) or `--h/--order/--start` (constant-step Adams).
//! An option that the chosen method does not use is an error, not silently ignored.

use clap::ValueEnum;
use mbsim::runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Ali3p, Baumgarte, CommonOptions,
    ConstrainedSystem, Continuous, ContinuousChoice, Dop853, Hpim, HybridOptions, Implicit,
    Integrator, NewtonKind, Npc, Observer, PartitionOptions, Problem, Radau, Rkstab, Scheme,
    SimError, Solution, Stabilization, StepControl, StepSize, Structure, Tolerance,
};

use crate::error::AppError;

/// The implicit method of `req`: constant step with --h, else error-controlled at rtol/atol.
fn implicit(req: &MethodRequest, common: CommonOptions) -> Result<Chosen, AppError> {
    let bad = |what, why| AppError::BadValue {
        what,
        value: format!("{:?}", req.method).to_lowercase(),
        why,
    };
    if req.order.is_some() || req.start.is_some() {
        return Err(bad("--order/--start", "the implicit methods have neither"));
    }
    if req.hht_alpha.is_some() && req.method != Method::Hht {
        return Err(bad("--hht-alpha", "only hht has it"));
    }
    if req.rho_inf.is_some() && req.method != Method::GeneralizedAlpha {
        return Err(bad("--rho-inf", "only generalized-alpha has it"));
    }
    let scheme = match req.method {
        Method::Hht => Scheme::Hht {
            alpha: req.hht_alpha.unwrap_or(-0.1),
        },
        Method::GeneralizedAlpha => Scheme::GeneralizedAlpha {
            rho_inf: req.rho_inf.unwrap_or(0.8),
        },
        Method::Newmark
        | Method::Rkstab
        | Method::Dop853
        | Method::Abm
        | Method::Ab
        | Method::Ampc
        | Method::Mampc
        | Method::Radau
        | Method::Hpim
        | Method::Npc
        | Method::Ali3p => Scheme::ME451,
    };
    let step = match (req.h, req.method) {
        (Some(h), _) => StepSize::Fixed(h),
        (None, Method::Newmark) => {
            return Err(bad("--h", "Newmark (ME451) takes constant steps: give --h"));
        }
        (None, _) => StepSize::Adaptive {
            rtol: Tolerance::Scalar(req.rtol),
            atol: Tolerance::Scalar(req.atol),
            control: StepControl::default(),
        },
    };
    if req.method == Method::Radau {
        if req.modified_newton {
            return Err(bad(
                "--modified-newton",
                "Radau always uses simplified Newton (radau5.f)",
            ));
        }
        let mut method = Radau::new(step);
        method.common = common;
        return Ok(Chosen::Radau(method));
    }
    let mut method = Implicit::new(scheme, step);
    if req.modified_newton {
        method.newton.kind = NewtonKind::Modified;
        method.newton.max_iterations = 25;
    }
    method.common = common;
    Ok(Chosen::Implicit(method))
}

/// The integrator on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Method {
    /// RKSTAB: adaptive DOPRI5(4) with the stabilization applied inside the step (default).
    Rkstab,
    /// Hairer's DOP853 (order 8, dense output of order 7) with the stabilization applied to
    /// every accepted step: fewer steps at tight tolerances (rtol ≤ 1e-8).
    Dop853,
    /// Variable-step, variable-order PECE Adams (Haug §7.4.4–7.4.5), orders up to --order.
    Abm,
    /// Constant-step Adams–Bashforth of order --order, step --h.
    Ab,
    /// Constant-step PECE, AB and the same-order Adams–Moulton corrector (Wu's AMPC).
    Ampc,
    /// Constant-step PECE, AB and the one-order-higher corrector (Wu's MAMPC, Haug's PECE).
    Mampc,
    /// ME451's Newmark on the index-3 DAE with Newton (β = 0.3025, γ = 0.6), step --h.
    Newmark,
    /// HHT-α (--hht-alpha, default -0.1) with Newton; error-controlled (--rtol) or --h.
    Hht,
    /// Generalized-α (--rho-inf, default 0.8) with Newton; error-controlled (--rtol) or --h.
    GeneralizedAlpha,
    /// Radau IIA, 3 stages (order 5, L-stable; RADAU5's simplified Newton and controller) on
    /// the index-3 DAE; error-controlled (--rtol/--atol) or --h.
    Radau,
    /// HPIM (Liu–Begg–Devane–Zhong), the 2^N matrix exponential, step --h; structural models
    /// only (truss14, …).
    Hpim,
    /// The HPIM paper's Newmark predictor–corrector, step --h; structural models only.
    Npc,
    /// ALI3-P (Bayo, García de Jalón, Cuadrado): augmented Lagrangian index-3 on the
    /// trapezoidal rule with velocity and acceleration projections, step --h; needs no choice
    /// of independent rows on over-constrained models (multipliers: least-norm-like share).
    Ali3p,
}

impl Method {
    /// The name on the command line (`generalized-alpha`, …).
    pub fn cli_name(self) -> String {
        self.to_possible_value()
            .map_or_else(|| format!("{self:?}"), |v| v.get_name().to_string())
    }

    /// The implicit index-3 methods (Newton on the DAE; Φ held by the iteration, so their
    /// default drift control is none).
    pub fn is_implicit(self) -> bool {
        matches!(
            self,
            Method::Newmark | Method::Hht | Method::GeneralizedAlpha | Method::Radau
        )
    }

    /// The constant-step Adams methods, whose order is `--order` (default 4).
    pub fn has_order_option(self) -> bool {
        matches!(self, Method::Ab | Method::Ampc | Method::Mampc)
    }

    /// The methods for structural models (their own drift control, eq. 32's penalty).
    pub fn is_structural(self) -> bool {
        matches!(self, Method::Hpim | Method::Npc)
    }

    /// The methods that control drift themselves and take no `--stabilization` but none
    /// (structural methods: their penalty; ALI3-P: its projections).
    pub fn has_own_drift_control(self) -> bool {
        self.is_structural() || self == Method::Ali3p
    }
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
    /// Generalized coordinate partitioning (Haug §7.3.2): Newton for the dependent positions
    /// after each step, error control on the independent coordinates only.
    Gcp,
    /// Haug's hybrid algorithm (§7.3.5): Baumgarte (--alpha/--beta, default 1) and the GCP
    /// correction when the drift exceeds --hybrid-tol (default 1e-10).
    Hybrid,
    /// Chin's (2.58) with P1 = P2 = GG^T: the field corrected along G^T, the drift obeying
    /// Baumgarte's critically damped law at --gamma (default 10).
    ContinuousGgt,
    /// Chin's (2.58) with P1 = I, P2^-1 = GG^T (2.61), gain --gamma (default 10).
    ContinuousIdentity,
    /// Chin's two-step route (2.63)-(2.64): Baumgarte to index 2, then the normal projection
    /// of that, gain --gamma (default 10).
    ContinuousTwoStep,
}

/// Options of the partitioning drift controls on the command line.
#[derive(Clone, Copy, Debug, Default)]
pub struct PartitionFlags {
    /// Newton tolerance on ‖Φ‖∞ for the dependent positions.
    pub newton_tol: Option<f64>,
    /// Newton iteration cap.
    pub max_newton: Option<usize>,
    /// The hybrid's drift tolerance.
    pub hybrid_tol: Option<f64>,
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
    /// HHT's α.
    pub hht_alpha: Option<f64>,
    /// Generalized-α's ρ∞.
    pub rho_inf: Option<f64>,
    /// Modified Newton (keep the factorization across iterations and steps).
    pub modified_newton: bool,
    /// RKSTAB's singular-passage guard.
    pub passage_guard: bool,
}

/// The drift control `kind` with Baumgarte gains `alpha`, `beta`, the continuous
/// stabilizations' `gamma` and the partitioning flags where they apply.
pub fn stabilization(
    kind: Stabilize,
    (alpha, beta): (Option<f64>, Option<f64>),
    gamma: Option<f64>,
    flags: PartitionFlags,
) -> Result<Stabilization, AppError> {
    let bad = |what, why| AppError::BadValue {
        what,
        value: format!("{kind:?}").to_lowercase(),
        why,
    };
    let gains = matches!(kind, Stabilize::Baumgarte | Stabilize::Hybrid);
    if !gains && (alpha.is_some() || beta.is_some()) {
        return Err(bad(
            "--alpha/--beta",
            "Baumgarte gains need --stabilization baumgarte or hybrid",
        ));
    }
    let continuous = matches!(
        kind,
        Stabilize::ContinuousGgt | Stabilize::ContinuousIdentity | Stabilize::ContinuousTwoStep
    );
    if !continuous && gamma.is_some() {
        return Err(bad(
            "--gamma",
            "the gain of the continuous stabilizations (continuous-ggt, -identity, -two-step)",
        ));
    }
    let partitioned = matches!(kind, Stabilize::Gcp | Stabilize::Hybrid);
    if !partitioned && (flags.newton_tol.is_some() || flags.max_newton.is_some()) {
        return Err(bad(
            "--newton-tol/--max-newton",
            "only gcp and hybrid use Newton",
        ));
    }
    if kind != Stabilize::Hybrid && flags.hybrid_tol.is_some() {
        return Err(bad("--hybrid-tol", "only the hybrid algorithm has it"));
    }
    let gain = |what, x: Option<f64>, default: f64| {
        let x = x.unwrap_or(default);
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
    let chin = |choice| {
        let gamma = gain("--gamma", gamma, 10.0)?;
        Ok::<_, AppError>(Stabilization::Continuous(Continuous::new(choice, gamma)))
    };
    let mut partition = PartitionOptions::default();
    if let Some(tol) = flags.newton_tol {
        partition.newton_tolerance = tol;
    }
    if let Some(cap) = flags.max_newton {
        partition.max_newton_iterations = cap;
    }
    Ok(match kind {
        Stabilize::Pstab => Stabilization::PStab,
        Stabilize::Sfull => Stabilization::SFull,
        Stabilize::Sboth => Stabilization::SBoth,
        Stabilize::Velocity => Stabilization::VelocityOnly,
        Stabilize::Ggt => Stabilization::GGt,
        Stabilize::None => Stabilization::None,
        Stabilize::Baumgarte => Stabilization::Baumgarte(Baumgarte {
            alpha: gain("--alpha", alpha, 10.0)?,
            beta: gain("--beta", beta, 10.0)?,
        }),
        Stabilize::Gcp => Stabilization::Partitioned(partition),
        Stabilize::Hybrid => {
            let mut hybrid = HybridOptions {
                partition,
                ..HybridOptions::default()
            };
            hybrid.baumgarte = Baumgarte {
                alpha: gain("--alpha", alpha, hybrid.baumgarte.alpha)?,
                beta: gain("--beta", beta, hybrid.baumgarte.beta)?,
            };
            if let Some(tol) = flags.hybrid_tol {
                hybrid.tolerance = tol;
            }
            Stabilization::Hybrid(hybrid)
        }
        Stabilize::ContinuousGgt => chin(ContinuousChoice::GGt)?,
        Stabilize::ContinuousIdentity => chin(ContinuousChoice::Identity)?,
        Stabilize::ContinuousTwoStep => chin(ContinuousChoice::TwoStep)?,
    })
}

/// A runtime method chosen on the command line.
#[derive(Clone, Debug)]
pub enum Chosen {
    /// RKSTAB.
    Rkstab(Rkstab),
    /// Stabilized DOP853.
    Dop853(Dop853),
    /// The variable-order ABM.
    Abm(Abm),
    /// A constant-step Adams method.
    Adams(Adams),
    /// An implicit index-3 method (finite-difference tangents: a catalog model arrives as
    /// `dyn ConstrainedSystem`).
    Implicit(Implicit),
    /// Radau IIA (exact tangents when the model has them, else finite differences).
    Radau(Radau),
    /// ALI3-P (exact tangents when the model has them, else finite differences).
    Ali3p(Ali3p),
    /// HPIM or NPC with step `h`: built on the model's structure when the run starts
    /// ([`ConstrainedSystem::as_structure`]).
    Structural {
        /// [`Method::Hpim`] or [`Method::Npc`].
        method: Method,
        /// The constant step τ.
        h: f64,
        /// The shared options.
        common: CommonOptions,
    },
}

/// The structure of `sys`, or the typed error naming the method and the model.
fn structure_of<S: ConstrainedSystem + ?Sized>(
    sys: &S,
    method: Method,
) -> Result<std::sync::Arc<Structure>, SimError> {
    mbsim::runtime::hpim::refuse_events(sys, method.cli_name().as_str())?;
    sys.as_structure()
        .map(|st| std::sync::Arc::new(st.clone()))
        .ok_or_else(|| SimError::InvalidProblem {
            what: format!(
                "--method {} needs a structural model (constant M, C, K with loads, e.g. truss14); `{}` is not one",
                method.cli_name(),
                sys.name()
            ),
        })
}

/// HPIM or NPC: --h required, no Adams/implicit options, no layer stabilization.
fn structural(req: &MethodRequest, common: CommonOptions) -> Result<Chosen, AppError> {
    let name = req.method.cli_name();
    let unused = |what: &'static str, why: &'static str| AppError::BadValue {
        what,
        value: name.clone(),
        why,
    };
    if req.order.is_some() || req.start.is_some() {
        return Err(unused(
            "--order/--start",
            "only the Adams methods take them",
        ));
    }
    if !matches!(common.stabilization, Stabilization::None) {
        return Err(unused(
            "--stabilization",
            "HPIM and NPC have their own drift control (the penalty of eq. 32); use none",
        ));
    }
    let h = req
        .h
        .ok_or_else(|| unused("--h", "HPIM and NPC need a constant step size --h"))?;
    Ok(Chosen::Structural {
        method: req.method,
        h,
        common,
    })
}

/// ALI3-P: --h required, none of the Adams/implicit options, no layer stabilization.
fn ali3p(req: &MethodRequest, common: CommonOptions) -> Result<Chosen, AppError> {
    let unused = |what: &'static str, why: &'static str| AppError::BadValue {
        what,
        value: "ali3p".to_string(),
        why,
    };
    if req.order.is_some() || req.start.is_some() {
        return Err(unused(
            "--order/--start",
            "only the Adams methods take them",
        ));
    }
    if req.hht_alpha.is_some() || req.rho_inf.is_some() || req.modified_newton {
        return Err(unused(
            "--hht-alpha/--rho-inf/--modified-newton",
            "only the implicit methods take them",
        ));
    }
    if !matches!(common.stabilization, Stabilization::None) {
        return Err(unused(
            "--stabilization",
            "ALI3-P projects velocities and accelerations itself; use none",
        ));
    }
    let h = req
        .h
        .ok_or_else(|| unused("--h", "ALI3-P takes constant steps: give --h"))?;
    let mut method = Ali3p::new(h);
    method.common = common;
    Ok(Chosen::Ali3p(method))
}

impl Chosen {
    /// Build the method of `req` with the shared options `common`.
    pub fn build(req: &MethodRequest, common: CommonOptions) -> Result<Chosen, AppError> {
        let constant_step = matches!(req.method, Method::Ab | Method::Ampc | Method::Mampc);
        if req.method.is_implicit() {
            return implicit(req, common);
        }
        if req.method == Method::Ali3p {
            return ali3p(req, common);
        }
        if req.method.is_structural() {
            if req.hht_alpha.is_some() || req.rho_inf.is_some() || req.modified_newton {
                return Err(AppError::BadValue {
                    what: "--hht-alpha/--rho-inf/--modified-newton",
                    value: req.method.cli_name(),
                    why: "only the implicit methods take them",
                });
            }
            return structural(req, common);
        }
        if req.hht_alpha.is_some() || req.rho_inf.is_some() || req.modified_newton {
            return Err(AppError::BadValue {
                what: "--hht-alpha/--rho-inf/--modified-newton",
                value: format!("{:?}", req.method).to_lowercase(),
                why: "only the implicit methods take them",
            });
        }
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
        if req.method == Method::Dop853 && req.order.is_some() {
            return Err(unused("--order", "DOP853 has a fixed order (8)"));
        }
        if req.method != Method::Rkstab && req.passage_guard {
            return Err(unused("--passage-guard", "only RKSTAB has it"));
        }
        Ok(match req.method {
            Method::Rkstab => {
                let mut m = Rkstab::new(req.rtol).with_atol(req.atol);
                m.passage_guard = req.passage_guard;
                Chosen::Rkstab(m.with_common(common))
            }
            Method::Dop853 => {
                let mut m = Dop853::new(req.rtol).with_common(common);
                m.atol = Tolerance::Scalar(req.atol);
                Chosen::Dop853(m)
            }
            Method::Abm => {
                let mut m = Abm::new(req.rtol);
                m.atol = mbsim::runtime::Tolerance::Scalar(req.atol);
                m.max_order = req.order.unwrap_or(mbsim::runtime::adams::MAX_ORDER);
                m.common = common;
                Chosen::Abm(m)
            }
            Method::Ab
            | Method::Ampc
            | Method::Mampc
            | Method::Newmark
            | Method::Hht
            | Method::GeneralizedAlpha
            | Method::Radau
            | Method::Hpim
            | Method::Npc
            | Method::Ali3p => {
                let kind = match req.method {
                    Method::Ab => AdamsKind::Ab,
                    Method::Ampc => AdamsKind::Ampc,
                    Method::Mampc
                    | Method::Rkstab
                    | Method::Dop853
                    | Method::Abm
                    | Method::Newmark
                    | Method::Hht
                    | Method::GeneralizedAlpha
                    | Method::Radau
                    | Method::Hpim
                    | Method::Npc
                    | Method::Ali3p => AdamsKind::Mampc,
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
            Chosen::Dop853(m) => &mut m.common,
            Chosen::Abm(m) => &mut m.common,
            Chosen::Adams(m) => &mut m.common,
            Chosen::Implicit(m) => &mut m.common,
            Chosen::Radau(m) => &mut m.common,
            Chosen::Ali3p(m) => &mut m.common,
            Chosen::Structural { common, .. } => common,
        }
    }

    /// Whether the method adapts its step to a tolerance.
    pub fn is_adaptive(&self) -> bool {
        match self {
            Chosen::Rkstab(_) | Chosen::Dop853(_) | Chosen::Abm(_) => true,
            Chosen::Implicit(m) => matches!(m.step, StepSize::Adaptive { .. }),
            Chosen::Radau(m) => matches!(m.step, StepSize::Adaptive { .. }),
            Chosen::Adams(_) | Chosen::Ali3p(_) | Chosen::Structural { .. } => false,
        }
    }
}

impl Integrator for Chosen {
    fn name(&self) -> String {
        match self {
            Chosen::Rkstab(m) => m.name(),
            Chosen::Dop853(m) => m.name(),
            Chosen::Abm(m) => m.name(),
            Chosen::Adams(m) => m.name(),
            Chosen::Implicit(m) => m.name(),
            Chosen::Radau(m) => m.name(),
            Chosen::Ali3p(m) => m.name(),
            Chosen::Structural { method, .. } => method.cli_name(),
        }
    }

    fn common(&self) -> &CommonOptions {
        match self {
            Chosen::Rkstab(m) => m.common(),
            Chosen::Dop853(m) => m.common(),
            Chosen::Abm(m) => m.common(),
            Chosen::Adams(m) => m.common(),
            Chosen::Implicit(m) => m.common(),
            Chosen::Radau(m) => m.common(),
            Chosen::Ali3p(m) => m.common(),
            Chosen::Structural { common, .. } => common,
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
            Chosen::Dop853(m) => m.integrate_into(sys, problem, observer),
            Chosen::Abm(m) => m.integrate_into(sys, problem, observer),
            Chosen::Adams(m) => m.integrate_into(sys, problem, observer),
            // Exact Newton matrices from the tangent kernels when the model emits them
            // (`tangents: true`), else finite differences through the `Integrator` path.
            Chosen::Implicit(m) => match sys.as_tangents() {
                Some(exact) => m.integrate_exact_into(exact, problem, observer),
                None => m.integrate_into(sys, problem, observer),
            },
            Chosen::Radau(m) => match sys.as_tangents() {
                Some(exact) => m.integrate_exact_into(exact, problem, observer),
                None => m.integrate_into(sys, problem, observer),
            },
            Chosen::Ali3p(m) => match sys.as_tangents() {
                Some(exact) => m.integrate_exact_into(exact, problem, observer),
                None => m.integrate_into(sys, problem, observer),
            },
            Chosen::Structural { method, h, common } => {
                let st = structure_of(sys, *method)?;
                if *method == Method::Hpim {
                    let mut m = Hpim::new(st, *h);
                    m.common = common.clone();
                    m.integrate_into(sys, problem, observer)
                } else {
                    let mut m = Npc::new(st, *h);
                    m.common = common.clone();
                    m.integrate_into(sys, problem, observer)
                }
            }
        }
    }
}
