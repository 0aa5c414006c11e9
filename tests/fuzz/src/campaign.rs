//! A range of inputs under a time bound per input, with the tally the closing report needs.
//!
//! The inputs run on one worker thread (8 MiB of stack, what rustc gives the thread that runs
//! proc-macros); the calling thread watches it and reports an input that exceeds the bound as
//! a hang (the worker is then abandoned, since a thread cannot be killed: the caller fails).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::harness::{self, Outcome, Violation};

/// The worker thread's name (the panic hook stays quiet on it).
pub const WORKER: &str = "fuzz-worker";

/// Counts over a range of inputs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Inputs run.
    pub inputs: u64,
    /// Unmutated valid models among them.
    pub valid: u64,
    /// Valid models the front end accepted.
    pub valid_built: u64,
    /// Inputs (valid or mutated) whose every model built.
    pub built: u64,
    /// Inputs rejected with a located error.
    pub rejected: u64,
    /// Valid models checked against finite differences.
    pub numeric_models: u64,
    /// Kernel entries compared with finite differences.
    pub numeric_entries: u64,
    /// Broken contracts: (index, violation).
    pub violations: Vec<(u64, String)>,
    /// Largest time one input took (ms).
    pub slowest_ms: u64,
    /// The index of that input.
    pub slowest_index: u64,
}

impl Tally {
    /// Count one input's verdict (`ms`: the time it took).
    pub fn add(&mut self, index: u64, valid: bool, verdict: &Result<Outcome, Violation>, ms: u64) {
        self.inputs += 1;
        self.valid += u64::from(valid);
        if ms > self.slowest_ms {
            self.slowest_ms = ms;
            self.slowest_index = index;
        }
        match verdict {
            Ok(Outcome::Built { entries, .. }) => {
                self.built += 1;
                self.valid_built += u64::from(valid);
                if *entries > 0 {
                    self.numeric_models += 1;
                    self.numeric_entries += *entries as u64;
                }
            }
            Ok(Outcome::Rejected(_)) => self.rejected += 1,
            Err(v) => self.violations.push((index, v.to_string())),
        }
    }

    /// One line of figures.
    pub fn summary(&self) -> String {
        format!(
            "{} inputs ({} valid, {} of them built; {} mutated inputs built, {} rejected with a located error); \
             {} models checked numerically ({} kernel entries); {} violations; slowest input {} ({} ms)",
            self.inputs,
            self.valid,
            self.valid_built,
            self.built - self.valid_built,
            self.rejected,
            self.numeric_models,
            self.numeric_entries,
            self.violations.len(),
            self.slowest_index,
            self.slowest_ms
        )
    }
}

/// Run one input: generate it, run it (numerically checked when valid).
pub fn one(seed: u64, index: u64) -> (bool, Result<Outcome, Violation>) {
    let input = crate::input(seed, index);
    let mut rng = crate::rng_for(seed ^ 0xF1D1, index);
    let numeric = input.valid.then_some((&input.generated, &mut rng));
    (input.valid, harness::run(&input.text, numeric))
}

/// A hang: the input that exceeded the bound.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hang {
    /// Its index.
    pub index: u64,
    /// The tally up to it.
    pub tally: Tally,
}

/// What a caller may watch: an input about to run, and an input's verdict with its time (ms).
pub trait Watch: Send + 'static {
    /// Input `index` is about to run (the campaign's worker prints it, so that its supervisor
    /// knows which input killed it).
    fn before(&self, _index: u64) {}
    /// Input `index` gave `verdict` in `ms` milliseconds.
    fn after(&self, _index: u64, _valid: bool, _verdict: &Result<Outcome, Violation>, _ms: u64) {}
}

impl Watch for () {}

/// Run inputs `from..to` of `seed`, each within `bound`.
pub fn run(
    seed: u64,
    (from, to): (u64, u64),
    bound: Duration,
    watch: impl Watch,
) -> Result<Tally, Hang> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(harness::quiet_panics);
    let current = Arc::new(AtomicU64::new(u64::MAX));
    let tally = Arc::new(Mutex::new(Tally::default()));
    let done = Arc::new(AtomicU64::new(0));
    let worker = {
        let (current, tally, done) = (current.clone(), tally.clone(), done.clone());
        std::thread::Builder::new()
            .name(WORKER.into())
            .stack_size(8 << 20)
            .spawn(move || {
                for i in from..to {
                    watch.before(i);
                    current.store(i, Ordering::SeqCst);
                    let start = Instant::now();
                    let (valid, verdict) = one(seed, i);
                    let ms = start.elapsed().as_millis() as u64;
                    watch.after(i, valid, &verdict, ms);
                    if let Ok(mut t) = tally.lock() {
                        t.add(i, valid, &verdict, ms);
                    }
                }
                done.store(1, Ordering::SeqCst);
            })
            .expect("a worker thread starts")
    };
    let mut watched = (u64::MAX, Instant::now());
    loop {
        if done.load(Ordering::SeqCst) == 1 {
            let _ = worker.join();
            let t = tally.lock().map(|t| t.clone()).unwrap_or_default();
            return Ok(t);
        }
        let now = current.load(Ordering::SeqCst);
        if now != watched.0 {
            watched = (now, Instant::now());
        } else if watched.1.elapsed() > bound {
            let t = tally.lock().map(|t| t.clone()).unwrap_or_default();
            return Err(Hang {
                index: now,
                tally: t,
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
