//! \[WU\] (digest §2.5 and P1): Table 2, the stability limits of ABP_k, AMPC_k and MAMPC_k on the
//! negative real axis, from the characteristic polynomials (`adams::stability`); Table 3, the
//! crank-slider's mean constraint error for AMPC_3 and MAMPC_3 at h = 0.01 and 0.001
//! (Baumgarte α = β = 5, T = 10 s, exact consistent start, RK start; ambiguities 2–5); and the
//! α-sweep of Fig. 7 (h = 0.01, α = β: AMPC_3 unstable from α = 168, MAMPC_3 stable up to 188).
//!
//! The runs go through the runtime's `Adams` integrator on the catalog's `crank-slider-wu`.

use std::path::Path;

use mbsim::runtime::adams::stability::{Family, stability_limit, stability_region};
use mbsim::runtime::{
    Adams, AdamsKind, AdamsScheme, AdamsStart, Baumgarte, ConstrainedSystem, Problem,
    Stabilization, integrate,
};

use super::haug::{Column, digit_table};
use super::{Row, Table, published};
use crate::error::AppError;
use crate::plot::{self, PlotSpec, Series};

/// Table 2: stability limits r (stable on (−r, 0)), rows k = 3, 4, 5, columns ABP, AMPC, MAMPC;
/// with the stability regions of Figs. 1–3 drawn into `out`.
pub fn table_2(out: &Path) -> Result<Table, AppError> {
    for k in 3..=5 {
        stability_figure(out, k)?;
    }
    let limits = |family| -> Vec<f64> { (3..=5).map(|k| stability_limit(family, k).r).collect() };
    let cols = vec![
        Column::new("ABP", 3, limits(Family::Ab), &[0.545, 0.300, 0.164]).correct(
            2,
            0.163,
            "digest §2.5 [CHECK]: the exact limit is 90/551 = 0.16334",
        ),
        Column::new("AMPC", 3, limits(Family::Ampc), &[1.729, 1.285, 0.947]),
        Column::new("MAMPC", 3, limits(Family::Mampc), &[1.935, 1.412, 1.040])
            .with_decimals(&[3, 4, 3])
            .correct(1, 1.4115, "the digest's 4-decimal [CHECK] value; the print 1.412 is 1.4115 rounded a second time, ours rounds to 1.411")
            .correct(2, 1.039, "digest §2.5 [CHECK]: 1.0393"),
    ];
    let mut notes = vec![];
    for family in Family::ALL {
        let detail: Vec<String> = (3..=5)
            .map(|k| {
                let l = stability_limit(family, k);
                format!(
                    "k={k}: r = {:.6}, crossing root {:.4}{:+.4}i",
                    l.r, l.crossing_root.re, l.crossing_root.im
                )
            })
            .collect();
        notes.push(format!("{}: {}", family.label(), detail.join("; ")));
    }
    notes.push("figures fig_wu_stability_k{3,4,5}.png: the regions seen from the origin (first exit along 180 rays of the left half-plane)".into());
    Ok(digit_table(
        "wu2",
        "[WU] Table 2: stability limits on the negative real axis of h*lambda",
        &["k=3".into(), "k=4".into(), "k=5".into()],
        cols,
        notes,
    ))
}

/// \[WU\] Figs. 1–3: the stability regions of ABP_k, AMPC_k and MAMPC_k in the z = hλ plane.
fn stability_figure(out: &Path, k: usize) -> Result<(), AppError> {
    let series: Vec<Series> = Family::ALL
        .iter()
        .map(|&f| Series {
            name: format!("{}_{k}", f.label()),
            points: stability_region(f, k, 180, 5e-3)
                .iter()
                .map(|z| (z.re, z.im))
                .collect(),
        })
        .collect();
    let title = format!("[WU] Figs. 1-3: stability regions, order {k} (boundary seen from z = 0)");
    let spec = PlotSpec {
        title: &title,
        x_label: "Re h lambda",
        y_label: "Im h lambda",
        log_y: false,
    };
    plot::lines(
        &out.join(format!("fig_wu_stability_k{k}.png")),
        &spec,
        &series,
    )
}

/// The outcome of one crank-slider run.
pub struct WuRun {
    /// Mean over the grid points (t_0 … t_N) of ‖Φ(q_i)‖₂.
    pub mean_phi: f64,
    /// Max over the grid points of ‖Φ(q_i)‖₂.
    pub max_phi: f64,
    /// The run's error, if it failed (a blow-up ends in a typed error).
    pub failure: Option<String>,
}

impl WuRun {
    /// Finite and below 1 m of constraint violation (the crank is 0.3 m, the rod 0.5 m): a run
    /// beyond that has lost the mechanism.
    pub fn stable(&self) -> bool {
        self.failure.is_none() && self.max_phi.is_finite() && self.max_phi < 1.0
    }
}

/// Wu's crank-slider by `kind` of order 3 (RK start) with step `h` on [0, 10] and Baumgarte
/// α = β = `alpha`.
pub fn crank_slider(kind: AdamsKind, h: f64, alpha: f64) -> Result<WuRun, AppError> {
    let info = crate::registry::entry("crank-slider-wu")?;
    let sys = (info.build)();
    let (q0, v0) = (info.initial)(sys.as_ref());
    let mut method = Adams::new(AdamsScheme::new(kind, 3, AdamsStart::RungeKutta), h)
        .with_stabilization(Stabilization::Baumgarte(Baumgarte { alpha, beta: alpha }));
    method.common.output_steps = true;
    let problem = Problem::new(0.0, 10.0, &q0, &v0);
    match integrate(sys.as_ref(), &method, &problem) {
        Ok((rec, _)) => {
            let norms: Vec<f64> = rec
                .t
                .iter()
                .zip(&rec.q)
                .map(|(&t, q)| phi_norm(sys.as_ref(), t, q))
                .collect();
            Ok(WuRun {
                mean_phi: norms.iter().sum::<f64>() / norms.len() as f64,
                max_phi: norms
                    .iter()
                    .fold(0.0, |m, &x| if x > m || x.is_nan() { x } else { m }),
                failure: None,
            })
        }
        Err(e) => Ok(WuRun {
            mean_phi: f64::NAN,
            max_phi: f64::NAN,
            failure: Some(e.to_string()),
        }),
    }
}

fn phi_norm(sys: &dyn ConstrainedSystem, t: f64, q: &[f64]) -> f64 {
    let mut phi = vec![0.0; sys.dims().m];
    sys.phi_into(t, q, &mut phi);
    phi.iter().map(|x| x * x).sum::<f64>().sqrt()
}

/// Table 3: mean ‖Φ‖₂ of AMPC_3 and MAMPC_3, h = 0.01 and 0.001; within ±5 % of the print.
pub fn table_3() -> Result<Table, AppError> {
    let mut rows = vec![];
    let mut checks = vec![];
    let printed = [
        (AdamsKind::Ampc, [4.65e-6, 4.14e-9]),
        (AdamsKind::Mampc, [9.8e-7, 9.6e-11]),
    ];
    let mut means = vec![];
    for (kind, pubs) in printed {
        let ours = [0.01, 0.001]
            .iter()
            .map(|&h| crank_slider(kind, h, 5.0).map(|r| r.mean_phi))
            .collect::<Result<Vec<f64>, _>>()?;
        for (j, h) in ["0.01", "0.001"].iter().enumerate() {
            let ratio = ours[j] / pubs[j];
            checks.push((
                format!(
                    "{}_3 at h = {h}: ours {:.3e} / print {:.2e} = {ratio:.3}, within +-5 %",
                    kind_label(kind),
                    ours[j],
                    pubs[j]
                ),
                (0.95..=1.05).contains(&ratio),
            ));
        }
        means.push(ours.clone());
        rows.push(Row {
            label: format!("{}_3", kind_label(kind)),
            ours,
            published: published(&pubs),
        });
    }
    let gain: Vec<f64> = (0..2).map(|j| means[0][j] / means[1][j]).collect();
    // The digest's trend check (MAMPC about 5x better at h = 0.01, about 40x at 0.001) against
    // the print's own ratios 4.74 and 43.1: the ratio of two ±5 % quantities is within about
    // ±10 %, so ±20 % of the printed ratio.
    for (j, h) in ["0.01", "0.001"].iter().enumerate() {
        let printed = printed[0].1[j] / printed[1].1[j];
        checks.push((
            format!("(trend) AMPC_3 / MAMPC_3 at h = {h}: ours {:.1}x, print {printed:.1}x, within +-20 %", gain[j]),
            (gain[j] / printed - 1.0).abs() <= 0.2,
        ));
    }
    rows.push(Row {
        label: "AMPC_3 / MAMPC_3".into(),
        ours: gain,
        published: published(&[
            printed[0].1[0] / printed[1].1[0],
            printed[0].1[1] / printed[1].1[1],
        ]),
    });
    Ok(Table {
        findings: Vec::new(),
        rejected: None,
        id: "wu3",
        title: "[WU] Table 3: crank-slider, mean over the grid of ||Phi(q_i)||_2, Baumgarte alpha = beta = 5, T = 10 s".into(),
        columns: vec!["h = 0.01".into(), "h = 0.001".into()],
        rows,
        checks,
        notes: vec![
            "exact consistent start (ambiguity 4), g = 9.81 (3), T = 10 s (2), the time average of ||Phi||_2 at the step points t_0..t_N (5)".into(),
            "the first 2 steps by the runtime's Runge-Kutta start (Wu: RKF at 1e-15); the digest's own reproduction found 4.68e-6, 4.15e-9, 9.87e-7, 9.73e-11".into(),
        ],
    })
}

fn kind_label(kind: AdamsKind) -> &'static str {
    match kind {
        AdamsKind::Ab => "ABP",
        AdamsKind::Ampc => "AMPC",
        AdamsKind::Mampc => "MAMPC",
    }
}

/// The α values of the sweep.
pub const SWEEP: [f64; 14] = [
    160.0, 165.0, 166.0, 167.0, 168.0, 170.0, 175.0, 180.0, 185.0, 188.0, 189.0, 190.0, 192.0,
    195.0,
];

/// Fig. 7's α-sweep at h = 0.01 (α = β): max ‖Φ‖₂ of each run (NaN where the run failed).
pub fn alpha_sweep() -> Result<Table, AppError> {
    let h = 0.01;
    let mut rows = vec![];
    let mut stable = vec![];
    let mut notes = vec![
        "diverged = the run ends in a typed error, or max ||Phi||_2 reaches 1 m (the crank is 0.3 m, the rod 0.5 m)".into(),
    ];
    for kind in [AdamsKind::Ampc, AdamsKind::Mampc] {
        let runs = SWEEP
            .iter()
            .map(|&a| crank_slider(kind, h, a))
            .collect::<Result<Vec<_>, _>>()?;
        stable.push(runs.iter().map(WuRun::stable).collect::<Vec<bool>>());
        if let Some((a, r)) = SWEEP.iter().zip(&runs).find(|(_, r)| !r.stable()) {
            let how = r
                .failure
                .clone()
                .unwrap_or_else(|| format!("max ||Phi||_2 = {:.2e}", r.max_phi));
            notes.push(format!(
                "{}_3 at alpha = {a}, the first divergence of the sweep: {how}",
                kind_label(kind)
            ));
        }
        rows.push(Row {
            label: format!("{}_3 max ||Phi||_2", kind_label(kind)),
            ours: runs
                .iter()
                .map(|r| if r.stable() { r.max_phi } else { f64::NAN })
                .collect(),
            published: vec![None; SWEEP.len()],
        });
    }
    let at = |a: f64| SWEEP.iter().position(|&s| s == a).unwrap_or(0);
    let ampc_ok = SWEEP
        .iter()
        .zip(&stable[0])
        .all(|(&a, &s)| s == (a < 168.0));
    let mampc_188 = (at(168.0)..=at(188.0)).all(|i| stable[1][i]);
    let mampc_190 = !stable[1][at(190.0)];
    let linear = |f| stability_limit(f, 3).r / h;
    notes.push(format!(
        "linear theory (alpha h <= r of Table 2 for the Baumgarte modes' double eigenvalue -alpha): AMPC_3 alpha <= {:.1}, MAMPC_3 alpha <= {:.1}; the observed limits lie 2-3 % lower (the analysis ignores the modes' coupling with the mechanism's motion)",
        linear(Family::Ampc),
        linear(Family::Mampc)
    ));
    Ok(Table {
        findings: Vec::new(),
        rejected: None,
        id: "wu-alpha",
        title: "[WU] Fig. 7: alpha = beta sweep at h = 0.01 (NaN / '-' = diverged)".into(),
        columns: SWEEP.iter().map(|a| format!("a={a}")).collect(),
        rows,
        checks: vec![
            (
                "AMPC_3 stable for alpha < 168 and unstable for every alpha >= 168 of the sweep"
                    .into(),
                ampc_ok,
            ),
            ("MAMPC_3 stable for 168 <= alpha <= 188".into(), mampc_188),
            ("MAMPC_3 diverged by alpha = 190".into(), mampc_190),
        ],
        notes,
    })
}
