"""Shared fixtures: the Rust `mbsim` binary (the reference the bindings must match number for
number) and the FMU library, both built by `cargo xtask test` before pytest runs (paths in
MBSIM_BIN and MBSIM_FMI_LIBRARY). A missing tool fails the test loudly; nothing is skipped."""

from __future__ import annotations

import csv
import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]


def _required(var: str) -> Path:
    value = os.environ.get(var)
    if not value:
        pytest.fail(f"{var} is not set: run the tests through `cargo xtask test`", pytrace=False)
    path = Path(value)
    if not path.is_file():
        pytest.fail(f"{var}={path} does not exist: `cargo xtask test` builds it", pytrace=False)
    return path


@pytest.fixture(scope="session")
def mbsim_bin() -> Path:
    return _required("MBSIM_BIN")


@pytest.fixture(scope="session")
def fmi_library() -> Path:
    return _required("MBSIM_FMI_LIBRARY")


def cli_trajectory(binary: Path, out: Path, args: list[str]) -> dict[str, np.ndarray]:
    """`mbsim simulate ARGS --out OUT --no-plots`; trajectory.csv as columns."""
    proc = subprocess.run(
        [str(binary), "simulate", *args, "--out", str(out), "--no-plots"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    with open(out / "trajectory.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    data = np.array([[float(x) for x in r] for r in body])
    return {name: data[:, j] for j, name in enumerate(header)}
