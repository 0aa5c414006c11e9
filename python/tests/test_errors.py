"""Bad inputs are Python exceptions naming the offending entry; a failed run carries the
runtime's diagnosis (kind, t, h, rows by name). Nothing crashes the interpreter."""

from __future__ import annotations

import math

import numpy as np

import pytest

import mbsim


@pytest.fixture(scope="module")
def andrews():
    return mbsim.load("andrews")


def test_unknown_parameter(andrews):
    with pytest.raises(mbsim.InputError, match=r"no runtime parameter `nope`.*mom"):
        andrews.simulate(params={"nope": 1.0})


def test_wrong_length(andrews):
    with pytest.raises(mbsim.InputError, match=r"q0 has 2 entries, expected 7"):
        andrews.simulate(q0=[0.1, 0.2])


@pytest.mark.parametrize(
    "options",
    [
        {"params": {"mom": math.nan}},
        {"q": {"beta": math.inf}},
        {"q0": [math.nan] * 7},
        {"rtol": math.nan},
    ],
    ids=["param", "q", "q0", "rtol"],
)
def test_nan_and_inf(andrews, options):
    with pytest.raises(mbsim.InputError, match=r"finite|positive"):
        andrews.simulate(**options)


def test_unknown_coordinate_option_and_choice(andrews):
    with pytest.raises(mbsim.InputError, match=r"unknown coordinate `thta`.*theta"):
        andrews.simulate(q={"thta": 0.1})
    with pytest.raises(mbsim.InputError, match=r"unknown option `rtl`"):
        andrews.simulate(rtl=1e-6)
    with pytest.raises(mbsim.InputError, match=r"rk45.*rkstab"):
        andrews.simulate(method="rk45")
    with pytest.raises(mbsim.InputError, match=r"--h"):
        andrews.simulate(method="rkstab", h=1e-4)


def test_unknown_model():
    with pytest.raises(mbsim.UnknownModelError, match=r"unknown model `nope`.*andrews"):
        mbsim.load("nope")


def test_too_many_steps_carries_t(andrews):
    with pytest.raises(mbsim.SimulationError) as info:
        andrews.simulate(max_steps=3)
    e = info.value
    assert e.kind == "TooManySteps"
    assert e.t is not None and 0.0 < e.t < 0.03
    assert e.detail["max_steps"] == 3


def test_singular_configuration_names_the_rows():
    # The change-point four-bar at a tight tolerance stops at its singular configuration
    # (README: condition 1.6e12, dependent row `loop_x`; at rtol 1e-10 the run steps over it).
    with pytest.raises(mbsim.SimulationError) as info:
        mbsim.load("four-bar-change-point").simulate(rtol=1e-12)
    e = info.value
    assert e.kind == "SingularConfiguration", str(e)
    assert e.t == pytest.approx(math.pi, rel=1e-4)
    assert e.h is not None and e.h > 0
    assert e.rows == ["loop_x"]
    assert e.detail["condition"] > 1e10


def test_singular_mass_names_the_coordinates():
    # Haug's pendulum with m = J' = 0 at φ1 = 3π/2: ker G is (1, 0, 1)/√2, so the motion
    # without inertia moves x1 and phi1 (not y1); the message says so too.
    with pytest.raises(mbsim.SimulationError) as info:
        mbsim.load("haug-pendulum").simulate(params={"m": 0.0, "j": 0.0}, t_end=0.1)
    e = info.value
    assert e.kind == "SingularKkt", str(e)
    assert sorted(e.coordinates) == ["phi1", "x1"]
    assert "it moves x1 (0), phi1 (2)" in str(e)



def _rust_e(x: float) -> str:
    """`x` as Rust's `{:.2e}` prints it (8.86e4, 6.02e-17), to find it in a message."""
    mantissa, exponent = f"{x:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


@pytest.mark.parametrize(
    ("options", "cause"),
    [
        # atol below round-off: the initialization stops at round-off (it failed before), the
        # estimate then stays put as h shrinks (noise).
        ({"rtol": 1e-14, "atol": 1e-30, "t_end": 0.03}, "stagnant"),
        ({"rtol": 1e-14, "atol": 1e-16, "t_end": 0.03}, "unresolved"),
        # One rejected attempt at the last t: too few to classify.
        ({"rtol": 1e-12, "atol": 1e-13}, "unknown"),
    ],
    ids=["stagnant", "unresolved", "unknown"],
)
def test_step_size_underflow_carries_its_cause(andrews, options, cause):
    with pytest.raises(mbsim.SimulationError) as info:
        andrews.simulate(**options)
    e = info.value
    assert (e.kind, e.cause) == ("StepSizeUnderflow", cause), str(e)
    assert e.t is not None and e.h is not None and 0.1 * e.h <= e.t * 2.0**-52
    keys = ["first_h", "first_error", "last_h", "last_error"]
    if cause == "unknown":
        assert not any(k in e.detail for k in keys), e.detail
        assert "fewer than two attempts" in str(e)
        return
    first_h, first_error, last_h, last_error = (e.detail[k] for k in keys)
    assert e.h < last_h < first_h, e.detail
    # The classification the runtime states: an estimate that fell by less than h did is noise.
    assert (last_error > first_error * last_h / first_h) == (cause == "stagnant"), e.detail
    # The attributes are the message's numbers.
    for x in (first_h, first_error, last_h, last_error):
        assert _rust_e(x) in str(e), (_rust_e(x), str(e))


def test_other_errors_have_no_underflow_cause(andrews):
    with pytest.raises(mbsim.SimulationError) as info:
        andrews.simulate(max_steps=3)
    assert info.value.cause is None


def test_passage_guard_carries_the_chain_where_velocity_only_stops():
    # The IFToMM A02 chain (crank-angle form, 40 windows) under velocity-only at rtol 1e-10:
    # without the guard a singular configuration at the passage t ≈ 2.687; with it RKSTAB's
    # attempts across the passages are projected by PStab and the 20 s complete (README,
    # "Singular passages"). Reference: the exact 1-DOF reduction θ'' = −κ cos θ by SciPy's
    # DOP853 at 1e-13; the bench measured 3.96e-7 over the samples, 1.24e-7 at t = 20: bound
    # 10× the former.
    from scipy.integrate import solve_ivp

    chain = mbsim.load("four-bar-chain")
    options = dict(stabilization="velocity", rtol=1e-10, t_end=20.0, dt_out=20.0)
    with pytest.raises(mbsim.SimulationError) as info:
        chain.simulate(**options)
    assert info.value.kind == "SingularConfiguration", str(info.value)
    assert info.value.t == pytest.approx(2.687, abs=1e-3)
    run = chain.simulate(**options, passage_guard=True)
    assert run.t[-1] == pytest.approx(20.0)
    windows, g = 40, 9.81
    kappa = g * 3 * (3 * windows + 1) / (2 * (4 * windows + 1))
    reduction = solve_ivp(
        lambda t, y: [y[1], -kappa * math.cos(y[0])],
        (0.0, 20.0),
        [math.pi / 2, 1.0],
        method="DOP853",
        rtol=1e-13,
        atol=1e-13,
    )
    cranks = np.asarray(run.q[-1])
    assert np.max(np.abs(cranks - reduction.y[0][-1])) < 4e-6
    assert np.max(np.abs(run.drift_position)) < 1e-9
    assert run.summary["extra"]["passage_attempts"] > 0
