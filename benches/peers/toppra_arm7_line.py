#!/usr/bin/env python3
"""toppra (pip install toppra; 0.6.10 measured) on the planning bench's arm7 line problem.

The problem is exported by our side (same path, same limits, the arm's M(q(s)) and h(q(s), B)
on a grid of 20001 points, linearly interpolated in s — zero gravity, so h(q, 0) = 0):

    cargo run --release -p contour-benches --example export_arm7_line -- /tmp/arm7_line.json
    python3 benches/peers/toppra_arm7_line.py /tmp/arm7_line.json [OUT.csv]

Writes solver,n,minimum_time_s,wall_ms rows (ours, exported with the problem, and toppra's).
Not run in CI. Dated results (export and this script run back to back, one sitting):
benches/peers/results/toppra_arm7_line_YYYY-MM-DD.csv (wall times: median of 7 runs for
ours, of 3 for toppra; the machine's load at the time is in the note of that session).
"""
import json
import sys
import time

import numpy as np
import toppra as ta
import toppra.algorithm as algo
import toppra.constraint as constraint

ta.setup_logging("WARNING")


def main():
    data = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "/tmp/arm7_line.json"))
    out = sys.argv[2] if len(sys.argv) > 2 else None
    q0, q1 = np.array(data["q0"]), np.array(data["q1"])
    d = q1 - q0
    n = len(q0)
    grid = np.linspace(0.0, 1.0, data["grid"] + 1)
    M = np.array(data["M"]).reshape(-1, n, n)
    H = np.array(data["h"])

    def table(s):
        # linear interpolation of the tables in s
        s = min(max(s, 0.0), 1.0)
        k = min(int(s * data["grid"]), data["grid"] - 1)
        w = s * data["grid"] - k
        return (1 - w) * M[k] + w * M[k + 1], (1 - w) * H[k] + w * H[k + 1]

    def inv_dyn(q, qd, qdd):
        s = float(np.dot(q - q0, d) / np.dot(d, d))
        m, h = table(s)
        # h(q, q̇) for q̇ ∥ B = d: (q̇·d/|d|²)² h(q, d) — toppra calls it with q̇ ∈ {0, B}
        sd = float(np.dot(qd, d) / np.dot(d, d))
        return m @ qdd + sd * sd * h

    effort = np.array(data["effort"])
    vel = np.array(data["velocity"])
    # the straight line: a natural cubic through three collinear, equally spaced points is
    # the line itself (B = d, B̄ = 0)
    path = ta.SplineInterpolator([0.0, 0.5, 1.0], np.vstack([q0, 0.5 * (q0 + q1), q1]))
    rows = [("solver", "n", "minimum_time_s", "wall_ms")]
    for o in data["ours"]:
        rows.append((o["solver"], o["n"], o["time"], o["ms"]))
    for N in [100, 1000, 10000]:
        gridpoints = np.linspace(0.0, 1.0, N + 1)
        pc_vel = constraint.JointVelocityConstraint(np.vstack([-vel, vel]).T)
        pc_tau = constraint.JointTorqueConstraint(
            inv_dyn, np.vstack([-effort, effort]).T, np.zeros(n),
            discretization_scheme=constraint.DiscretizationType.Interpolation)
        inst = algo.TOPPRA([pc_vel, pc_tau], path, gridpoints=gridpoints,
                           parametrizer="ParametrizeConstAccel")
        times = []
        for _ in range(3 if N <= 1000 else 1):
            t0 = time.perf_counter()
            traj = inst.compute_trajectory(0, 0)
            times.append((time.perf_counter() - t0) * 1e3)
        T = traj.duration
        rows.append(("toppra_0.6.10", N, T, sorted(times)[len(times) // 2]))
        print(f"toppra N = {N}: {T:.9f} s in {rows[-1][3]:.1f} ms")
    text = "\n".join(",".join(str(v) for v in r) for r in rows) + "\n"
    if out:
        open(out, "w").write(text)
    print(text)


if __name__ == "__main__":
    main()
