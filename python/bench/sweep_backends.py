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
- the per-task cost of an engine: 200 tasks of one near-free run each (the pendulum over
  1 ms), W·wall/tasks minus the runs' Rust time, and the driver's and workers' process CPU
  time per task;
- the task size that amortises it: the smallest whose cost is ≤ 5 % of the runs' time,
  ceil(cost per task / (0.05 · t_run)), t_run the mean Rust thread CPU time of a run.

    .venv/bin/python python/bench/sweep_backends.py [--quick] [--json target/bench-distributed.json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

import mbsim

CASES = {
    # Andrews' squeezing mechanism (7 bodies, 6 constraints), 0.3 s of motion at rtol 1e-6
    # (its catalog defaults): about 4 400 steps, tens of milliseconds a run.
    "andrews": dict(random={"mom": (0.030, 0.036)}),
    # The four-bar chain of IFToMM A02 (41 links, 80 constraints), 0.5 s at rtol 1e-8 (its
    # defaults): about 17 steps, about a millisecond and a half a run.
    "four-bar-chain": dict(random={"g": (9.0, 10.6)}),
}

# Runs that cost next to nothing (the pendulum over 1 ms): what a task of one such run costs
# is the engine's own cost per task.
NULL = dict(model="pendulum", random={"g": (9.0, 10.0)}, t_end=1e-3)


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
            "driver_cpu": cpu, "worker_cpu": None, "tasks": 1, "task_size": runs,
            "rust_cpu": float(table["cpu_seconds"].sum())}


def engine(name, model, runs, case, workers, extra):
    mbsim.sweep(model, backend=name, draws=max(8, runs // 10), seed=2, progress=False,
                **extra, **case)
    (table, report), wall, cpu = timed(model=model, backend=name, draws=runs, seed=1,
                                       **extra, **case)
    return {"engine": name, "workers": workers, "runs": runs, "wall": wall, "driver_cpu": cpu,
            "worker_cpu": report.task_cpu_seconds, "tasks": report.tasks,
            "task_size": report.task_size, "rust_cpu": float(table["cpu_seconds"].sum())}


def per_task(name, workers, extra, tasks=200):
    """The engine's cost of a task: `tasks` tasks of one near-free run each."""
    null = {k: v for k, v in NULL.items() if k != "model"}
    mbsim.sweep(NULL["model"], backend=name, draws=20, seed=2, task_size=1, progress=False,
                **extra, **null)
    (table, report), wall, cpu = timed(model=NULL["model"], backend=name, draws=tasks, seed=1,
                                       task_size=1, **extra, **null)
    rust = float(table["cpu_seconds"].sum())
    return {"engine": name, "workers": workers, "tasks": tasks,
            "wall_per_task": (workers * wall - rust) / tasks,
            "driver_cpu_per_task": cpu / tasks,
            "worker_cpu_per_task": (report.task_cpu_seconds - rust) / tasks,
            "rust_per_run": rust / tasks}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer runs (a smoke run)")
    ap.add_argument("--json", default="target/bench-distributed.json")
    args = ap.parse_args()
    # Ray's token authentication with a token of this run only (a local `ray.init()` would
    # otherwise write ~/.ray/auth_token, shared by every cluster of this user).
    os.environ.setdefault("RAY_AUTH_MODE", "token")
    os.environ.setdefault("RAY_AUTH_TOKEN", os.urandom(32).hex())
    import ray
    from distributed import Client, LocalCluster

    print(f"load: {os.getloadavg()}, cores: {os.cpu_count()}")
    seconds = 2.0 if args.quick else 10.0
    plans = {}
    for model, case in CASES.items():
        probe = mbsim.sweep(model, draws=8, seed=9, threads=1, progress=False, **case)
        t_probe = float(probe["cpu_seconds"].mean())
        plans[model] = min(20000, max(40, int(seconds / t_probe)))
    rows = {m: [local(m, plans[m], c, 1), local(m, plans[m], c, 2)] for m, c in CASES.items()}
    overheads = []
    for w in (1, 2):
        ray.init(num_cpus=w, include_dashboard=False, log_to_driver=False)
        try:
            overheads.append(per_task("ray", w, {}))
            for m, c in CASES.items():
                rows[m].append(engine("ray", m, plans[m], c, w, {}))
        finally:
            ray.shutdown()
        cluster = LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
        try:
            overheads.append(per_task("dask", w, {"client": client}))
            for m, c in CASES.items():
                rows[m].append(engine("dask", m, plans[m], c, w, {"client": client}))
        finally:
            client.close()
            cluster.close()
    print(f"load after: {os.getloadavg()}")
    for m in CASES:
        report(m, rows[m])
    report_overheads(overheads, rows)
    os.makedirs(os.path.dirname(args.json) or ".", exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"throughput": rows, "per_task": overheads}, f, indent=1)
    print(f"wrote {args.json}")


def report(model, rows) -> None:
    r0 = rows[0]
    print(f"\n{model}: {r0['runs']} runs; Rust thread CPU time of a run "
          f"{r0['rust_cpu'] / r0['runs'] * 1e3:.3f} ms (mean, local, 1 thread)")
    print("| engine | workers | runs/s | wall s | driver process CPU s | worker process CPU s "
          "| tasks × runs |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        wc = f"{r['worker_cpu']:.2f}" if r["worker_cpu"] is not None else "(in the driver)"
        print(f"| {r['engine']} | {r['workers']} | {r['runs'] / r['wall']:.1f} | {r['wall']:.2f} "
              f"| {r['driver_cpu']:.2f} | {wc} | {r['tasks']} × {r['task_size']} |")


def report_overheads(overheads, rows) -> None:
    print("\nper task (tasks of one near-free run; wall = workers × wall / tasks − Rust time):")
    print("| engine | workers | wall per task ms | driver CPU per task ms | worker CPU per task ms "
          "| task size for ≤ 5 %: andrews | four-bar-chain |")
    print("|---|---|---|---|---|---|---|")
    t_run = {m: r[0]["rust_cpu"] / r[0]["runs"] for m, r in rows.items()}
    for o in overheads:
        sizes = [max(1, math.ceil(o["wall_per_task"] / (0.05 * t_run[m]))) for m in CASES]
        print(f"| {o['engine']} | {o['workers']} | {o['wall_per_task'] * 1e3:.2f} "
              f"| {o['driver_cpu_per_task'] * 1e3:.2f} | {o['worker_cpu_per_task'] * 1e3:.2f} "
              f"| {sizes[0]} | {sizes[1]} |")


if __name__ == "__main__":
    main()
