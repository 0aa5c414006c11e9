"""Sweeps beyond one machine: :func:`mbsim.sweep` with ``backend="local"``, ``"ray"`` or
``"dask"``.

Every backend computes the same rows in Rust: the sweep is planned once (``_sweep_plan``:
the number of runs, the header of sweep.csv, the manifest; every option, axis and column
checked before anything is submitted), cut into tasks of run indices and each task runs
``_sweep_rows`` on a worker with the GIL released. A run's row depends only on the sweep's
arguments and its index (grid order, or the seeded sequence), never on which worker ran it,
so the gathered table equals the local sweep's except the timing columns
(``cpu_seconds``, ``wall_seconds``).

Tasks are shards: with T tasks, task k runs the indices ≡ k (mod T) — the runs of a slow
region of parameter space are spread over the tasks, as ``mbsim sweep --shard k/T`` spreads
them over a job array. Rows are gathered by run index as the tasks finish (a progress line
on stderr, or a callback); every run must come back exactly once (a run twice or missing is
a :class:`~mbsim.errors.DistributedError` naming it). A task whose worker dies is resubmitted
by the engine (Ray's ``max_retries``, Dask's reassignment of a dead worker's tasks); a run
that fails numerically is a row with ``status="failed"`` and its ``error_kind``, as locally.

Workers import this package and the model's extension module (the catalog's
``mbsim._native``, or a user module by its file), so they need the same Python environment
and, for a module built by :func:`mbsim.build`, the same file system path.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import math
import os
import socket
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from .errors import DistributedError, InputError

BACKENDS = ("local", "ray", "dask")

#: ``progress(done_runs, total_runs, done_tasks, total_tasks)``.
ProgressCallback = Callable[[int, int, int, int], None]


@dataclass(frozen=True)
class Spec:
    """What to run: the model's module (importable on a worker), the model and the sweep's
    arguments as the native layer takes them."""

    module_name: str
    module_file: str | None
    model: str
    options: dict[str, Any]
    grid: list[str]
    random: list[str]
    draws: int
    seed: int
    columns: list[str]

    def rows(self, indices: Sequence[int], threads: int | None) -> list[list[str]]:
        """The rows of ``indices``, computed here (in Rust, without the GIL)."""
        module = _module(self.module_name, self.module_file)
        return module._sweep_rows(
            self.model,
            list(indices),
            self.options,
            self.grid,
            self.random,
            self.draws,
            self.seed,
            self.columns,
            threads,
        )


@dataclass
class Report:
    """How a distributed sweep went: backend, tasks, the workers that ran them, times."""

    backend: str
    runs: int
    tasks: int
    task_size: int
    threads_per_task: int | None
    wall_seconds: float = 0.0
    #: Per task: ``{"task", "runs", "host", "pid", "cpu_seconds", "wall_seconds"}`` — the
    #: worker process's CPU time (``time.process_time``, every thread) while the task ran.
    task_reports: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, Any] = field(default_factory=dict)

    @property
    def workers(self) -> set[tuple[str, int]]:
        """The (host, pid) of every worker process that returned a task."""
        return {(t["host"], t["pid"]) for t in self.task_reports}

    @property
    def task_cpu_seconds(self) -> float:
        """The workers' process CPU time summed over the tasks."""
        return sum(t["cpu_seconds"] for t in self.task_reports)


def run_task(spec: Spec, task: int, indices: list[int], threads: int | None) -> dict[str, Any]:
    """One task on a worker: the rows of ``indices`` and what it cost there."""
    cpu, wall = time.process_time(), time.perf_counter()
    rows = spec.rows(indices, threads)
    return {
        "task": task,
        "indices": indices,
        "rows": rows,
        "host": socket.gethostname(),
        "node": _node(),
        "pid": os.getpid(),
        "cpu_seconds": time.process_time() - cpu,
        "wall_seconds": time.perf_counter() - wall,
        "finished": time.time(),
    }


def _node() -> str:
    """The engine's name of the node or worker running this task (the host otherwise)."""
    if "ray" in sys.modules:
        import ray

        if ray.is_initialized():
            return str(ray.get_runtime_context().get_node_id())
    if "distributed" in sys.modules:
        from distributed import get_worker

        try:
            return str(get_worker().address)
        except ValueError:  # not on a Dask worker
            pass
    return socket.gethostname()


def _module(name: str, file: str | None) -> Any:
    """The extension module serving the model: by name, or (a module built by
    ``mbsim.build``, not on ``sys.path``) from its file."""
    if name in sys.modules:
        return sys.modules[name]
    try:
        return importlib.import_module(name)
    except ImportError:
        if file is None:
            raise
    loader = importlib.machinery.ExtensionFileLoader(name, file)
    spec = importlib.util.spec_from_file_location(name, file, loader=loader)
    if spec is None:
        raise DistributedError(f"cannot load the model module {name} from {file}")
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    sys.modules[name] = mod
    return mod


class Gather:
    """Rows by run index as tasks finish; every run exactly once."""

    def __init__(self, total: int, tasks: int, progress: bool | ProgressCallback, label: str):
        self.rows: list[list[str] | None] = [None] * total
        self.done_runs = 0
        self.done_tasks = 0
        self.tasks = tasks
        self.reports: list[dict[str, Any]] = []
        self.start = time.perf_counter()
        self.progress = progress
        self.label = label

    def add(self, result: dict[str, Any]) -> None:
        task = result["task"]
        if len(result["rows"]) != len(result["indices"]):
            raise DistributedError(
                f"task {task} returned {len(result['rows'])} rows for {len(result['indices'])} runs"
            )
        for index, row in zip(result["indices"], result["rows"]):
            run = int(row[0])
            if run != index:
                raise DistributedError(f"task {task}: row of run {run} where run {index} was asked")
            if self.rows[run] is not None:
                raise DistributedError(f"run {run} came back twice (the second time from task {task})")
            self.rows[run] = row
        self.done_runs += len(result["rows"])
        self.done_tasks += 1
        self.reports.append({k: v for k, v in result.items() if k not in ("rows", "indices")}
                            | {"runs": len(result["rows"])})
        self.show()

    def show(self) -> None:
        total = len(self.rows)
        if callable(self.progress):
            self.progress(self.done_runs, total, self.done_tasks, self.tasks)
            return
        if not self.progress:
            return
        elapsed = time.perf_counter() - self.start
        rate = self.done_runs / elapsed if elapsed > 0 else 0.0
        line = (
            f"\r{self.label}: {self.done_tasks}/{self.tasks} tasks, "
            f"{self.done_runs}/{total} runs, {rate:.1f} runs/s, {elapsed:.1f} s"
        )
        sys.stderr.write(line)
        sys.stderr.flush()

    def finish(self) -> list[list[str]]:
        missing = [i for i, r in enumerate(self.rows) if r is None]
        if missing:
            raise DistributedError(
                f"{len(missing)} of {len(self.rows)} runs never came back (first: run {missing[0]})"
            )
        if self.progress is True:
            sys.stderr.write("\n")
        return [r for r in self.rows if r is not None]


def tasks_of(total: int, task_size: int) -> list[list[int]]:
    """The runs 0..total cut into ceil(total / task_size) round-robin shards."""
    count = max(1, math.ceil(total / max(1, task_size)))
    return [list(range(k, total, count)) for k in range(count)]


def default_task_size(total: int, workers: int) -> int:
    """Four tasks per worker (balance, and a lost worker costs a quarter of its share),
    at least 16 runs a task (the engines' per-task overhead is milliseconds: see
    docs/distributed-sweeps.md) and at most 5000 (a retry repeats at most that)."""
    return max(16, min(5000, math.ceil(total / max(1, 4 * workers))))


def run_ray(
    spec: Spec,
    tasks: list[list[int]],
    threads: int,
    gather: Gather,
    address: str | None,
    retries: int,
) -> None:
    import ray

    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, include_dashboard=False)
    remote = ray.remote(num_cpus=threads, max_retries=retries)(run_task)
    pending = [remote.remote(spec, k, idx, threads) for k, idx in enumerate(tasks)]
    while pending:
        done, pending = ray.wait(pending, num_returns=1)
        for ref in done:
            try:
                gather.add(ray.get(ref))
            except ray.exceptions.RayError as e:
                raise DistributedError(f"a Ray task failed beyond {retries} retries: {e}") from e


def ray_workers(address: str | None) -> int:
    import ray

    if not ray.is_initialized():
        ray.init(address=address, log_to_driver=False, include_dashboard=False)
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def run_dask(
    spec: Spec,
    tasks: list[list[int]],
    threads: int,
    gather: Gather,
    client: Any,
    retries: int,
) -> None:
    from distributed import as_completed

    futures = [
        client.submit(run_task, spec, k, idx, threads, pure=False, retries=retries)
        for k, idx in enumerate(tasks)
    ]
    for future in as_completed(futures):
        try:
            gather.add(future.result())
        except Exception as e:  # KilledWorker, or a task's own exception
            if isinstance(e, (DistributedError, InputError)):
                raise
            raise DistributedError(f"a Dask task failed beyond its retries: {e!r}") from e


def dask_client(client: Any, address: str | None) -> tuple[Any, bool]:
    """The client to use and whether this call owns it (and closes it)."""
    if client is not None:
        return client, False
    from distributed import Client

    if address is not None:
        return Client(address), True
    return Client(processes=True, threads_per_worker=1), True


def dask_workers(client: Any) -> int:
    info = client.scheduler_info()
    return max(1, sum(w.get("nthreads", 1) for w in info.get("workers", {}).values()))


def grid_specs(grid: Mapping[str, tuple] | Sequence[str] | None) -> list[str]:
    """Grid axes as the CLI writes them: ``{name: (from, to, count[, "log"])}``, or already
    ``["NAME=FROM:TO:COUNT[:log]", ...]``."""
    if isinstance(grid, (list, tuple)):
        return [str(g) for g in grid]
    out = []
    for k, axis in (grid or {}).items():
        if len(axis) == 4:
            a, b, c, spacing = axis
            out.append(f"{k}={a!r}:{b!r}:{int(c)}:{spacing}")
        else:
            a, b, c = axis
            out.append(f"{k}={a!r}:{b!r}:{int(c)}")
    return out


def random_specs(random: Mapping[str, tuple] | Sequence[str] | None) -> list[str]:
    """Random axes: ``{name: (from, to[, "log"])}``, or ``["NAME=FROM:TO[:log]", ...]``."""
    if isinstance(random, (list, tuple)):
        return [str(r) for r in random]
    out = []
    for k, axis in (random or {}).items():
        if len(axis) == 3:
            a, b, spacing = axis
            out.append(f"{k}={a!r}:{b!r}:{spacing}")
        else:
            a, b = axis
            out.append(f"{k}={a!r}:{b!r}")
    return out
