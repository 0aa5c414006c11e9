//! `mbsim animate`: the run of `simulate` (same options, same files), then the mechanism
//! moving, from the model's declared drawing ([`mbsim::runtime::Drawing`]), planar or spatial:
//!
//! - `animation.gif`: one frame per sample picked evenly from the output grid (`--frames`,
//!   `--fps`), drawn with plotters' GIF encoder (the pure-Rust `gif` crate);
//! - `frame.png`: the frame at mid-run (`--frame-at T`: the frame nearest to T), for a quick look;
//! - `animation.html`: a self-contained player ([`player`]: inline SVG, no external scripts)
//!   with a time slider and a play button; a spatial drawing can be turned (drag) and zoomed
//!   (wheel) there, with the preset views as buttons.
//!
//! A spatial drawing is seen through an orthographic [`camera`] from `--view` (`iso` by
//! default, or `front`, `side`, `top`, `AZ,EL` in degrees about the drawing's vertical axis);
//! segments are drawn far to near, lighter when far, with the world axes in a corner. The view
//! is fixed over the whole run (the bounding box of every projected frame, padded) with equal
//! scales, so lengths in the screen plane are true.
//!
//! Events (models with `events`): the run's located events are marked on a timeline under every
//! frame (an orange tick per event, the current time as a cursor), and the frame nearest to each
//! event is framed in orange and names it; the player shows the same ticks under its slider
//! (a click jumps there) and names the event of the frame shown.

pub mod camera;
pub mod player;

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::AppError;
use clap::Args;

use crate::simulate::args::{SimConfig, SimulateArgs};
use camera::Camera;
use mbsim::runtime::Drawing;

/// Arguments of `mbsim animate`.
#[derive(Debug, Args)]
pub struct AnimateArgs {
    /// The run (every option of `simulate`).
    #[command(flatten)]
    pub sim: SimulateArgs,
    /// Frames of the animation (the trajectory is resampled on them).
    #[arg(long, default_value_t = 100)]
    pub frames: usize,
    /// Frames per second of the GIF and the player.
    #[arg(long, default_value_t = 25)]
    pub fps: u32,
    /// The view of a spatial drawing (GIF, PNG and the player's start): iso, front, side, top,
    /// or AZ,EL in degrees about the drawing's vertical axis.
    #[arg(long)]
    pub view: Option<String>,
    /// Time of the frame written to frame.png (the nearest frame; default mid-run).
    #[arg(long)]
    pub frame_at: Option<f64>,
}

/// A located event as the animation marks it.
#[derive(Clone, Debug, PartialEq)]
pub struct Mark {
    /// Its time.
    pub t: f64,
    /// `name (kind)`.
    pub label: String,
}

/// The drawing of every frame.
pub struct Frames {
    /// Point names.
    pub names: &'static [&'static str],
    /// Segments (index pairs).
    pub segments: &'static [(usize, usize)],
    /// 2 or 3: the drawing's dimension.
    pub dimension: usize,
    /// The drawing's vertical axis (spatial drawings).
    pub up: usize,
    /// Time of each frame.
    pub t: Vec<f64>,
    /// Points of each frame, (x, y, z) (z = 0 for a planar drawing).
    pub points: Vec<Vec<[f64; 3]>>,
    /// The run's events, in time order.
    pub events: Vec<Mark>,
}

/// Run `mbsim animate`.
pub fn run(args: &AnimateArgs) -> Result<(), AppError> {
    args.sim.only_for_simulate(
        "an option of `simulate` only (an animation needs the whole trajectory, once)",
    )?;
    let cfg = args.sim.config()?;
    if args.frames < 2 || args.fps == 0 || args.fps > 100 {
        return Err(AppError::BadValue {
            what: "--frames/--fps",
            value: format!("{} frames at {} fps", args.frames, args.fps),
            why: "need at least 2 frames and 1 to 100 frames per second",
        });
    }
    let view = match &args.view {
        Some(text) => Some(camera::parse_view(text).map_err(|why| AppError::BadValue {
            what: "--view",
            value: text.clone(),
            why,
        })?),
        None => None,
    };
    let sys = super::simulate::build(&cfg)?;
    let Some(drawing) = sys.as_drawing() else {
        return Err(AppError::Unsupported {
            model: cfg.model.name.to_string(),
            why: "declares no drawing (add `draw: { points: [...], segments: [...] }` to its #[model])".into(),
        });
    };
    if view.is_some() && drawing.dimension() == 2 {
        return Err(AppError::BadValue {
            what: "--view",
            value: args.view.clone().unwrap_or_default(),
            why: "a planar drawing has one view (x right, y up); --view is for spatial drawings",
        });
    }
    let run = super::simulate::run(&cfg, true)?;
    crate::say!("{}", run.init_text);
    let mut frames = frames(drawing, &run.rec, args.frames);
    frames.events = marks(run.events.as_deref().unwrap_or_default());
    let camera = match drawing.dimension() {
        3 => Camera::spatial(drawing.up(), view.unwrap_or((-45.0, 30.0))),
        _ => Camera::planar(),
    };
    super::output::write_all(&cfg, &run)?;
    write_all(&cfg, &frames, &camera, args)?;
    crate::say!("{}", super::output::report(&cfg, &run));
    crate::say!(
        "animation: {} frames at {} fps -> animation.gif, frame.png, animation.html",
        frames.t.len(),
        args.fps
    );
    Ok(())
}

/// The events as the animation marks them.
pub fn marks(events: &[mbsim::runtime::events::EventRecord]) -> Vec<Mark> {
    events
        .iter()
        .map(|e| Mark {
            t: e.t,
            label: format!("{} ({})", e.name, e.kind.word()),
        })
        .collect()
}

/// The frames: `count` samples picked evenly from the recorded output grid (no events; the
/// caller adds them).
pub fn frames(drawing: &dyn Drawing, rec: &mbsim::runtime::Recorder, count: usize) -> Frames {
    let len = rec.t.len();
    let picks: Vec<usize> = if len <= count {
        (0..len).collect()
    } else {
        let last = (len - 1) as f64;
        let mut v: Vec<usize> = (0..count)
            .map(|k| (k as f64 * last / (count - 1) as f64).round() as usize)
            .collect();
        v.dedup();
        v
    };
    Frames {
        names: drawing.point_names(),
        segments: drawing.segments(),
        dimension: drawing.dimension(),
        up: drawing.up(),
        t: picks.iter().map(|&i| rec.t[i]).collect(),
        points: picks
            .iter()
            .map(|&i| drawing.points3(rec.t[i], &rec.q[i]))
            .collect(),
        events: Vec::new(),
    }
}

impl Frames {
    /// For each event, the index of the frame nearest to it.
    pub fn event_frames(&self) -> Vec<(usize, &Mark)> {
        self.events
            .iter()
            .filter_map(|e| {
                let nearest = (0..self.t.len())
                    .min_by(|&a, &b| (self.t[a] - e.t).abs().total_cmp(&(self.t[b] - e.t).abs()))?;
                Some((nearest, e))
            })
            .collect()
    }

    /// The frame nearest to time `t`.
    pub fn nearest(&self, t: f64) -> usize {
        (0..self.t.len())
            .min_by(|&a, &b| (self.t[a] - t).abs().total_cmp(&(self.t[b] - t).abs()))
            .unwrap_or(0)
    }
}

/// Write the GIF, the PNG and the player of `frames` seen through `camera`.
pub fn write_all(
    cfg: &SimConfig,
    frames: &Frames,
    camera: &Camera,
    args: &AnimateArgs,
) -> Result<(), AppError> {
    super::plot::register_font();
    let view = View::new(frames, camera);
    let gif = cfg.out.join("animation.gif");
    let plot_err = |path: &Path| {
        let path = path.to_path_buf();
        move |e: String| AppError::Plot { path, message: e }
    };
    let delay = 1000 / args.fps;
    let area = BitMapBackend::gif(&gif, view.size, delay)
        .map_err(|e| e.to_string())
        .map_err(plot_err(&gif))?
        .into_drawing_area();
    for k in 0..frames.t.len() {
        draw_frame(&area, &view, frames, k, cfg.model.name).map_err(plot_err(&gif))?;
    }
    let png = cfg.out.join("frame.png");
    let at = args
        .frame_at
        .map_or(frames.t.len() / 2, |t| frames.nearest(t));
    let area = BitMapBackend::new(&png, view.size).into_drawing_area();
    draw_frame(&area, &view, frames, at, cfg.model.name).map_err(plot_err(&png))?;
    let html = cfg.out.join("animation.html");
    let page = player::page(frames, camera, args.fps, cfg.model.name);
    std::fs::write(&html, page).map_err(|source| AppError::Io {
        path: html.clone(),
        source,
    })
}

/// Height of the title band and of the timeline band, in pixels.
const TOP: f64 = 40.0;
const BOTTOM: f64 = 34.0;

/// The fixed view: every frame projected, its bounding box padded, at equal scales.
struct View {
    camera: Camera,
    x0: f64,
    y1: f64,
    scale: f64,
    size: (u32, u32),
    /// Each frame's points on the screen (right, up, depth).
    projected: Vec<Vec<(f64, f64, f64)>>,
    /// Depth range over every frame (for the shading of far segments).
    depth: (f64, f64),
}

impl View {
    fn new(frames: &Frames, camera: &Camera) -> View {
        let projected: Vec<Vec<(f64, f64, f64)>> = frames
            .points
            .iter()
            .map(|f| f.iter().map(|&p| camera.project(p)).collect())
            .collect();
        let finite = projected
            .iter()
            .flatten()
            .filter(|p| p.0.is_finite() && p.1.is_finite() && p.2.is_finite());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        let (mut d0, mut d1) = (f64::MAX, f64::MIN);
        for &(x, y, d) in finite {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
            (d0, d1) = (d0.min(d), d1.max(d));
        }
        if x0 > x1 {
            (x0, x1, y0, y1, d0, d1) = (-1.0, 1.0, -1.0, 1.0, 0.0, 0.0);
        }
        let span = (x1 - x0).max(y1 - y0).max(1e-9);
        let pad = 0.08 * span;
        let (x0, x1, y0, y1) = (x0 - pad, x1 + pad, y0 - pad, y1 + pad);
        let (w, h) = ((x1 - x0).max(0.25 * span), (y1 - y0).max(0.25 * span));
        let width = 720.0;
        let scale = width / w;
        let height = (h * scale).clamp(200.0, 900.0);
        let scale = scale.min(height / h);
        View {
            camera: *camera,
            x0,
            y1: y0 + h,
            scale,
            size: (width as u32, (h * scale + TOP + BOTTOM) as u32),
            projected,
            depth: (d0, d1),
        }
    }

    fn px(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (
            ((x - self.x0) * self.scale) as i32,
            (TOP + (self.y1 - y) * self.scale) as i32,
        )
    }

    /// 0 for the nearest depth of the run, 1 for the farthest.
    fn farness(&self, depth: f64) -> f64 {
        let (d0, d1) = self.depth;
        if d1 - d0 <= 1e-12 * (d0.abs() + d1.abs() + 1.0) {
            return 0.0;
        }
        ((d1 - depth) / (d1 - d0)).clamp(0.0, 1.0)
    }
}

/// The orange of the event marks (as in the plots).
const EVENT: RGBColor = RGBColor(230, 120, 30);

fn draw_frame<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &View,
    frames: &Frames,
    k: usize,
    model: &str,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    area.fill(&WHITE).map_err(err)?;
    let label = format!("{model}   t = {:.4}", frames.t[k]);
    area.draw(&Text::new(label, (10, 10), ("sans-serif", 20)))
        .map_err(err)?;
    let pts = &view.projected[k];
    // Far to near, lighter when far.
    let mut order: Vec<usize> = (0..frames.segments.len()).collect();
    let depth = |s: usize| {
        let (a, b) = frames.segments[s];
        0.5 * (pts[a].2 + pts[b].2)
    };
    order.sort_by(|&i, &j| depth(i).total_cmp(&depth(j)));
    for s in order {
        let (a, b) = frames.segments[s];
        let line = vec![view.px((pts[a].0, pts[a].1)), view.px((pts[b].0, pts[b].1))];
        let fade = 0.65 * view.farness(depth(s));
        let shade = |c: u8| (f64::from(c) + (255.0 - f64::from(c)) * fade) as u8;
        let color = RGBColor(shade(31), shade(79), shade(214));
        area.draw(&PathElement::new(line, color.stroke_width(4)))
            .map_err(err)?;
    }
    for (i, p) in pts.iter().enumerate() {
        let c = view.px((p.0, p.1));
        area.draw(&Circle::new(c, 5, RED.filled())).map_err(err)?;
        let name = frames.names[i];
        area.draw(&Text::new(name, (c.0 + 7, c.1 - 18), ("sans-serif", 15)))
            .map_err(err)?;
    }
    if view.camera.dimension == 3 {
        draw_axes(area, view).map_err(err)?;
    }
    draw_timeline(area, view, frames, k).map_err(err)?;
    area.present().map_err(err)
}

/// The world axes x, y, z from a corner, projected like the drawing.
fn draw_axes<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &View,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let origin = (
        view.size.0 as i32 - 60,
        view.size.1 as i32 - BOTTOM as i32 - 40,
    );
    let colors = [
        RGBColor(200, 40, 40),
        RGBColor(40, 150, 40),
        RGBColor(40, 40, 200),
    ];
    for (axis, name) in ["x", "y", "z"].iter().enumerate() {
        let mut unit = [0.0; 3];
        unit[axis] = 1.0;
        let (r, u, _) = view.camera.project(unit);
        let tip = (origin.0 + (28.0 * r) as i32, origin.1 - (28.0 * u) as i32);
        let style = colors[axis].stroke_width(2);
        area.draw(&PathElement::new(vec![origin, tip], style))?;
        let font = ("sans-serif", 14).into_font().color(&colors[axis]);
        area.draw(&Text::new(*name, (tip.0 + 2, tip.1 - 7), font))?;
    }
    Ok(())
}

/// The run's time line under the drawing: the span, a tick per event, the current time; a
/// frame nearest to an event is framed in orange and names it.
fn draw_timeline<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    view: &View,
    frames: &Frames,
    k: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (w, h) = (view.size.0 as i32, view.size.1 as i32);
    let (t0, t1) = (frames.t[0], *frames.t.last().unwrap_or(&frames.t[0]));
    let (left, right, y) = (10, w - 10, h - 12);
    let at = |t: f64| {
        let f = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        left + (f.clamp(0.0, 1.0) * f64::from(right - left)) as i32
    };
    let gray = RGBColor(180, 180, 180).stroke_width(2);
    area.draw(&PathElement::new(vec![(left, y), (right, y)], gray))?;
    for e in &frames.events {
        let x = at(e.t);
        area.draw(&PathElement::new(
            vec![(x, y - 7), (x, y + 7)],
            EVENT.stroke_width(2),
        ))?;
    }
    let x = at(frames.t[k]);
    area.draw(&Circle::new((x, y), 5, BLACK.filled()))?;
    let here: Vec<&str> = frames
        .event_frames()
        .into_iter()
        .filter(|&(f, _)| f == k)
        .map(|(_, e)| e.label.as_str())
        .collect();
    if !here.is_empty() {
        let frame = vec![(1, 1), (w - 2, 1), (w - 2, h - 2), (1, h - 2), (1, 1)];
        area.draw(&PathElement::new(frame, EVENT.stroke_width(4)))?;
        let text = format!("event: {}", here.join(", "));
        let font = ("sans-serif", 16).into_font().color(&EVENT);
        area.draw(&Text::new(text, (10, h - 34), font))?;
    }
    Ok(())
}
