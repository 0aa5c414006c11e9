"""Type stubs of the extension module (the functions the `mbsim` package wraps).

The same functions exist in every user model module built by `mbsim.build` or
`mbsim_python::python_module!`; each serves its own model list.
"""

from typing import Any

import numpy as np
import numpy.typing as npt

#: Every key `simulate` accepts (the flags of `mbsim simulate`).
SIMULATE_OPTIONS: list[str]

def models() -> list[dict[str, Any]]:
    """Every model: name, title, source, t_end, dt_out, rtol."""

def describe(name: str) -> dict[str, Any]:
    """Coordinates, parameters (defaults), constraints, n/m/k, q0, v0, defaults, has_energy,
    has_tangents. Raises UnknownModelError."""

def simulate(model: str, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """`mbsim simulate` without files: t (N,), q, v, vdot (N, n), lambda (N, m+k),
    drift_position, drift_velocity (N,), coordinates, constraints, step_times, energy
    (N, 2) or None, initialization (text), summary (the CLI's summary.json). The GIL is
    released while integrating. Raises InputError, UnknownModelError, SimulationError."""

def _rust_seconds(
    model: str, options: dict[str, Any] | None = None, repeats: int = 1
) -> list[float]:
    """Wall seconds of `repeats` runs of the same simulation in Rust alone (benchmark)."""

def sweep(
    model: str,
    out: str,
    options: dict[str, Any] | None = None,
    grid: list[str] = ...,
    random: list[str] = ...,
    draws: int = 0,
    seed: int = 1,
    threads: int | None = None,
    columns: list[str] = ...,
) -> dict[str, npt.NDArray[np.float64] | list[str]]:
    """`mbsim sweep` (parallel in Rust) into `out`; sweep.csv as columns. Axes as the CLI's
    `NAME=FROM:TO:COUNT` (grid) and `NAME=FROM:TO` (random)."""

def _sweep_plan(
    model: str,
    options: dict[str, Any] | None = None,
    grid: list[str] = ...,
    random: list[str] = ...,
    draws: int = 0,
    seed: int = 1,
    columns: list[str] = ...,
) -> dict[str, Any]:
    """A sweep checked, not run: `runs_total`, `header` (sweep.csv's), `manifest`."""

def _sweep_rows(
    model: str,
    indices: list[int],
    options: dict[str, Any] | None = None,
    grid: list[str] = ...,
    random: list[str] = ...,
    draws: int = 0,
    seed: int = 1,
    columns: list[str] = ...,
    threads: int | None = None,
) -> list[list[str]]:
    """The sweep.csv rows of the runs `indices` (one task of a distributed sweep), GIL released."""

def _sweep_table(
    header: list[str], rows: list[list[str]]
) -> dict[str, npt.NDArray[np.float64] | list[str]]:
    """Rows as the sweep's table (the local sweep's conversion of sweep.csv)."""

def _sweep_write(out: str, header: list[str], rows: list[list[str]], manifest: str) -> None:
    """Write sweep.csv and sweep.json (manifest as JSON text) into `out`, as `mbsim sweep`."""

def check(model: str, t: float = 0.0, params: list[tuple[str, float]] | None = None) -> dict[str, Any]:
    """`mbsim check --json` as a dict (plus `text`)."""

def kinematics(
    model: str,
    t_end: float | None = None,
    dt_out: float | None = None,
    params: list[tuple[str, float]] | None = None,
    inverse: bool = False,
) -> dict[str, Any]:
    """Kinematic analysis (and inverse dynamics): t, q, v, a, phi_norm, phidot_norm,
    condition, determinant, newton_iterations, singular_passages; with `inverse`, lambda and
    reactions by constraint name."""

def equilibrium(
    model: str,
    method: str = "both",
    damping: float = 2.0,
    params: list[tuple[str, float]] | None = None,
) -> dict[str, Any]:
    """Reduced Newton (`newton`) and/or damped settling (`settle`): q, lambda by name, ..."""

def _fmu_description(name: str) -> tuple[str, str]:
    """The FMU's modelDescription.xml of model `name` and its model identifier."""
