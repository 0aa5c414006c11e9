//! `mbsim sweep-merge DIR... --out DIR`: the shards of one sweep (`mbsim sweep --shard I/N`,
//! each in its own directory, e.g. one per task of a batch scheduler's job array) merged into
//! the `sweep.csv` and `sweep.json` an unsharded run writes.
//!
//! Checked before anything is written: every directory has both files; the manifests agree on
//! everything but the shard and the timings (model, method, options, axes, seed, runs, shard
//! count); the headers are equal; each row's `run` belongs to its directory's shard (index mod
//! N); no run appears twice (a shard merged twice, or two directories claiming one shard); no
//! run is missing. A missing run names the shard to rerun (`--shard I/N`) — a shard whose job
//! died before writing has no directory, and is found by the same count. The merged rows are
//! sorted by `run`; the merged manifest is shard 0 of 1 with the shards' summed CPU time.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};

use crate::error::AppError;

/// Arguments of `mbsim sweep-merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The shards' output directories (each with sweep.csv and sweep.json).
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Where to write the merged sweep.csv and sweep.json.
    #[arg(long)]
    pub out: PathBuf,
}

/// One shard's files, read.
struct Shard {
    dir: PathBuf,
    manifest: Value,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

/// The merged sweep.
pub struct Merged {
    /// The header of sweep.csv.
    pub header: Vec<String>,
    /// Every run's row, sorted by `run`.
    pub rows: Vec<Vec<String>>,
    /// The manifest of the whole sweep.
    pub manifest: Value,
}

/// Keys of a manifest that differ between the shards of one sweep.
const PER_SHARD: [&str; 3] = ["shard", "wall_seconds", "process_cpu_seconds"];

/// Run `mbsim sweep-merge`.
pub fn run(args: &MergeArgs) -> Result<(), AppError> {
    let merged = merge(&args.dirs)?;
    super::write_sweep(&args.out, &merged.header, &merged.rows, &merged.manifest)?;
    let failed = merged.rows.iter().filter(|r| r[1] == "failed").count();
    crate::say!(
        "merged {} shard(s): {} runs ({failed} failed), every run once\nwrote {}",
        args.dirs.len(),
        merged.rows.len(),
        args.out.join("sweep.csv").display()
    );
    Ok(())
}

/// Read and check the shards in `dirs`; the merged table and manifest.
pub fn merge(dirs: &[PathBuf]) -> Result<Merged, AppError> {
    let shards: Vec<Shard> = dirs.iter().map(|d| read(d)).collect::<Result<_, _>>()?;
    let first = shards
        .first()
        .ok_or_else(|| merge_error("no directories given".into()))?;
    let common = without_per_shard(&first.manifest);
    for s in &shards[1..] {
        let other = without_per_shard(&s.manifest);
        if other != common {
            return Err(merge_error(format!(
                "{} and {} are not shards of one sweep: their sweep.json differ in {}",
                first.dir.display(),
                s.dir.display(),
                differing_keys(&common, &other).join(", ")
            )));
        }
        if s.header != first.header {
            return Err(merge_error(format!(
                "{} and {} have different sweep.csv headers",
                first.dir.display(),
                s.dir.display()
            )));
        }
    }
    let total = count(&first.manifest, "runs_total", &first.dir)?;
    let shard_count = count(&first.manifest, "shards", &first.dir)?.max(1);
    let mut by_run: BTreeMap<usize, (&Shard, &Vec<String>)> = BTreeMap::new();
    let mut duplicated = Vec::new();
    for s in &shards {
        let shard = count(&s.manifest, "shard", &s.dir)?;
        for row in &s.rows {
            let run = run_index(row, total, &s.dir)?;
            if run % shard_count != shard {
                return Err(merge_error(format!(
                    "{}: run {run} is not in shard {shard}/{shard_count} (runs ≡ {shard} mod {shard_count})",
                    s.dir.display()
                )));
            }
            if let Some((other, _)) = by_run.insert(run, (s, row)) {
                duplicated.push((run, other.dir.clone(), s.dir.clone()));
            }
        }
    }
    if let Some((run, a, b)) = duplicated.first() {
        return Err(merge_error(format!(
            "{} run(s) appear twice (first: run {run} in {} and in {}): each shard once",
            duplicated.len(),
            a.display(),
            b.display()
        )));
    }
    let missing: Vec<usize> = (0..total).filter(|i| !by_run.contains_key(i)).collect();
    if !missing.is_empty() {
        return Err(missing_error(&missing, shard_count, &first.manifest));
    }
    let mut manifest = first.manifest.clone();
    manifest["shard"] = json!(0);
    manifest["shards"] = json!(1);
    manifest["merged_from"] = json!(
        shards
            .iter()
            .map(|s| json!({"dir": s.dir.display().to_string(), "shard": s.manifest["shard"], "shards": s.manifest["shards"]}))
            .collect::<Vec<_>>()
    );
    let summed =
        |key: &str| -> f64 { shards.iter().filter_map(|s| s.manifest[key].as_f64()).sum() };
    manifest["process_cpu_seconds"] = json!(summed("process_cpu_seconds"));
    manifest["wall_seconds"] = json!(summed("wall_seconds"));
    manifest["wall_seconds_note"] =
        json!("the sum of the shards' wall times, not the elapsed time");
    Ok(Merged {
        header: first.header.clone(),
        rows: by_run.into_values().map(|(_, row)| row.clone()).collect(),
        manifest,
    })
}

/// The error naming the shards that own the `missing` runs, with the command to rerun them.
fn missing_error(missing: &[usize], shards: usize, manifest: &Value) -> AppError {
    let mut owners: Vec<usize> = missing.iter().map(|i| i % shards).collect();
    owners.dedup();
    owners.sort_unstable();
    owners.dedup();
    let listed: Vec<String> = owners
        .iter()
        .map(|o| format!("--shard {o}/{shards}"))
        .collect();
    merge_error(format!(
        "{} of {} runs missing (first: run {}); rerun `{} sweep {} … {}` and merge again",
        missing.len(),
        count(manifest, "runs_total", Path::new("")).unwrap_or(0),
        missing[0],
        crate::registry::program(),
        manifest["model"].as_str().unwrap_or("?"),
        listed.join(", ")
    ))
}

fn merge_error(message: String) -> AppError {
    AppError::Merge(message)
}

fn without_per_shard(manifest: &Value) -> Value {
    let mut m = manifest.clone();
    if let Some(map) = m.as_object_mut() {
        for key in PER_SHARD {
            map.remove(key);
        }
    }
    m
}

fn differing_keys(a: &Value, b: &Value) -> Vec<String> {
    let (Some(a), Some(b)) = (a.as_object(), b.as_object()) else {
        return vec!["(not JSON objects)".into()];
    };
    let mut keys: Vec<String> = a
        .keys()
        .chain(b.keys())
        .filter(|k| a.get(*k) != b.get(*k))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

fn count(manifest: &Value, key: &str, dir: &Path) -> Result<usize, AppError> {
    manifest[key]
        .as_u64()
        .map(|n| n as usize)
        .ok_or_else(|| AppError::RunFile {
            path: dir.join("sweep.json"),
            message: format!("no whole number `{key}`: not a manifest of `mbsim sweep`"),
        })
}

fn run_index(row: &[String], total: usize, dir: &Path) -> Result<usize, AppError> {
    let cell = row.first().map(String::as_str).unwrap_or("");
    match cell.parse::<usize>() {
        Ok(i) if i < total => Ok(i),
        _ => Err(AppError::RunFile {
            path: dir.join("sweep.csv"),
            message: format!("`run` cell `{cell}` is not a run index below {total}"),
        }),
    }
}

fn read(dir: &Path) -> Result<Shard, AppError> {
    let json_path = dir.join("sweep.json");
    let text = std::fs::read_to_string(&json_path).map_err(|e| AppError::RunFile {
        path: json_path.clone(),
        message: format!("{e} (did this shard finish? a shard writes both files at its end)"),
    })?;
    let manifest: Value = serde_json::from_str(&text).map_err(|e| AppError::RunFile {
        path: json_path.clone(),
        message: e.to_string(),
    })?;
    let csv_path = dir.join("sweep.csv");
    let bad = |e: csv::Error| AppError::RunFile {
        path: csv_path.clone(),
        message: e.to_string(),
    };
    let mut reader = csv::Reader::from_path(&csv_path).map_err(bad)?;
    let header: Vec<String> = reader
        .headers()
        .map_err(bad)?
        .iter()
        .map(str::to_string)
        .collect();
    if header.first().map(String::as_str) != Some("run") {
        return Err(AppError::RunFile {
            path: csv_path,
            message: "the first column is not `run`: not a sweep.csv".into(),
        });
    }
    let rows = reader
        .records()
        .map(|r| r.map(|r| r.iter().map(str::to_string).collect()))
        .collect::<Result<Vec<Vec<String>>, _>>()
        .map_err(bad)?;
    Ok(Shard {
        dir: dir.to_path_buf(),
        manifest,
        header,
        rows,
    })
}
