//! The long fuzzing campaign: `cargo run --release -p mbsim-fuzz -- --inputs 1000000`.
//!
//! The supervisor (this binary without `--worker`) runs the inputs in chunks, each in a child
//! process of itself (`--worker --from A --to B`) under a virtual-memory limit (`ulimit -v`,
//! `--memory-mb`), so an abort, a stack overflow or an allocation failure kills one child, not
//! the campaign: the child prints each index before running it, and the supervisor reports the
//! last one as the crashing input and goes on after it. A child silent for longer than the
//! bound per input (`--bound-secs`) is killed and its input reported as a hang; the child's
//! own watchdog (`campaign::run`) reports it first. At the end: the figures, and every
//! violation, crash and hang by seed and index (`--show I` prints input I's text, to make it a
//! regression case).
//!
//! Options: `--inputs N` (1 000 000), `--seed S` (1), `--from I` (0), `--chunk N` (20 000),
//! `--jobs J` (children at once, 1), `--bound-secs T` (10), `--memory-mb M` (4096),
//! `--show I`, `--explain-valid N` (why valid models among N inputs were refused), `--file PATH` (run one text, as a regression case is investigated).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use mbsim_fuzz::campaign::{self, Tally};
use mbsim_fuzz::harness::{Outcome, Violation};

struct Options {
    inputs: u64,
    seed: u64,
    from: u64,
    chunk: u64,
    jobs: usize,
    bound: u64,
    memory_mb: u64,
    show: Option<u64>,
    explain: Option<u64>,
    file: Option<String>,
    worker: Option<(u64, u64)>,
}

fn parse() -> Result<Options, String> {
    let mut o = Options {
        inputs: 1_000_000,
        seed: 1,
        from: 0,
        chunk: 20_000,
        jobs: 1,
        bound: 10,
        memory_mb: 4096,
        show: None,
        explain: None,
        file: None,
        worker: None,
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut to = None;
    let mut worker = false;
    let mut i = 0;
    while i < args.len() {
        let value = |i: usize| -> Result<u64, String> {
            let v = args
                .get(i + 1)
                .ok_or_else(|| format!("{} needs a value", args[i]))?;
            v.replace('_', "")
                .parse()
                .map_err(|e| format!("{} {v}: {e}", args[i]))
        };
        match args[i].as_str() {
            "--inputs" => o.inputs = value(i)?,
            "--seed" => o.seed = value(i)?,
            "--from" => o.from = value(i)?,
            "--to" => to = Some(value(i)?),
            "--chunk" => o.chunk = value(i)?.max(1),
            "--jobs" => o.jobs = value(i)?.max(1) as usize,
            "--bound-secs" => o.bound = value(i)?.max(1),
            "--memory-mb" => o.memory_mb = value(i)?,
            "--show" => o.show = Some(value(i)?),
            "--explain-valid" => o.explain = Some(value(i)?),
            "--file" => o.file = Some(args.get(i + 1).cloned().ok_or("--file needs a path")?),
            "--worker" => {
                worker = true;
                i += 1;
                continue;
            }
            other => return Err(format!("unknown option `{other}` (see the file's docs)")),
        }
        i += 2;
    }
    if worker {
        o.worker = Some((o.from, to.ok_or("--worker needs --to")?));
    }
    Ok(o)
}

fn main() {
    let o = match parse() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("mbsim-fuzz: {e}");
            std::process::exit(2);
        }
    };
    if let Some(i) = o.show {
        let input = mbsim_fuzz::input(o.seed, i);
        println!("{}", input.text);
        return;
    }
    if let Some(n) = o.explain {
        // Why valid models of inputs 0..n were refused (the generator's or the front end's
        // fault, to be told apart by reading).
        for i in o.from..o.from + n {
            let input = mbsim_fuzz::input(o.seed, i);
            if input.valid {
                let words = mbsim_fuzz::harness::explain(&input.text);
                if words != "ok" {
                    println!("input {i} ({:?}): {words}", input.generated.shape);
                }
            }
        }
        return;
    }
    if let Some(path) = &o.file {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("mbsim-fuzz: cannot read {path}: {e}");
            std::process::exit(2)
        });
        let verdict = std::thread::Builder::new()
            .stack_size(8 << 20)
            .spawn(move || {
                (
                    mbsim_fuzz::harness::run(&text, None),
                    mbsim_fuzz::harness::explain(&text),
                )
            })
            .expect("a thread")
            .join();
        match verdict {
            Ok((verdict, words)) => println!("{verdict:?}\n{words}"),
            Err(_) => println!("the thread died"),
        }
        return;
    }
    if let Some(range) = o.worker {
        worker(o.seed, range, o.bound);
        return;
    }
    supervise(&o);
}

/// Prints `i INDEX` before each input and `r INDEX VALID CODE ENTRIES MS` after it (CODE: `b`
/// built, `r` rejected, `v` violation, then the violation on a `violation INDEX TEXT` line),
/// each flushed, so the supervisor's count survives the worker.
struct Lines;

impl campaign::Watch for Lines {
    fn before(&self, index: u64) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "i {index}");
        let _ = out.flush();
    }

    fn after(&self, index: u64, valid: bool, verdict: &Result<Outcome, Violation>, ms: u64) {
        let mut out = std::io::stdout().lock();
        let (code, entries) = match verdict {
            Ok(Outcome::Built { entries, .. }) => ("b", *entries),
            Ok(Outcome::Rejected(_)) => ("r", 0),
            Err(v) => {
                let _ = writeln!(
                    out,
                    "violation {index} {}",
                    v.to_string().replace('\n', " | ")
                );
                ("v", 0)
            }
        };
        let _ = writeln!(out, "r {index} {} {code} {entries} {ms}", u8::from(valid));
        let _ = out.flush();
    }
}

/// Run `from..to` under the watchdog, reporting through [`Lines`].
fn worker(seed: u64, range: (u64, u64), bound: u64) {
    match campaign::run(seed, range, Duration::from_secs(bound), Lines) {
        Ok(_) => println!("done"),
        Err(hang) => {
            println!("hang {}", hang.index);
            let _ = std::io::stdout().flush();
            std::process::exit(3);
        }
    }
}

/// What a child reported.
#[derive(Default)]
struct Child {
    tally: Tally,
    messages: Vec<(u64, String)>,
    last: Option<u64>,
    hang: Option<u64>,
    finished: bool,
}

fn read_line(line: &str, c: &mut Child) {
    let mut words = line.splitn(2, ' ');
    let (head, rest) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    match head {
        "i" => c.last = rest.parse().ok(),
        "hang" => c.hang = rest.parse().ok(),
        "done" => c.finished = true,
        "violation" => {
            let (i, m) = rest.split_once(' ').unwrap_or((rest, ""));
            c.messages
                .push((i.parse().unwrap_or(u64::MAX), m.to_string()));
        }
        "r" => {
            let w: Vec<&str> = rest.split(' ').collect();
            if let [index, valid, code, entries, ms] = w[..] {
                let (index, ms) = (index.parse().unwrap_or(0), ms.parse().unwrap_or(0));
                let entries = entries.parse().unwrap_or(0);
                let verdict = match code {
                    "b" => Ok(Outcome::Built { models: 1, entries }),
                    "r" => Ok(Outcome::Rejected(1)),
                    _ => {
                        let m = c.messages.iter().rev().find(|(i, _)| *i == index);
                        Err(Violation::Relayed(
                            m.map(|(_, m)| m.clone()).unwrap_or_default(),
                        ))
                    }
                };
                c.tally.add(index, valid == "1", &verdict, ms);
            }
        }
        _ => {}
    }
}

/// Run `from..to` in a child; returns its report and the crash or hang that ended it early.
fn child(o: &Options, from: u64, to: u64) -> (Child, Option<String>) {
    let exe = std::env::current_exe().expect("the binary's path");
    let script = format!("ulimit -v {} && exec \"$0\" \"$@\"", o.memory_mb * 1024);
    let spawned = Command::new("sh")
        .args(["-c", &script])
        .arg(&exe)
        .args([
            "--worker",
            "--seed",
            &o.seed.to_string(),
            "--from",
            &from.to_string(),
        ])
        .args([
            "--to",
            &to.to_string(),
            "--bound-secs",
            &o.bound.to_string(),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut process = match spawned {
        Ok(p) => p,
        Err(e) => {
            return (
                Child::default(),
                Some(format!("cannot start a worker: {e}")),
            );
        }
    };
    let (tx, rx) = mpsc::channel();
    let stdout = process.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stderr = process.stderr.take().expect("piped stderr");
    let errors = std::thread::spawn(move || {
        let mut tail = Vec::new();
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            tail.push(line);
            if tail.len() > 20 {
                tail.remove(0);
            }
        }
        tail.join(" | ")
    });
    let mut c = Child::default();
    let silent_limit = Duration::from_secs(2 * o.bound + 5);
    loop {
        match rx.recv_timeout(silent_limit) {
            Ok(line) => read_line(&line, &mut c),
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {
                let _ = process.kill();
                let _ = process.wait();
                c.hang = c.last;
                return (
                    c,
                    Some("hang (the worker went silent and was killed)".into()),
                );
            }
        }
    }
    let status = process.wait();
    let stderr_tail = errors.join().unwrap_or_default();
    if c.hang.is_some() {
        return (c, Some("hang (the worker's watchdog)".into()));
    }
    match status {
        Ok(s) if s.success() && c.finished => (c, None),
        Ok(s) => (c, Some(format!("crash ({s}): {stderr_tail}"))),
        Err(e) => (c, Some(format!("crash (cannot wait: {e})"))),
    }
}

fn merge(total: &mut Tally, part: &Tally) {
    total.inputs += part.inputs;
    total.valid += part.valid;
    total.valid_built += part.valid_built;
    total.built += part.built;
    total.rejected += part.rejected;
    total.numeric_models += part.numeric_models;
    total.numeric_entries += part.numeric_entries;
    total.violations.extend(part.violations.iter().cloned());
    if part.slowest_ms > total.slowest_ms {
        total.slowest_ms = part.slowest_ms;
        total.slowest_index = part.slowest_index;
    }
}

fn supervise(o: &Options) {
    let start = Instant::now();
    let end = o.from + o.inputs;
    let mut total = Tally::default();
    let mut incidents: Vec<(u64, String)> = Vec::new();
    let mut next = o.from;
    let mut chunks: Vec<(u64, u64)> = Vec::new();
    while next < end {
        chunks.push((next, (next + o.chunk).min(end)));
        next += o.chunk;
    }
    let mut queue = chunks.into_iter();
    let (tx, rx) = mpsc::channel::<(Tally, Vec<(u64, String)>)>();
    let mut running = 0;
    let run_chunk = |(from, to): (u64, u64), tx: mpsc::Sender<(Tally, Vec<(u64, String)>)>| {
        let opts = Options {
            worker: None,
            show: None,
            explain: None,
            file: None,
            ..*o
        };
        std::thread::spawn(move || {
            let mut tally = Tally::default();
            let mut incidents = Vec::new();
            let mut at = from;
            while at < to {
                let (c, problem) = child(&opts, at, to);
                merge(&mut tally, &c.tally);
                match problem {
                    None => break,
                    Some(why) => {
                        let culprit = c.hang.or(c.last).unwrap_or(at);
                        // The culprit ran too: its verdict is the incident.
                        tally.inputs += 1;
                        incidents.push((culprit, why));
                        at = culprit + 1;
                    }
                }
            }
            let _ = tx.send((tally, incidents));
        });
    };
    for _ in 0..o.jobs {
        if let Some(c) = queue.next() {
            run_chunk(c, tx.clone());
            running += 1;
        }
    }
    while running > 0 {
        let Ok((tally, found)) = rx.recv() else { break };
        running -= 1;
        merge(&mut total, &tally);
        incidents.extend(found);
        eprintln!(
            "[{:.0} s] {}",
            start.elapsed().as_secs_f64(),
            total.summary()
        );
        if let Some(c) = queue.next() {
            run_chunk(c, tx.clone());
            running += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!("seed {}, inputs {}..{}", o.seed, o.from, end);
    println!("{}", total.summary());
    println!("crashes and hangs: {}", incidents.len());
    println!(
        "{:.1} s wall, {:.0} inputs/s",
        secs,
        total.inputs as f64 / secs.max(1e-9)
    );
    for (i, v) in &total.violations {
        println!("violation: seed {} input {i}: {v}", o.seed);
    }
    for (i, why) in &incidents {
        println!("incident: seed {} input {i}: {why}", o.seed);
    }
    if !total.violations.is_empty() || !incidents.is_empty() {
        std::process::exit(1);
    }
}
