"""A user's model file built into an extension module through cargo, cached by its text; a
broken file's located error; a clear error without a toolchain."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

import mbsim

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "pendulum_model.rs"


def test_model_file_builds_runs_and_is_cached(tmp_path):
    text = EXAMPLE.read_text()
    start = time.perf_counter()
    lib = mbsim.build(EXAMPLE)
    first = time.perf_counter() - start
    names = [m["name"] for m in lib.models()]
    assert names == ["cartesian-pendulum"]
    model = lib.load("cartesian-pendulum")
    assert model.coordinates == ["x", "y"] and model.constraints == ["rod"]
    run = model.simulate(q0=[0.8, -0.6], t_end=1.0, rtol=1e-9)
    # The rod holds and the energy of the frictionless pendulum is kept.
    assert np.all(np.abs(run.q[:, 0] ** 2 + run.q[:, 1] ** 2 - 1.0) < 1e-9)
    energy = 0.5 * (run.v**2).sum(axis=1) + 9.81 * run.q[:, 1]
    assert np.ptp(energy) < 1e-6
    start = time.perf_counter()
    again = mbsim.build_source(text)  # same text: the cached module, no cargo
    cached = time.perf_counter() - start
    assert again.module is lib.module
    print(f"\nuser model build: first {first:.1f} s, cached {cached * 1e3:.1f} ms")


def test_broken_model_file_shows_its_located_error(tmp_path):
    broken = tmp_path / "broken.rs"
    text = EXAMPLE.read_text().replace("x * x + y * y", "x * x + y * yy")
    broken.write_text(text)
    with pytest.raises(mbsim.ModelFileError) as info:
        mbsim.build(broken)
    message = str(info.value)
    line = next(i for i, l in enumerate(text.splitlines(), 1) if "yy" in l)
    assert f"{broken}:{line}:" in message, message
    assert "yy" in message


def test_no_toolchain_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("HOME", str(tmp_path))
    with pytest.raises(mbsim.ToolchainError, match=r"no Rust toolchain found.*rustup"):
        mbsim.build_source(EXAMPLE.read_text() + "\n// not cached yet\n")
