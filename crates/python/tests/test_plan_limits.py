"""Planning with one kind of limit: acceleration limits alone give the bang–bang plan,
velocity limits alone are diagnosed as an unbounded path acceleration (not as a degenerate
tangent), and ``inf`` is "no limit" in ``vlim``, ``alim`` and ``torque_limits``."""

from __future__ import annotations

import numpy as np
import pytest

import contour

from conftest import PANDA_URDF

Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
Q1 = np.array([0.8, -0.2, 0.4, -1.6, 0.5, 2.2, 0.2])
VLIM = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
ALIM = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0])
ALGORITHMS = ["phase_plane", "toppra"]


def bang_bang(d, alim):
    """|s̈| ≤ A = min alimᵢ/|dᵢ| along s ∈ [0, 1] from rest to rest: T = 2/√A."""
    return 2.0 / np.sqrt(np.min(alim / np.abs(d)))


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_acceleration_limits_alone_give_bang_bang(algorithm):
    exact = bang_bang(Q1 - Q0, ALIM)
    for vlim in (None, np.full(7, np.inf)):
        p = contour.plan(None, contour.joint_line(Q0, Q1), vlim=vlim, alim=ALIM,
                         algorithm=algorithm)
        tol = 1e-7 if algorithm == "phase_plane" else 2e-3
        assert p.total_time == pytest.approx(exact, rel=tol)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_velocity_limits_alone_name_the_unbounded_acceleration(algorithm):
    for alim in (None, np.full(7, np.inf)):
        with pytest.raises(contour.PlanningError, match="acceleration is unbounded") as e:
            contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=alim,
                         algorithm=algorithm)
        assert "degenerate" not in str(e.value)


def test_an_infinite_entry_is_no_limit_on_that_joint():
    # an inf limit on a joint that does not bind changes nothing
    d = Q1 - Q0
    ratio = ALIM / np.abs(d)
    k = int(np.argmax(ratio))  # the joint that does not bind
    alim = ALIM.copy()
    alim[k] = np.inf
    p = contour.plan(None, contour.joint_line(Q0, Q1), alim=alim)
    assert p.total_time == pytest.approx(bang_bang(d, ALIM), rel=1e-7)


def test_infinite_torque_limits_are_no_limit():
    arm = contour.Urdf(str(PANDA_URDF), gravity=[0.0, 0.0, 0.0])
    line = contour.joint_line(Q0, Q1)
    free = contour.plan(None, line, alim=ALIM)
    p = contour.plan(arm, line, alim=ALIM, torque_limits=np.full(7, np.inf))
    assert p.total_time == pytest.approx(free.total_time, rel=1e-9)
    # one joint without a torque limit, the others tight: the plan is slower than with alim
    effort = arm.effort_limit * 0.05
    effort[0] = np.inf
    tight = contour.plan(arm, line, alim=ALIM, torque_limits=effort)
    assert tight.total_time > free.total_time
    with pytest.raises(contour.PlanningError, match="acceleration is unbounded"):
        contour.plan(arm, line, vlim=VLIM, torque_limits=np.full(7, np.inf))


@pytest.mark.parametrize("bad", [0.0, -1.0, np.nan, -np.inf])
@pytest.mark.parametrize("key", ["vlim", "alim"])
def test_non_positive_limits_are_refused_by_name(key, bad):
    lim = (VLIM if key == "vlim" else ALIM).copy()
    lim[2] = bad
    kwargs = {"vlim": VLIM, "alim": ALIM, key: lim}
    with pytest.raises(contour.InvalidInputError, match=rf"{key}\[2\] = .* positive limit"):
        contour.plan(None, contour.joint_line(Q0, Q1), **kwargs)
