//! PNG line plots with `plotters` (bitmap backend, the vendored DejaVu Sans font registered
//! once): [`lines`] is the one-panel helper of `repro` and the analyses; `simulate`'s grouped
//! figures are in [`super::plot_grid`].

use std::path::Path;
use std::sync::Once;

use plotters::prelude::*;

use crate::error::AppError;

/// The plot font (DejaVu Sans, Bitstream Vera licence: `assets/DejaVuSans-LICENSE.txt`).
static FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// Values below this are drawn at this value on log scales (exact zeros have no logarithm).
pub const LOG_FLOOR: f64 = 1e-18;

/// Register the vendored font once per process (every plot calls this first).
pub fn register_font() {
    static REGISTER: Once = Once::new();
    REGISTER.call_once(|| {
        // A font that fails to load only costs the labels, never the run.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// One named curve.
pub struct Series {
    /// Legend text.
    pub name: String,
    /// (x, y) points.
    pub points: Vec<(f64, f64)>,
}

/// What a plot shows.
pub struct PlotSpec<'a> {
    /// Title.
    pub title: &'a str,
    /// x-axis label.
    pub x_label: &'a str,
    /// y-axis label.
    pub y_label: &'a str,
    /// Logarithmic y axis.
    pub log_y: bool,
}

/// Draw `series` into the PNG at `path`.
pub fn lines(path: &Path, spec: &PlotSpec<'_>, series: &[Series]) -> Result<(), AppError> {
    register_font();
    draw(path, spec, series).map_err(|e| AppError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

fn bounds(series: &[Series], log_y: bool) -> (f64, f64, f64, f64) {
    let pts = || series.iter().flat_map(|s| s.points.iter());
    let fix = |y: f64| if log_y { y.max(LOG_FLOOR) } else { y };
    let (mut x0, mut x1, mut y0, mut y1) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for &(x, y) in pts().filter(|(x, y)| x.is_finite() && y.is_finite()) {
        (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(fix(y)), y1.max(fix(y)));
    }
    if !x0.is_finite() {
        return (0.0, 1.0, if log_y { LOG_FLOOR } else { 0.0 }, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if log_y {
        (x0, x1, y0, (y1 * 10.0).max(y0 * 100.0))
    } else {
        let pad = if y1 > y0 {
            0.05 * (y1 - y0)
        } else {
            1.0_f64.max(y0.abs()) * 0.1
        };
        (x0, x1, y0 - pad, y1 + pad)
    }
}

fn draw(
    path: &Path,
    spec: &PlotSpec<'_>,
    series: &[Series],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (1000, 620)).into_drawing_area();
    root.fill(&WHITE)?;
    let (x0, x1, y0, y1) = bounds(series, spec.log_y);
    let mut builder = ChartBuilder::on(&root);
    builder
        .caption(spec.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(80);
    if spec.log_y {
        let mut chart = builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(spec.x_label)
            .y_desc(spec.y_label)
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            let pts = s.points.iter().map(|&(x, y)| (x, y.max(LOG_FLOOR)));
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                .label(&s.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    } else {
        let mut chart = builder.build_cartesian_2d(x0..x1, y0..y1)?;
        chart
            .configure_mesh()
            .x_desc(spec.x_label)
            .y_desc(spec.y_label)
            .draw()?;
        for (i, s) in series.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(
                    s.points.iter().copied(),
                    color.stroke_width(2),
                ))?
                .label(&s.name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
    }
    root.present()?;
    Ok(())
}
