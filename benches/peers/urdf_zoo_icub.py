"""Whose is the zoo's largest qdd difference? iCub (`icub.urdf`, 32 dof), where M is
ill-conditioned: at K random states (the zoo's state formula, its own seed), Contour's qdd
(`urdf_dynamics`, ABA) and Pinocchio's (`pin.aba`) against a reference, the solution of
Pinocchio's own M qdd = tau - h in long double (x87, eps 1.1e-19) with one step of iterative
refinement, and the normwise backward error of each,
|M x + h - tau|_inf / (|M|_inf |x|_inf + |tau - h|_inf), which a backward-stable solver keeps
at a few eps whatever cond(M) is; the forward differences are then bounded by about
cond(M) * eps. Writes urdf_zoo_icub_<date>.md.

Outside CI. Usage (pip install pin example-robot-data):
    cargo build -p contour-benches --bin urdf_dynamics
    python benches/peers/urdf_zoo_icub.py [--states K] [--out benches/peers/results]
"""
import argparse
import datetime
import os
import sys

import numpy as np
import pinocchio as pin

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import urdf_zoo as zoo  # noqa: E402


def solve_long_double(m, b):
    """Gaussian elimination with partial pivoting in long double."""
    n = len(b)
    ab = np.concatenate([m.astype(np.longdouble), b.astype(np.longdouble)[:, None]], axis=1)
    for k in range(n):
        p = k + int(np.argmax(np.abs(ab[k:, k])))
        ab[[k, p]] = ab[[p, k]]
        for i in range(k + 1, n):
            ab[i, k:] -= ab[i, k] / ab[k, k] * ab[k, k:]
    x = np.zeros(n, dtype=np.longdouble)
    for i in reversed(range(n)):
        x[i] = (ab[i, n] - ab[i, i + 1:n] @ x[i + 1:]) / ab[i, i]
    return x


def backward(m, h, tau, x):
    r = m.astype(np.longdouble) @ x.astype(np.longdouble) + h - tau
    return float(np.max(np.abs(r)) / (np.max(np.abs(m).sum(1)) * np.max(np.abs(x)) + np.max(np.abs(tau - h))))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=int, default=300)
    ap.add_argument("--out", default=os.path.join(zoo.ROOT, "benches", "peers", "results"))
    args = ap.parse_args()
    path = os.path.join(zoo.robots_dir(), "icub_description/robots/icub.urdf")
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    rng = np.random.default_rng(7)
    states, pins = [], []
    for _ in range(args.states):
        ang = rng.uniform(-1, 1, model.nv)
        v, a, tau = (rng.uniform(-1, 1, model.nv) for _ in range(3))
        q = zoo.pin_q(model, ang)
        m = pin.crba(model, data, q).copy()
        m = np.triu(m) + np.triu(m, 1).T
        qdd = pin.aba(model, data, q, v, tau).copy()
        h = pin.nonLinearEffects(model, data, q, v).copy()
        states.append((ang, v, a, tau))
        pins.append((m, h, tau, qdd))
    out = zoo.contour(path, zoo.velocity_names(model), states)
    rows = []
    for s, (m, h, tau, qp) in zip(out["states"], pins):
        qc = np.array(s["qdd"], dtype=float)
        ref = solve_long_double(m, tau - h)
        ref = ref + solve_long_double(m, (tau - h).astype(np.longdouble) - m.astype(np.longdouble) @ ref)
        scale = max(1.0, float(np.max(np.abs(ref))))
        ev = np.linalg.eigvalsh(m)
        rows.append((ev[-1] / ev[0], float(np.max(np.abs(qc - qp))) / scale,
                     float(np.max(np.abs(qc - ref))) / scale, float(np.max(np.abs(qp - ref))) / scale,
                     backward(m, h, tau, qc), backward(m, h, tau, qp)))
    a = np.array(rows)
    eps = np.finfo(float).eps
    day = datetime.date.today().isoformat()
    lines = [
        f"# iCub's qdd: Contour, Pinocchio {pin.__version__} and a long-double solve, {day}", "",
        f"`icub_description/robots/icub.urdf` (32 dof), {len(rows)} random states "
        "(`benches/peers/urdf_zoo_icub.py`). Differences are max|x - y| / max(1, max|reference|); "
        "the reference solves Pinocchio's own M qdd = tau - h in long double with one refinement "
        "step; the backward error is |M x + h - tau| / (|M| |x| + |tau - h|) (infinity norms).", "",
        "| quantity | value |", "|---|---|",
        f"| cond(M), largest | {a[:, 0].max():.1e} |",
        f"| cond(M) eps, largest | {a[:, 0].max() * eps:.1e} |",
        f"| Contour vs Pinocchio | {a[:, 1].max():.1e} |",
        f"| Contour vs reference | {a[:, 2].max():.1e} |",
        f"| Pinocchio vs reference | {a[:, 3].max():.1e} |",
        f"| backward error, Contour | {a[:, 4].max():.1e} |",
        f"| backward error, Pinocchio | {a[:, 5].max():.1e} |", "",
        "Both ABAs solve the equations to round-off (backward errors of a few eps or less); "
        "their qdd differ from each other and from the exact solution of the rounded M only "
        "within cond(M) eps, so the zoo's qdd difference on iCub is the conditioning of its mass "
        "matrix, not an error on either side.", "",
    ]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, f"urdf_zoo_icub_{day}.md"), "w") as f:
        f.write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
