"""A UR5-like joint line with datasheet limits, minimum time by contour's phase plane, and the
same problem with toppra when it is installed (its documented constraints and its default
TOPPRA algorithm on a 1000-interval grid).

UR5 datasheet: every joint ±180 °/s. Accelerations are not in the datasheet; the values below
(rad/s²) are the ones commonly used with the UR5 in planning benchmarks.

    python ur5_joint_line.py [OUT_DIR]
"""

import time

import numpy as np

import contour
import contour.toppra_compat as ta

q_start = np.array([0.0, -1.57, 1.57, -1.57, -1.57, 0.0])
q_end = np.array([1.2, -0.9, 0.6, -2.1, -1.0, 1.5])
vlim = np.full(6, np.pi)
alim = np.array([8.0, 8.0, 8.0, 12.0, 12.0, 12.0])

t0 = time.perf_counter()
plan = contour.plan(None, contour.joint_line(q_start, q_end), vlim=vlim, alim=alim, rate=1000.0)
t_contour = time.perf_counter() - t0
print(f"contour phase plane: minimum time {plan.total_time:.9f} s "
      f"({len(plan.trajectory.t)} samples at 1 kHz) in {t_contour * 1e3:.2f} ms")

# A toppra user's three-line switch (contour.toppra_compat mirrors toppra's quickstart).
constraint, algo = ta.constraint, ta.algorithm
path = ta.SplineInterpolator(np.linspace(0, 1, 2), np.array([q_start, q_end]))
jnt = algo.TOPPRA([constraint.JointVelocityConstraint(np.stack([-vlim, vlim], 1)),
                   constraint.JointAccelerationConstraint(np.stack([-alim, alim], 1))],
                  path).compute_trajectory()
print(f"contour through the toppra-style adapter: {jnt.duration:.9f} s")

try:
    import toppra
    import toppra.algorithm
    import toppra.constraint
except ImportError:
    print("toppra is not installed (pip install toppra): comparison skipped")
else:
    t0 = time.perf_counter()
    tpath = toppra.SplineInterpolator(np.linspace(0, 1, 2), np.array([q_start, q_end]))
    inst = toppra.algorithm.TOPPRA(
        [toppra.constraint.JointVelocityConstraint(np.stack([-vlim, vlim], 1)),
         toppra.constraint.JointAccelerationConstraint(np.stack([-alim, alim], 1))],
        tpath, gridpoints=np.linspace(0, 1, 1001))
    ref = inst.compute_trajectory().duration
    t_toppra = time.perf_counter() - t0
    print(f"toppra: {ref:.9f} s in {t_toppra * 1e3:.2f} ms; "
          f"relative difference {abs(ref - plan.total_time) / ref:.2e}")
