"""Bad inputs are Python exceptions naming the offending entry; a failed run carries the
runtime's diagnosis (kind, t, h, rows by name). Nothing crashes the interpreter."""

from __future__ import annotations

import math

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

