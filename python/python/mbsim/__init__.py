"""mbsim: constrained multibody models simulated by generated Rust kernels.

Quick start::

    import mbsim
    mbsim.models()                       # the catalog: [{"name": "andrews", ...}, ...]
    andrews = mbsim.load("andrews")
    run = andrews.simulate(rtol=1e-8)    # RKSTAB + PStab, as `mbsim simulate andrews`
    run.t, run.q, run.v, run.vdot        # NumPy arrays, one row per output time
    run.lam["rod_x"]                     # a multiplier by constraint name
    run.drift_position, run.stats        # |Phi| per sample; NFCN, NSTEP, ... (summary.json)

Every option of ``mbsim simulate`` is a keyword (``method="radau"``, ``stabilization="gcp"``,
``h=1e-4``, ``hht_alpha=-0.1``, ...), initial values and parameters go by name
(``params={"mom": 0.04}``, ``q={"theta": 0.01}``, ``lock=["beta"]``), checked as on the command
line. The integration runs in Rust without the GIL. Failures raise the exceptions of
``mbsim.errors`` (a ``SimulationError`` carries kind, t, h and the rows by name).

Sweeps: ``mbsim.sweep("andrews", grid={"mom": (0.03, 0.04, 50)}, backend="ray")`` — the
same table from the local machine (``backend="local"``, rayon), a Ray cluster or a Dask
cluster (``client=distributed.Client(...)``); see :func:`sweep`.

Your own models: ``lib = mbsim.build("my_model.rs")`` compiles a model file into an extension
module through cargo (cached by the text's hash), then ``lib.load("my-model")``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from . import _native
from .errors import (
    DistributedError,
    InputError,
    MbsimError,
    ModelFileError,
    SimulationError,
    ToolchainError,
    UnknownModelError,
)

__all__ = [
    "Model",
    "Library",
    "Simulation",
    "SIMULATE_OPTIONS",
    "models",
    "load",
    "sweep",
    "build",
    "build_source",
    "MbsimError",
    "InputError",
    "UnknownModelError",
    "SimulationError",
    "ModelFileError",
    "ToolchainError",
    "DistributedError",
]

#: Every keyword of :meth:`Model.simulate` (the flags of ``mbsim simulate``).
SIMULATE_OPTIONS: tuple[str, ...] = tuple(_native.SIMULATE_OPTIONS)


def models() -> list[dict[str, Any]]:
    """The catalog: name, title, source and run defaults of every built-in model."""
    return _native.models()


def load(name: str) -> "Model":
    """The catalog model ``name`` (see :func:`models`)."""
    return Model(_native, name)


def sweep(
    model: "Model | str",
    *,
    grid: Mapping[str, tuple] | None = None,
    random: Mapping[str, tuple] | None = None,
    draws: int = 0,
    seed: int = 1,
    columns: Sequence[str] = (),
    backend: str = "local",
    task_size: int | None = None,
    threads: int | None = None,
    client: Any = None,
    address: str | None = None,
    retries: int = 3,
    progress: Any = True,
    report: bool = False,
    out: str | None = None,
    **options: Any,
) -> Any:
    """A sweep of ``model`` (a :class:`Model` or a catalog name) on this machine or a cluster;
    the table of ``mbsim sweep`` (one row per run, in run order; a failed run is a row with
    ``status="failed"`` and its ``error_kind``) as a pandas ``DataFrame`` when pandas is
    installed, else as ``{column: array or list}``.

    ``grid``: ``{name: (from, to, count)}`` or ``(from, to, count, "log")``; ``random``:
    ``{name: (from, to)}`` or ``(from, to, "log")`` with ``draws`` and ``seed``; ``columns``:
    ``--column`` specs (``"maxabs(theta)"``); every other keyword is an option of
    :meth:`Model.simulate` (``t_end``, ``method``, ``rtol``, ``params``, ...).

    ``backend``: ``"local"`` (rayon on this machine, ``threads``), ``"ray"`` (the cluster at
    ``address`` or ``RAY_ADDRESS``, or the one ``ray.init`` already joined, else a new local
    one) or ``"dask"`` (``client``, a ``distributed.Client``; else one to ``address``, else a
    ``LocalCluster``, closed afterwards). The distributed backends cut the runs into tasks of
    ``task_size`` runs (default: four tasks per worker, 16 to 5000 runs each), each run in
    Rust without the GIL on ``threads`` threads (default 1: the engine runs one task per
    CPU); a task whose worker dies is retried (``retries``), every run comes back exactly once
    or :class:`DistributedError` says which did not. The table equals the local one except
    ``cpu_seconds`` and ``wall_seconds``. ``progress``: a line on stderr (``True``), nothing
    (``False``) or ``callback(done_runs, total_runs, done_tasks, total_tasks)``.
    ``report=True`` returns ``(table, report)`` with the tasks, their workers and CPU times.
    ``out``: also write sweep.csv and sweep.json there, as ``mbsim sweep`` does (the manifest
    with the backend, the tasks and the times).
    """
    from . import _distributed as dist

    if backend not in dist.BACKENDS:
        raise InputError(f"unknown backend `{backend}` (backends: {', '.join(dist.BACKENDS)})")
    m = model if isinstance(model, Model) else load(model)
    module = m._module
    spec = dist.Spec(
        module_name=module.__name__,
        module_file=getattr(module, "__file__", None),
        model=m.name,
        options=_normalise(options),
        grid=dist.grid_specs(grid),
        random=dist.random_specs(random),
        draws=int(draws),
        seed=int(seed),
        columns=[str(c) for c in columns],
    )
    plan = module._sweep_plan(
        spec.model, spec.options, spec.grid, spec.random, spec.draws, spec.seed, spec.columns
    )
    total = plan["runs_total"]
    if backend == "local":
        tasks = [list(range(total))]
    else:
        if backend == "ray":
            workers = dist.ray_workers(address) // max(1, threads or 1)
        else:
            client, own = dist.dask_client(client, address)
            workers = dist.dask_workers(client)
        size = task_size or dist.default_task_size(total, workers)
        tasks = dist.tasks_of(total, size)
    gather = dist.Gather(total, len(tasks), progress, f"mbsim sweep ({backend})")
    # A task of a distributed backend runs on one thread unless told otherwise: the engine
    # places one task per CPU (rayon's default, every core, would oversubscribe the node).
    task_threads = threads or 1
    if backend == "local":
        gather.add(dist.run_task(spec, 0, tasks[0], threads))
    elif backend == "ray":
        dist.run_ray(spec, tasks, task_threads, gather, address, retries)
    else:
        try:
            dist.run_dask(spec, tasks, task_threads, gather, client, retries)
        finally:
            if own:
                client.close()
    rows = gather.finish()
    wall = time.perf_counter() - gather.start
    if out is not None:
        import json

        manifest = dict(plan["manifest"])
        manifest.update(
            backend=backend,
            tasks=len(tasks),
            wall_seconds=wall,
            worker_process_cpu_seconds=sum(t["cpu_seconds"] for t in gather.reports),
        )
        module._sweep_write(str(out), plan["header"], rows, json.dumps(manifest))
    table = module._sweep_table(plan["header"], rows)
    try:
        import pandas

        table = pandas.DataFrame(table)
    except ImportError:
        pass
    if not report:
        return table
    return table, dist.Report(
        backend=backend,
        runs=total,
        tasks=len(tasks),
        task_size=max(len(t) for t in tasks),
        threads_per_task=threads if backend == "local" else task_threads,
        wall_seconds=wall,
        task_reports=gather.reports,
        manifest=plan["manifest"],
    )


def build(path: str, *, release: bool = True, quiet: bool = True) -> "Library":
    """Build a model file into an extension module (cached by the text's hash)."""
    from ._build import build_file

    return build_file(path, release=release, quiet=quiet)


def build_source(source: str, *, release: bool = True, quiet: bool = True) -> "Library":
    """Build model source text into an extension module (cached by the text's hash)."""
    from ._build import build_text

    return build_text(source, release=release, quiet=quiet)


@dataclass(frozen=True)
class Simulation:
    """One run: arrays with one row per output time, the constraint names and the summary."""

    model: str
    t: np.ndarray
    q: np.ndarray
    v: np.ndarray
    vdot: np.ndarray
    lam_matrix: np.ndarray
    drift_position: np.ndarray
    drift_velocity: np.ndarray
    coordinates: list[str]
    constraints: list[str]
    step_times: np.ndarray
    energy: np.ndarray | None
    initialization: str
    summary: dict[str, Any] = field(repr=False)

    @property
    def lam(self) -> dict[str, np.ndarray]:
        """Multipliers by constraint name (holonomic rows first, then nonholonomic)."""
        return {name: self.lam_matrix[:, i] for i, name in enumerate(self.constraints)}

    @property
    def stats(self) -> dict[str, Any]:
        """Counters and drift of the run (the CLI's summary.json: NFCN, NSTEP, NREJCT, ...)."""
        return self.summary

    @property
    def events(self) -> list[dict[str, Any]]:
        """The located events of a model with ``events`` (time, name, kind — impact, contact,
        lift-off, stick, slip, stop, handler — the speeds of an impact, the state after), as in
        the CLI's summary.json and events.csv; empty for a model without events."""
        return list(self.summary.get("events") or [])

    @property
    def repartitions(self) -> list[dict[str, Any]]:
        """The repartitions of GCP/hybrid (time, level, reason, coordinates)."""
        return list(self.summary.get("partitions", []))

    def coordinate(self, name: str) -> np.ndarray:
        """The column of coordinate ``name``."""
        return self.q[:, self._index(name)]

    def velocity(self, name: str) -> np.ndarray:
        """The velocity column of coordinate ``name``."""
        return self.v[:, self._index(name)]

    def _index(self, name: str) -> int:
        try:
            return self.coordinates.index(name)
        except ValueError:
            raise InputError(
                f"unknown coordinate `{name}` (coordinates: {', '.join(self.coordinates)})"
            ) from None

    def table(self) -> dict[str, np.ndarray]:
        """Columns by name (t, q, q_dot, q_ddot, lambda_<row>, phi_norm, phidot_norm):
        ``pandas.DataFrame(run.table())``."""
        cols: dict[str, np.ndarray] = {"t": self.t}
        for i, c in enumerate(self.coordinates):
            cols[c] = self.q[:, i]
        for i, c in enumerate(self.coordinates):
            cols[f"{c}_dot"] = self.v[:, i]
        for i, c in enumerate(self.coordinates):
            cols[f"{c}_ddot"] = self.vdot[:, i]
        for name, values in self.lam.items():
            cols[f"lambda_{name}"] = values
        cols["phi_norm"] = self.drift_position
        cols["phidot_norm"] = self.drift_velocity
        return cols


class Model:
    """A model of the catalog or of a user module; its names and defaults, and what it can do."""

    def __init__(self, module: Any, name: str) -> None:
        info = module.describe(name)
        self._module = module
        self.name: str = info["name"]
        self.title: str = info["title"]
        self.source: str = info["source"]
        self.coordinates: list[str] = info["coordinates"]
        self.parameters: dict[str, float] = info["parameters"]
        self.constraints: list[str] = info["constraints"]
        self.n: int = info["n"]
        self.m: int = info["m"]
        self.k: int = info["k"]
        self.q0: list[float] = info["q0"]
        self.v0: list[float] = info["v0"]
        self.defaults: dict[str, float] = {
            "t_end": info["t_end"],
            "dt_out": info["dt_out"],
            "rtol": info["rtol"],
        }
        self.has_energy: bool = info["has_energy"]
        self.has_tangents: bool = info["has_tangents"]

    def __repr__(self) -> str:
        return f"<mbsim.Model {self.name}: n={self.n}, m={self.m}, k={self.k}>"

    def simulate(self, **options: Any) -> Simulation:
        """Simulate as ``mbsim simulate`` does; every flag is a keyword (see SIMULATE_OPTIONS).

        ``method``: rkstab (default), abm, ab, ampc, mampc, newmark, hht, generalized-alpha,
        radau, ali3p, hpim, npc; ``stabilization``: pstab (default), sfull, sboth, velocity, ggt,
        baumgarte, none, gcp, hybrid; ``rtol``, ``atol``, ``h``, ``order``, ``start``, ...;
        ``t_end``, ``dt_out``; ``params``/``q``/``v`` as ``{name: value}`` (given values, kept
        by the consistent initialization where the constraints allow); ``q0``/``v0`` whole
        vectors (a guess); ``lock`` a list of coordinate names (must not move);
        ``passage_guard=True`` (rkstab: ``--passage-guard``, the singular-passage guard).
        """
        r = self._module.simulate(self.name, _normalise(options))
        return Simulation(
            model=r["model"],
            t=r["t"],
            q=r["q"],
            v=r["v"],
            vdot=r["vdot"],
            lam_matrix=r["lambda"],
            drift_position=r["drift_position"],
            drift_velocity=r["drift_velocity"],
            coordinates=r["coordinates"],
            constraints=r["constraints"],
            step_times=r["step_times"],
            energy=r["energy"],
            initialization=r["initialization"],
            summary=r["summary"],
        )

    def check(self, t: float = 0.0, params: Mapping[str, float] | None = None) -> dict[str, Any]:
        """``mbsim check``: n, m, k, rank of G, DOF, redundant rows by name (``text`` too)."""
        return self._module.check(self.name, t, _pairs(params))

    def kinematics(
        self,
        t_end: float | None = None,
        dt_out: float | None = None,
        params: Mapping[str, float] | None = None,
    ) -> dict[str, Any]:
        """Kinematic analysis of a fully driven model: t, q, v, a, residuals, conditions."""
        return self._module.kinematics(self.name, t_end, dt_out, _pairs(params), False)

    def inverse(
        self,
        t_end: float | None = None,
        dt_out: float | None = None,
        params: Mapping[str, float] | None = None,
    ) -> dict[str, Any]:
        """Inverse dynamics: the kinematics plus ``lambda`` and ``reactions`` by row name."""
        return self._module.kinematics(self.name, t_end, dt_out, _pairs(params), True)

    def equilibrium(
        self,
        method: str = "both",
        damping: float = 2.0,
        params: Mapping[str, float] | None = None,
    ) -> dict[str, Any]:
        """Static equilibrium: ``newton`` (reduced Newton), ``settle`` (damped dynamics), ``both``."""
        return self._module.equilibrium(self.name, method, damping, _pairs(params))

    def sweep(
        self,
        out: str,
        grid: Mapping[str, tuple[float, float, int]] | None = None,
        random: Mapping[str, tuple[float, float]] | None = None,
        draws: int = 0,
        seed: int = 1,
        threads: int | None = None,
        columns: Sequence[str] = (),
        **options: Any,
    ) -> dict[str, Any]:
        """``mbsim sweep`` in parallel inside Rust; writes sweep.csv and sweep.json into ``out``
        and returns the table as columns (``pandas.DataFrame(result)``). ``grid``:
        ``{name: (from, to, count)}``; ``random``: ``{name: (from, to)}`` with ``draws``;
        ``columns``: ``--column`` specs. On a cluster: :func:`mbsim.sweep`."""
        g = [f"{k}={a!r}:{b!r}:{int(c)}" for k, (a, b, c) in (grid or {}).items()]
        r = [f"{k}={a!r}:{b!r}" for k, (a, b) in (random or {}).items()]
        return self._module.sweep(
            self.name, str(out), _normalise(options), g, r, draws, seed, threads, list(columns)
        )


class Library:
    """An extension module of user models (from :func:`build` or a user crate)."""

    def __init__(self, module: Any) -> None:
        self._module = module
        self._source: tuple[str, str, bool] | None = None

    def models(self) -> list[dict[str, Any]]:
        """The module's models."""
        return self._module.models()

    def load(self, name: str) -> Model:
        """The module's model ``name``."""
        return Model(self._module, name)

    def export_fmu(self, name: str, out: str) -> str:
        """Write the FMI 2.0 co-simulation FMU of model ``name`` to ``out`` (its library is
        built from the same model text with cargo, cached like the module)."""
        from ._build import export_fmu

        return str(export_fmu(self._module, self._source, name, out))

    @property
    def module(self) -> Any:
        """The extension module itself."""
        return self._module


def _pairs(params: Mapping[str, float] | None) -> list[tuple[str, float]] | None:
    if params is None:
        return None
    return [(str(k), float(v)) for k, v in params.items()]


def _normalise(options: Mapping[str, Any]) -> dict[str, Any]:
    """Keyword values as the native layer takes them (arrays to lists, floats checked)."""
    out: dict[str, Any] = {}
    for key, value in options.items():
        if key in ("q0", "v0") and value is not None:
            value = [float(x) for x in np.asarray(value, dtype=float).ravel()]
        if key in ("params", "q", "v") and value is not None:
            value = {str(k): float(v) for k, v in dict(value).items()}
        if key == "lock" and isinstance(value, str):
            value = [value]
        out[key] = value
    return out
