#!/usr/bin/env python3
"""Per-call cost of ``crba`` / ``rnea`` / ``aba`` from Python: contour's binding against
Pinocchio's (``pin`` 4.1), on the UR5 and Solo12 (fixed base, 12 joints) URDFs of
example-robot-data, and where contour's time goes.

Needs one interpreter with both ``contour`` and ``pin`` (``pip install pin`` into the venv that
has contour, or the reverse). ``EXAMPLE_ROBOT_DATA`` points at example-robot-data's ``robots``
folder (default: the one that ships with ``pip install example-robot-data``).

    python benches/peers/python_overhead.py [OUT.md]

Columns: the median over 7 repeats of 20 000 calls, in µs per call. Rows per robot:
``pin`` (Pinocchio, data preallocated, as its users call it), ``contour`` (float64 arrays in),
``contour (lists in)`` (Python lists: numpy conversion at the door), and the floor of any
binding call (``model.dof``, a getter). Results: benches/results/python_overhead_2026-11-29.md.
"""
import os
import sys
import timeit
from pathlib import Path

import numpy as np
import pinocchio as pin

import contour


def robots_dir():
    env = os.environ.get("EXAMPLE_ROBOT_DATA")
    if env:
        return Path(env)
    import site
    for p in site.getsitepackages():
        d = Path(p) / "cmeel.prefix/share/example-robot-data/robots"
        if d.is_dir():
            return d
    sys.exit("example-robot-data not found: set EXAMPLE_ROBOT_DATA")


def per_call_us(f, number=20_000, repeat=7):
    return 1e6 * float(np.median(timeit.repeat(f, number=number, repeat=repeat))) / number


def measure(name, urdf):
    pm = pin.buildModelFromUrdf(str(urdf))
    pd = pm.createData()
    cm = contour.Urdf(str(urdf), gravity=[0.0, 0.0, -9.81])
    n = cm.dof
    assert n == pm.nv, (n, pm.nv)
    rng = np.random.default_rng(1)
    q, v, a = (rng.uniform(-1, 1, n) for _ in range(3))
    ql, vl, al = q.tolist(), v.tolist(), a.tolist()
    rows = [
        ("pin", {
            "crba": per_call_us(lambda: pin.crba(pm, pd, q)),
            "rnea": per_call_us(lambda: pin.rnea(pm, pd, q, v, a)),
            "aba": per_call_us(lambda: pin.aba(pm, pd, q, v, a)),
        }),
        ("contour", {
            "crba": per_call_us(lambda: cm.crba(q)),
            "rnea": per_call_us(lambda: cm.rnea(q, v, a)),
            "aba": per_call_us(lambda: cm.aba(q, v, a)),
        }),
        ("contour (lists in)", {
            "crba": per_call_us(lambda: cm.crba(ql)),
            "rnea": per_call_us(lambda: cm.rnea(ql, vl, al)),
            "aba": per_call_us(lambda: cm.aba(ql, vl, al)),
        }),
    ]
    floor = per_call_us(lambda: cm.dof)
    # agreement (pin's crba fills the upper triangle), joints matched by name: contour's URDF
    # import orders them breadth-first (every hip, then every thigh), Pinocchio depth-first
    perm = [list(pm.names)[1:].index(j) for j in cm.joint_names]
    qp, vp, ap = (np.empty(n) for _ in range(3))
    qp[perm], vp[perm], ap[perm] = q, v, a
    m = pin.crba(pm, pd, qp)
    m = (np.triu(m) + np.triu(m, 1).T)[np.ix_(perm, perm)]
    err = max(np.abs(m - cm.crba(q)).max(),
              np.abs(pin.rnea(pm, pd, qp, vp, ap)[perm] - cm.rnea(q, v, a)).max())
    return name, n, rows, floor, err


def main():
    d = robots_dir()
    cases = [
        ("UR5", d / "ur_description/urdf/ur5_robot.urdf"),
        ("Solo12 (fixed base)", d / "solo_description/robots/solo12.urdf"),
    ]
    lines = ["| robot | n | binding | crba [µs] | rnea [µs] | aba [µs] |", "|---|---|---|---|---|---|"]
    for case in cases:
        name, n, rows, floor, err = measure(*case)
        for who, t in rows:
            lines.append(f"| {name} | {n} | {who} | {t['crba']:.3f} | {t['rnea']:.3f} | {t['aba']:.3f} |")
        lines.append(f"| {name} | {n} | floor: `model.dof` | {floor:.3f} | | |")
        lines.append(f"| {name} | {n} | max abs difference crba/rnea | {err:.1e} | | |")
    text = "\n".join(lines) + "\n"
    print(text)
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text)


if __name__ == "__main__":
    main()
