"""A toppra-style front end to ``contour.plan``: a toppra user switches in three lines.

toppra::

    import toppra as ta
    import toppra.constraint as constraint
    import toppra.algorithm as algo

contour (the rest of the script unchanged)::

    import contour.toppra_compat as ta
    constraint = ta.constraint
    algo = ta.algorithm

then, as in toppra's quickstart::

    path = ta.SplineInterpolator(ss, way_pts)
    pc_vel = constraint.JointVelocityConstraint(vlim)
    pc_acc = constraint.JointAccelerationConstraint(alim)
    instance = algo.TOPPRA([pc_vel, pc_acc], path)
    jnt_traj = instance.compute_trajectory()
    jnt_traj.duration, jnt_traj(ts), jnt_traj(ts, 1)

``TOPPRA`` runs contour's TOPP-RA (reachability analysis on a uniform grid, as toppra) on
``len(gridpoints) - 1`` intervals (default 2000); ``jnt_traj(ts, order)`` interpolates its
samples (``rate`` Hz) linearly. Two waypoints give the joint line; more give contour's C²
natural cubic spline through them with chord-length knots: toppra's default spline is scipy's
"not-a-knot" with knots ``ss``, a slightly different path through three or more waypoints
(benches/results/toppra_compat_2026-11-29.md measures what that changes). Rest to rest only
(``sd_start = sd_end = 0``); no ``JointTorqueConstraint`` (``contour.plan`` takes
``torque_limits`` with a model). Limits are symmetric: ``vlim`` of shape (n,) or (n, 2) with
``vlim[:, 0] == -vlim[:, 1]``; ``inf`` is no limit.
"""

from __future__ import annotations

import types
from typing import Optional, Sequence

import numpy as np

from . import _contour
from ._errors import InvalidInputError


def _symmetric(lim, name: str) -> np.ndarray:
    a = np.asarray(lim, dtype=np.float64)
    if a.ndim == 1:
        return np.abs(a)
    if a.ndim == 2 and a.shape[1] == 2:
        if not np.allclose(a[:, 0], -a[:, 1], rtol=0.0, atol=0.0):
            raise InvalidInputError(f"{name}: contour takes symmetric limits (lower == -upper)")
        return a[:, 1].copy()
    raise InvalidInputError(f"{name}: expected shape (n,) or (n, 2), found {a.shape}")


class SplineInterpolator:
    """The path through ``way_pts`` (shape (k, n)); ``ss`` is accepted for toppra compatibility."""

    def __init__(self, ss_waypoints: Optional[Sequence[float]], waypoints, bc_type: str = "natural"):
        w = np.asarray(waypoints, dtype=np.float64)
        if w.ndim != 2 or w.shape[0] < 2:
            raise InvalidInputError(f"waypoints: expected shape (k >= 2, n), found {w.shape}")
        if bc_type != "natural":
            raise InvalidInputError("bc_type: contour's spline has natural ends ('natural')")
        self.waypoints = w
        self.path = _contour.joint_line(w[0], w[1]) if w.shape[0] == 2 else _contour.spline(w)
        self.dof = w.shape[1]


class JointVelocityConstraint:
    """``|q̇ᵢ| ≤ vlimᵢ`` [rad/s]."""

    def __init__(self, vlim):
        self.vlim = _symmetric(vlim, "vlim")


class JointAccelerationConstraint:
    """``|q̈ᵢ| ≤ alimᵢ`` [rad/s²]."""

    def __init__(self, alim):
        self.alim = _symmetric(alim, "alim")


class JointTrajectory:
    """A sampled minimum-time motion: ``duration`` [s] and ``self(ts, order)``."""

    def __init__(self, plan):
        self.plan = plan
        tr = plan.trajectory
        self._t = tr.t
        self._data = (tr.q, tr.qd, tr.qdd)
        self.duration = plan.total_time

    def __call__(self, ts, order: int = 0) -> np.ndarray:
        if order not in (0, 1, 2):
            raise InvalidInputError("order: 0 (q), 1 (qd) or 2 (qdd)")
        y = self._data[order]
        ts = np.asarray(ts, dtype=np.float64)
        cols = [np.interp(ts, self._t, y[:, j]) for j in range(y.shape[1])]
        return np.stack(cols, axis=-1)


class TOPPRA:
    """toppra's ``algorithm.TOPPRA(constraints, path, gridpoints)``, solved by contour's TOPP-RA
    on ``len(gridpoints) - 1`` uniform intervals (default 2000)."""

    def __init__(self, constraint_list, path: SplineInterpolator, gridpoints=None,
                 rate: float = 1000.0, **_ignored):
        self.path = path
        self.rate = rate
        self.vlim = None
        self.alim = None
        self.intervals = 2000
        if gridpoints is not None:
            g = np.asarray(gridpoints, dtype=np.float64)
            if g.ndim != 1 or g.shape[0] < 2:
                raise InvalidInputError(f"gridpoints: expected shape (N + 1 >= 2,), found {g.shape}")
            span = g[-1] - g[0]
            if not np.allclose(np.diff(g), span / (g.shape[0] - 1), rtol=1e-9, atol=0.0):
                raise InvalidInputError("gridpoints: contour's TOPP-RA takes a uniform grid")
            self.intervals = g.shape[0] - 1
        for c in constraint_list:
            if isinstance(c, JointVelocityConstraint):
                self.vlim = c.vlim
            elif isinstance(c, JointAccelerationConstraint):
                self.alim = c.alim
            else:
                raise InvalidInputError(f"constraint {type(c).__name__} is not offered")

    def compute_trajectory(self, sd_start: float = 0.0, sd_end: float = 0.0) -> JointTrajectory:
        if sd_start != 0.0 or sd_end != 0.0:
            raise InvalidInputError("contour plans from rest to rest (sd_start = sd_end = 0)")
        plan = _contour.plan(None, self.path.path, vlim=self.vlim, alim=self.alim,
                             algorithm="toppra", intervals=self.intervals, rate=self.rate)
        return JointTrajectory(plan)


constraint = types.SimpleNamespace(
    JointVelocityConstraint=JointVelocityConstraint,
    JointAccelerationConstraint=JointAccelerationConstraint,
)
algorithm = types.SimpleNamespace(TOPPRA=TOPPRA)

__all__ = [
    "SplineInterpolator",
    "JointVelocityConstraint",
    "JointAccelerationConstraint",
    "JointTrajectory",
    "TOPPRA",
    "constraint",
    "algorithm",
]
