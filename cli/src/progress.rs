//! A progress bar for runs longer than a second: an `indicatif` bar drawn to stderr (hidden
//! when stderr is not a terminal), created hidden and shown only once a second has passed, so
//! short runs print nothing.

use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Ticks of the bar: simulated time is mapped onto 0..=TICKS.
const TICKS: u64 = 1000;

/// Progress over simulated time [t0, t_end].
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    shown: bool,
    t_end: f64,
}

impl Progress {
    /// A hidden bar for a run ending at `t_end`.
    pub fn new(t_end: f64) -> Self {
        let bar = ProgressBar::with_draw_target(Some(TICKS), ProgressDrawTarget::hidden());
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {percent:>3}% t = {msg} [{elapsed}]")
        {
            bar.set_style(style);
        }
        Self {
            bar,
            start: Instant::now(),
            shown: false,
            t_end,
        }
    }

    /// The integration reached time `t`.
    pub fn update(&mut self, t: f64) {
        if !self.shown && self.start.elapsed() > Duration::from_secs(1) {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
            self.shown = true;
        }
        if self.shown {
            let frac = if self.t_end > 0.0 {
                (t / self.t_end).clamp(0.0, 1.0)
            } else {
                1.0
            };
            self.bar.set_position((frac * TICKS as f64) as u64);
            self.bar.set_message(format!("{t:.4}"));
        }
    }

    /// Remove the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
