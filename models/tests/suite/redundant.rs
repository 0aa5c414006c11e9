//! Over-constrained mechanisms (issue 22) on every method: the coupler on three parallel
//! cranks (`triple-crank`, 12 joint rows of rank 11), Haug's pendulum with its pin given
//! twice (`redundant-pendulum`, 3 rows of rank 2) and the 4-window four-bar chain in body
//! coordinates with an extra crank (`four-bar-chain-extra`, 30 rows of rank 29). Each run starts from `initialize` (which
//! meets the singular KKT matrix first) and must
//! - leave out the rows `mbsim check` names (`t2_y`; `rod`) and report them in
//!   `Stats::redundancy` at t0, with λ = 0 on them (ALI3-P leaves out none: its iteration
//!   matrix stays regular; `ali3p_redundant.rs` compares the two);
//! - follow the exact 1-DOF reduction (a compound pendulum, ψ̈ = −κ sin ψ, integrated here by
//!   RK4 at h = 1e-4: its error, ~1e-14, is far below every bound below);
//! - keep every row satisfied, the left-out ones included (`Stats::redundant_drift`), and
//!   conserve the energy where the method does.
//!
//! The structural methods (HPIM, NPC) take structures, not these mechanisms: their
//! over-constrained cases are in `structural_redundant.rs`.
//!
//! Tolerances: the adaptive methods run at rtol 1e-8, the bound on ψ is 1e-5 (global error
//! of a few hundred steps at 1e-8, with margin); the order-2 implicit methods at h = 1e-3 over
//! 2 s have errors ~ (ωh)² ψ_max ~ 1e-5 (ω ≈ 3.5), bound 1e-3; every stabilized method holds
//! |Φ| ≤ 1e-8 at every step point.

use mbsim_models::{FourBarChainExtra, RedundantPendulum, TripleCrank};
use mbsim_runtime::analysis::check;
use mbsim_runtime::tableau::RK4;
use mbsim_runtime::{
    Abm, Adams, AdamsKind, AdamsScheme, AdamsStart, Ali3p, Baumgarte, ConstrainedSystem, FixedStep,
    HybridOptions, Implicit, InitOptions, Integrator, PartitionOptions, Problem, Radau,
    ReselectionCause, Rkstab, Scheme, Stabilization, StepSize, initialize, integrate,
};

/// ψ(t) of ψ̈ = −κ sin ψ from (ψ0, 0) at the `times`, by RK4 at h = 1e-4.
pub(crate) fn compound_pendulum(kappa: f64, psi0: f64, times: &[f64]) -> Vec<f64> {
    compound_pendulum_from(kappa, (psi0, 0.0), times)
}

/// ψ(t) of ψ̈ = −κ sin ψ from (ψ0, ψ̇0) at the `times`, by RK4 at h = 1e-4.
pub(crate) fn compound_pendulum_from(kappa: f64, start: (f64, f64), times: &[f64]) -> Vec<f64> {
    let f = |(p, w): (f64, f64)| (w, -kappa * p.sin());
    let (mut z, mut t, h) = (start, 0.0_f64, 1e-4_f64);
    let mut out = Vec::new();
    for &target in times {
        while t < target - 1e-12 {
            let dt = h.min(target - t);
            let k1 = f(z);
            let k2 = f((z.0 + dt / 2.0 * k1.0, z.1 + dt / 2.0 * k1.1));
            let k3 = f((z.0 + dt / 2.0 * k2.0, z.1 + dt / 2.0 * k2.1));
            let k4 = f((z.0 + dt * k3.0, z.1 + dt * k3.1));
            z.0 += dt / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
            z.1 += dt / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            t += dt;
        }
        out.push(z.0);
    }
    out
}

/// One over-constrained model: the system, its consistent start, the rows `check` names,
/// the reduction's κ and ψ0, and ψ read off q.
pub(crate) struct Case {
    pub(crate) name: &'static str,
    pub(crate) sys: Box<dyn ConstrainedSystem>,
    pub(crate) q0: Vec<f64>,
    pub(crate) v0: Vec<f64>,
    pub(crate) redundant: Vec<String>,
    pub(crate) kappa: f64,
    pub(crate) psi0: f64,
    pub(crate) psi: fn(&[f64]) -> f64,
}

pub(crate) fn triple_crank() -> Case {
    let sys = TripleCrank::chosen();
    let (q0, v0) = sys.branch_state(1.0, 0.0);
    // crank1's φ (coordinates x, y, φ per body in declaration order) is ψ − π/2.
    Case {
        name: "triple-crank",
        kappa: sys.kappa(),
        psi0: 1.0,
        psi: |q| q[5] + std::f64::consts::FRAC_PI_2,
        redundant: Vec::new(),
        sys: Box::new(sys),
        q0,
        v0,
    }
}

pub(crate) fn redundant_pendulum() -> Case {
    // Haug's pendulum body: centre of mass at l from the pivot, J' = 1/3 about it:
    // (m l² + J') φ̈ = −m g l cos φ; with ψ = φ + π/2 from the downward vertical,
    // ψ̈ = −κ sin ψ, κ = m g l / (m l² + J').
    let sys = RedundantPendulum::chosen();
    let kappa = sys.m * sys.g * sys.l / (sys.m * sys.l.powi(2) + sys.j);
    let phi0 = -std::f64::consts::FRAC_PI_2 + 0.8;
    let q0 = vec![sys.l * phi0.cos(), sys.l * phi0.sin(), phi0];
    Case {
        name: "redundant-pendulum",
        kappa,
        psi0: 0.8,
        psi: |q| q[2] + std::f64::consts::FRAC_PI_2,
        redundant: Vec::new(),
        sys: Box::new(sys),
        q0,
        v0: vec![0.0; 3],
    }
}

pub(crate) fn four_bar_chain_extra() -> Case {
    // θ̈ = −κ cos θ with ψ = θ + π/2 from the downward vertical: ψ̈ = −κ sin ψ. Crank 0's φ is
    // coordinate 2B (B = 10 bodies).
    let sys = FourBarChainExtra::unit();
    let (q0, v0) = sys.branch_state(-std::f64::consts::FRAC_PI_2 + 0.8, 0.0);
    Case {
        name: "four-bar-chain-extra",
        kappa: sys.kappa(),
        psi0: 0.8,
        psi: |q| q[20] + std::f64::consts::FRAC_PI_2,
        redundant: Vec::new(),
        sys: Box::new(sys),
        q0,
        v0,
    }
}

/// The methods: (name, method, bound on ψ's error, whether the method conserves energy to
/// its accuracy).
/// Makes a method behind [`Run`].
pub(crate) type Make = Box<dyn Fn() -> Box<dyn Run>>;

pub(crate) fn methods() -> Vec<(&'static str, Make, f64)> {
    fn rk(stab: Stabilization) -> Rkstab {
        Rkstab::new(1e-8).with_stabilization(stab)
    }
    let gcp = Stabilization::Partitioned(PartitionOptions::default());
    let hybrid = Stabilization::Hybrid(HybridOptions::default());
    let baumgarte = Stabilization::Baumgarte(Baumgarte {
        alpha: 5.0,
        beta: 5.0,
    });
    let adams = |kind| Adams::new(AdamsScheme::new(kind, 4, AdamsStart::RungeKutta), 1e-3);
    let implicit = |scheme| {
        Implicit::new(scheme, StepSize::Fixed(1e-3)).with_stabilization(Stabilization::VelocityOnly)
    };
    vec![
        (
            "rkstab/pstab",
            boxed(move || rk(Stabilization::PStab)),
            1e-5,
        ),
        (
            "rkstab/s-both",
            boxed(move || rk(Stabilization::SBoth)),
            1e-5,
        ),
        (
            "rkstab/s-full",
            boxed(move || rk(Stabilization::SFull)),
            1e-5,
        ),
        (
            "rkstab/velocity",
            boxed(move || rk(Stabilization::VelocityOnly)),
            1e-5,
        ),
        ("rkstab/ggt", boxed(move || rk(Stabilization::GGt)), 1e-5),
        ("rkstab/baumgarte", boxed(move || rk(baumgarte)), 1e-5),
        ("rkstab/gcp", boxed(move || rk(gcp)), 1e-5),
        ("rkstab/hybrid", boxed(move || rk(hybrid)), 1e-5),
        ("abm", boxed(|| Abm::new(1e-8)), 1e-5),
        ("ab4", boxed(move || adams(AdamsKind::Ab)), 1e-5),
        ("mampc4", boxed(move || adams(AdamsKind::Mampc)), 1e-5),
        ("rk4", boxed(|| FixedStep::new(RK4, 1e-3)), 1e-5),
        (
            "newmark",
            boxed(move || {
                implicit(Scheme::Newmark {
                    beta: 0.25,
                    gamma: 0.5,
                })
            }),
            1e-3,
        ),
        (
            "hht",
            boxed(move || implicit(Scheme::Hht { alpha: -0.1 })),
            1e-3,
        ),
        (
            "generalized-alpha",
            boxed(move || implicit(Scheme::GeneralizedAlpha { rho_inf: 0.8 })),
            1e-3,
        ),
        // ALI3-P selects no rows (its iteration matrix M + (h²/4)αGᵀG stays regular).
        ("ali3p", boxed(|| Ali3p::new(1e-3)), 1e-3),
        (
            "radau",
            boxed(|| {
                Radau::new(Implicit::adaptive(1e-8)).with_stabilization(Stabilization::VelocityOnly)
            }),
            1e-5,
        ),
    ]
}

/// A method behind one object-safe call.
pub(crate) trait Run {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<Outcome, String>;
}

pub(crate) struct Outcome {
    pub(crate) t: Vec<f64>,
    pub(crate) q: Vec<Vec<f64>>,
    pub(crate) stats: mbsim_runtime::Stats,
}

impl<I: Integrator> Run for I {
    fn run(&self, sys: &dyn ConstrainedSystem, p: &Problem) -> Result<Outcome, String> {
        let (rec, end) = integrate(sys, self, p).map_err(|e| e.to_string())?;
        Ok(Outcome {
            t: rec.t,
            q: rec.q,
            stats: end.stats,
        })
    }
}

fn boxed<I: Integrator + 'static>(f: impl Fn() -> I + 'static) -> Make {
    Box::new(move || Box::new(f()) as Box<dyn Run>)
}

fn check_case(mut case: Case, failures: &mut Vec<String>) {
    let init = initialize(
        case.sys.as_ref(),
        0.0,
        &case.q0,
        &case.v0,
        &InitOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{}: initialize: {e}", case.name));
    // The rows `mbsim check` names at the start are the ones every method must leave out.
    let diagnosis = check(case.sys.as_ref(), 0.0, &init.q).expect("check");
    case.redundant = diagnosis
        .jacobian
        .redundant
        .iter()
        .map(|r| r.row.name.clone())
        .collect();
    assert_eq!(case.redundant.len(), 1, "{}: one redundant row", case.name);
    let t_end = 2.0;
    let times: Vec<f64> = (0..=20).map(|i| t_end * i as f64 / 20.0).collect();
    let exact = compound_pendulum(case.kappa, case.psi0, &times);
    let names = case.sys.constraint_names();
    let problem = Problem::new(0.0, t_end, &init.q, &init.v).with_times(&times);
    for (method, make, bound) in methods() {
        let what = format!("{}/{method}", case.name);
        let out = match make().run(case.sys.as_ref(), &problem) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{what}: {e}"));
                continue;
            }
        };
        let err = out
            .q
            .iter()
            .zip(&exact)
            .map(|(q, e)| ((case.psi)(q) - e).abs())
            .fold(0.0, f64::max);
        // The rows left out at the first selection (later ones follow the motion when the kept
        // rows lose conditioning, `ReselectionCause::Conditioning`).
        let left_out: Vec<&str> = out
            .stats
            .redundancy
            .first()
            .map(|r| r.left_out.iter().map(|&i| names[i].as_str()).collect())
            .unwrap_or_default();
        eprintln!(
            "{what}: |ψ − ψ_exact| {err:.2e}, drift {:.1e}, redundant drift {:.1e}, left out {left_out:?}, {}",
            out.stats.max_drift.max(),
            out.stats.redundant_drift.max(),
            out.stats
        );
        assert_eq!(out.t.len(), times.len());
        // NaN fails too.
        if err.is_nan() || err > bound {
            failures.push(format!("{what}: error {err:.3e} > {bound:e}"));
        }
        if out.stats.max_drift.position > 1e-8 {
            failures.push(format!("{what}: drift {:e}", out.stats.max_drift.position));
        }
        // The explicit methods select at t0 (their first KKT solve); the implicit ones at
        // their first factorization, at the end of the first step; ALI3-P never.
        if method == "ali3p" {
            if !out.stats.redundancy.is_empty() {
                failures.push(format!("{what}: selected rows {:?}", out.stats.redundancy));
            }
            continue;
        }
        match out.stats.redundancy.first() {
            Some(r) if r.t <= 1e-2 && r.cause == ReselectionCause::RankLoss => {
                if left_out != case.redundant {
                    failures.push(format!(
                        "{what}: left out {left_out:?}, check says {:?}",
                        case.redundant
                    ));
                }
            }
            other => failures.push(format!("{what}: no selection in the first step: {other:?}")),
        }
    }
}

#[test]
fn over_constrained_models_run_with_every_method() {
    let mut failures = Vec::new();
    check_case(triple_crank(), &mut failures);
    check_case(redundant_pendulum(), &mut failures);
    check_case(four_bar_chain_extra(), &mut failures);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// With `extra_tip_y` left out, the KKT solve factors the kept rows' system, whose RCM
/// ordering and band are those of the chain with the row deleted by hand
/// (`FourBarChainExtraReduced`): half-width 5, not the 8 of the whole pattern.
#[test]
fn the_kept_rows_are_factored_in_the_reduced_models_band() {
    use mbsim_models::FourBarChainExtraReduced;
    use mbsim_runtime::{KktLayout, KktWorkspace, accelerations_into};
    let full = FourBarChainExtra::unit();
    let reduced = FourBarChainExtraReduced::unit();
    let (q0, v0) = full.branch_state(-std::f64::consts::FRAC_PI_2 + 0.8, 0.0);
    let init = initialize(&full, 0.0, &q0, &v0, &InitOptions::default()).expect("start");
    let layout = |sys: &dyn ConstrainedSystem| {
        let d = sys.dims();
        let mut ws = KktWorkspace::new(d);
        let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
        accelerations_into(
            sys,
            0.0,
            &init.q,
            &init.v,
            None,
            &mut ws,
            0.0,
            &mut vdot,
            &mut lambda,
        )
        .expect("factored");
        (
            ws.layout(),
            ws.compact_layout(),
            ws.row_selection().left_out().len(),
        )
    };
    let (whole, kept, left_out) = layout(&full);
    let (twin, none, _) = layout(&reduced);
    assert_eq!(left_out, 1);
    assert_eq!(none, None);
    assert_eq!(kept, twin);
    assert!(
        matches!(twin, Some(KktLayout::Banded { bandwidth: 5, .. })),
        "{twin:?}"
    );
    assert!(
        matches!(whole, Some(KktLayout::Banded { bandwidth: 8, .. })),
        "{whole:?}"
    );
}
