//! A heat map PNG for parameter studies: one coloured cell per grid point of a rectangular
//! (x, y) grid, the colour the base-10 logarithm of the value (blue low, red high, grey for a
//! failed run), with a colour bar.

use std::path::Path;

use plotters::prelude::*;

use crate::error::AppError;
use crate::plot::{LOG_FLOOR, register_font};

/// A grid of values: `values[i][j]` at (`xs[i]`, `ys[j]`); NaN marks a failed run.
pub struct Grid<'a> {
    /// Title.
    pub title: &'a str,
    /// Axis labels (x, y) and the value's label.
    pub labels: [&'a str; 3],
    /// Grid points along x.
    pub xs: &'a [f64],
    /// Grid points along y.
    pub ys: &'a [f64],
    /// The values, x-major.
    pub values: &'a [Vec<f64>],
}

/// Draw `grid` into the PNG at `path`.
pub fn draw(path: &Path, grid: &Grid<'_>) -> Result<(), AppError> {
    register_font();
    render(path, grid).map_err(|e| AppError::Plot {
        path: path.to_path_buf(),
        message: e.to_string(),
    })
}

/// Blue (0) to red (1) through green.
fn colour(s: f64) -> RGBColor {
    let s = s.clamp(0.0, 1.0);
    let hsl = HSLColor(0.66 * (1.0 - s), 0.85, 0.5);
    let rgb = hsl.to_rgba();
    RGBColor(rgb.0, rgb.1, rgb.2)
}

/// Cell edges around the grid points (midpoints, and half a spacing beyond the ends).
fn edges(points: &[f64]) -> Vec<f64> {
    let n = points.len();
    if n == 1 {
        return vec![points[0] - 0.5, points[0] + 0.5];
    }
    let mut e = vec![points[0] - 0.5 * (points[1] - points[0])];
    e.extend(points.windows(2).map(|w| 0.5 * (w[0] + w[1])));
    e.push(points[n - 1] + 0.5 * (points[n - 1] - points[n - 2]));
    e
}

fn render(path: &Path, grid: &Grid<'_>) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, bar) = root.split_horizontally(780);
    let logs: Vec<f64> = grid
        .values
        .iter()
        .flatten()
        .filter(|v| v.is_finite())
        .map(|v| v.max(LOG_FLOOR).log10())
        .collect();
    let lo = logs.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = logs
        .iter()
        .copied()
        .fold(f64::NEG_INFINITY, f64::max)
        .max(lo + 1e-9);
    let (ex, ey) = (edges(grid.xs), edges(grid.ys));
    let mut chart = ChartBuilder::on(&plot)
        .caption(grid.title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(ex[0]..ex[ex.len() - 1], ey[0]..ey[ey.len() - 1])?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(grid.labels[0])
        .y_desc(grid.labels[1])
        .draw()?;
    for (i, column) in grid.values.iter().enumerate() {
        for (j, &v) in column.iter().enumerate() {
            let fill = if v.is_finite() {
                colour((v.max(LOG_FLOOR).log10() - lo) / (hi - lo)).filled()
            } else {
                RGBColor(160, 160, 160).filled()
            };
            chart.draw_series(std::iter::once(Rectangle::new(
                [(ex[i], ey[j]), (ex[i + 1], ey[j + 1])],
                fill,
            )))?;
        }
    }
    let mut scale = ChartBuilder::on(&bar)
        .margin_top(40)
        .margin_bottom(45)
        .y_label_area_size(50)
        .caption(format!("log10 {}", grid.labels[2]), ("sans-serif", 12))
        .build_cartesian_2d(0.0..1.0, lo..hi)?;
    scale
        .configure_mesh()
        .disable_mesh()
        .disable_x_axis()
        .y_label_formatter(&|y| format!("{y:.1}"))
        .draw()?;
    let steps = 64;
    for k in 0..steps {
        let (a, b) = (k as f64 / steps as f64, (k + 1) as f64 / steps as f64);
        scale.draw_series(std::iter::once(Rectangle::new(
            [(0.0, lo + a * (hi - lo)), (1.0, lo + b * (hi - lo))],
            colour(a).filled(),
        )))?;
    }
    root.present()?;
    Ok(())
}
