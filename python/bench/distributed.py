"""Throughput of the sweep backends on this machine: runs per second of `mbsim.sweep` with the
local backend (rayon in this process, 1 and 2 threads), Ray (a local cluster of 1 and 2 worker
CPUs) and Dask (a LocalCluster of 1 and 2 single-threaded worker processes), on Andrews'
mechanism and the four-bar chain (41 links). A benchmark, not a test: figures depend on the
machine and its load (`uptime` is printed with them).

Measured per configuration (clusters started before the clock starts; each timed sweep after
one warm-up sweep on the same cluster):
- wall time of the sweep call → runs/s;
- process CPU time (`time.process_time`, every thread of the process) of the calling process
  around the call, and for Ray/Dask the workers' process CPU time summed over the tasks
  (`Report.task_cpu_seconds`: each worker's own `time.process_time` around its task);
- the per-task overhead of an engine: a sweep cut into tasks of one run each, minus the Rust
  time of a run (local, one thread): overhead per task = W·wall/tasks − t_run;
- the task size that amortises it: the smallest whose overhead is ≤ 5 % of the runs' time,
  ceil(overhead / (0.05 · t_run)).

    .venv/bin/python python/bench/distributed.py [--quick] [--json target/bench-distributed.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import mbsim

CASES = {
    # Andrews' squeezing mechanism (7 bodies, 6 constraints), 3 ms of motion by default.
    "andrews": dict(random={"mom": (0.030, 0.036)}),
    # The four-bar chain of IFToMM A02 (41 links, 80 constraints), 0.1 s of motion.
    "four-bar-chain": dict(random={"g": (9.0, 10.6)}, t_end=0.1),
}


def timed(**kwargs):
    cpu, wall = time.process_time(), time.perf_counter()
    out = mbsim.sweep(progress=False, report=True, **kwargs)
    return out, time.perf_counter() - wall, time.process_time() - cpu


def local(model, runs, case, threads):
    mbsim.sweep(model, backend="local", draws=max(4, runs // 10), seed=2, threads=threads,
                progress=False, **case)
    (table, report), wall, cpu = timed(model=model, backend="local", draws=runs, seed=1,
                                       threads=threads, **case)
    return {"engine": "local (rayon)", "workers": threads, "runs": runs, "wall": wall,
            "driver_cpu": cpu, "worker_cpu": None, "tasks": 1}


def engine(name, model, runs, case, workers, extra):
    mbsim.sweep(model, backend=name, draws=max(8, runs // 10), seed=2, **extra, **case)
    (table, report), wall, cpu = timed(model=model, backend=name, draws=runs, seed=1,
                                       **extra, **case)
    row = {"engine": name, "workers": workers, "runs": runs, "wall": wall, "driver_cpu": cpu,
           "worker_cpu": report.task_cpu_seconds, "tasks": report.tasks,
           "task_size": report.task_size}
    # Tasks of one run each: the engine's cost per task.
    small = max(2 * workers, min(runs, 60))
    (t1, r1), wall1, cpu1 = timed(model=model, backend=name, draws=small, seed=3, task_size=1,
                                  **extra, **case)
    row["one_run_tasks"] = {"runs": small, "wall": wall1, "driver_cpu": cpu1}
    return row


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer runs (a smoke run)")
    ap.add_argument("--json", default="target/bench-distributed.json")
    args = ap.parse_args()
    import ray
    from distributed import Client, LocalCluster

    print(f"load: {os.getloadavg()}, cores: {os.cpu_count()}")
    results = []
    for model, case in CASES.items():
        # Runs per configuration: about 10 s of one core.
        probe = mbsim.sweep(model, draws=8, seed=9, threads=1, progress=False, **case)
        t_probe = float(probe["cpu_seconds"].mean())
        runs = max(40, int((2.0 if args.quick else 10.0) / t_probe))
        runs = min(runs, 20000)
        rows = [local(model, runs, case, 1), local(model, runs, case, 2)]
        t_run = rows[0]["wall"] / runs
        for w in (1, 2):
            ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False)
            try:
                rows.append(engine("ray", model, runs, case, w, {}))
            finally:
                ray.shutdown()
            cluster = LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
            client = Client(cluster)
            try:
                rows.append(engine("dask", model, runs, case, w, {"client": client}))
            finally:
                client.close()
                cluster.close()
        for r in rows:
            r["model"] = model
            r["runs_per_s"] = r["runs"] / r["wall"]
            r["t_run"] = t_run
            one = r.get("one_run_tasks")
            if one:
                per_task = r["workers"] * one["wall"] / one["runs"] - t_run
                r["overhead_per_task"] = per_task
                r["amortising_task_size"] = max(1, math.ceil(per_task / (0.05 * t_run)))
        results.extend(rows)
        report(rows)
    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(results, f, indent=1)
    print(f"wrote {args.json}")


def report(rows) -> None:
    r0 = rows[0]
    print(f"\n{r0['model']}: {r0['runs']} runs, Rust time of a run (local, 1 thread) "
          f"{r0['t_run'] * 1e3:.3f} ms")
    print("| engine | workers | runs/s | driver CPU s | worker CPU s | tasks × size "
          "| overhead/task ms | task size for ≤5 % |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        wc = f"{r['worker_cpu']:.2f}" if r["worker_cpu"] is not None else "(in driver)"
        ts = f"{r['tasks']} × {r.get('task_size', r['runs'])}"
        oh = f"{r['overhead_per_task'] * 1e3:.2f}" if "overhead_per_task" in r else "—"
        am = str(r["amortising_task_size"]) if "amortising_task_size" in r else "—"
        print(f"| {r['engine']} | {r['workers']} | {r['runs_per_s']:.1f} | "
              f"{r['driver_cpu']:.2f} | {wc} | {ts} | {oh} | {am} |")


if __name__ == "__main__":
    main()
