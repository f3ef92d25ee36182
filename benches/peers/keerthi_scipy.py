"""Keerthi's robot with its control law (4.5) from IC2 (made consistent), T = 5 s, with
scipy: the index-1 ODE form M q'' = u - h + J^T lambda, J q'' + rho = 0, integrated by scipy's
LSODA, DOP853, Radau and vode-Adams at rtol = atol = tau, tau = 1e-4 ... 1e-10, with the
right-hand side in three forms (scipy_peers.py): a numpy KKT solve, plain Python floats with the
2x2 Schur complement J M^-1 J^T solved by hand (M is diagonal), and the same compiled by numba.
The scalar and numba forms are checked against the KKT form at random states (to 1e-12).

Input: benches/peers/results/keerthi_ic2_reference.csv (the consistent x0 and the reference
q(5), written by `cargo run --release -p contour-benches --bin keerthi_work_precision`, which
also writes the project's side, keerthi_work_precision.csv). The reference is checked here a
third time, by DOP853 at rtol = atol = 1e-13 (to 1e-10). Writes
benches/peers/results/keerthi_scipy.csv and prints the ratios at matched error (the error is
max_i |q_i - q_ref,i| / max(|q_ref,i|, 0.1), as on the project's side). Not run in CI.

The model is a transcription of crates/model/src/models/keerthi.rs (KeerthiRobot,
KeerthiControlLaw); its J and rho are checked against finite differences below."""
import csv
import math
import sys

import numpy as np

from scipy_peers import check_jac_rho, compare, integrate, isclose_or_die, kkt_rhs, sweep

L3, M2, M3, J1, J2, J3, G, Y0, R2 = 0.2, 1.0, 2.0, 0.1, 0.2, 0.1, 9.8, 0.169, 0.2214
QE, UE = np.array([0.436, 0.3, 0.2]), np.array([0.363, 29.4, 0.423])
KP = np.array([[-3.655, -4.181, 3.136], [-15.934, -18.229, 13.672], [8.267, 9.455, -7.091]])
KD = np.array([[-0.455, -2.167, 1.083], [-2.167, -10.325, 5.163], [1.083, 5.163, -2.581]])


def mass(q):
    l = q[2] + L3
    return np.diag([J1 + J2 + J3 + M3 * l * l, M2 + M3, M3])


def forces(q, qd):
    """u - h: the control law (4.5) minus the velocity and gravity terms."""
    l = q[2] + L3
    h = np.array([2 * M3 * l * qd[0] * qd[2], (M2 + M3) * G, -M3 * l * qd[0] ** 2])
    return UE + KP @ (q - QE) + KD @ qd - h


def phi(q):
    l = q[2] + L3
    return np.array([l * math.sin(q[0]) - Y0, (l * math.cos(q[0])) ** 2 + q[1] ** 2 - R2])


def jac_rho(q, qd):
    l = q[2] + L3
    s, c = math.sin(q[0]), math.cos(q[0])
    j = np.array([[l * c, 0.0, s], [-2 * l * l * s * c, 2 * q[1], 2 * l * c * c]])
    w1, w2, w3 = qd
    rho = np.array([
        -l * s * w1 * w1 + 2 * c * w1 * w3,
        -2 * l * l * (c * c - s * s) * w1 * w1 - 8 * l * s * c * w1 * w3 + 2 * w2 * w2
        + 2 * c * c * w3 * w3,
    ])
    return j, rho


def scalar_rhs(t, x):
    """x' = (qd, qdd) in plain Python floats (a list; x.tolist() turns numpy's scalars into
    floats, whose arithmetic is several times faster)."""
    return list(_rhs(*x.tolist()))


def _rhs(q0, q1, q2, w1, w2, w3):
    """x' = (qd, qdd) as a tuple of floats: M is diagonal, so the multipliers solve the 2x2
    Schur complement (J M^-1 J^T) lambda = -rho - J M^-1 (u - h) by Cramer's rule."""
    l = q2 + L3
    s, c = math.sin(q0), math.cos(q0)
    m0, m1, m2 = J1 + J2 + J3 + M3 * l * l, M2 + M3, M3
    e0, e1, e2 = q0 - 0.436, q1 - 0.3, q2 - 0.2
    f0 = (0.363 - 3.655 * e0 - 4.181 * e1 + 3.136 * e2 - 0.455 * w1 - 2.167 * w2 + 1.083 * w3
          - 2 * M3 * l * w1 * w3)
    f1 = (29.4 - 15.934 * e0 - 18.229 * e1 + 13.672 * e2 - 2.167 * w1 - 10.325 * w2
          + 5.163 * w3 - (M2 + M3) * G)
    f2 = (0.423 + 8.267 * e0 + 9.455 * e1 - 7.091 * e2 + 1.083 * w1 + 5.163 * w2 - 2.581 * w3
          + M3 * l * w1 * w1)
    j00, j02 = l * c, s
    j10, j11, j12 = -2 * l * l * s * c, 2 * q1, 2 * l * c * c
    r0 = -l * s * w1 * w1 + 2 * c * w1 * w3
    r1 = (-2 * l * l * (c * c - s * s) * w1 * w1 - 8 * l * s * c * w1 * w3 + 2 * w2 * w2
          + 2 * c * c * w3 * w3)
    a0, a1, a2 = f0 / m0, f1 / m1, f2 / m2
    s00 = j00 * j00 / m0 + j02 * j02 / m2
    s01 = j00 * j10 / m0 + j02 * j12 / m2
    s11 = j10 * j10 / m0 + j11 * j11 / m1 + j12 * j12 / m2
    b0 = -r0 - (j00 * a0 + j02 * a2)
    b1 = -r1 - (j10 * a0 + j11 * a1 + j12 * a2)
    det = s00 * s11 - s01 * s01
    l0, l1 = (b0 * s11 - s01 * b1) / det, (s00 * b1 - s01 * b0) / det
    return (w1, w2, w3, a0 + (j00 * l0 + j10 * l1) / m0, a1 + j11 * l1 / m1,
            a2 + (j02 * l0 + j12 * l1) / m2)


def numba_rhs():
    """scalar_rhs compiled by numba (returns a numpy array), or None without numba."""
    try:
        from numba import njit
    except ImportError:
        print("numba is not installed: the numba form is skipped")
        return None
    rhs = njit(_rhs)

    @njit
    def f(t, x):
        a = rhs(x[0], x[1], x[2], x[3], x[4], x[5])
        out = np.empty(6)
        for i in range(6):
            out[i] = a[i]
        return out

    return f


def check_model():
    rng = np.random.default_rng(1)
    q, qd = rng.uniform(-1, 1, 3), rng.uniform(-2, 2, 3)
    check_jac_rho(phi, jac_rho, q, qd, 1e-5)


def main():
    check_model()
    ref = {r[0]: np.array([float(v) for v in r[1:]]) for r in
           csv.reader(open("benches/peers/results/keerthi_ic2_reference.csv")) if r[0] != "what"}
    x0, q_ref = np.concatenate([ref["q0"], ref["qd0"]]), ref["q_at_5"]
    f = kkt_rhs(3, mass, forces, jac_rho)
    forms = {"numpy": f, "scalar": scalar_rhs}
    nb = numba_rhs()
    if nb is not None:
        forms["numba"] = nb
    rng = np.random.default_rng(2)
    for _ in range(20):
        x = np.concatenate([QE + rng.uniform(-0.1, 0.1, 3), rng.uniform(-1, 1, 3)])
        for name, g in forms.items():
            isclose_or_die(g(0.0, x), f(0.0, x), 1e-12 * (1 + np.abs(f(0.0, x)).max()),
                           f"{name} form against the KKT form", quiet=True)
    y, ok, _, _ = integrate(f, x0, 5.0, "DOP853", 1e-13, 1e-13)
    isclose_or_die(y[:3], q_ref, 1e-10, "reference q(5): DOP853 at 1e-13 vs the project's")

    def error(y):
        return float(np.max(np.abs(y[:3] - q_ref) / np.maximum(np.abs(q_ref), 0.1)))

    rows = sweep(forms, x0, 5.0, error, "benches/peers/results/keerthi_scipy.csv",
                 [10.0 ** -k for k in range(4, 11)])
    ours = sys.argv[1] if len(sys.argv) > 1 else "benches/peers/results/keerthi_work_precision.csv"
    for fs in [["numpy"], ["scalar"], ["numba"], None]:
        if fs is None or fs[0] in forms:
            compare(rows, ours, [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10], fs)


if __name__ == "__main__":
    main()
