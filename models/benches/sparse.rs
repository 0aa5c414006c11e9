//! The sparse kernel forms and the explicit methods' sparse path (issue 27 items 1–2) on the
//! IFToMM A02 chain in body coordinates (`four-bar-chain-bodies`: n = 243, m = 242), before
//! and after in one run.
//!
//! "Before" is the same generated model behind [`DenseForms`], which hides its sparse forms,
//! so the runtime takes the dense kernels (M and G zero-filled, 243 × 243 and 242 × 243, on
//! every call) exactly as before the sparse path existed; "after" is the model itself.
//! `cargo bench -p mbsim-models --bench sparse` prints, with thread CPU time:
//! - the fused kernel alone (dense `dynamics_into` / `dynamics_nonzeros_into`);
//! - the floor: one `accelerations_into` (fused kernel + banded KKT assembly, factorization
//!   and solve), the least a right-hand side can cost;
//! - the whole integration of the run: RKSTAB (PStab) rtol 1e-8, atol 1e-9, 20 s, no
//!   output but the end point (`mbsim simulate four-bar-chain-bodies --t-end 20 --dt-out 20`),
//!   its NFCN, CPU per right-hand side and that over the floor (goal ≤ 1.3, run ≤ 0.3 s);
//! - and, for the small models, the same integration of the crank-angle form (which has the
//!   sparse forms too) to show the dense models do not pay for them;
//! - the implicit methods (issue 27 item 2): Radau IIA at rtol = atol 1e-6 and 1e-8, Newmark,
//!   HHT-α (α = −0.05), generalized-α (ρ∞ = 0.8) and ALI3-P at h = 1e-3 (ALI3-P's long span
//!   20 s), finite-difference tangents as
//!   `mbsim simulate` takes them for this model: thread CPU per simulated second before (the
//!   dense stage/Newton matrix, dense tangents, on a span short enough for the dense path:
//!   `BEFORE_SPAN`) and after on the same span, and after over a long span (20 s for Radau;
//!   1.2 s for the α family, which fails at the second passage at t = 1.243 with this step,
//!   README "Singular passages"), with the stage/Newton matrix's layout;
//! - the banded LU's parts on the run's KKT matrix: one factorization, one solve, one pair
//!   solve (what a right-hand side and a projection are made of).
//!
//! Criterion then times the floor (wall clock) of both paths.

use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use mbsim::runtime::banded::{BandedLu, bandwidth, reverse_cuthill_mckee};
use mbsim::runtime::{
    Ali3p, ConstrainedSystem, DynamicsNonzeros, DynamicsOut, Implicit, KktLayout, KktWorkspace,
    Problem, Radau, Rkstab, Scheme, Sparsity, Stabilization, Stabilizer, StepSize,
    accelerations_into, integrate,
};
use mbsim_models::four_bar_chain_bodies::FourBarChainBodies;
use mbsim_testkit::{CpuClock, thread_cpu};
use mbsim_tests::dense_forms::DenseForms;
use nalgebra::DMatrix;

/// Mean thread CPU time of `f` over repeated calls for at least `budget` (the clock, a system
/// call of about a microsecond, is read every 64 calls).
fn cpu_mean(budget: Duration, f: impl FnMut()) -> Duration {
    CpuClock::new(budget).batch(64).warm_up().mean(f)
}

/// The run's state: every crank vertical, turning at 1 rad/s (the catalog's start).
fn start() -> (Vec<f64>, Vec<f64>) {
    FourBarChainBodies::unit().branch_state(std::f64::consts::FRAC_PI_2, 1.0)
}

/// One KKT solve's mean CPU time (the floor).
fn floor(sys: &dyn ConstrainedSystem) -> Duration {
    let d = sys.dims();
    let (q, v) = FourBarChainBodies::unit().branch_state(-1.1, 0.7);
    let mut ws = KktWorkspace::new(d);
    let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.constraint_rows()]);
    let mean = cpu_mean(Duration::from_millis(300), || {
        accelerations_into(sys, 0.0, &q, &v, None, &mut ws, 0.0, &mut vdot, &mut lambda)
            .expect("regular")
    });
    if let Some(layout) = ws.layout() {
        println!("({}: KKT layout {layout:?})", sys.name());
    }
    mean
}

/// One PStab projection (its own KKT factorization at the unstabilized point and two passes of
/// position and velocity corrections) from a state off the constraints by ~1e-6.
fn projection(sys: &dyn ConstrainedSystem) -> Duration {
    let (q, v) = FourBarChainBodies::unit().branch_state(-1.1, 0.7);
    let mut stab = Stabilizer::new(Stabilization::PStab, sys.dims());
    let (mut qs, mut vs) = (q.clone(), v.clone());
    cpu_mean(Duration::from_millis(300), || {
        for (i, (a, b)) in qs.iter_mut().zip(&q).enumerate() {
            *a = b + 1e-6 * ((i % 7) as f64 - 3.0);
        }
        vs.copy_from_slice(&v);
        stab.apply(sys, 0.0, 1e-3, &mut qs, &mut vs, 0.0)
            .expect("projection");
    })
}

/// The band of the run's KKT matrix [M Gᵀ; G 0] at the floor's state, under the RCM ordering of
/// its pattern (the one `KktWorkspace` factors; rebuilt here through the public banded API),
/// and a right side [0; r] of the projections' form.
fn kkt_band(sys: &dyn ConstrainedSystem) -> (BandedLu, Vec<f64>, Vec<f64>) {
    let d = sys.dims();
    let (n, r) = (d.n, d.constraint_rows());
    let (q, v) = FourBarChainBodies::unit().branch_state(-1.1, 0.7);
    let (mut mass, mut jac) = (DMatrix::zeros(n, n), DMatrix::zeros(r, n));
    let (mut force, mut gamma) = (vec![0.0; n], vec![0.0; r]);
    let out = DynamicsOut {
        mass: mass.as_view_mut(),
        force: &mut force,
        jacobian: jac.as_view_mut(),
        gamma: &mut gamma,
    };
    sys.dynamics_into(0.0, &q, &v, out);
    let mass_pattern = sys.mass_sparsity().expect("M's pattern").nonzeros;
    let jac_pattern = sys.phi_q_sparsity().nonzeros;
    let mut edges: Vec<(usize, usize)> = mass_pattern.to_vec();
    edges.extend(jac_pattern.iter().map(|&(i, c)| (n + i, c)));
    let order = reverse_cuthill_mckee(n + r, &edges);
    let mut position = vec![0; n + r];
    for (new, &old) in order.iter().enumerate() {
        position[old] = new;
    }
    let b = bandwidth(&edges, &position);
    let mut lu = BandedLu::new(n + r, b, b);
    for &(i, j) in mass_pattern {
        lu.add(position[i], position[j], mass[(i, j)]);
    }
    for &(i, c) in jac_pattern {
        lu.add(position[n + i], position[c], jac[(i, c)]);
        lu.add(position[c], position[n + i], jac[(i, c)]);
    }
    let band = lu.band_mut().to_vec();
    let mut rhs = vec![0.0; n + r];
    for i in 0..r {
        rhs[position[n + i]] = 1e-7 * (i as f64).cos();
    }
    (lu, band, rhs)
}

/// The banded LU's parts of a right-hand side and of a projection, thread CPU time: one
/// factorization (band copied in first, as the assembly's clear and scatter write it), one
/// solve, one pair solve (the projection's passes make two).
fn anatomy(sys: &dyn ConstrainedSystem) -> [Duration; 4] {
    let (mut lu, band, rhs) = kkt_band(sys);
    let budget = Duration::from_millis(200);
    let copy = cpu_mean(budget, || lu.band_mut().copy_from_slice(&band));
    let factor = cpu_mean(budget, || {
        lu.band_mut().copy_from_slice(&band);
        lu.factor().expect("regular");
    });
    let (mut x, mut y) = (rhs.clone(), rhs.clone());
    let solve = cpu_mean(budget, || {
        x.copy_from_slice(&rhs);
        lu.solve_in_place(&mut x);
    });
    let pair = cpu_mean(budget, || {
        x.copy_from_slice(&rhs);
        y.copy_from_slice(&rhs);
        lu.solve_pair_in_place(&mut x, &mut y);
    });
    [copy, factor.saturating_sub(copy), solve, pair]
}

/// The fused kernel alone: dense, or as nonzeros.
fn kernel(sys: &dyn ConstrainedSystem, nonzeros: bool) -> Duration {
    let d = sys.dims();
    let (q, v) = FourBarChainBodies::unit().branch_state(-1.1, 0.7);
    let (mut mass, mut jac) = (DMatrix::zeros(d.n, d.n), DMatrix::zeros(d.m, d.n));
    let nnz = |s: Option<Sparsity>| s.map_or(0, |s| s.nonzeros.len());
    let (mut mass_nz, mut jac_nz) = (
        vec![0.0; nnz(sys.mass_sparsity())],
        vec![0.0; sys.phi_q_sparsity().nonzeros.len()],
    );
    let (mut force, mut gamma) = (vec![0.0; d.n], vec![0.0; d.m]);
    cpu_mean(Duration::from_millis(300), || match nonzeros {
        true => sys.dynamics_nonzeros_into(
            0.0,
            &q,
            &v,
            DynamicsNonzeros {
                mass: &mut mass_nz,
                force: &mut force,
                jacobian: &mut jac_nz,
                gamma: &mut gamma,
            },
        ),
        false => sys.dynamics_into(
            0.0,
            &q,
            &v,
            DynamicsOut {
                mass: mass.as_view_mut(),
                force: &mut force,
                jacobian: jac.as_view_mut(),
                gamma: &mut gamma,
            },
        ),
    })
}

/// What a run reports.
struct RunFigures {
    /// Thread CPU time of the whole integration.
    cpu: Duration,
    /// Post-step projections applied (one per step attempt).
    nstab: usize,
    nfcn: usize,
    /// Crank 0's angle at 20 s.
    angle: f64,
}

/// The run, the best of `reps` by CPU time.
fn run(sys: &dyn ConstrainedSystem, reps: usize) -> RunFigures {
    let (q0, v0) = start();
    let method = Rkstab::new(1e-8)
        .with_atol(1e-9)
        .with_stabilization(Stabilization::PStab);
    let problem = Problem::new(0.0, 20.0, &q0, &v0).with_uniform_output(20.0);
    let mut best: Option<RunFigures> = None;
    for _ in 0..reps {
        let ((rec, sol), cpu) = thread_cpu(|| integrate(sys, &method, &problem).expect("run"));
        let figures = RunFigures {
            cpu,
            nstab: sol.stats.nstab,
            nfcn: sol.stats.nfcn,
            angle: rec.q.last().map_or(f64::NAN, |q| q[2 * 81]),
        };
        if best.as_ref().is_none_or(|b| cpu < b.cpu) {
            best = Some(figures);
        }
    }
    best.expect("at least one run")
}

fn report() {
    let chain = FourBarChainBodies::unit();
    let after: &dyn ConstrainedSystem = &chain;
    let before = DenseForms(after);
    println!(
        "four-bar-chain-bodies (n = 243, m = 242), thread CPU time; RKSTAB/PStab rtol 1e-8, 20 s:"
    );
    println!(
        "{:<7} {:>8} {:>8} {:>8} {:>9} {:>5} {:>5} {:>8} {:>7} {:>9} {:>7} {:>13}",
        "path",
        "kernel",
        "floor",
        "project",
        "run",
        "NFCN",
        "NSTAB",
        "per RHS",
        "/floor",
        "rest",
        "/floor",
        "crank 0, 20 s"
    );
    for (label, sys, nonzeros) in [
        ("before", &before as &dyn ConstrainedSystem, false),
        ("after", after, true),
    ] {
        let (k, f, p) = (kernel(sys, nonzeros), floor(sys), projection(sys));
        let r = run(sys, 3);
        let per = r.cpu / r.nfcn as u32;
        // What is neither a right-hand side at the floor's cost nor a projection: the run
        // loop's own overhead (stages, error norm, controller, drift, dense output), per RHS.
        let accounted = f * r.nfcn as u32 + p * r.nstab as u32;
        let rest = r.cpu.saturating_sub(accounted) / r.nfcn as u32;
        let ratio = |d: Duration| d.as_secs_f64() / f.as_secs_f64();
        println!(
            "{label:<7} {k:>8.1?} {f:>8.1?} {p:>8.1?} {:>9.1?} {:>5} {:>5} {per:>8.1?} {:>7.2} {rest:>9.1?} {:>7.2} {:>13.10}",
            r.cpu,
            r.nfcn,
            r.nstab,
            ratio(per),
            ratio(rest),
            r.angle
        );
    }
    println!(
        "(kernel: the fused kernel alone; floor: one accelerations_into, kernel + KKT solve; \
         project: one PStab projection; run: the whole integration; per RHS: run / NFCN; rest: \
         (run − NFCN·floor − NSTAB·project) / NFCN, the run loop's own overhead)"
    );
    let [copy, factor, solve, pair] = anatomy(after);
    println!(
        "banded LU of the KKT matrix (order 485): band copy {copy:.1?}, factorization \
         {factor:.1?}, solve {solve:.1?}, pair solve {pair:.1?} (a right-hand side: one \
         factorization and one solve; a PStab projection: one factorization and two pair solves)"
    );
}

/// An implicit method of the table.
enum Implicits {
    Radau(f64),
    Alpha(&'static str, Scheme),
    /// ALI3-P at step h (its leading matrix as [W Gᵀ; G −I/s] banded after, dense P before).
    Ali3p(f64),
}

impl Implicits {
    /// The table's rows: (method, span of the "before" run, span of the long "after" run).
    fn rows() -> [(Implicits, f64, f64); 6] {
        let hht = Scheme::Hht { alpha: -0.05 };
        let gen_alpha = Scheme::GeneralizedAlpha { rho_inf: 0.8 };
        [
            (Implicits::Radau(1e-6), 0.2, 20.0),
            (Implicits::Radau(1e-8), 0.1, 20.0),
            (Implicits::Alpha("newmark h 1e-3", Scheme::ME451), 0.02, 1.2),
            (Implicits::Alpha("hht h 1e-3", hht), 0.02, 1.2),
            (Implicits::Alpha("gen-α h 1e-3", gen_alpha), 0.02, 1.2),
            (Implicits::Ali3p(1e-3), 0.02, 20.0),
        ]
    }

    fn name(&self) -> String {
        match self {
            Implicits::Radau(rtol) => format!("radau rtol {rtol:e}"),
            Implicits::Alpha(name, _) => name.to_string(),
            Implicits::Ali3p(h) => format!("ali3p h {h:e}"),
        }
    }

    /// The run from the catalog's start over [0, `span`] (no samples but the end): thread CPU
    /// time, NFCN and crank 0's angle at the end; the layout of its matrix.
    fn run(&self, sys: &dyn ConstrainedSystem, span: f64) -> (Duration, usize, f64, KktLayout) {
        let (q0, v0) = start();
        let problem = Problem::new(0.0, span, &q0, &v0).with_uniform_output(span);
        let ((outcome, layout), cpu) = thread_cpu(|| match self {
            Implicits::Radau(rtol) => {
                let m = Radau::adaptive(*rtol);
                (integrate(sys, &m, &problem), m.layout(sys))
            }
            Implicits::Alpha(_, scheme) => {
                let m = Implicits::alpha(*scheme);
                (integrate(sys, &m, &problem), m.layout(sys))
            }
            Implicits::Ali3p(h) => {
                let m = Ali3p::new(*h);
                (integrate(sys, &m, &problem), m.layout(sys))
            }
        });
        let (rec, sol) = outcome.expect("implicit run");
        let angle = rec.q.last().map_or(f64::NAN, |q| q[2 * 81]);
        (cpu, sol.stats.nfcn, angle, layout)
    }

    fn alpha(scheme: Scheme) -> Implicit {
        Implicit::new(scheme, StepSize::Fixed(1e-3))
    }
}

/// The implicit methods' table (module docs).
fn implicit_report() {
    let chain = FourBarChainBodies::unit();
    let after: &dyn ConstrainedSystem = &chain;
    let before = DenseForms(after);
    println!("\nimplicit methods on four-bar-chain-bodies, thread CPU per simulated second:");
    println!(
        "{:<16} {:>6} {:>10} {:>10} {:>8} {:>6} {:>10} {:>6} {:>13}  layout after",
        "method", "span", "before", "after", "ratio", "long", "after", "NFCN", "crank 0"
    );
    for (method, short, long) in Implicits::rows() {
        let (cpu_before, nfcn_before, angle_before, _) = method.run(&before, short);
        let (cpu_after, nfcn_after, angle_after, layout) = method.run(after, short);
        let (cpu_long, nfcn_long, _, _) = method.run(after, long);
        let per = |cpu: Duration, span: f64| cpu.as_secs_f64() / span;
        println!(
            "{:<16} {short:>6} {:>9.3}s {:>9.4}s {:>8.0} {long:>6} {:>9.4}s {nfcn_long:>6} {:>+13.2e}  {layout:?}",
            method.name(),
            per(cpu_before, short),
            per(cpu_after, short),
            cpu_before.as_secs_f64() / cpu_after.as_secs_f64(),
            per(cpu_long, long),
            angle_after - angle_before,
        );
        assert_eq!(
            nfcn_before,
            nfcn_after,
            "{}: NFCN before/after",
            method.name()
        );
    }
    println!(
        "(before: the dense path, the model's sparse forms hidden; span: [0, span] s of both; \
         long: the after path over [0, long] s; crank 0: its angle at the short span's end, \
         after − before)"
    );
}

fn bench(c: &mut Criterion) {
    report();
    implicit_report();
    let chain = FourBarChainBodies::unit();
    let after: &dyn ConstrainedSystem = &chain;
    let before = DenseForms(after);
    let d = after.dims();
    let (q, v) = chain.branch_state(-1.1, 0.7);
    let mut group = c.benchmark_group("four-bar-chain-bodies accelerations_into");
    for (label, sys) in [
        ("before (dense kernels)", &before as &dyn ConstrainedSystem),
        ("after (nonzeros)", after),
    ] {
        let mut ws = KktWorkspace::new(d);
        let (mut vdot, mut lambda) = (vec![0.0; d.n], vec![0.0; d.m]);
        group.bench_function(label, |b| {
            b.iter(|| {
                accelerations_into(sys, 0.0, &q, &v, None, &mut ws, 0.0, &mut vdot, &mut lambda)
                    .expect("regular")
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
