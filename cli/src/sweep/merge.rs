//! `mbsim sweep-merge DIR... --out DIR`: the shards of one sweep (`mbsim sweep --shard I/N`,
//! each in its own directory, e.g. one per task of a batch scheduler's job array) merged into
//! the `sweep.csv` and `sweep.json` an unsharded run writes.
//!
//! Checked before anything is written: every directory has both files; the manifests agree on
//! everything but the shard and the timings (model, method, options, axes, seed, runs, shard
//! count); the headers are equal; each shard is given once (a shard twice would give its runs
//! twice) and none is missing (a shard whose job died before writing has no files: it is
//! named with the command to rerun it). Then the rows are streamed: run i is the next row of
//! shard i mod N (each shard's file is in run order), so the merge holds one row per shard in
//! memory, not the sweep, and checks while it writes that every row is the run expected there
//! — a row out of place, missing or extra fails the merge and no sweep.csv is left behind.
//! The merged manifest is shard 0 of 1 with the shards' summed CPU time.

use std::io::Write;
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

/// One shard's manifest and its open table.
struct Shard {
    dir: PathBuf,
    manifest: Value,
    header: Vec<String>,
    rows: csv::StringRecordsIntoIter<std::fs::File>,
}

/// What a merge wrote.
pub struct Merged {
    /// Runs written (every run of the sweep).
    pub runs: usize,
    /// Of which failed.
    pub failed: usize,
    /// The manifest of the whole sweep.
    pub manifest: Value,
}

/// Keys of a manifest that differ between the shards of one sweep.
const PER_SHARD: [&str; 3] = ["shard", "wall_seconds", "process_cpu_seconds"];

/// Run `mbsim sweep-merge`.
pub fn run(args: &MergeArgs) -> Result<(), AppError> {
    let merged = merge(&args.dirs, &args.out)?;
    crate::say!(
        "merged {} shard(s): {} runs ({} failed), every run once\nwrote {}",
        args.dirs.len(),
        merged.runs,
        merged.failed,
        args.out.join("sweep.csv").display()
    );
    Ok(())
}

/// Check the shards in `dirs` and write the merged sweep.csv and sweep.json into `out`.
pub fn merge(dirs: &[PathBuf], out: &Path) -> Result<Merged, AppError> {
    let shards: Vec<Shard> = dirs.iter().map(|d| open(d)).collect::<Result<_, _>>()?;
    let first = shards
        .first()
        .ok_or_else(|| merge_error("no directories given".into()))?;
    agree(first, &shards[1..])?;
    let total = count(&first.manifest, "runs_total", &first.dir)?;
    let shard_count = count(&first.manifest, "shards", &first.dir)?.max(1);
    let mut manifest = merged_manifest(&shards);
    let header = first.header.clone();
    let mut by_shard = by_shard(shards, shard_count, total)?;
    std::fs::create_dir_all(out).map_err(|source| AppError::Io {
        path: out.to_path_buf(),
        source,
    })?;
    let mut failed = 0;
    super::rows::write_csv_with(&out.join("sweep.csv"), &header, |write| {
        for run in 0..total {
            let shard = &mut by_shard[run % shard_count];
            let row = next_row(shard, run, shard_count)?;
            failed += usize::from(row.get(1) == Some("failed"));
            write(&row)?;
        }
        for (k, shard) in by_shard.iter_mut().enumerate() {
            if let Some(extra) = shard.rows.next() {
                let cell = extra
                    .map(|r| r.get(0).unwrap_or("").to_string())
                    .unwrap_or_default();
                return Err(merge_error(format!(
                    "{}: a row after the last run of shard {k}/{shard_count} (run `{cell}`): \
                     each run once, in run order",
                    shard.dir.display()
                )));
            }
        }
        Ok(())
    })?;
    manifest["merged_failed_runs"] = json!(failed);
    let path = out.join("sweep.json");
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default() + "\n";
    crate::output::write_whole(&path, |w| {
        w.write_all(text.as_bytes()).map_err(|source| AppError::Io {
            path: path.clone(),
            source,
        })
    })?;
    Ok(Merged {
        runs: total,
        failed,
        manifest,
    })
}

/// The manifests and headers of `rest` agree with `first`'s.
fn agree(first: &Shard, rest: &[Shard]) -> Result<(), AppError> {
    let common = without_per_shard(&first.manifest);
    for s in rest {
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
    Ok(())
}

/// The shards indexed by shard number: each once, none missing.
fn by_shard(shards: Vec<Shard>, shard_count: usize, total: usize) -> Result<Vec<Shard>, AppError> {
    let mut slots: Vec<Option<Shard>> = (0..shard_count).map(|_| None).collect();
    for s in shards {
        let k = count(&s.manifest, "shard", &s.dir)?;
        let Some(slot) = slots.get_mut(k) else {
            return Err(AppError::RunFile {
                path: s.dir.join("sweep.json"),
                message: format!("shard {k} of {shard_count} is out of range"),
            });
        };
        if let Some(other) = slot {
            return Err(merge_error(format!(
                "shard {k}/{shard_count} is given twice ({} and {}): its {} run(s) would \
                 appear twice; give each shard once",
                other.dir.display(),
                s.dir.display(),
                shard_runs(k, shard_count, total)
            )));
        }
        *slot = Some(s);
    }
    let missing: Vec<usize> = (0..shard_count).filter(|&k| slots[k].is_none()).collect();
    if !missing.is_empty() {
        let runs: usize = missing
            .iter()
            .map(|&k| shard_runs(k, shard_count, total))
            .sum();
        let model = slots
            .iter()
            .flatten()
            .next()
            .and_then(|s| s.manifest["model"].as_str().map(str::to_string))
            .unwrap_or_default();
        return Err(missing_error(&missing, shard_count, runs, total, &model));
    }
    Ok(slots.into_iter().flatten().collect())
}

/// How many runs shard k of n has in a sweep of `total`.
fn shard_runs(k: usize, n: usize, total: usize) -> usize {
    (k..total).step_by(n).count()
}

/// The next row of `shard`, which must be run `run`.
fn next_row(shard: &mut Shard, run: usize, shards: usize) -> Result<csv::StringRecord, AppError> {
    let path = shard.dir.join("sweep.csv");
    let record = shard
        .rows
        .next()
        .transpose()
        .map_err(|e| AppError::RunFile {
            path: path.clone(),
            message: e.to_string(),
        })?;
    let Some(record) = record else {
        return Err(merge_error(format!(
            "{}: run {run} missing (the file ends early); rerun shard `--shard {}/{shards}` \
             and merge again",
            path.display(),
            run % shards
        )));
    };
    let cell = record.get(0).unwrap_or("");
    if cell.parse::<usize>().ok() != Some(run) {
        return Err(merge_error(format!(
            "{}: row with run `{cell}` where run {run} belongs (shard {}/{shards} runs ≡ {} \
             mod {shards}, each once, in run order)",
            path.display(),
            run % shards,
            run % shards
        )));
    }
    Ok(record)
}

/// The merged manifest: the first shard's, as shard 0 of 1, with the summed times.
fn merged_manifest(shards: &[Shard]) -> Value {
    let mut manifest = shards[0].manifest.clone();
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
    manifest
}

/// The error naming the `missing` shards, with the command to rerun them.
fn missing_error(
    missing: &[usize],
    shards: usize,
    runs: usize,
    total: usize,
    model: &str,
) -> AppError {
    let listed: Vec<String> = missing
        .iter()
        .map(|o| format!("--shard {o}/{shards}"))
        .collect();
    merge_error(format!(
        "{runs} of {total} runs missing (no directory for shard(s) {}); rerun `{} sweep {model} \
         … {}` and merge again",
        missing
            .iter()
            .map(|k| format!("{k}/{shards}"))
            .collect::<Vec<_>>()
            .join(", "),
        crate::registry::program(),
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

fn open(dir: &Path) -> Result<Shard, AppError> {
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
    Ok(Shard {
        dir: dir.to_path_buf(),
        manifest,
        header,
        rows: reader.into_records(),
    })
}
