"""`mbsim fmu` builds an FMI 2.0 co-simulation FMU that FMPy validates and simulates, and
whose trajectory reproduces the native run to the integration tolerance."""

from __future__ import annotations

import json
import subprocess
import zipfile

import numpy as np
import pytest

import mbsim

import fmpy  # installed by `cargo xtask oracle-env`; a missing one fails here
from conftest import cli_trajectory
from fmpy.validation import validate_fmu


def export(mbsim_bin, fmi_library, model, out):
    proc = subprocess.run(
        [str(mbsim_bin), "fmu", model, "--out", str(out)],
        capture_output=True,
        text=True,
        env={"MBSIM_FMI_LIBRARY": str(fmi_library), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr
    return out


def test_andrews_fmu_validates_and_reproduces_the_native_run(mbsim_bin, fmi_library, tmp_path):
    fmu = export(mbsim_bin, fmi_library, "andrews", tmp_path / "andrews.fmu")
    with zipfile.ZipFile(fmu) as z:
        assert set(z.namelist()) == {"modelDescription.xml", "binaries/linux64/andrews.so"}
    assert validate_fmu(str(fmu)) == []
    model = mbsim.load("andrews")
    rtol, t_end, dt = 1e-8, 0.03, 1e-3
    coords = model.coordinates
    result = fmpy.simulate_fmu(
        str(fmu),
        stop_time=t_end,
        output_interval=dt,
        relative_tolerance=rtol,
        output=coords + ["phi_norm"],
    )
    native = model.simulate(rtol=rtol, t_end=t_end, dt_out=dt)
    assert np.allclose(result["time"], native.t, rtol=0, atol=1e-12)
    deviation = max(np.max(np.abs(result[c] - native.q[:, i])) for i, c in enumerate(coords))
    scale = np.max(np.abs(native.q))
    print(f"\nFMU vs native (Andrews, rtol {rtol}): max |dq| = {deviation:.2e} (max |q| {scale:.2f})")
    # Each doStep restarts the method from the last communication point (a new initial step
    # size, the same error control), so the two runs differ by their global errors, each
    # controlled to rtol per step: 100 rtol bounds their difference over the 30 steps.
    assert deviation <= 100 * rtol * (1 + scale)
    assert np.all(result["phi_norm"] < 1e-9)


def test_fmu_parameters_method_and_state(mbsim_bin, fmi_library, tmp_path):
    fmu = export(mbsim_bin, fmi_library, "andrews", tmp_path / "andrews.fmu")
    md = fmpy.read_model_description(str(fmu))
    names = {v.name: v for v in md.modelVariables}
    for name in ["method", "stabilization", "rtol", "mom", "beta", "beta_dot", "lambda_phi_1", "phi_norm"]:
        assert name in names, name
    assert md.coSimulation.canGetAndSetFMUstate
    # Another method and a parameter, set as FMU start values.
    result = fmpy.simulate_fmu(
        str(fmu),
        stop_time=0.003,
        output_interval=1e-3,
        start_values={"method": "radau", "rtol": 1e-6, "mom": 0.04},
        output=["beta"],
    )
    native = mbsim.load("andrews").simulate(
        method="radau", rtol=1e-6, params={"mom": 0.04}, t_end=0.003, dt_out=1e-3
    )
    assert np.max(np.abs(result["beta"] - native.coordinate("beta"))) <= 1e-4
    # An unknown method is an error of the FMU, not a crash.
    with pytest.raises(Exception, match=r"(?i)exitInitializationMode|fmi2Error|failed"):
        fmpy.simulate_fmu(str(fmu), stop_time=0.001, start_values={"method": "rk45"})


def test_user_model_fmu_validates_and_reproduces_the_native_run(tmp_path):
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "pendulum_model.rs"
    lib = mbsim.build(example)
    fmu = lib.export_fmu("cartesian-pendulum", tmp_path / "pendulum.fmu")
    assert validate_fmu(fmu) == []
    rtol, t_end, dt = 1e-9, 1.0, 0.05
    start = {"x_0": 0.8, "y_0": -0.6}
    result = fmpy.simulate_fmu(
        fmu, stop_time=t_end, output_interval=dt, relative_tolerance=rtol,
        start_values=start, output=["x", "y", "lambda_rod"],
    )
    native = lib.load("cartesian-pendulum").simulate(q0=[0.8, -0.6], rtol=rtol, t_end=t_end, dt_out=dt)
    deviation = max(np.max(np.abs(result[c] - native.coordinate(c))) for c in ["x", "y"])
    print(f"\nFMU vs native (user pendulum, rtol {rtol}): max |dq| = {deviation:.2e}")
    # As for Andrews: two runs, each with its global error controlled by rtol per step.
    assert deviation <= 100 * rtol * 2
    assert np.max(np.abs(result["lambda_rod"] - native.lam["rod"])) <= 1e-5



def test_bouncing_ball_fmu_locates_the_impacts_of_the_native_run(mbsim_bin, fmi_library, tmp_path):
    """The FMU's doStep runs through the event loop: impacts inside a communication step are
    located and acted on there. The ball (1 m drop, e = 0.8) exported, stepped by FMPy every
    2 ms, against the `mbsim` binary's run (its located events) and the closed form."""
    fmu = export(mbsim_bin, fmi_library, "bouncing-ball", tmp_path / "ball.fmu")
    assert validate_fmu(str(fmu)) == []
    rtol, t_end, dt, g, e, r = 1e-10, 3.0, 2e-3, 9.81, 0.8, 0.1
    result = fmpy.simulate_fmu(
        str(fmu), stop_time=t_end, output_interval=dt, relative_tolerance=rtol,
        output=["y", "y_dot"],
    )
    out = tmp_path / "native"
    native = cli_trajectory(
        mbsim_bin, out, ["bouncing-ball", "--rtol", str(rtol), "--t-end", str(t_end), "--dt-out", str(dt)]
    )
    with open(out / "summary.json") as f:
        native_impacts = [ev for ev in json.load(f)["events"] if ev["kind"] == "impact"]
    # Impact times from the FMU's samples: between a falling sample and the next rising one
    # the flight is a parabola, so the floor is reached τ after the falling sample with
    # y + y_dot τ − g τ²/2 = r (exact for the samples, whatever dt).
    t, y, v = result["time"], result["y"], result["y_dot"]
    fmu_impacts = []
    for i in range(len(t) - 1):
        if v[i] < 0 < v[i + 1]:
            tau = (v[i] + np.sqrt(v[i] ** 2 + 2 * g * (y[i] - r))) / g
            fmu_impacts.append(t[i] + tau)
    t1 = np.sqrt(2 * 1.0 / g)
    exact = [t1 + sum(2 * e**j * t1 for j in range(1, k + 1)) for k in range(len(fmu_impacts))]
    native_times = [ev["t"] for ev in native_impacts][: len(fmu_impacts)]
    print(f"\nball FMU impacts {len(fmu_impacts)}, native {len(native_impacts)}; "
          f"max |t_fmu - t_native| = {np.max(np.abs(np.subtract(fmu_impacts, native_times))):.2e}, "
          f"max |t_fmu - exact| = {np.max(np.abs(np.subtract(fmu_impacts, exact))):.2e}")
    # Every impact shows as a sign change of y_dot between two samples (t_end = 3 s: the first
    # 6 impacts, flights ≥ 0.24 s); each located as the native run locates it, to the samples'
    # integration error (rtol 1e-10 over 1500 restarted steps).
    assert len(fmu_impacts) == 6
    assert np.allclose(fmu_impacts, native_times, rtol=0, atol=1e-7)
    assert np.allclose(fmu_impacts, exact, rtol=0, atol=1e-7)
    # Each rebound: the speed after is e times the speed before (native, exact to round-off),
    # and the FMU's apex heights between impacts are e^2k times the drop (to the sampling of
    # the apex: y is flat there, off by ≤ g (dt/2)² / 2 = 5e-6 m).
    for ev in native_impacts:
        assert abs(ev["separation_speed"] + e * ev["approach_speed"]) <= 1e-12 * abs(ev["approach_speed"])
    bounds = [0.0] + list(fmu_impacts)
    for k in range(1, len(fmu_impacts)):
        inside = (t > bounds[k]) & (t < bounds[k + 1])
        apex = np.max(y[inside]) - r
        assert abs(apex - e ** (2 * k)) <= 5e-6, (k, apex)
    # Between events the trajectories agree sample by sample.
    assert np.allclose(native["t"], t, rtol=0, atol=1e-12)
    assert np.max(np.abs(y - native["y"])) <= 1e-6
