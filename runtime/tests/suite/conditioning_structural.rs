//! The conditioning monitor of HPIM and NPC (issue 12, item 4): both report the worst pivot
//! spread of their multiplier matrix S = E M⁻¹ Eᵀ (`Stats::conditioning`). A spring chain held
//! by a fixed row Φ₁ = D₀ and a turning guide Φ₂ = D₀ cos θ(t) + D₁ sin θ(t) loses the rank of
//! E whenever sin θ = 0 (the guide then repeats the first row): a run whose guide turns through
//! θ = π must show a spread decades above a run whose guide swings about π/2.

use crate::common;

use std::sync::Arc;

use common::{Model, Sys, assert_below};
use mbsim_runtime::{
    Conditioning, Dims, Hpim, Integrator, Load, MatOut, Npc, Problem, Structural, Structure,
    TimeFunction, integrate,
};
use nalgebra::{DMatrix, DVector};

const N: usize = 4;

/// θ(t), θ'(t), θ''(t) of the guide.
#[derive(Clone, Copy)]
enum Guide {
    /// θ = 2 + 2t: through π at t = (π − 2)/2 ≈ 0.571.
    Turning,
    /// θ = π/2 + 0.5 sin 2t: sin θ ≥ cos 0.5 ≈ 0.88.
    Swinging,
}

impl Guide {
    fn angle(self, t: f64) -> [f64; 3] {
        match self {
            Guide::Turning => [2.0 + 2.0 * t, 2.0, 0.0],
            Guide::Swinging => {
                let (s, c) = (2.0 * t).sin_cos();
                [std::f64::consts::FRAC_PI_2 + 0.5 * s, c, -2.0 * s]
            }
        }
    }
}

/// Φ = (D₀, D₀ cos θ + D₁ sin θ): D₀ = D₁ = 0 is the motion, whatever θ.
struct TurningGuide(Guide);

impl Model for TurningGuide {
    fn name(&self) -> &'static str {
        "turning-guide"
    }
    fn dims(&self) -> Dims {
        Dims { n: N, m: 2, k: 0 }
    }
    fn phi(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let (s, c) = self.0.angle(t)[0].sin_cos();
        out[0] = q[0];
        out[1] = q[0] * c + q[1] * s;
    }
    fn phi_q(&self, t: f64, _q: &[f64], out: &mut MatOut<'_>) {
        let (s, c) = self.0.angle(t)[0].sin_cos();
        out[(0, 0)] = 1.0;
        out[(1, 0)] = c;
        out[(1, 1)] = s;
    }
    fn phi_t(&self, t: f64, q: &[f64], out: &mut [f64]) {
        let [th, w, _] = self.0.angle(t);
        let (s, c) = th.sin_cos();
        out[0] = 0.0;
        out[1] = w * (-q[0] * s + q[1] * c);
    }
    fn gamma(&self, t: f64, q: &[f64], v: &[f64], out: &mut [f64]) {
        // Φ₂'' = c D₀'' + s D₁'' + 2θ'(−s D₀' + c D₁') + θ''(−s D₀ + c D₁) − θ'²(c D₀ + s D₁).
        let [th, w, acc] = self.0.angle(t);
        let (s, c) = th.sin_cos();
        out[0] = 0.0;
        out[1] = -(2.0 * w * (-s * v[0] + c * v[1]) + acc * (-s * q[0] + c * q[1])
            - w * w * (c * q[0] + s * q[1]));
    }
    fn mass(&self, _t: f64, _q: &[f64], _out: &mut MatOut<'_>) {}
    fn force(&self, _t: f64, _q: &[f64], _v: &[f64], _out: &mut [f64]) {}
}

/// A free chain of unit masses and springs 100 under a harmonic load at its end.
fn structure() -> Structure {
    let mut k = DMatrix::zeros(N, N);
    for i in 1..N {
        k[(i - 1, i - 1)] += 100.0;
        k[(i, i)] += 100.0;
        k[(i - 1, i)] -= 100.0;
        k[(i, i - 1)] -= 100.0;
    }
    let mut st = Structure::undamped(DMatrix::identity(N, N), k);
    let mut shape = DVector::zeros(N);
    shape[N - 1] = 1.0;
    st.loads.push(Load {
        shape,
        time: TimeFunction::sine(1.0, 3.0),
    });
    st
}

fn worst<I: Integrator>(method: &I, guide: Guide) -> Conditioning {
    let sys = Structural::new(structure(), Sys(TurningGuide(guide)));
    let problem = Problem::new(0.0, 1.0, &[0.0; N], &[0.0; N]);
    let (_, solution) = integrate(&sys, method, &problem).expect("run");
    solution
        .stats
        .conditioning
        .expect("a constrained structure factors S")
}

#[test]
fn the_multiplier_spread_peaks_where_the_guide_repeats_the_fixed_row() {
    let st = Arc::new(structure());
    let tau = 1e-3;
    let crossing_time = (std::f64::consts::PI - 2.0) / 2.0;
    type Run = Box<dyn Fn(Guide) -> Conditioning>;
    let hpim = Hpim::new(st.clone(), tau);
    let npc = Npc::new(st, tau);
    let methods: [(&str, Run); 2] = [
        ("hpim", Box::new(move |g| worst(&hpim, g))),
        ("npc", Box::new(move |g| worst(&npc, g))),
    ];
    for (name, run) in methods {
        let (turning, swinging) = (run(Guide::Turning), run(Guide::Swinging));
        println!("{name}: turning {turning:?}, swinging {swinging:?}");
        // S's pivots are ~1 and ~sin²θ (unit masses): the steps of 1e-3 s put a solve within
        // 5e-4 s, 1e-3 rad, of θ = π, so the turning spread is at least ~1e6 while the swing's
        // is at most 1/cos²0.5 ≈ 1.3; 1e-3 asks for three of those six decades.
        assert_below(
            &format!("{name}: swinging spread / turning spread"),
            swinging.spread / turning.spread,
            1e-3,
        );
        assert_below(
            &format!("{name}: |t_worst − crossing|"),
            (turning.t - crossing_time).abs(),
            tau,
        );
    }
}
