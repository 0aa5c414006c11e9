//! Honest timings. Every figure is named for what it is: `wall` is elapsed real time
//! (`Instant`), `cpu` the CPU time of the thread that did the work (`clock_gettime(
//! CLOCK_THREAD_CPUTIME_ID)` through the `cpu-time` crate), and a sweep's total is the
//! process's CPU time over all its rayon threads. Under load (a shared machine) the wall time
//! of a run can be several times its CPU time; the CPU time is the one to compare methods by.

use std::time::{Duration, Instant};

use cpu_time::{ProcessTime, ThreadTime};

/// Wall-clock and thread CPU time of one piece of work.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Timing {
    /// Elapsed real time.
    pub wall: Duration,
    /// CPU time of the thread that ran it.
    pub cpu: Duration,
}

/// Started clocks: wall and the calling thread's CPU time.
pub struct Stopwatch {
    wall: Instant,
    cpu: ThreadTime,
}

impl Stopwatch {
    /// Start both clocks (on the calling thread).
    pub fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: ThreadTime::now(),
        }
    }

    /// Both clocks' readings since [`Stopwatch::start`] (call on the same thread).
    pub fn stop(&self) -> Timing {
        Timing {
            wall: self.wall.elapsed(),
            cpu: self.cpu.elapsed(),
        }
    }
}

/// Wall-clock and process CPU time (all threads) of a parallel piece of work.
pub struct ProcessStopwatch {
    wall: Instant,
    cpu: ProcessTime,
}

impl ProcessStopwatch {
    /// Start both clocks.
    pub fn start() -> Self {
        Self {
            wall: Instant::now(),
            cpu: ProcessTime::now(),
        }
    }

    /// Wall time and the process's CPU time since the start.
    pub fn stop(&self) -> Timing {
        Timing {
            wall: self.wall.elapsed(),
            cpu: self.cpu.elapsed(),
        }
    }
}

/// Minimum and median of repeated timings (`simulate --repeat N`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Repeated {
    /// Number of runs.
    pub runs: usize,
    /// Smallest CPU time.
    pub cpu_min: Duration,
    /// Median CPU time (the mean of the middle two for an even count).
    pub cpu_median: Duration,
    /// Smallest wall time.
    pub wall_min: Duration,
    /// Median wall time.
    pub wall_median: Duration,
}

/// The minimum and median of `timings` (`None` when empty).
pub fn repeated(timings: &[Timing]) -> Option<Repeated> {
    let stats = |mut xs: Vec<Duration>| {
        xs.sort();
        let n = xs.len();
        let median = if n % 2 == 1 {
            xs[n / 2]
        } else {
            (xs[n / 2 - 1] + xs[n / 2]) / 2
        };
        (xs[0], median)
    };
    if timings.is_empty() {
        return None;
    }
    let (cpu_min, cpu_median) = stats(timings.iter().map(|t| t.cpu).collect());
    let (wall_min, wall_median) = stats(timings.iter().map(|t| t.wall).collect());
    Some(Repeated {
        runs: timings.len(),
        cpu_min,
        cpu_median,
        wall_min,
        wall_median,
    })
}
