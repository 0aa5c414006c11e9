//! The benchmarks' one CPU clock (feature `clock`): the mean thread CPU time of a call, repeated
//! until a CPU budget is spent. Thread CPU time, not wall time, so that other processes on the
//! shared machine slow a figure down only through caches, never by descheduling. The tables of
//! the mechanism benchmarks (`mbsim-models`, `mbsim-tests`, `mbsim-peers`) read their CPU
//! times here; the runtime's KKT benchmark (wall-clock medians) and the code-generation
//! benchmarks keep their own clocks.
//!
//! A [`CpuClock`] says how long to repeat (`budget`), how often at least (`min_calls`), how many
//! calls run between two reads of the clock (`batch`: the read is a system call of about a
//! microsecond, too dear for sub-microsecond calls), whether one untimed call warms caches and
//! lazily built state first, and over how many rounds the smallest mean is kept (`rounds`: the
//! minimum is the figure least disturbed by the machine's other load).

use std::time::Duration;

use cpu_time::ThreadTime;

/// How a mean CPU time per call is measured.
#[derive(Clone, Copy, Debug)]
pub struct CpuClock {
    budget: Duration,
    min_calls: u32,
    batch: u32,
    rounds: u32,
    warm_up: bool,
}

impl CpuClock {
    /// Repeat for at least `budget` of thread CPU time, at least one call, one round, no warm-up.
    pub fn new(budget: Duration) -> CpuClock {
        CpuClock {
            budget,
            min_calls: 1,
            batch: 1,
            rounds: 1,
            warm_up: false,
        }
    }

    /// At least `calls` timed calls per round, however long they take.
    pub fn min_calls(self, calls: u32) -> CpuClock {
        CpuClock {
            min_calls: calls.max(1),
            ..self
        }
    }

    /// Read the clock only every `calls` calls.
    pub fn batch(self, calls: u32) -> CpuClock {
        CpuClock {
            batch: calls.max(1),
            ..self
        }
    }

    /// Keep the smallest mean of `rounds` rounds.
    pub fn rounds(self, rounds: u32) -> CpuClock {
        CpuClock {
            rounds: rounds.max(1),
            ..self
        }
    }

    /// One untimed call before the first round.
    pub fn warm_up(self) -> CpuClock {
        CpuClock {
            warm_up: true,
            ..self
        }
    }

    /// The mean thread CPU time of one call of `f`.
    pub fn mean(&self, mut f: impl FnMut()) -> Duration {
        if self.warm_up {
            f();
        }
        (0..self.rounds)
            .map(|_| self.round(&mut f))
            .min()
            .expect("at least one round")
    }

    fn round(&self, f: &mut impl FnMut()) -> Duration {
        let start = ThreadTime::now();
        let mut calls = 0u32;
        while calls < self.min_calls || start.elapsed() < self.budget {
            for _ in 0..self.batch {
                f();
            }
            calls += self.batch;
        }
        start.elapsed() / calls
    }
}

/// Run `f` once; its value and the thread CPU time it took (for runs too long to repeat).
pub fn thread_cpu<R>(f: impl FnOnce() -> R) -> (R, Duration) {
    let start = ThreadTime::now();
    let value = f();
    (value, start.elapsed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_every_call_and_honours_the_minimum() {
        let mut calls = 0u32;
        let clock = CpuClock::new(Duration::ZERO)
            .min_calls(5)
            .batch(2)
            .rounds(3)
            .warm_up();
        let mean = clock.mean(|| calls += 1);
        // Warm-up 1, then per round batches of 2 until ≥ 5 calls: 6, three rounds.
        assert_eq!(calls, 1 + 3 * 6);
        assert!(mean < Duration::from_millis(100), "{mean:?}");
    }

    #[test]
    fn spends_the_budget() {
        let budget = Duration::from_millis(20);
        let start = ThreadTime::now();
        let mut sink = 0.0_f64;
        CpuClock::new(budget).mean(|| sink += (sink + 1.0).sqrt());
        assert!(start.elapsed() >= budget && sink > 0.0);
    }
}
