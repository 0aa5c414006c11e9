"""The catalog and every method on two models, against the Rust CLI's own run (identical
numbers: the CSV prints every f64 with its shortest round-trip representation)."""

from __future__ import annotations

import numpy as np
import pytest

import mbsim
from conftest import cli_trajectory

# Short horizons: the point is identity of the two paths, not long runs.
ANDREWS = ("andrews", {"t_end": 0.003, "dt_out": 1e-4})
SLIDER = ("slider-crank-tsda", {"t_end": 0.05, "dt_out": 0.005})

# (method, its own options): every method of `mbsim simulate` that runs on a multibody model.
METHODS = [
    ("rkstab", {"rtol": 1e-8}),
    ("abm", {"rtol": 1e-8}),
    ("ab", {"h": 1e-5}),
    ("ampc", {"h": 1e-5}),
    ("mampc", {"h": 1e-5, "order": 3}),
    ("newmark", {"h": 1e-5}),
    ("hht", {"rtol": 1e-6}),
    ("generalized-alpha", {"h": 1e-5}),
    ("radau", {"rtol": 1e-6}),
]


def flags(options: dict) -> list[str]:
    out = []
    for k, v in options.items():
        out += [f"--{k.replace('_', '-')}", str(v) if not isinstance(v, float) else repr(v)]
    return out


def test_models_lists_the_catalog():
    names = [m["name"] for m in mbsim.models()]
    assert "andrews" in names and "slider-crank-tsda" in names
    andrews = mbsim.load("andrews")
    assert andrews.n == 7 and andrews.m == 6
    assert "mom" in andrews.parameters


@pytest.mark.parametrize("model,base", [ANDREWS, SLIDER], ids=["andrews", "slider"])
@pytest.mark.parametrize("method,own", METHODS, ids=[m for m, _ in METHODS])
def test_every_method_matches_the_cli(mbsim_bin, tmp_path, model, base, method, own):
    options = {"method": method, **base, **own}
    run = mbsim.load(model).simulate(**options)
    ref = cli_trajectory(mbsim_bin, tmp_path, [model, *flags(options)])
    assert np.array_equal(run.t, ref["t"])
    for i, c in enumerate(run.coordinates):
        assert np.array_equal(run.q[:, i], ref[c]), c
        assert np.array_equal(run.v[:, i], ref[f"{c}_dot"]), c
    for j in range(len(run.constraints)):
        assert np.array_equal(run.lam_matrix[:, j], ref[f"lambda_{j + 1}"])
    assert np.array_equal(run.drift_position, ref["phi_norm"])
    assert np.array_equal(run.drift_velocity, ref["phidot_norm"])
    assert run.stats["method"] == method


@pytest.mark.parametrize("method", ["hpim", "npc"])
def test_structural_methods_match_the_cli(mbsim_bin, tmp_path, method):
    # HPIM and NPC run on structural models only (truss14).
    options = {"method": method, "stabilization": "none", "h": 1e-4, "t_end": 0.002, "dt_out": 5e-4}
    run = mbsim.load("truss14").simulate(**options)
    ref = cli_trajectory(mbsim_bin, tmp_path, ["truss14", *flags(options)])
    for i, c in enumerate(run.coordinates):
        assert np.array_equal(run.q[:, i], ref[c]), c


def test_stabilizations_params_and_initial_state(mbsim_bin, tmp_path):
    options = {
        "stabilization": "baumgarte",
        "alpha": 5.0,
        "params": {"mom": 0.04},
        "q": {"beta": -0.06},
        "lock": ["beta"],
        "t_end": 0.003,
        "dt_out": 5e-4,
    }
    run = mbsim.load("andrews").simulate(**options)
    args = ["andrews", "--stabilization", "baumgarte", "--alpha", "5.0", "--param", "mom=0.04",
            "--q", "beta=-0.06", "--lock", "beta", "--t-end", "0.003", "--dt-out", "0.0005"]
    ref = cli_trajectory(mbsim_bin, tmp_path, args)
    assert np.array_equal(run.q[:, 0], ref[run.coordinates[0]])
    assert run.q[0, run.coordinates.index("beta")] == -0.06
    assert run.stats["parameters"]["mom"] == 0.04


def test_result_shapes_and_names():
    run = mbsim.load("andrews").simulate(t_end=0.001, dt_out=1e-4)
    n, rows = len(run.coordinates), len(run.constraints)
    assert run.q.shape == (len(run.t), n) == run.v.shape == run.vdot.shape
    assert run.lam_matrix.shape == (len(run.t), rows)
    assert set(run.lam) == set(run.constraints)
    assert run.table()["t"] is run.t
    assert run.stats["NFCN"] > 0
    assert run.events == []


def test_events_of_the_bouncing_ball():
    # Dropped from 1 m above contact: the first impact at sqrt(2/g), the rebound at -e times the
    # impact speed, the impacts accumulating until the contact closes.
    run = mbsim.load("bouncing-ball").simulate(t_end=5.0, dt_out=0.01, rtol=1e-12)
    events = run.events
    assert events[0]["kind"] == "impact" and events[0]["name"] == "floor"
    assert abs(events[0]["t"] - (2 / 9.81) ** 0.5) < 1e-9
    assert abs(events[0]["separation_speed"] + 0.8 * events[0]["approach_speed"]) < 1e-12
    assert events[-1]["kind"] == "contact"
    assert run.summary["event_count"] == len(events)
