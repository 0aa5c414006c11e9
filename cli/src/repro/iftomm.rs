//! `mbsim repro iftomm`: the basic set of the IFToMM library of computational benchmark
//! problems (A01 simple pendulum, A02 N-four-bar, A03 Andrews' squeezer, A04 Bricard, A05 the
//! stiff flyball governor) at the benchmark's settings, each to its high-accuracy class, with
//! the accuracy reached and the CPU time in the library's reporting format (problem, accuracy,
//! CPU time, the machine), beside EXUDYN running A01–A03 in the same run
//! (`tests/peers/exudyn/iftomm.py`, EXUDYN's own Python API and its generalized-α solver).
//!
//! **Settings.** A01: 2000 s, P1 = (x, y) at 4000 output steps; A02: 20 s, B0 = (x, y) at 400
//! output steps; both with the high class 1e-3 and the threshold 1e-3 of their specifications
//! (lim.ii.udc.es/mbsbenchmark, A01/A02_specification.xml). A03: β on [0, 0.03] (the
//! Hairer–Wanner interval) at 300 outputs; A04: P3 = (x, y, z) over 10 s at 400 outputs
//! (the span of the benchmark's description as reproduced by MBS-BOS); A05: the slider's height
//! over 10 s at 400 outputs. The A03–A05 specifications were not found in a stored copy: their
//! output counts and monitored quantities are our choice, with the same class and threshold.
//!
//! **Accuracy** is e = max over the output steps and the monitored components of
//! |y − y_ref| / max(|y_ref|, threshold): relative error, absolute error scaled by the
//! threshold where the reference is smaller (our reading of "measured with N output steps and a
//! threshold"; near a zero crossing it asks for an absolute error of about 1e-6).
//!
//! **References.** A01: the closed form (released at rest from the horizontal: the angle from
//! the downward vertical is φ = 2 asin(k sn(K − ωt, k)), k = sin 45°, ω = √(g/l); sn by the
//! arithmetic–geometric mean). A02: the chain's exact 1-DOF reduction θ̈ = −κ cos θ
//! (`mbsim_models::four_bar_chain::kappa`) by classical RK4 at h = 1e-5 s. Both are independent
//! of the DAE solvers, and are compared with SciPy's (`ellipj`, DOP853 at 1e-13) that the peer
//! script writes. A03–A05: our own runs at tolerances 10³–10⁴ times tighter (RKSTAB; Radau for
//! the stiff A05), i.e. self-convergence, said so in the table.
//!
//! **CPU time** is the thread CPU time of the integration (the initial consistent state and the
//! kernels' generation are not counted); EXUDYN's is `time.process_time()` around
//! `SolveDynamic`. The peer runs under `$ORACLE_PYTHON` or the workspace's `.venv/bin/python`
//! (`tests/oracle/requirements.txt` pins exudyn); without it the table says so and the check
//! that it ran fails.

use std::path::{Path, PathBuf};

use mbsim::runtime::{
    Abm, ConstrainedSystem, InitOptions, Radau, Rkstab, StepControl, StepSize, Tolerance,
    initialize,
};

use super::{Row, Table};
use crate::error::AppError;
use crate::method::Chosen;

/// The high-accuracy class and the threshold of the benchmark.
pub const HIGH_CLASS: f64 = 1e-3;
const THRESHOLD: f64 = 1e-3;
const G: f64 = 9.81;

/// How `repro iftomm` runs: the spans scaled by `span_scale` (1 for the benchmark; the quick
/// test uses a short fraction), with or without the EXUDYN peer.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Factor on every problem's span (and on EXUDYN's number of steps).
    pub span_scale: f64,
    /// Run the EXUDYN peer on A01–A03.
    pub peer: bool,
}

/// One problem of the set.
struct Problem {
    id: &'static str,
    what: &'static str,
    model: &'static str,
    t_end: f64,
    outputs: usize,
    /// Our method at the benchmark run, and at the reference run (A03–A05).
    method: fn() -> Chosen,
    reference: Reference,
    /// Initial velocities replaced (A02: B0 moving along +x, as the specification says).
    v0: Option<fn(usize) -> Vec<f64>>,
    /// The monitored quantities at (t, q).
    monitored: fn(&dyn ConstrainedSystem, f64, &[f64]) -> Vec<f64>,
}

enum Reference {
    PendulumClosedForm,
    ChainReduction,
    Tight(fn() -> Chosen),
}

fn rkstab(rtol: f64) -> Chosen {
    Chosen::Rkstab(Rkstab::new(rtol).with_atol(rtol))
}

fn abm(rtol: f64) -> Chosen {
    let mut m = Abm::new(rtol);
    m.atol = Tolerance::Scalar(rtol);
    Chosen::Abm(m)
}

fn radau(rtol: f64) -> Chosen {
    Chosen::Radau(Radau::new(StepSize::Adaptive {
        rtol: Tolerance::Scalar(rtol),
        atol: Tolerance::Scalar(rtol),
        control: StepControl::default(),
    }))
}

fn problems() -> [Problem; 5] {
    [
        Problem {
            id: "A01",
            what: "simple pendulum, P1 (x, y)",
            model: "pendulum",
            t_end: 2000.0,
            outputs: 4000,
            method: || abm(1e-13),
            reference: Reference::PendulumClosedForm,
            v0: None,
            monitored: |_, _, q| vec![q[0], q[1]],
        },
        Problem {
            id: "A02",
            what: "N-four-bar (N = 40), B0 (x, y)",
            model: "four-bar-chain",
            t_end: 20.0,
            outputs: 400,
            method: || rkstab(1e-9),
            reference: Reference::ChainReduction,
            v0: Some(|n| vec![-1.0; n]),
            monitored: |_, _, q| vec![q[0].cos(), q[0].sin()],
        },
        Problem {
            id: "A03",
            what: "Andrews' squeezer, beta",
            model: "andrews",
            t_end: 0.03,
            outputs: 300,
            method: || rkstab(1e-8),
            reference: Reference::Tight(|| rkstab(1e-12)),
            v0: None,
            monitored: |_, _, q| vec![q[0]],
        },
        Problem {
            id: "A04",
            what: "Bricard, P3 (x, y, z)",
            model: "bricard",
            t_end: 10.0,
            outputs: 400,
            method: || rkstab(1e-9),
            reference: Reference::Tight(|| rkstab(1e-12)),
            v0: None,
            monitored: |sys, t, q| match sys.as_drawing() {
                Some(d) => d.points3(t, q)[3].to_vec(),
                None => vec![f64::NAN; 3],
            },
        },
        Problem {
            id: "A05",
            what: "flyball governor, slider height",
            model: "flyball-governor",
            t_end: 10.0,
            outputs: 400,
            method: || radau(1e-7),
            reference: Reference::Tight(|| radau(1e-10)),
            v0: None,
            monitored: |sys, _, q| {
                let names = sys.coordinate_names();
                let z = names.iter().position(|n| *n == "slider_z");
                vec![z.map_or(f64::NAN, |i| q[i])]
            },
        },
    ]
}

/// A run of ours: the monitored values at `times` and the CPU time of the integration.
struct Run {
    values: Vec<Vec<f64>>,
    cpu: f64,
    nstep: usize,
}

fn run_ours(p: &Problem, method: Chosen, t_end: f64, times: &[f64]) -> Result<Run, AppError> {
    let entry = crate::registry::entry(p.model)?;
    let sys = (entry.build)();
    let (q0, mut v0) = (entry.initial)(sys.as_ref());
    if let Some(v) = p.v0 {
        v0 = v(v0.len());
    }
    let init = initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default())?;
    let r = crate::simulate::integrate(sys.as_ref(), &init, method, t_end, times, (false, false))?;
    let values = (r.rec.t.iter().zip(&r.rec.q))
        .map(|(&t, q)| (p.monitored)(sys.as_ref(), t, q))
        .collect();
    Ok(Run {
        values,
        cpu: r.timing.cpu.as_secs_f64(),
        nstep: r.stats.nstep,
    })
}

/// Jacobi's sn(u, m) by the arithmetic–geometric mean (Abramowitz & Stegun 16.4), and K(m).
pub fn jacobi_sn(u: f64, m: f64) -> (f64, f64) {
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    let mut c = vec![m.sqrt()];
    let mut an = vec![a];
    while c.last().is_some_and(|c| c.abs() > 1e-16) && c.len() < 40 {
        let (a1, b1) = ((a + b) / 2.0, (a * b).sqrt());
        c.push((a - b) / 2.0);
        (a, b) = (a1, b1);
        an.push(a);
    }
    let n = c.len() - 1;
    let mut phi = 2f64.powi(n as i32) * a * u;
    for k in (1..=n).rev() {
        phi = (phi + (c[k] / an[k] * phi.sin()).asin()) / 2.0;
    }
    (phi.sin(), std::f64::consts::PI / (2.0 * a))
}

/// A01's closed form at t: P1 = (sin φ, −cos φ) for l = 1.
pub fn pendulum_reference(t: f64) -> Vec<f64> {
    let k = std::f64::consts::FRAC_PI_4.sin();
    let (_, big_k) = jacobi_sn(0.0, k * k);
    let (sn, _) = jacobi_sn(big_k - G.sqrt() * t, k * k);
    let phi = 2.0 * (k * sn).asin();
    vec![phi.sin(), -phi.cos()]
}

/// A02's reduction θ̈ = −κ cos θ from (π/2, −1), RK4 at h ≤ 1e-5, B0 = (cos θ, sin θ) at the
/// (increasing) `times`.
pub fn chain_reference(times: &[f64]) -> Vec<Vec<f64>> {
    let kappa = mbsim_models::four_bar_chain::kappa(40, 1.0, G);
    let f = |y: [f64; 2]| [y[1], -kappa * y[0].cos()];
    let (mut t, mut y) = (0.0, [std::f64::consts::FRAC_PI_2, -1.0]);
    let mut out = Vec::with_capacity(times.len());
    for &target in times {
        while t < target {
            let h = (target - t).min(1e-5);
            let k1 = f(y);
            let k2 = f([y[0] + h / 2.0 * k1[0], y[1] + h / 2.0 * k1[1]]);
            let k3 = f([y[0] + h / 2.0 * k2[0], y[1] + h / 2.0 * k2[1]]);
            let k4 = f([y[0] + h * k3[0], y[1] + h * k3[1]]);
            for i in 0..2 {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            t = if h < 1e-5 { target } else { t + h };
        }
        out.push(vec![y[0].cos(), y[0].sin()]);
    }
    out
}

/// The benchmark's accuracy of `values` against `reference` (module docs).
pub fn accuracy(values: &[Vec<f64>], reference: &[Vec<f64>]) -> f64 {
    let mut worst = 0.0_f64;
    for (y, r) in values.iter().zip(reference) {
        for (a, b) in y.iter().zip(r) {
            let e = (a - b).abs() / b.abs().max(THRESHOLD);
            worst = if e.is_nan() { f64::NAN } else { worst.max(e) };
        }
    }
    if values.len() != reference.len() {
        return f64::NAN;
    }
    worst
}

fn reference_at(p: &Problem, t_end: f64, times: &[f64]) -> Result<Vec<Vec<f64>>, AppError> {
    Ok(match p.reference {
        Reference::PendulumClosedForm => times.iter().map(|&t| pendulum_reference(t)).collect(),
        Reference::ChainReduction => chain_reference(times),
        Reference::Tight(method) => run_ours(p, method(), t_end, times)?.values,
    })
}

/// The peer's result on one problem.
struct Peer {
    times: Vec<f64>,
    values: Vec<Vec<f64>>,
    cpu: f64,
    steps: u64,
    /// SciPy's reference (A01, A02), at `times`.
    scipy: Option<Vec<Vec<f64>>>,
    /// Where and why SolveDynamic stopped early.
    failed: Option<(f64, String)>,
}

fn python() -> PathBuf {
    std::env::var_os("ORACLE_PYTHON").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.venv/bin/python"),
        PathBuf::from,
    )
}

fn read_csv(path: &Path) -> Result<Vec<Vec<f64>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .map(|l| {
            l.split(',')
                .map(|v| v.trim().parse::<f64>().map_err(|e| format!("{l}: {e}")))
                .collect()
        })
        .collect()
}

/// Run the peer script on A01–A03; `Err` says why there is no peer result.
fn run_peer(out: &Path, span_scale: f64) -> Result<Vec<(String, Peer)>, String> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/peers/exudyn/iftomm.py");
    let dir = out.join("exudyn");
    let python = python();
    let output = std::process::Command::new(&python)
        .arg(&script)
        .arg("--out")
        .arg(&dir)
        .args(["--span-scale", &span_scale.to_string()])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", python.display()))?;
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let last: Vec<&str> = err.lines().rev().take(3).collect();
        return Err(format!(
            "{} {} failed ({}): {} (install: .venv/bin/pip install -r tests/oracle/requirements.txt)",
            python.display(),
            script.display(),
            output.status,
            last.join(" | ")
        ));
    }
    let json = std::fs::read_to_string(dir.join("exudyn.json")).map_err(|e| e.to_string())?;
    let report: serde_json::Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
    let mut peers = Vec::new();
    for id in ["A01", "A02", "A03"] {
        let entry = &report["problems"][id];
        let rows = read_csv(&dir.join(format!("exudyn_{id}.csv")))?;
        let scipy = match id {
            "A03" => None,
            _ => Some(read_csv(&dir.join(format!("reference_{id}.csv")))?),
        };
        peers.push((
            id.to_string(),
            Peer {
                times: rows.iter().map(|r| r[0]).collect(),
                values: rows.iter().map(|r| r[1..].to_vec()).collect(),
                cpu: entry["cpu_seconds"].as_f64().unwrap_or(f64::NAN),
                steps: entry["steps"].as_u64().unwrap_or(0),
                scipy: scipy.map(|s| s.iter().map(|r| r[1..].to_vec()).collect()),
                failed: entry["failed"].as_object().map(|f| {
                    let t = f.get("t").and_then(serde_json::Value::as_f64);
                    let why = f.get("error").and_then(serde_json::Value::as_str);
                    (t.unwrap_or(f64::NAN), why.unwrap_or("stopped").to_string())
                }),
            },
        ));
    }
    let version = report["peer"].as_str().unwrap_or("EXUDYN").to_string();
    peers.push((version, Peer::empty()));
    Ok(peers)
}

impl Peer {
    fn empty() -> Peer {
        Peer {
            times: Vec::new(),
            values: Vec::new(),
            cpu: f64::NAN,
            steps: 0,
            scipy: None,
            failed: None,
        }
    }
}

/// The machine, as the benchmark's reports state it: CPU model and operating system.
pub fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    let os = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|s| {
            s.lines().find(|l| l.starts_with("PRETTY_NAME=")).map(|l| {
                l.trim_start_matches("PRETTY_NAME=")
                    .trim_matches('"')
                    .to_string()
            })
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    format!("{cpu} ({cores} cores visible), {os}, one thread")
}

/// The table of `repro iftomm` (module docs).
pub fn table(out: &Path, settings: Settings) -> Result<Table, AppError> {
    let peer = match settings.peer {
        true => run_peer(out, settings.span_scale),
        false => Err("not run (--no-peer)".to_string()),
    };
    let mut rows = Vec::new();
    let mut notes = vec![format!("machine: {}", machine())];
    let (mut checks, mut ratios) = (Vec::new(), Vec::new());
    for p in problems() {
        let t_end = p.t_end * settings.span_scale;
        let times: Vec<f64> = (0..=p.outputs)
            .map(|i| t_end * i as f64 / p.outputs as f64)
            .collect();
        let ours = run_ours(&p, (p.method)(), t_end, &times)?;
        let reference = reference_at(&p, t_end, &times)?;
        let e_ours = accuracy(&ours.values, &reference);
        checks.push((
            format!("{} ({}): ours reaches the high-accuracy class (e = {e_ours:.2e} <= {HIGH_CLASS:.0e})", p.id, p.what),
            e_ours <= HIGH_CLASS,
        ));
        let peer_result = peer
            .as_ref()
            .ok()
            .and_then(|v| v.iter().find(|(id, _)| id == p.id));
        let (e_peer, cpu_peer) = match peer_result {
            Some((_, r)) => {
                let reference = reference_at(&p, t_end, &r.times)?;
                if let Some(scipy) = &r.scipy {
                    let agree = accuracy(scipy, &reference);
                    checks.push((
                        format!(
                            "{}: our reference and SciPy's agree (e = {agree:.1e} <= 1e-8)",
                            p.id
                        ),
                        agree <= 1e-8,
                    ));
                }
                notes.push(format!(
                    "{}: EXUDYN generalized-alpha, {} steps (h = {:.3e} s)",
                    p.id,
                    r.steps,
                    t_end / r.steps as f64
                ));
                match &r.failed {
                    Some((t, why)) => {
                        notes.push(format!(
                            "{}: EXUDYN stopped at t = {t:.4} s of {t_end} s ({why}), after {:.2} s of CPU; \
                             accuracy up to there {:.2e}",
                            p.id,
                            r.cpu,
                            accuracy(&r.values, &reference)
                        ));
                        (f64::NAN, f64::NAN)
                    }
                    None => (accuracy(&r.values, &reference), r.cpu),
                }
            }
            None => (f64::NAN, f64::NAN),
        };
        let ratio = cpu_peer / ours.cpu;
        if ratio.is_finite() {
            ratios.push((
                p.id,
                ratio,
                e_peer <= HIGH_CLASS,
                e_ours <= e_peer.max(HIGH_CLASS),
            ));
        }
        let reference_kind = match p.reference {
            Reference::PendulumClosedForm => "closed form",
            Reference::ChainReduction => "1-DOF reduction, RK4",
            Reference::Tight(_) => "ours, tolerance x1e-3..1e-4",
        };
        notes.push(format!(
            "{}: {}, {} s, {} outputs; ours {} steps; reference: {reference_kind}",
            p.id, p.what, t_end, p.outputs, ours.nstep
        ));
        rows.push(Row {
            label: format!("{} {}", p.id, method_name(&(p.method)())),
            ours: vec![e_ours, ours.cpu, e_peer, cpu_peer, ratio],
            published: Vec::new(),
        });
    }
    match &peer {
        Ok(v) => {
            let version = v.last().map_or("EXUDYN", |(name, _)| name.as_str());
            notes.push(format!(
                "peer: {version} (tests/peers/exudyn/iftomm.py), same run, same machine"
            ));
            checks.push((
                "EXUDYN measured on A01, A02, A03 in the same run".to_string(),
                true,
            ));
        }
        Err(why) => {
            notes.push(format!("peer: EXUDYN {why}"));
            checks.push((
                format!("EXUDYN measured on A01, A02, A03 in the same run ({why})"),
                !settings.peer,
            ));
        }
    }
    for (id, ratio, peer_in_class, equal_or_better) in ratios {
        notes.push(format!(
            "{id}: EXUDYN / ours CPU = {ratio:.1} (goal >= 20 at equal or better accuracy: {}; EXUDYN {} the high class)",
            if ratio >= 20.0 && equal_or_better { "met" } else { "not met" },
            if peer_in_class { "reaches" } else { "does not reach" }
        ));
    }
    Ok(Table {
        id: "iftomm",
        title: format!(
            "IFToMM basic set A01-A05, high-accuracy class {HIGH_CLASS:.0e}{}",
            if settings.span_scale == 1.0 {
                String::new()
            } else {
                format!(" (spans x {})", settings.span_scale)
            }
        ),
        columns: [
            "accuracy",
            "CPU [s]",
            "EXUDYN acc",
            "EXUDYN CPU",
            "CPU ratio",
        ]
        .map(String::from)
        .to_vec(),
        rows,
        checks,
        findings: Vec::new(),
        rejected: None,
        notes,
    })
}

fn method_name(m: &Chosen) -> &'static str {
    match m {
        Chosen::Rkstab(_) => "RKSTAB",
        Chosen::Radau(_) => "Radau",
        Chosen::Abm(_) => "ABM",
        _ => "other",
    }
}
