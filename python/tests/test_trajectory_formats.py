"""The trajectory file of `mbsim simulate` in both formats: `trajectory.parquet` read by pandas
(through pyarrow) and by polars holds, column for column and bit for bit, what
`trajectory.csv` of the same run holds; `--write` selects the columns."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import polars as pl

from conftest import cli_trajectory


def simulate(binary: Path, out: Path, args: list[str]) -> None:
    proc = subprocess.run(
        [str(binary), "simulate", *args, "--out", str(out), "--no-plots"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_parquet_equals_csv(mbsim_bin, tmp_path):
    args = ["slider-crank-tsda", "--t-end", "0.2", "--write", "q,v,vdot,lambda,drift"]
    csv = cli_trajectory(mbsim_bin, tmp_path / "csv", [*args, "--format", "csv"])
    simulate(mbsim_bin, tmp_path / "pq", [*args, "--format", "parquet"])
    path = tmp_path / "pq" / "trajectory.parquet"
    assert not (tmp_path / "pq" / "trajectory.csv").exists()
    frame = pd.read_parquet(path)
    assert list(frame.columns) == list(csv), "same columns in the same order"
    assert len(frame) == len(csv["t"]) > 10
    for name, values in csv.items():
        assert frame[name].dtype == np.float64
        np.testing.assert_array_equal(frame[name].to_numpy(), values, err_msg=name)
    polars_frame = pl.read_parquet(path)
    assert polars_frame.columns == list(csv)
    np.testing.assert_array_equal(polars_frame.to_numpy(), frame.to_numpy())


def test_write_selects_columns(mbsim_bin, tmp_path):
    data = cli_trajectory(
        mbsim_bin, tmp_path, ["slider-crank-tsda", "--t-end", "0.1", "--write", "q:x*,drift"]
    )
    assert [n for n in data if n != "t" and not n.endswith("_norm")], "some coordinate"
    assert all(n.startswith("x") or n in ("t", "phi_norm", "phidot_norm") for n in data), list(data)
