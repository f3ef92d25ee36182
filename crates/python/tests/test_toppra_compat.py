"""``contour.toppra_compat`` against toppra 0.6.10 on toppra's own examples, same gridpoints:
the fixture written by ``benches/peers/toppra_compat_peer.py`` (toppra's durations), compared
with contour's runs now; and toppra itself when installed."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import contour
import contour.toppra_compat as ta

FIXTURE = Path(__file__).parent / "fixtures" / "toppra_compat.json"


def load():
    if not FIXTURE.exists():
        pytest.skip(f"{FIXTURE.name} not written (run benches/peers/toppra_compat_peer.py)")
    return json.loads(FIXTURE.read_text())


def ours(c, n):
    w = np.array(c["waypoints"])
    vlim, alim = np.array(c["vlim"]), np.array(c["alim"])
    inst = ta.TOPPRA([ta.JointVelocityConstraint(vlim), ta.JointAccelerationConstraint(alim)],
                     ta.SplineInterpolator(np.linspace(0, 1, len(w)), w),
                     gridpoints=np.linspace(0, 1, n + 1))
    return inst, inst.compute_trajectory().duration


# the same algorithm on the same path: toppra's duration to `rel`. Three waypoints: the same
# grid (one knot inside, on no gridpoint either way), 1e-6. The quickstart's 5 waypoints: contour
# puts gridpoints on the spline's knots, toppra does not, 2e-3 at N = 100.
@pytest.mark.parametrize("name, rel", [("quickstart", 2e-3), ("three_waypoints", 1e-6)])
def test_toppra_runs_topp_ra_and_equals_toppra_on_the_same_path(name, rel):
    c = load()[name]
    for row in c["rows"]:
        inst, t = ours(c, row["n"])
        assert inst.intervals == row["n"]
        assert t == pytest.approx(row["toppra_same_path"], rel=rel), row
        assert t == pytest.approx(row["contour_toppra"], rel=1e-9), row
        # above the exact optimum of the phase plane, converging to it as the grid refines
        assert t >= row["contour_phase_plane"] * (1 - 1e-9)
    last = c["rows"][-1]
    assert last["contour_toppra"] == pytest.approx(last["contour_phase_plane"], rel=1e-3)


def test_the_plan_is_topp_ra():
    c = load()["three_waypoints"]
    inst, _ = ours(c, 100)
    traj = inst.compute_trajectory()
    assert traj.plan.algorithm == "toppra"
    assert len(traj.plan.grid_s) == 101


def test_toppra_live_on_the_same_path():
    toppra = pytest.importorskip("toppra", reason="toppra is not installed")
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    c = load()["three_waypoints"]
    w = np.array(c["waypoints"])
    vlim, alim = np.array(c["vlim"]), np.array(c["alim"])
    from scipy.interpolate import CubicSpline
    d = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(w, axis=0), axis=1))]
    cs = CubicSpline(d / d[-1], w, bc_type="natural")

    class SamePath(toppra.interpolator.AbstractGeometricPath):
        def __call__(self, s, order=0):
            return cs(s, order)

        dof = property(lambda self: w.shape[1])
        path_interval = property(lambda self: np.array([0.0, 1.0]))
        waypoints = property(lambda self: None)

    n = 1000
    inst = algo.TOPPRA([constraint.JointVelocityConstraint(np.stack([-vlim, vlim], 1)),
                        constraint.JointAccelerationConstraint(np.stack([-alim, alim], 1))],
                       SamePath(), gridpoints=np.linspace(0, 1, n + 1),
                       parametrizer="ParametrizeConstAccel")
    ref = inst.compute_trajectory(0, 0).duration
    assert ours(c, n)[1] == pytest.approx(ref, rel=1e-6)


def test_bad_gridpoints_are_refused():
    w = np.array(load()["three_waypoints"]["waypoints"])
    path = ta.SplineInterpolator(None, w)
    cons = [ta.JointAccelerationConstraint(np.ones(w.shape[1]))]
    with pytest.raises(contour.InvalidInputError, match="uniform"):
        ta.TOPPRA(cons, path, gridpoints=np.array([0.0, 0.1, 1.0]))
    with pytest.raises(contour.InvalidInputError, match="gridpoints"):
        ta.TOPPRA(cons, path, gridpoints=np.array([0.0]))
