//! NPC, the Newmark predictor–corrector of \[HPIM\]'s comparison (our reconstruction,
//! `runtime/src/hpim/npc.rs`), held to the conformance of every method: its order of
//! convergence against a tight RKSTAB reference on a nonlinear (circular slot) constraint, its
//! agreement with the closed form on an unconstrained oscillator, its constraint drift without
//! and with the penalty of (32), and its counters.

use crate::common;

use std::sync::Arc;

use common::{Model, Sys, assert_below, assert_within};
use mbsim_runtime::{
    ConstrainedSystem, Dims, Integrator, Load, MatOut, Npc, Penalty, Problem, Rkstab, Structural,
    Structure, TimeFunction, integrate,
};
use nalgebra::{DMatrix, DVector};

/// A fixed–free chain of `n` unit masses and springs `k`, loaded at its tip.
fn chain(n: usize, k: f64, load: TimeFunction) -> Structure {
    let mut stiffness = DMatrix::zeros(n, n);
    for i in 0..n {
        stiffness[(i, i)] += k;
        if i > 0 {
            stiffness[(i - 1, i - 1)] += k;
            stiffness[(i - 1, i)] -= k;
            stiffness[(i, i - 1)] -= k;
        }
    }
    let mut st = Structure::undamped(DMatrix::identity(n, n), stiffness);
    let mut shape = DVector::zeros(n);
    shape[n - 1] = 1.0;
    st.loads.push(Load { shape, time: load });
    st
}

/// The constraint on the chain: (i) the last two DOFs on a circle of radius e through 0,
/// Φ = (x_a − e)² + x_b² − e², or (ii) the tip driven, Φ = x_tip − A sin ωt.
enum Tip {
    Slot { e: f64 },
    Driven { amp: f64, omega: f64 },
}

struct Constraint {
    n: usize,
    tip: Tip,
}

impl Model for Constraint {
    fn name(&self) -> &'static str {
        "chain-tip"
    }
    fn dims(&self) -> Dims {
        Dims {
            n: self.n,
            m: 1,
            k: 0,
        }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let (a, b) = (self.n - 2, self.n - 1);
        out[0] = match self.tip {
            Tip::Slot { e } => (q[a] - e).powi(2) + q[b].powi(2) - e * e,
            Tip::Driven { amp, omega } => q[b] - amp * (omega * t).sin(),
        };
    }
    fn phi_q(&self, _t: f64, q: &[f64], out: &mut MatOut<'_>) {
        let (a, b) = (self.n - 2, self.n - 1);
        match self.tip {
            Tip::Slot { e } => {
                out[(0, a)] = 2.0 * (q[a] - e);
                out[(0, b)] = 2.0 * q[b];
            }
            Tip::Driven { .. } => out[(0, b)] = 1.0,
        }
    }
    fn phi_t(&self, t: f64, _q: &[f64], out: &mut [f64]) {
        out[0] = match self.tip {
            Tip::Slot { .. } => 0.0,
            Tip::Driven { amp, omega } => -amp * omega * (omega * t).cos(),
        };
    }
    fn gamma(&self, t: f64, _q: &[f64], v: &[f64], out: &mut [f64]) {
        let (a, b) = (self.n - 2, self.n - 1);
        out[0] = match self.tip {
            Tip::Slot { .. } => -2.0 * (v[a].powi(2) + v[b].powi(2)),
            Tip::Driven { amp, omega } => -amp * omega * omega * (omega * t).sin(),
        };
    }
    fn mass(&self, _t: f64, _q: &[f64], _out: &mut MatOut<'_>) {}
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
}

fn system(n: usize, tip: Tip, load: TimeFunction) -> Structural<Sys<Constraint>> {
    Structural::new(chain(n, 400.0, load), Sys(Constraint { n, tip }))
}

/// The consistent start of the driven tip: D = 0, the tip's velocity A ω.
fn start(sys: &Structural<Sys<Constraint>>) -> (Vec<f64>, Vec<f64>) {
    let n = sys.dims().n;
    let mut v0 = vec![0.0; n];
    if let Tip::Driven { amp, omega } = sys.constraints.0.tip {
        v0[n - 1] = amp * omega;
    }
    (vec![0.0; n], v0)
}

fn end_state<I: Integrator, S: ConstrainedSystem>(
    sys: &S,
    m: &I,
    (q0, v0): (Vec<f64>, Vec<f64>),
    t_end: f64,
) -> Vec<f64> {
    let p = Problem::new(0.0, t_end, &q0, &v0);
    let (_, sol) = integrate(sys, m, &p).expect("run");
    sol.q.iter().chain(&sol.v).copied().collect()
}

fn dist(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn npc(sys: &Structural<Sys<Constraint>>, tau: f64) -> Npc {
    Npc::new(Arc::new(sys.structure.clone()), tau)
}

#[test]
fn npc_converges_at_first_order_on_the_slot() {
    let sys = system(4, Tip::Slot { e: 0.05 }, TimeFunction::sine(5.0, 2.0));
    let t_end = 0.5;
    let reference = end_state(
        &sys,
        &Rkstab::new(1e-12).with_atol(1e-14),
        start(&sys),
        t_end,
    );
    let errs: Vec<f64> = [4e-3, 2e-3, 1e-3, 5e-4]
        .iter()
        .map(|&tau| {
            dist(
                &end_state(&sys, &npc(&sys, tau), start(&sys), t_end),
                &reference,
            )
        })
        .collect();
    let orders: Vec<f64> = errs.windows(2).map(|w| (w[0] / w[1]).log2()).collect();
    println!("NPC errors {errs:?}, observed orders {orders:?}");
    // Average-acceleration Newmark is second order, but λ̃ comes from the predicted state,
    // whose velocity D̃' = D' + τ/2 D''_k misses γτ D''_{k+1}: O(τ) off. The slot's γ is
    // quadratic in the velocity, so the force is O(τ) wrong in every step, the velocity
    // O(τ²) per step and O(τ) globally: NPC is first order on a velocity-dependent
    // constraint (measured 0.97–0.99). The order must be 1 within 0.3.
    for o in orders {
        assert_within("NPC observed order", o, 0.7, 1.3);
    }
}

#[test]
fn npc_matches_the_closed_form_of_an_unconstrained_oscillator() {
    // m x'' + k x = F sin θt from rest: x = F/(k − mθ²)(sin θt − (θ/ω) sin ωt). A chain of
    // two unit masses with the tip held at 0 (driven with amplitude 0) is one mass on two
    // springs, k_eff = 2k.
    let (k, f, theta) = (400.0_f64, 3.0, 5.0_f64);
    let sys = system(
        2,
        Tip::Driven {
            amp: 0.0,
            omega: 1.0,
        },
        TimeFunction::Harmonic {
            omega: theta,
            sin_amp: 0.0,
            cos_amp: 0.0,
        },
    );
    // With the tip held, mass 1 sees springs k (to ground) and k (to the held tip): 2k.
    let mut st = sys.structure.clone();
    st.loads[0].shape = DVector::from_vec(vec![f, 0.0]);
    st.loads[0].time = TimeFunction::sine(1.0, theta / (2.0 * std::f64::consts::PI));
    let sys = Structural::new(
        st,
        Sys(Constraint {
            n: 2,
            tip: Tip::Driven {
                amp: 0.0,
                omega: 1.0,
            },
        }),
    );
    let omega = (2.0 * k).sqrt();
    let t_end = 1.0;
    let exact = f / (2.0 * k - theta * theta)
        * ((theta * t_end).sin() - theta / omega * (omega * t_end).sin());
    for tau in [1e-3, 5e-4] {
        let got = end_state(&sys, &npc(&sys, tau), (vec![0.0; 2], vec![0.0; 2]), t_end);
        // Trapezoidal Newmark: period error (ωτ)²/12 relative (ω = 28.3 rad/s), so after
        // ω t_end = 28.3 rad the free vibration's phase is off by 28.3 (ωτ)²/12 = 1.9e-3 rad
        // at τ = 1e-3; times its amplitude F/(2k − θ²) θ/ω = 6.8e-4 that is 1.3e-6 (measured
        // 2.0e-6 with the forced part's error). Bound: 3 (ωτ)² · 1.3e-6 / (ω · 1e-3)², i.e.
        // 4e-6 at τ = 1e-3, a quarter at τ = 5e-4 (second order without constraint force).
        let bound = 4e-6 * (tau / 1e-3_f64).powi(2);
        assert_below(
            &format!("|x − exact| at τ = {tau}"),
            (got[0] - exact).abs(),
            bound,
        );
    }
}

/// max |Φ| over [0, t_end] (the layer's per-step drift) and |Φ| at the end.
fn drift(sys: &Structural<Sys<Constraint>>, m: &Npc, t_end: f64) -> (f64, f64) {
    let (q0, v0) = start(sys);
    let p = Problem::new(0.0, t_end, &q0, &v0);
    let (_, sol) = integrate(sys, m, &p).expect("run");
    let mut phi = [0.0];
    sys.phi_into(t_end, &sol.q, &mut phi);
    (sol.stats.max_drift.position, phi[0].abs())
}

#[test]
fn npc_drifts_without_the_penalty_and_the_penalty_slows_it() {
    let sys = system(
        4,
        Tip::Driven {
            amp: 0.005,
            omega: 2.0 * std::f64::consts::PI,
        },
        TimeFunction::constant(10.0),
    );
    let tau = 1e-3;
    let (short, _) = drift(&sys, &npc(&sys, tau), 0.2);
    let (long, _) = drift(&sys, &npc(&sys, tau), 1.0);
    println!("NPC max |Φ| without penalty: over 0.2 s {short:e}, over 1 s {long:e}");
    // The paper's Table 2: NPC's violation grows with time (4.9x from 0.2 to 1 s); ask 2x.
    assert!(long > 2.0 * short, "NPC drift {short:e} -> {long:e}");
    // The paper's Table 1 gains.
    let penalty = Penalty {
        kappa1: 1e5,
        kappa2: 1e8,
        p: 2,
        q: 2,
    };
    let (with_short, _) = drift(&sys, &npc(&sys, tau).with_penalty(penalty), 0.2);
    let (with_long, _) = drift(&sys, &npc(&sys, tau).with_penalty(penalty), 1.0);
    println!("NPC max |Φ| with penalty: over 0.2 s {with_short:e}, over 1 s {with_long:e}");
    // The penalty slows the growth (measured 5.8x from 0.2 to 1 s without, 1.7x with); at
    // these violations (~1e-6) the quadratic terms κ₂Φ² are weak, so it does not remove it.
    // Ask for at most half the growth.
    assert_below(
        "NPC growth 0.2 s -> 1 s, with penalty / without",
        (with_long / with_short) / (long / short),
        0.5,
    );
}

#[test]
fn npc_statistics_snapshot() {
    // One multiplier solve per step (at the predicted point) and one at the start.
    let sys = system(4, Tip::Slot { e: 0.05 }, TimeFunction::constant(5.0));
    let (_, sol) = integrate(
        &sys,
        &npc(&sys, 1e-3),
        &Problem::new(0.0, 0.1, &[0.0; 4], &[0.0; 4]),
    )
    .expect("run");
    let s = &sol.stats;
    assert_eq!(
        s.nfcn,
        s.nstep + 1,
        "one multiplier solve per step, one at the start"
    );
    insta::assert_snapshot!(format!(
        "nstep={} naccpt={} nrejct={} nfcn={}",
        s.nstep, s.naccpt, s.nrejct, s.nfcn
    ));
}
