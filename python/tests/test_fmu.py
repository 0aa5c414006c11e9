"""`mbsim fmu` builds an FMI 2.0 co-simulation FMU that FMPy validates and simulates, and
whose trajectory reproduces the native run to the integration tolerance."""

from __future__ import annotations

import subprocess
import zipfile

import numpy as np
import pytest

import mbsim

import fmpy  # installed by `cargo xtask oracle-env`; a missing one fails here
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
