//! `mbsim animate`: the run of `simulate` (same options, same files), then the mechanism
//! moving, from the model's declared drawing ([`mbsim::runtime::Drawing`]):
//!
//! - `animation.gif`: one frame per sample picked evenly from the output grid (`--frames`,
//!   `--fps`), drawn with plotters' GIF encoder (the pure-Rust `gif` crate);
//! - `frame.png`: the frame at mid-run, for a quick look;
//! - `animation.html`: a self-contained player (inline SVG, no external scripts) with a time
//!   slider and a play button; the frames' points are embedded as JSON.
//!
//! The view is fixed over the whole run (the bounding box of every frame, padded) with equal
//! scales on x and y, so lengths are true; y points up.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::AppError;
use clap::Args;

use crate::simulate::args::{SimConfig, SimulateArgs};
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
}

/// The drawing of every frame.
pub struct Frames {
    /// Point names.
    pub names: &'static [&'static str],
    /// Segments (index pairs).
    pub segments: &'static [(usize, usize)],
    /// Time of each frame.
    pub t: Vec<f64>,
    /// Points of each frame.
    pub points: Vec<Vec<(f64, f64)>>,
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
    let sys = super::simulate::build(&cfg)?;
    let Some(drawing) = sys.as_drawing() else {
        return Err(AppError::Unsupported {
            model: cfg.model.name.to_string(),
            why: "declares no drawing (add `draw: { points: [...], segments: [...] }` to its #[model])".into(),
        });
    };
    let run = super::simulate::run(&cfg, true)?;
    crate::say!("{}", run.init_text);
    let frames = frames(drawing, &run.rec, args.frames);
    super::output::write_all(&cfg, &run)?;
    write_all(&cfg, &frames, args.fps)?;
    crate::say!("{}", super::output::report(&cfg, &run));
    crate::say!(
        "animation: {} frames at {} fps -> animation.gif, frame.png, animation.html",
        frames.t.len(),
        args.fps
    );
    Ok(())
}

/// The frames: `count` samples picked evenly from the recorded output grid.
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
        t: picks.iter().map(|&i| rec.t[i]).collect(),
        points: picks
            .iter()
            .map(|&i| drawing.points(rec.t[i], &rec.q[i]))
            .collect(),
    }
}

fn write_all(cfg: &SimConfig, frames: &Frames, fps: u32) -> Result<(), AppError> {
    super::plot::register_font();
    let view = View::new(frames);
    let gif = cfg.out.join("animation.gif");
    let plot_err = |path: &Path| {
        let path = path.to_path_buf();
        move |e: String| AppError::Plot { path, message: e }
    };
    let delay = 1000 / fps;
    let area = BitMapBackend::gif(&gif, view.size, delay)
        .map_err(|e| e.to_string())
        .map_err(plot_err(&gif))?
        .into_drawing_area();
    for k in 0..frames.t.len() {
        draw_frame(&area, &view, frames, k, cfg.model.name).map_err(plot_err(&gif))?;
    }
    let png = cfg.out.join("frame.png");
    let area = BitMapBackend::new(&png, view.size).into_drawing_area();
    draw_frame(&area, &view, frames, frames.t.len() / 2, cfg.model.name).map_err(plot_err(&png))?;
    let html = cfg.out.join("animation.html");
    std::fs::write(&html, player(frames, &view, fps, cfg.model.name)).map_err(|source| {
        AppError::Io {
            path: html.clone(),
            source,
        }
    })
}

/// The fixed view: the bounding box of every frame, padded, at equal scales.
struct View {
    x0: f64,
    y1: f64,
    scale: f64,
    size: (u32, u32),
    /// Model-space box (x0, y0, width, height) for the SVG viewBox.
    bbox: (f64, f64, f64, f64),
}

impl View {
    fn new(frames: &Frames) -> View {
        let pts = frames
            .points
            .iter()
            .flatten()
            .filter(|p| p.0.is_finite() && p.1.is_finite());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
        for &(x, y) in pts {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        if x0 > x1 {
            (x0, x1, y0, y1) = (-1.0, 1.0, -1.0, 1.0);
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
            x0,
            y1: y0 + h,
            scale,
            size: (width as u32, (h * scale + 40.0) as u32),
            bbox: (x0, y0, w, h),
        }
    }

    fn px(&self, (x, y): (f64, f64)) -> (i32, i32) {
        (
            ((x - self.x0) * self.scale) as i32,
            (40.0 + (self.y1 - y) * self.scale) as i32,
        )
    }
}

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
    let pts = &frames.points[k];
    for &(a, b) in frames.segments {
        let line = vec![view.px(pts[a]), view.px(pts[b])];
        area.draw(&PathElement::new(line, BLUE.stroke_width(4)))
            .map_err(err)?;
    }
    for (i, &p) in pts.iter().enumerate() {
        let c = view.px(p);
        area.draw(&Circle::new(c, 5, RED.filled())).map_err(err)?;
        let name = frames.names[i];
        area.draw(&Text::new(name, (c.0 + 7, c.1 - 18), ("sans-serif", 15)))
            .map_err(err)?;
    }
    area.present().map_err(err)
}

/// The self-contained HTML player.
fn player(frames: &Frames, view: &View, fps: u32, model: &str) -> String {
    let points: Vec<String> = frames
        .points
        .iter()
        .map(|f| {
            let xy: Vec<String> = f
                .iter()
                .map(|(x, y)| format!("[{x:.6e},{y:.6e}]"))
                .collect();
            format!("[{}]", xy.join(","))
        })
        .collect();
    let times: Vec<String> = frames.t.iter().map(|t| format!("{t:.6e}")).collect();
    let segments: Vec<String> = frames
        .segments
        .iter()
        .map(|(a, b)| format!("[{a},{b}]"))
        .collect();
    let names: Vec<String> = frames.names.iter().map(|n| format!("\"{n}\"")).collect();
    let (bx, by, bw, bh) = view.bbox;
    let stroke = 0.006 * bw.max(bh);
    PLAYER
        .replace("{MODEL}", model)
        .replace(
            "{VIEWBOX}",
            &format!("{bx:.6e} {:.6e} {bw:.6e} {bh:.6e}", -(by + bh)),
        )
        .replace("{STROKE}", &format!("{stroke:.6e}"))
        .replace("{FONT}", &format!("{:.6e}", 0.03 * bw.max(bh)))
        .replace("{DELAY}", &(1000 / fps).to_string())
        .replace("{LAST}", &(frames.t.len() - 1).to_string())
        .replace("{TIMES}", &times.join(","))
        .replace("{POINTS}", &points.join(","))
        .replace("{SEGMENTS}", &segments.join(","))
        .replace("{NAMES}", &names.join(","))
}

/// The player's template: y is flipped by drawing at (x, −y) so the SVG's y points up.
const PLAYER: &str = r##"<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{MODEL}: animation</title>
<style>body{font-family:sans-serif;margin:1em} svg{border:1px solid #ccc;width:720px;max-width:100%;background:#fff}</style>
</head><body>
<h3>{MODEL}</h3>
<svg id="view" viewBox="{VIEWBOX}" xmlns="http://www.w3.org/2000/svg"></svg>
<div><button id="play">play</button>
<input id="slider" type="range" min="0" max="{LAST}" value="0" style="width:520px">
<span id="time"></span></div>
<script>
const T=[{TIMES}], P=[{POINTS}], S=[{SEGMENTS}], N=[{NAMES}];
const svg=document.getElementById("view"), ns="http://www.w3.org/2000/svg";
const lines=S.map(()=>{const l=document.createElementNS(ns,"line");l.setAttribute("stroke","#1f4fd6");l.setAttribute("stroke-width","{STROKE}");l.setAttribute("stroke-linecap","round");svg.appendChild(l);return l;});
const dots=N.map(()=>{const c=document.createElementNS(ns,"circle");c.setAttribute("r","{STROKE}");c.setAttribute("fill","#d62728");svg.appendChild(c);return c;});
const labels=N.map(n=>{const t=document.createElementNS(ns,"text");t.textContent=n;t.setAttribute("font-size","{FONT}");svg.appendChild(t);return t;});
const slider=document.getElementById("slider"), time=document.getElementById("time");
function show(k){const p=P[k];
 S.forEach(([a,b],i)=>{lines[i].setAttribute("x1",p[a][0]);lines[i].setAttribute("y1",-p[a][1]);lines[i].setAttribute("x2",p[b][0]);lines[i].setAttribute("y2",-p[b][1]);});
 p.forEach(([x,y],i)=>{dots[i].setAttribute("cx",x);dots[i].setAttribute("cy",-y);labels[i].setAttribute("x",x);labels[i].setAttribute("y",-y);});
 time.textContent="t = "+T[k].toPrecision(5);}
let timer=null;
slider.oninput=()=>show(+slider.value);
document.getElementById("play").onclick=()=>{if(timer){clearInterval(timer);timer=null;return;}
 timer=setInterval(()=>{slider.value=(+slider.value+1)%(+slider.max+1);show(+slider.value);},{DELAY});};
show(0);
</script></body></html>
"##;
