//! `mbsim repro <table>`: the thesis' experiments (\[CHIN\] Tables 2.1, 2.2, 3.1, 4.1, 4.2,
//! 4.6, 4.7, 4.8, the ch. 2 drift studies `p5`, `p5-baumgarte` and the trend experiments
//! `p10`, `p11` of §4.5–4.6), our figures printed beside the published ones with ratios, the acceptance checks of
//! the issue, a CSV per table and the drift plots. Ch. 2 is in [`chin2`] (Tables 2.1/2.2 on
//! `mbsim::dae`, the semi-explicit DAEs with B ≠ Gᵀ) and [`chin2_drift`] (Figs. 2.1–2.6, with
//! the heat maps of `heat_map.rs`). The other experiments are in
//! [`andrews`] (4.1, 4.2, Figs. 4.3/4.4), [`manipulator`] (3.1, 4.6, 4.7), [`slider`] (4.8) and [`trends`] (P10, P11);
//! [`chin5`] the deformable slider-crank of Ch. 5 (Figs. 5.5–5.11, with the implicit HHT-α;
//! `chin5_start` its unstated start angle swept).
//! The Adams family's tables: [`wu`] (\[WU\] Table 2, Table 3, the α-sweep), [`haug`] (\[HAUG\]
//! Tables 7.4.1–7.4.4/7.4.10) and [`haug_adams`] (7.4.6–7.4.9, Example 7.4.5, 7.4.11/12).
//! \[HPIM\]'s Tables 1, 2 and Figs. 3–4, 6–7: [`hpim`]. The IFToMM basic set A01–A05 as a
//! benchmark beside EXUDYN: [`iftomm`] (`repro iftomm`, not part of `all`: its peer runs for
//! minutes).
//!
//! Verdicts: a table's checks are checks of this code against its source, and a failed one
//! makes `repro` exit non-zero; a table that is a reading the source's own numbers rule out is
//! marked [`Table::rejected`] (its checks shown, not counted), and a statement the source
//! contradicts is a [`Finding`] with its computed reason, never a failure.
//!
//! Every run goes through the runtime's integrators (`Rkstab`, the fixed-step Heun driver);
//! nothing is re-implemented here.

pub mod andrews;
pub mod chin2;
pub mod chin2_drift;
pub mod chin5;
mod chin5_start;
pub mod continuous;
pub mod five_link;
pub mod haug;
pub mod haug_adams;
mod heat_map;
pub mod hpim;
pub mod iftomm;
pub mod manipulator;
pub mod multistep;
pub mod slider;
pub mod trends;
pub mod wu;

use std::fmt::Write as _;
use std::path::Path;

use mbsim::runtime::{Drift, InitOptions, Recorder, Rkstab, Stats};

use super::simulate;
use crate::error::AppError;

/// One row of a reproduced table: our numbers and the published ones, column by column.
pub struct Row {
    /// Row label (e.g. "NFCN PStab").
    pub label: String,
    /// Our values.
    pub ours: Vec<f64>,
    /// The published values (`None` where the thesis has none).
    pub published: Vec<Option<f64>>,
}

/// A published statement that is not a check of this code, shown with what it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Finding {
    /// The statement.
    pub what: String,
    /// Its verdict.
    pub verdict: Verdict,
    /// Why, with the numbers that show it.
    pub reason: String,
}

/// The verdict on a [`Finding`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The source contradicts itself: no model can agree with every statement it makes.
    SourceContradiction,
}

impl Verdict {
    /// The tag printed in brackets.
    pub fn tag(self) -> &'static str {
        match self {
            Verdict::SourceContradiction => "SOURCE CONTRADICTS ITSELF",
        }
    }
}

/// A reproduced table.
pub struct Table {
    /// Identifier ("4.1").
    pub id: &'static str,
    /// Caption.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows.
    pub rows: Vec<Row>,
    /// Acceptance checks: (description, passed). A failed one is a real failure unless the
    /// table is a [`Table::rejected`] reading.
    pub checks: Vec<(String, bool)>,
    /// Statements of the source that are not checks of this code (shown, never failures).
    pub findings: Vec<Finding>,
    /// `Some(why)`: the table is a reading of an unstated choice that the source's own numbers
    /// rule out, shown for comparison; its checks are printed as such and count for nothing.
    pub rejected: Option<String>,
    /// Remarks printed under the table.
    pub notes: Vec<String>,
}

impl Table {
    /// Render as text: per row, ours / published / ratio lines.
    pub fn render(&self) -> String {
        let mut s = format!("\n=== Table {}: {}\n{:<28}", self.id, self.title, "");
        for c in &self.columns {
            let _ = write!(s, " {c:>12}");
        }
        s.push('\n');
        for r in &self.rows {
            let fmt = |x: f64| {
                if x.is_nan() {
                    format!("{:>12}", "-")
                } else if x != 0.0 && (x.abs() < 1e-2 || x.abs() >= 1e6) {
                    format!("{x:>12.2e}")
                } else if x.fract() == 0.0 {
                    format!("{x:>12.0}")
                } else {
                    format!("{x:>12.5}")
                }
            };
            let _ = write!(s, "{:<28}", format!("{} (ours)", r.label));
            r.ours
                .iter()
                .for_each(|&x| s.push_str(&format!(" {}", fmt(x))));
            s.push('\n');
            if r.published.iter().any(Option::is_some) {
                let _ = write!(s, "{:<28}", "  published");
                r.published.iter().for_each(|p| {
                    s.push_str(&format!(" {}", p.map_or(format!("{:>12}", "-"), fmt)))
                });
                s.push('\n');
                let _ = write!(s, "{:<28}", "  ratio ours/published");
                for (o, p) in r.ours.iter().zip(&r.published) {
                    let ratio = p
                        .filter(|_| o.is_finite())
                        .map(|p| format!("{:>12.3}", o / p));
                    s.push_str(&format!(
                        " {}",
                        ratio.unwrap_or_else(|| format!("{:>12}", "-"))
                    ));
                }
                s.push('\n');
            }
        }
        for n in &self.notes {
            let _ = writeln!(s, "note: {n}");
        }
        if let Some(why) = &self.rejected {
            let _ = writeln!(s, "rejected reading: {why}");
        }
        for (c, ok) in &self.checks {
            let tag = match (&self.rejected, ok) {
                (Some(_), true) => "rejected reading; would pass",
                (Some(_), false) => "rejected reading; does not hold",
                (None, true) => "PASS",
                (None, false) => "FAIL",
            };
            let _ = writeln!(s, "check [{tag}] {c}");
        }
        for f in &self.findings {
            let _ = writeln!(s, "check [{}] {}: {}", f.verdict.tag(), f.what, f.reason);
        }
        s
    }

    /// The checks that failed for real (none for a rejected reading), as `Table id: check`.
    pub fn failures(&self) -> Vec<String> {
        if self.rejected.is_some() {
            return Vec::new();
        }
        self.checks
            .iter()
            .filter(|c| !c.1)
            .map(|c| format!("Table {}: {}", self.id, c.0))
            .collect()
    }

    /// Write `table_<id>.csv` (row, column, ours, published, ratio) into `dir`.
    pub fn write_csv(&self, dir: &Path) -> Result<(), AppError> {
        let path = dir.join(format!("table_{}.csv", self.id.replace('.', "_")));
        let err = |e: csv::Error| AppError::Io {
            path: path.clone(),
            source: std::io::Error::other(e),
        };
        let mut w = csv::Writer::from_path(&path).map_err(err)?;
        w.write_record(["row", "column", "ours", "published", "ratio"])
            .map_err(err)?;
        for r in &self.rows {
            for (j, c) in self.columns.iter().enumerate() {
                let p = r.published.get(j).copied().flatten();
                let ratio = p.map_or(String::new(), |p| format!("{:e}", r.ours[j] / p));
                let rec = [
                    r.label.clone(),
                    c.clone(),
                    format!("{:e}", r.ours[j]),
                    p.map_or(String::new(), |p| format!("{p:e}")),
                    ratio,
                ];
                w.write_record(&rec).map_err(err)?;
            }
        }
        w.flush().map_err(|source| AppError::Io {
            path: path.clone(),
            source,
        })
    }
}

/// The published values as `Some`.
pub fn published(values: &[f64]) -> Vec<Option<f64>> {
    values.iter().map(|&v| Some(v)).collect()
}

/// The outcome of one RKSTAB run of a registry model.
pub struct Outcome {
    /// Counters.
    pub stats: Stats,
    /// Maximum drift over the stabilized step points.
    pub drift: Drift,
    /// Samples on the grid.
    pub rec: Recorder,
    /// Drift at every step point.
    pub step_drift: Vec<(f64, Drift)>,
    /// CPU time of the integration (s).
    pub cpu: f64,
}

/// Run the registry model `name` (default parameters, consistent start) with RKSTAB `opts` on
/// [0, t_end], sampling every `dt` for plots.
pub fn rkstab(name: &str, opts: Rkstab, t_end: f64, dt: f64) -> Result<Outcome, AppError> {
    rkstab_with(name, &[], opts, t_end, dt)
}

/// [`rkstab`] with parameter overrides.
pub fn rkstab_with(
    name: &str,
    params: &[(&str, f64)],
    opts: Rkstab,
    t_end: f64,
    dt: f64,
) -> Result<Outcome, AppError> {
    let info = crate::registry::entry(name)?;
    let mut sys = (info.build)();
    for (p, v) in params {
        sys.set_parameter(p, *v)?;
    }
    let (q0, v0) = (info.initial)(sys.as_ref());
    let init = mbsim::runtime::initialize(sys.as_ref(), 0.0, &q0, &v0, &InitOptions::default())?;
    let grid = simulate::output_times(t_end, dt);
    let opts = super::method::Chosen::Rkstab(opts);
    let r = simulate::integrate(sys.as_ref(), &init, opts, t_end, &grid, (true, true))?;
    Ok(Outcome {
        stats: r.stats,
        drift: r.max_drift_steps,
        rec: r.rec,
        step_drift: r.step_drift,
        cpu: r.timing.cpu.as_secs_f64(),
    })
}

/// The table names `repro` accepts.
pub const TABLES: [&str; 32] = [
    "2.1",
    "2.2",
    "p5",
    "p5-baumgarte",
    "continuous",
    "3.1",
    "4.1",
    "4.2",
    "4.6",
    "4.7",
    "4.8",
    "p8",
    "p10",
    "p11",
    "chin5",
    "pstab-adams",
    "wu2",
    "wu3",
    "wu-alpha",
    "7.4.1",
    "7.4.2",
    "7.4.3",
    "7.4.4",
    "7.4.6",
    "7.4.7",
    "7.4.8",
    "ex7.4.5",
    "7.4.11",
    "hpim1",
    "hpim2",
    "hpim-slot",
    "hpim-beam",
];

/// Run the reproduction `table` (or `all`) and write its files into `out`.
pub fn run(table: &str, out: &Path) -> Result<(), AppError> {
    let which: Vec<&str> = match table {
        "all" => TABLES.to_vec(),
        "iftomm" => vec!["iftomm"],
        t if TABLES.contains(&t) => vec![t],
        t => return Err(AppError::UnknownTable(t.to_string())),
    };
    std::fs::create_dir_all(out).map_err(|source| AppError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let mut failed = Vec::new();
    for id in which {
        let t = match id {
            "2.1" => chin2::table_2_1()?,
            "2.2" => chin2::table_2_2()?,
            "p5" => chin2_drift::p5(out)?,
            "p5-baumgarte" => chin2_drift::p5_baumgarte(out)?,
            "continuous" => continuous::table()?,
            "3.1" => manipulator::table_3_1(out)?,
            "4.1" => andrews::table_4_1(out)?,
            "4.2" => andrews::table_4_2(out)?,
            "4.6" => manipulator::table_4_6(out)?,
            "4.7" => {
                let variant = manipulator::table_4_7(out, 0.5)?;
                crate::say!("{}", variant.render());
                variant.write_csv(out)?;
                failed.extend(variant.failures());
                manipulator::table_4_7(out, 1.0)?
            }
            "4.8" => slider::table_4_8(out)?,
            "p8" => five_link::table()?,
            "p10" => trends::p10(out)?,
            "pstab-adams" => multistep::pstab_adams(out)?,
            "wu2" => wu::table_2(out)?,
            "wu3" => wu::table_3()?,
            "wu-alpha" => wu::alpha_sweep()?,
            "7.4.1" => haug::table_7_4_1(),
            "7.4.2" => haug::table_7_4_2(),
            "7.4.3" => haug::table_7_4_3()?,
            "7.4.4" => haug::table_7_4_4(),
            "7.4.6" => haug_adams::table_ab_start(0.1)?,
            "7.4.7" => haug_adams::table_ab_start(0.01)?,
            "7.4.8" => haug_adams::table_7_4_8()?,
            "ex7.4.5" => haug_adams::example_7_4_5()?,
            "7.4.11" => haug_adams::table_7_4_11()?,
            "chin5" => chin5::figures(out)?,
            "hpim1" => hpim::table_1()?,
            "hpim2" => hpim::table_2()?,
            "hpim-slot" => hpim::slot_figures()?,
            "hpim-beam" => hpim::beam_figures()?,
            "iftomm" => iftomm::table(
                out,
                iftomm::Settings {
                    span_scale: 1.0,
                    peer: true,
                },
            )?,
            _ => trends::p11(out)?,
        };
        crate::say!("{}", t.render());
        t.write_csv(out)?;
        failed.extend(t.failures());
    }
    crate::say!("\nwrote CSV files and plots into {}", out.display());
    if failed.is_empty() {
        crate::say!(
            "all acceptance checks passed (rejected readings and statements the source \
             contradicts are shown, not checked)"
        );
        Ok(())
    } else {
        crate::say!("acceptance checks that did not pass (see the notes):");
        failed.iter().for_each(|f| crate::say!("  {f}"));
        Err(AppError::ChecksFailed(failed.len()))
    }
}
