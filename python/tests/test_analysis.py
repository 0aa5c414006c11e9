"""The analyses and sweeps through the bindings: the same diagnoses as the CLI's."""

from __future__ import annotations

import numpy as np

import mbsim


def test_check_names_the_redundant_row():
    d = mbsim.load("pendulum").check()
    assert d["dof"] >= 1
    # The defective models are reachable for `check` only, as on the command line.
    from mbsim import _native

    r = _native.check("redundant-pendulum")
    assert [x["name"] for x in r["redundant"]] == ["rod"]
    assert "redundant" in r["text"]


def test_kinematics_and_inverse_dynamics():
    k = mbsim.load("four-bar-change-point").kinematics(t_end=1.0, dt_out=0.1)
    assert k["q"].shape == (len(k["t"]), len(k["coordinates"]))
    assert np.all(k["phi_norm"] < 1e-10)
    inv = mbsim.load("two-link-case2-driven").inverse(t_end=0.5, dt_out=0.1)
    assert set(inv["lambda"]) == set(inv["constraints"])
    assert all(np.all(np.isfinite(v)) for v in inv["lambda"].values())


def test_equilibrium_newton_and_settling():
    e = mbsim.load("spring-bar").equilibrium()
    assert e["newton"]["stability"] == "stable"
    assert e["newton"]["reduced_gradient"] < 1e-8
    assert np.allclose(e["newton"]["q"], e["settle"]["q"], atol=1e-4)


def test_sweep_table(tmp_path):
    table = mbsim.load("pendulum").sweep(
        tmp_path, grid={"g": (9.0, 10.0, 3)}, t_end=0.1, threads=2
    )
    assert list(table["run"]) == [0.0, 1.0, 2.0]
    assert list(table["status"]) == ["ok"] * 3
    assert (tmp_path / "sweep.json").is_file()
