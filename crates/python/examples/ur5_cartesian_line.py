"""A UR5's tool on a straight Cartesian line, orientation held, with datasheet joint limits:
minimum time by contour's phase plane and TOPP-RA, the tool positions checked on the line (and
by Pinocchio's forward kinematics when installed), and toppra on the same joint path when
installed.

UR5 datasheet: every joint ±180 °/s. Accelerations are not in the datasheet; the values below
(rad/s²) are the ones commonly used with the UR5 in planning benchmarks.

    python ur5_cartesian_line.py [OUT_DIR]
"""

import pathlib
import time

import numpy as np

import contour

ROOT = pathlib.Path(__file__).resolve().parents[3]
URDF = ROOT / "crates" / "planning" / "tests" / "fixtures" / "ur5_robot.urdf"

ur5 = contour.Urdf(str(URDF))
q_start = np.array([0.3, -1.2, 1.5, -1.9, -1.57, 0.2])
vlim = np.full(6, np.pi)
alim = np.array([8.0, 8.0, 8.0, 12.0, 12.0, 12.0])
p0 = ur5.frame_position(q_start, "tool0")
p1 = p0 + np.array([0.15, -0.2, 0.1])

t0 = time.perf_counter()
line = contour.cartesian_line(ur5, "tool0", p1, q_start)
t_line = time.perf_counter() - t0
plans = {}
for algorithm in ("phase_plane", "toppra"):
    t0 = time.perf_counter()
    plans[algorithm] = contour.plan(ur5, line, vlim=vlim, alim=alim, algorithm=algorithm,
                                    intervals=1000, rate=1000.0)
    print(f"contour {algorithm}: minimum time {plans[algorithm].total_time:.9f} s "
          f"in {(time.perf_counter() - t0) * 1e3:.1f} ms")
print(f"(the line's inverse kinematics table: {t_line * 1e3:.1f} ms)")

tr = plans["phase_plane"].trajectory
x = np.array([ur5.frame_position(q, "tool0") for q in tr.q])
d = (p1 - p0) / np.linalg.norm(p1 - p0)
dist = np.linalg.norm((x - p0) - np.outer((x - p0) @ d, d), axis=1)
r0 = ur5.frame_rotation(q_start, "tool0")
rot = max(np.max(np.abs(ur5.frame_rotation(q, "tool0") - r0)) for q in tr.q)
print(f"{len(tr.t)} samples at 1 kHz: tool off the line by at most {dist.max():.2e} m, "
      f"orientation held to {rot:.2e}")
assert dist.max() <= 1e-9 and rot <= 1e-9

try:
    import pinocchio as pin
except ImportError:
    print("pin (Pinocchio) is not installed: its forward kinematics check is skipped")
else:
    model = pin.buildModelFromUrdf(str(URDF))
    data = model.createData()
    fid = model.getFrameId("tool0")
    xs = []
    for q in tr.q:
        pin.framesForwardKinematics(model, data, q)
        xs.append(data.oMf[fid].translation.copy())
    xs = np.array(xs)
    pdist = np.linalg.norm((xs - p0) - np.outer((xs - p0) @ d, d), axis=1).max()
    print(f"Pinocchio's forward kinematics: tool off the line by at most {pdist:.2e} m")
    assert pdist <= 1e-9

try:
    import toppra
    import toppra.algorithm
    import toppra.constraint
except ImportError:
    print("toppra is not installed (pip install toppra): comparison skipped")
else:
    ss = np.linspace(0.0, 1.0, 201)
    path = toppra.SplineInterpolator(ss, np.array([line.point(s) for s in ss]))
    t0 = time.perf_counter()
    inst = toppra.algorithm.TOPPRA(
        [toppra.constraint.JointVelocityConstraint(np.stack([-vlim, vlim], 1)),
         toppra.constraint.JointAccelerationConstraint(np.stack([-alim, alim], 1))],
        path, gridpoints=np.linspace(0, 1, 1001))
    ref = inst.compute_trajectory().duration
    print(f"toppra (spline through 201 points of the same joint path, 1000 intervals): "
          f"{ref:.9f} s in {(time.perf_counter() - t0) * 1e3:.1f} ms; contour phase plane "
          f"differs by {abs(ref - plans['phase_plane'].total_time) / ref:.1e} (relative)")
