#!/usr/bin/env python3
"""toppra 0.6.x against ``contour.toppra_compat`` on toppra's own examples, same gridpoints.

    pip install toppra   # 0.6.10 measured
    python3 benches/peers/toppra_compat_peer.py [OUT.json]

Cases: toppra's quickstart (5 random waypoints, seed 9, 7 joints, velocity and acceleration
limits) and a 3-waypoint spline through (Q0, (Q0 + Q1)/2 + 0.1, Q1) of the Panda line.
For each case and each N (uniform gridpoints ``linspace(0, 1, N + 1)``) it records

* ``toppra``: toppra's TOPPRA on its own ``SplineInterpolator(ss, way_pts)`` (scipy
  ``CubicSpline``, bc_type "not-a-knot", knots ``ss``);
* ``toppra_same_path``: toppra on contour's path (a natural cubic spline with chord-length
  knots, built with scipy), which isolates the path from the algorithm;
* ``contour_toppra``: ``contour.toppra_compat.TOPPRA`` (contour's TOPP-RA, N intervals);
* ``contour_phase_plane``: the exact optimum on contour's path (no grid).

Writes the JSON fixture that ``crates/python/tests/test_toppra_compat.py`` compares against
(default ``crates/python/tests/fixtures/toppra_compat.json``). Findings:
benches/results/toppra_compat_2026-11-29.md.
"""
import json
import sys
from pathlib import Path

import numpy as np
import toppra as ta
import toppra.algorithm as algo
import toppra.constraint as constraint
from scipy.interpolate import CubicSpline

import contour
import contour.toppra_compat as cta

ta.setup_logging("WARNING")

Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
Q1 = np.array([0.8, -0.2, 0.4, -1.6, 0.5, 2.2, 0.2])
VLIM = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
ALIM = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0])


def quickstart():
    """toppra's quickstart problem (docs, "Quickstart"): seed 9, 5 waypoints, 7 joints."""
    np.random.seed(9)
    way_pts = np.random.randn(5, 7)
    vlim = np.random.rand(7) * 20
    alim = np.random.rand(7) * 2
    return way_pts, vlim, alim


def chord_knots(w):
    d = np.r_[0.0, np.cumsum(np.linalg.norm(np.diff(w, axis=0), axis=1))]
    return d / d[-1]


def toppra_time(path, vlim, alim, n):
    pc_vel = constraint.JointVelocityConstraint(np.stack([-vlim, vlim], axis=1))
    pc_acc = constraint.JointAccelerationConstraint(np.stack([-alim, alim], axis=1))
    inst = algo.TOPPRA([pc_vel, pc_acc], path, gridpoints=np.linspace(0, 1, n + 1),
                       parametrizer="ParametrizeConstAccel")
    return inst.compute_trajectory(0, 0).duration


class SamePath(ta.interpolator.AbstractGeometricPath):
    """contour's path (natural cubic, chord-length knots) as a toppra path."""

    def __init__(self, w):
        self.cs = CubicSpline(chord_knots(w), w, bc_type="natural")

    def __call__(self, s, order=0):
        return self.cs(s, order)

    @property
    def dof(self):
        return self.cs.c.shape[-1]

    @property
    def path_interval(self):
        return np.array([0.0, 1.0])

    @property
    def waypoints(self):
        return None


def case(name, w, vlim, alim, grids):
    rows = []
    pp = contour.plan(None, contour.spline(w), vlim=vlim, alim=alim).total_time
    for n in grids:
        ours = cta.TOPPRA([cta.JointVelocityConstraint(vlim), cta.JointAccelerationConstraint(alim)],
                          cta.SplineInterpolator(np.linspace(0, 1, len(w)), w),
                          gridpoints=np.linspace(0, 1, n + 1)).compute_trajectory()
        row = {
            "case": name,
            "n": n,
            "toppra": toppra_time(ta.SplineInterpolator(np.linspace(0, 1, len(w)), w), vlim, alim, n),
            "toppra_same_path": toppra_time(SamePath(w), vlim, alim, n),
            "contour_toppra": ours.duration,
            "contour_phase_plane": pp,
        }
        rows.append(row)
        print(" ".join(f"{k}={v:.6f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    return {"waypoints": w.tolist(), "vlim": vlim.tolist(), "alim": alim.tolist(), "rows": rows}


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else (
        Path(__file__).resolve().parents[2] / "crates/python/tests/fixtures/toppra_compat.json")
    w, v, a = quickstart()
    three = np.array([Q0, (Q0 + Q1) / 2 + 0.1, Q1])
    data = {
        "toppra_version": "0.6.10",
        "quickstart": case("quickstart", w, v, a, [100, 1000, 10000]),
        "three_waypoints": case("three_waypoints", three, VLIM, ALIM, [100, 1000, 10000]),
    }
    out.write_text(json.dumps(data, indent=1) + "\n")
    print("wrote", out)


if __name__ == "__main__":
    main()
