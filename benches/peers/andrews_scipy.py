"""Andrews' squeezer with scipy: the index-1 ODE form
M q'' = f - h + J^T lambda, J q'' + rho = 0 (a dense 13x13 KKT solve per right-hand side),
integrated by scipy's LSODA, DOP853, Radau and vode-Adams at rtol = atol = tau,
tau = 1e-4 ... 1e-10, with the right-hand side in two forms (scipy_peers.py): numpy, and the
same compiled by numba (@njit, np.linalg.solve inside; checked against the numpy form at random
states). A scalar Schur complement is not what a user writes for a full 7x7 M and 6 rows. Writes benches/peers/results/andrews_scipy.csv (method, tau, error of
q(0.03) against the IVP test set, f-evaluations, wall time best of 3) and, with the CSV of
`cargo run --release -p contour-benches --bin andrews_work_precision`, prints the ratios at
matched error. Not run in CI. Needs numpy and scipy (pip-installable).

The model is a transcription of crates/model/src/models/andrews.rs (Hairer & Wanner VII.7,
IVP test set data); its J and rho are checked against finite differences below."""
import math
import sys

import numpy as np

from scipy_peers import check_jac_rho, compare, isclose_or_die, kkt_rhs, sweep

XA, YA, XB, YB, XC, YC = -0.06934, -0.00227, -0.03635, 0.03273, 0.014, 0.072
D, DA, E, EA, RR, RA = 28e-3, 115e-4, 2e-2, 1421e-5, 7e-3, 92e-5
SS, SA, SB, SC, SD = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
TA, TB, U, UA, UB, ZF, ZT, FA = 2308e-5, 916e-5, 4e-2, 1228e-5, 449e-5, 2e-2, 4e-2, 1421e-5
M_ = [0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498]
I_ = [2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5]
MOM, C0, L0 = 0.033, 4530.0, 0.07785
Q0 = [-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
      0.222668390165885884674473185609, 0.487364979543842550225598953530,
      -0.222668390165885884674473185609, 1.23054744454982119249735015568]
REF = np.array([0.1581077119629904e+2, -0.1575637105984298e+2, 0.4082224013073101e-1,
                -0.5347301163226948e+0, 0.5244099658805304e+0, 0.5347301163226948e+0,
                0.1048080741042263e+1])
ROWS = [
    ([(RR, 0, [0]), (-D, 0, [0, 1]), (-SS, 1, [2])], -XB),
    ([(RR, 1, [0]), (-D, 1, [0, 1]), (SS, 0, [2])], -YB),
    ([(RR, 0, [0]), (-D, 0, [0, 1]), (-E, 1, [3, 4]), (-ZT, 0, [4])], -XA),
    ([(RR, 1, [0]), (-D, 1, [0, 1]), (E, 0, [3, 4]), (-ZT, 1, [4])], -YA),
    ([(RR, 0, [0]), (-D, 0, [0, 1]), (-ZF, 0, [5, 6]), (-U, 1, [6])], -XA),
    ([(RR, 1, [0]), (-D, 1, [0, 1]), (-ZF, 1, [5, 6]), (U, 0, [6])], -YA),
]


def mass(q):
    m, i = M_, I_
    coth, siph, siom = math.cos(q[1]), math.sin(q[3]), math.sin(q[5])
    mm = np.zeros((7, 7))
    mm[0, 0] = m[0] * RA * RA + m[1] * (RR * RR - 2 * DA * RR * coth + DA * DA) + i[0] + i[1]
    mm[1, 0] = mm[0, 1] = m[1] * (DA * DA - DA * RR * coth) + i[1]
    mm[1, 1] = m[1] * DA * DA + i[1]
    mm[2, 2] = m[2] * (SA * SA + SB * SB) + i[2]
    ee = E - EA
    mm[3, 3] = m[3] * ee * ee + i[3]
    mm[4, 3] = mm[3, 4] = m[3] * (ee * ee + ZT * ee * siph) + i[3]
    mm[4, 4] = m[3] * (ZT * ZT + 2 * ZT * ee * siph + ee * ee) + m[4] * (TA * TA + TB * TB) + i[3] + i[4]
    ff = ZF - FA
    mm[5, 5] = m[5] * ff * ff + i[5]
    mm[6, 5] = mm[5, 6] = m[5] * (ff * ff - U * ff * siom) + i[5]
    mm[6, 6] = m[5] * (ff * ff - 2 * U * ff * siom + U * U) + m[6] * (UA * UA + UB * UB) + i[5] + i[6]
    return mm


def forces(q, qd):
    """u - h: the torque, the spring, minus the velocity terms."""
    m = M_
    sith, coph, coom = math.sin(q[1]), math.cos(q[3]), math.cos(q[5])
    bep, thp, php, dep, omp, epp = qd[0], qd[1], qd[3], qd[4], qd[5], qd[6]
    ee, ff = E - EA, ZF - FA
    h = np.array([
        m[1] * DA * RR * thp * (thp + 2 * bep) * sith,
        -m[1] * DA * RR * bep * bep * sith,
        0.0,
        -m[3] * ZT * ee * dep * dep * coph,
        m[3] * ZT * ee * php * (php + 2 * dep) * coph,
        m[5] * U * ff * epp * epp * coom,
        -m[5] * U * ff * omp * (omp + 2 * epp) * coom,
    ])
    siga, coga = math.sin(q[2]), math.cos(q[2])
    xd, yd = SD * coga + SC * siga + XB, SD * siga - SC * coga + YB
    lang = math.hypot(xd - XC, yd - YC)
    force = -C0 * (lang - L0) / lang
    fx, fy = force * (xd - XC), force * (yd - YC)
    u = np.zeros(7)
    u[0] = MOM
    u[2] = fx * (SC * coga - SD * siga) + fy * (SD * coga + SC * siga)
    return u - h


def jac_rho(q, qd):
    j, rho = np.zeros((6, 7)), np.zeros(6)
    for r, (terms, _) in enumerate(ROWS):
        for a, sine, idx in terms:
            th, w = sum(q[k] for k in idx), sum(qd[k] for k in idx)
            d = a * (math.cos(th) if sine else -math.sin(th))
            for k in idx:
                j[r, k] += d
            rho[r] -= a * (math.sin(th) if sine else math.cos(th)) * w * w
    return j, rho


def phi(q):
    return np.array([c + sum(a * (math.sin(sum(q[k] for k in idx)) if s else math.cos(sum(q[k] for k in idx)))
                         for a, s, idx in terms) for terms, c in ROWS])


def numba_rhs():
    """The KKT right-hand side compiled by numba, or None without numba. The constraint rows
    become arrays (coefficient, sine-or-cosine, which angles they sum)."""
    try:
        from numba import njit
    except ImportError:
        print("numba is not installed: the numba form is skipped")
        return None
    nt = max(len(t) for t, _ in ROWS)
    ra, rs, ri = np.zeros((6, nt)), np.zeros((6, nt), np.bool_), np.zeros((6, nt, 7))
    for r, (terms, _) in enumerate(ROWS):
        for k, (a, sine, idx) in enumerate(terms):
            ra[r, k], rs[r, k] = a, bool(sine)
            ri[r, k, idx] = 1.0
    mass_nb, forces_nb = njit(_mass_arrays), njit(_forces_arrays)
    m_, i_ = np.array(M_), np.array(I_)

    @njit
    def f(t, x):
        q, qd = x[:7], x[7:]
        k = np.zeros((13, 13))
        k[:7, :7] = mass_nb(q, m_, i_)
        rhs = np.zeros(13)
        rhs[:7] = forces_nb(q, qd, m_)
        for r in range(6):
            for s in range(nt):
                a = ra[r, s]
                if a == 0.0:
                    continue
                th = np.dot(ri[r, s], q)
                w = np.dot(ri[r, s], qd)
                d = a * np.cos(th) if rs[r, s] else -a * np.sin(th)
                for c in range(7):
                    k[7 + r, c] += d * ri[r, s, c]
                    k[c, 7 + r] -= d * ri[r, s, c]
                rhs[7 + r] += a * (np.sin(th) if rs[r, s] else np.cos(th)) * w * w
        sol = np.linalg.solve(k, rhs)
        out = np.empty(14)
        out[:7] = qd
        out[7:] = sol[:7]
        return out

    return f


def _mass_arrays(q, m, i):
    """mass(q) with the masses and inertias as arrays (numba compiles it)."""
    coth, siph, siom = math.cos(q[1]), math.sin(q[3]), math.sin(q[5])
    mm = np.zeros((7, 7))
    mm[0, 0] = m[0] * RA * RA + m[1] * (RR * RR - 2 * DA * RR * coth + DA * DA) + i[0] + i[1]
    mm[1, 0] = m[1] * (DA * DA - DA * RR * coth) + i[1]
    mm[0, 1] = mm[1, 0]
    mm[1, 1] = m[1] * DA * DA + i[1]
    mm[2, 2] = m[2] * (SA * SA + SB * SB) + i[2]
    ee = E - EA
    mm[3, 3] = m[3] * ee * ee + i[3]
    mm[4, 3] = m[3] * (ee * ee + ZT * ee * siph) + i[3]
    mm[3, 4] = mm[4, 3]
    mm[4, 4] = m[3] * (ZT * ZT + 2 * ZT * ee * siph + ee * ee) + m[4] * (TA * TA + TB * TB) + i[3] + i[4]
    ff = ZF - FA
    mm[5, 5] = m[5] * ff * ff + i[5]
    mm[6, 5] = m[5] * (ff * ff - U * ff * siom) + i[5]
    mm[5, 6] = mm[6, 5]
    mm[6, 6] = m[5] * (ff * ff - 2 * U * ff * siom + U * U) + m[6] * (UA * UA + UB * UB) + i[5] + i[6]
    return mm


def _forces_arrays(q, qd, m):
    """forces(q, qd) with the masses as an array (numba compiles it)."""
    sith, coph, coom = math.sin(q[1]), math.cos(q[3]), math.cos(q[5])
    bep, thp, php, dep, omp, epp = qd[0], qd[1], qd[3], qd[4], qd[5], qd[6]
    ee, ff = E - EA, ZF - FA
    h = np.zeros(7)
    h[0] = m[1] * DA * RR * thp * (thp + 2 * bep) * sith
    h[1] = -m[1] * DA * RR * bep * bep * sith
    h[3] = -m[3] * ZT * ee * dep * dep * coph
    h[4] = m[3] * ZT * ee * php * (php + 2 * dep) * coph
    h[5] = m[5] * U * ff * epp * epp * coom
    h[6] = -m[5] * U * ff * omp * (omp + 2 * epp) * coom
    siga, coga = math.sin(q[2]), math.cos(q[2])
    xd, yd = SD * coga + SC * siga + XB, SD * siga - SC * coga + YB
    lang = math.sqrt((xd - XC) ** 2 + (yd - YC) ** 2)
    force = -C0 * (lang - L0) / lang
    fx, fy = force * (xd - XC), force * (yd - YC)
    u = np.zeros(7)
    u[0] = MOM
    u[2] = fx * (SC * coga - SD * siga) + fy * (SD * coga + SC * siga)
    return u - h


def check_model():
    rng = np.random.default_rng(1)
    q = np.array(Q0) + rng.uniform(-0.3, 0.3, 7)
    qd = rng.uniform(-50, 50, 7)
    check_jac_rho(phi, jac_rho, q, qd, 1e-4)


def main():
    check_model()
    f = kkt_rhs(7, mass, forces, jac_rho)
    forms = {"numpy": f}
    nb = numba_rhs()
    if nb is not None:
        forms["numba"] = nb
        rng = np.random.default_rng(3)
        for _ in range(20):
            x = np.concatenate([np.array(Q0) + rng.uniform(-0.3, 0.3, 7), rng.uniform(-50, 50, 7)])
            isclose_or_die(nb(0.0, x), f(0.0, x), 1e-9 * (1 + np.abs(f(0.0, x)).max()),
                           "numba form against the numpy form", quiet=True)
    x0 = np.concatenate([Q0, np.zeros(7)])
    rows = sweep(forms, x0, 0.03, lambda y: float(np.max(np.abs(y[:7] - REF) / np.abs(REF))),
                 "benches/peers/results/andrews_scipy.csv", [10.0 ** -k for k in range(4, 11)])
    ours = sys.argv[1] if len(sys.argv) > 1 else "benches/peers/results/andrews_work_precision.csv"
    for fs in [["numpy"], ["numba"], None]:
        if fs is None or fs[0] in forms:
            compare(rows, ours, [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10], fs)


if __name__ == "__main__":
    main()
