//! The figures of `mbsim simulate`: grouped subplots that stay readable from 2 to 80
//! coordinates, as PNG (bitmap backend) and, with `--svg`, SVG (the same drawing code, generic
//! over the plotters backend).
//!
//! - `coordinates` and `velocities`: one panel per coordinate up to [`MAX_SINGLE`]
//!   coordinates, otherwise panels of [`PER_PANEL`] coordinates each (with a legend), so two
//!   angles that reach ±600 rad no longer flatten the others; `--wrap-angles` plots chosen
//!   coordinates wrapped to (−π, π], the curve broken at each wrap;
//! - `multipliers`: λ by constraint name, grouped the same way;
//! - `drift`: ‖Φ‖∞ and ‖Φ̇‖∞ on a log axis;
//! - `energy`: T, V and T + V, and the change of T + V from its initial value (models that
//!   state their energy);
//! - `step_size`: the accepted step sizes against t on a log axis.
//!
//! A curve that stays at round-off over the whole run (max |y| ≤ [`ROUND_OFF`] times the
//! largest |y| of any curve of its figure — a coordinate that is zero in exact arithmetic,
//! such as the out-of-plane part of a planar motion) is drawn as 0, its legend and panel title
//! saying so with its actual size ([`quiet`]), instead of as magnified noise.

use std::f64::consts::{PI, TAU};
use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::plot::LOG_FLOOR;
use super::simulate::RunResult;
use crate::error::AppError;

/// A curve whose values all stay within this fraction of its figure's scale is round-off.
pub const ROUND_OFF: f64 = 1e-12;

/// `curves` with those at round-off ([`ROUND_OFF`] × the largest |y| of all of them; exactly
/// zero counts too) replaced by zero, renamed `name (identically 0)` or `name (|y| <= 3.1e-17: round-off,
/// drawn as 0)`. Curves that move are returned unchanged.
pub fn quiet(curves: Vec<Curve>) -> Vec<Curve> {
    let size = |c: &Curve| {
        c.pieces
            .iter()
            .flatten()
            .map(|p| p.1.abs())
            .filter(|y| y.is_finite())
            .fold(0.0_f64, f64::max)
    };
    let scale = curves.iter().map(size).fold(0.0_f64, f64::max);
    curves
        .into_iter()
        .map(|c| {
            let largest = size(&c);
            let any_nonfinite = c.pieces.iter().flatten().any(|p| !p.1.is_finite());
            if any_nonfinite || largest > ROUND_OFF * scale {
                return c;
            }
            let name = if largest == 0.0 {
                format!("{} (identically 0)", c.name)
            } else {
                format!("{} (|y| <= {largest:.1e}: round-off, drawn as 0)", c.name)
            };
            let pieces = c
                .pieces
                .into_iter()
                .map(|piece| piece.into_iter().map(|(x, _)| (x, 0.0)).collect())
                .collect();
            Curve { name, pieces }
        })
        .collect()
}

/// Up to this many curves, each gets its own panel.
pub const MAX_SINGLE: usize = 16;
/// Curves per panel above [`MAX_SINGLE`].
pub const PER_PANEL: usize = 8;

/// One named curve, possibly broken into pieces (a wrapped angle).
pub struct Curve {
    /// Legend text.
    pub name: String,
    /// Connected pieces of (x, y) points.
    pub pieces: Vec<Vec<(f64, f64)>>,
}

/// One set of axes.
pub struct Panel {
    /// Title above the axes.
    pub title: String,
    /// y-axis label.
    pub y_label: String,
    /// Logarithmic y axis.
    pub log_y: bool,
    /// The curves.
    pub curves: Vec<Curve>,
}

/// A titled grid of panels sharing the x quantity.
pub struct Figure {
    /// Title of the whole figure.
    pub title: String,
    /// x-axis label of every panel.
    pub x_label: String,
    /// The panels, row by row.
    pub panels: Vec<Panel>,
    /// x positions marked by a thin vertical line in every panel (the run's events).
    pub marks: Vec<f64>,
}

impl Curve {
    /// A curve from one connected set of points.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Curve {
        Curve {
            name: name.into(),
            pieces: vec![points],
        }
    }

    /// A curve of angles wrapped to (−π, π], broken wherever it wraps.
    pub fn wrapped(name: impl Into<String>, points: &[(f64, f64)]) -> Curve {
        let mut pieces: Vec<Vec<(f64, f64)>> = vec![Vec::new()];
        let mut last: Option<f64> = None;
        for &(x, y) in points {
            let w = y - TAU * ((y + PI) / TAU).floor();
            if last.is_some_and(|l| (w - l).abs() > PI) {
                pieces.push(Vec::new());
            }
            pieces.last_mut().expect("one piece").push((x, w));
            last = Some(w);
        }
        Curve {
            name: format!("{} (wrapped)", name.into()),
            pieces,
        }
    }
}

/// `curves` as panels: one each up to [`MAX_SINGLE`], else [`PER_PANEL`] to a panel.
pub fn grouped(curves: Vec<Curve>, y_label: &str) -> Vec<Panel> {
    if curves.len() <= MAX_SINGLE {
        return curves
            .into_iter()
            .map(|c| Panel {
                title: c.name.clone(),
                y_label: y_label.to_string(),
                log_y: false,
                curves: vec![c],
            })
            .collect();
    }
    let mut panels = Vec::new();
    let mut rest = curves;
    while !rest.is_empty() {
        let tail = rest.split_off(rest.len().min(PER_PANEL));
        let title = format!(
            "{} … {}",
            rest[0].name,
            rest.last().map_or("", |c| c.name.as_str())
        );
        panels.push(Panel {
            title,
            y_label: y_label.to_string(),
            log_y: false,
            curves: rest,
        });
        rest = tail;
    }
    panels
}

/// Write `fig` to `<stem>.png` and, if `svg`, `<stem>.svg`.
pub fn write(dir: &Path, stem: &str, fig: &Figure, svg: bool) -> Result<(), AppError> {
    super::plot::register_font();
    let size = canvas(fig.panels.len());
    let png = dir.join(format!("{stem}.png"));
    let fail = |path: &Path| {
        let path = path.to_path_buf();
        move |message: String| AppError::Plot { path, message }
    };
    draw(BitMapBackend::new(&png, size).into_drawing_area(), fig).map_err(fail(&png))?;
    if svg {
        let path = dir.join(format!("{stem}.svg"));
        draw(SVGBackend::new(&path, size).into_drawing_area(), fig).map_err(fail(&path))?;
    }
    Ok(())
}

/// (columns, rows) of the panel grid.
fn layout(panels: usize) -> (usize, usize) {
    let cols = match panels {
        0..=3 => 1,
        4..=8 => 2,
        _ => 3,
    };
    (cols, panels.div_ceil(cols).max(1))
}

fn canvas(panels: usize) -> (u32, u32) {
    let (cols, rows) = layout(panels);
    let width = if cols == 1 { 1000 } else { 620 * cols as u32 };
    let row_height = if rows == 1 { 560 } else { 240 };
    (width, 50 + row_height * rows as u32)
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure) -> Result<(), String>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    root.fill(&WHITE).map_err(err)?;
    let root = root.titled(&fig.title, ("sans-serif", 24)).map_err(err)?;
    let (cols, rows) = layout(fig.panels.len());
    let areas = root.split_evenly((rows, cols));
    for (area, panel) in areas.iter().zip(&fig.panels) {
        draw_panel(area, panel, &fig.x_label, &fig.marks).map_err(|e| e.to_string())?;
    }
    root.present().map_err(err)
}

fn draw_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    panel: &Panel,
    x_label: &str,
    marks: &[f64],
) -> Result<(), Box<dyn std::error::Error + 'static>>
where
    DB::ErrorType: 'static,
{
    let (x0, x1, y0, y1) = bounds(&panel.curves, panel.log_y);
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&panel.title, ("sans-serif", 17))
        .margin(8)
        .x_label_area_size(34)
        .y_label_area_size(72);
    let legend = panel.curves.len() > 1;
    if panel.log_y {
        let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(&panel.y_label)
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .label_style(("sans-serif", 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        chart.draw_series(event_marks(marks, (x0, x1), (y0, y1)))?;
        for (i, c) in panel.curves.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            for (k, piece) in c.pieces.iter().enumerate() {
                let pts = piece.iter().map(|&(x, y)| (x, y.max(LOG_FLOOR)));
                let drawn = chart.draw_series(LineSeries::new(pts, stroke(color, piece.len())))?;
                if k == 0 && legend {
                    drawn.label(&c.name).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                }
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 13))
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
    } else {
        let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(&panel.y_label)
            .y_label_formatter(&|y| short(*y, y1 - y0))
            .label_style(("sans-serif", 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        chart.draw_series(event_marks(marks, (x0, x1), (y0, y1)))?;
        for (i, c) in panel.curves.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            for (k, piece) in c.pieces.iter().enumerate() {
                let pts = piece.iter().copied();
                let drawn = chart.draw_series(LineSeries::new(pts, stroke(color, piece.len())))?;
                if k == 0 && legend {
                    drawn.label(&c.name).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
                    });
                }
            }
        }
        if legend {
            chart
                .configure_series_labels()
                .label_font(("sans-serif", 13))
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .draw()?;
        }
    }
    Ok(())
}

/// A thin orange vertical line at each mark inside [x0, x1], under the curves.
fn event_marks(
    marks: &[f64],
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> impl Iterator<Item = PathElement<(f64, f64)>> + '_ {
    let style = RGBColor(230, 120, 30).mix(0.7).stroke_width(1);
    marks
        .iter()
        .filter(move |&&x| (x0..=x1).contains(&x))
        .map(move |&x| PathElement::new(vec![(x, y0), (x, y1)], style))
}

/// Two-pixel lines for sparse curves; one pixel for dense ones (plotters draws wide lines as
/// polygons, whose joints between nearly coincident points spike out of the panel).
fn stroke(color: RGBAColor, points: usize) -> ShapeStyle {
    color.stroke_width(if points > 400 { 1 } else { 2 })
}

/// A tick label of at most about 8 characters; a tick within round-off of zero (relative to
/// the axis span) is `0`, not `-1.1e-16`.
fn short(y: f64, span: f64) -> String {
    let a = y.abs();
    if a <= 1e-9 * span {
        return "0".into();
    }
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{y:.1e}")
    } else {
        let s = format!("{y:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" { "0".into() } else { s.into() }
    }
}

fn bounds(curves: &[Curve], log_y: bool) -> (f64, f64, f64, f64) {
    let fix = |y: f64| if log_y { y.max(LOG_FLOOR) } else { y };
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    let points = curves.iter().flat_map(|c| c.pieces.iter().flatten());
    for &(x, y) in points.filter(|(x, y)| x.is_finite() && y.is_finite()) {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(fix(y)), y1.max(fix(y)));
    }
    if !x0.is_finite() {
        return (0.0, 1.0, if log_y { LOG_FLOOR } else { 0.0 }, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if log_y {
        return (x0, x1, y0 / 2.0, (y1 * 2.0).max(y0 * 10.0));
    }
    let pad = if y1 > y0 {
        0.06 * (y1 - y0)
    } else {
        1.0_f64.max(y0.abs()) * 0.1
    };
    (x0, x1, y0 - pad, y1 + pad)
}

/// Column `j` of `rows` against the sample times.
fn column(t: &[f64], rows: &[Vec<f64>], j: usize) -> Vec<(f64, f64)> {
    t.iter().zip(rows).map(|(&t, r)| (t, r[j])).collect()
}

/// Every figure of a run into `dir`.
pub fn write_run(
    dir: &Path,
    model: &str,
    run: &RunResult,
    wrap: &[usize],
    svg: bool,
) -> Result<(), AppError> {
    let rec = &run.rec;
    let curve = |rows: &[Vec<f64>], j: usize, name: String, wrapped: bool| {
        let pts = column(&rec.t, rows, j);
        if wrapped {
            Curve::wrapped(name, &pts)
        } else {
            Curve::new(name, pts)
        }
    };
    let names = run.coordinates;
    let q: Vec<Curve> = (0..names.len())
        .map(|j| curve(&rec.q, j, names[j].to_string(), wrap.contains(&j)))
        .collect();
    // Every figure marks the events (a vertical line each; events.csv names them).
    let marks: Vec<f64> = (run.events.iter().flatten()).map(|e| e.t).collect();
    let fig = |title: &str, panels| Figure {
        title: format!("{model}: {title}"),
        x_label: "t".into(),
        panels,
        marks: marks.clone(),
    };
    write(
        dir,
        "coordinates",
        &fig("coordinates", grouped(quiet(q), "q")),
        svg,
    )?;
    let v: Vec<Curve> = (0..names.len())
        .map(|j| curve(&rec.v, j, format!("{}_dot", names[j]), false))
        .collect();
    write(
        dir,
        "velocities",
        &fig("velocities", grouped(quiet(v), "v")),
        svg,
    )?;
    // λ is recorded when the trajectory holds multipliers (or accelerations).
    if rec.lambda.first().is_some_and(|l| !l.is_empty()) {
        let lambda: Vec<Curve> = (0..run.constraint_rows)
            .map(|j| {
                curve(
                    &rec.lambda,
                    j,
                    format!("lambda {}", run.constraint_names[j]),
                    false,
                )
            })
            .collect();
        write(
            dir,
            "multipliers",
            &fig("multipliers", grouped(quiet(lambda), "lambda")),
            svg,
        )?;
    }
    write(
        dir,
        "drift",
        &fig("constraint drift (output grid)", vec![drift_panel(run)]),
        svg,
    )?;
    if let Some(energy) = &run.energy {
        write(
            dir,
            "energy",
            &fig("energy", energy_panels(&rec.t, energy)),
            svg,
        )?;
    }
    write(
        dir,
        "step_size",
        &fig("accepted step sizes", vec![step_panel(run)]),
        svg,
    )
}

fn drift_panel(run: &RunResult) -> Panel {
    let rec = &run.rec;
    let pts = |f: fn(&mbsim::runtime::Drift) -> f64| -> Vec<(f64, f64)> {
        rec.t
            .iter()
            .zip(&rec.drift)
            .map(|(&t, d)| (t, f(d)))
            .collect()
    };
    Panel {
        title: "|phi| and |phi_dot| (inf-norm)".into(),
        y_label: "drift".into(),
        log_y: true,
        curves: vec![
            Curve::new("|phi|", pts(|d| d.position)),
            Curve::new("|phi_dot|", pts(|d| d.velocity)),
        ],
    }
}

fn energy_panels(t: &[f64], energy: &[(f64, f64)]) -> Vec<Panel> {
    let series = |f: &dyn Fn(&(f64, f64)) -> f64| -> Vec<(f64, f64)> {
        t.iter().zip(energy).map(|(&t, e)| (t, f(e))).collect()
    };
    let total0 = energy.first().map_or(0.0, |e| e.0 + e.1);
    vec![
        Panel {
            title: "kinetic T, potential V, total T + V".into(),
            y_label: "energy".into(),
            log_y: false,
            curves: vec![
                Curve::new("T", series(&|e| e.0)),
                Curve::new("V", series(&|e| e.1)),
                Curve::new("T + V", series(&|e| e.0 + e.1)),
            ],
        },
        Panel {
            title: "change of T + V from t0 (work of the non-conservative forces, and error)"
                .into(),
            y_label: "delta E".into(),
            log_y: false,
            curves: vec![Curve::new("T + V - E0", series(&|e| e.0 + e.1 - total0))],
        },
    ]
}

fn step_panel(run: &RunResult) -> Panel {
    let h: Vec<(f64, f64)> = run
        .step_times
        .windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| (w[1], w[1] - w[0]))
        .collect();
    Panel {
        title: format!("{} accepted steps", h.len()),
        y_label: "h".into(),
        log_y: true,
        curves: vec![Curve::new("h", h)],
    }
}
