"""The scipy side of the work-precision comparisons, shared by
andrews_scipy.py and keerthi_scipy.py: run an index-1 right-hand side with LSODA, DOP853, Radau
and vode-Adams at rtol = atol = tau (f-evaluations counted by the callable, wall time best of
3), and compare with the CSV of the project's work-precision binaries at matched error. Not
run in CI. Needs numpy and scipy, and numba for the compiled forms (all pip-installable).

Each model is run in the forms a competent scipy user writes, reported separately (`form`):
* `numpy`  - the textbook index-1 form: a dense KKT matrix assembled and solved by numpy per
             right-hand side (clear, but numpy's per-call overhead dominates on small systems);
* `scalar` - plain Python floats, the constraint forces by a hand-written Schur complement
             (what a user who profiles writes for a 3-coordinate robot);
* `numba`  - the right-hand side compiled with numba's @njit (compiled once, before timing).
The fairest peer is the fastest of them at each error."""
import csv
import math
import time

import numpy as np
from scipy.integrate import ode, solve_ivp

PEERS = ["LSODA", "DOP853", "Radau", "vode-adams"]


class Counted:
    """f(t, x) with its evaluations counted."""

    def __init__(self, f):
        self.f, self.n = f, 0

    def __call__(self, t, x):
        self.n += 1
        return self.f(t, x)


def kkt_rhs(n, mass, forces, jac_rho):
    """x' = (qd, qdd) with M qdd - J^T lambda = u - h, J qdd + rho = 0 (a dense KKT solve)."""

    def f(t, x):
        q, qd = x[:n], x[n:]
        j, rho = jac_rho(q, qd)
        l = j.shape[0]
        k = np.zeros((n + l, n + l))
        k[:n, :n] = mass(q)
        k[:n, n:] = -j.T
        k[n:, :n] = j
        sol = np.linalg.solve(k, np.concatenate([forces(q, qd), -rho]))
        return np.concatenate([qd, sol[:n]])

    return f


def integrate(f, x0, t_end, method, rtol, atol):
    """(final state, success, f-evaluations, wall seconds) of one run."""
    c = Counted(f)
    t0 = time.perf_counter()
    if method == "vode-adams":
        r = ode(c).set_integrator("vode", method="adams", rtol=rtol, atol=atol, nsteps=10 ** 7)
        r.set_initial_value(x0, 0.0)
        y = r.integrate(t_end)
        ok = r.successful()
    else:
        sol = solve_ivp(c, (0, t_end), x0, method=method, rtol=rtol, atol=atol)
        y, ok = sol.y[:, -1], sol.success
    return y, ok, c.n, time.perf_counter() - t0


def sweep(forms, x0, t_end, error, out, taus):
    """Every form of the right-hand side ({name: f}) with every peer at every tau (best of 3 in
    time), rows written to `out` and returned."""
    rows = []
    for form, f in forms.items():
        rows.extend(sweep_one(form, f, x0, t_end, error, taus))
    with open(out, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["form", "method", "tau", "status", "error", "f_evals", "seconds"])
        w.writerows(rows)
    print("wrote", out)
    return rows


def sweep_one(form, f, x0, t_end, error, taus):
    rows = []
    f(0.0, np.array(x0))  # compile (numba) and warm up before timing
    for m in PEERS:
        for tau in taus:
            best = None
            for _ in range(3):
                y, ok, n, dt = integrate(f, x0, t_end, m, tau, tau)
                if best is None or dt < best[3]:
                    best = (y, ok, n, dt)
            y, ok, n, dt = best
            err = error(y)
            rows.append((form, m, tau, "ok" if ok else "failed", err, n, dt))
            print(f"{form:>6} {m:>10} tau {tau:.0e}: err {err:.1e}, {n} f, {dt * 1e3:.2f} ms",
                  flush=True)
    return rows


def compare(rows, ours_csv, decades, forms=None):
    """For each error decade, the fewest f-evaluations and least wall time of each side (the
    peers restricted to `forms` when given)."""
    ours = [r for r in csv.DictReader(open(ours_csv)) if r["status"] == "ok"]
    peers = [dict(method=f"{m}/{fo}", error=e, f_evals=n, seconds=s)
             for fo, m, _, st, e, n, s in rows if st == "ok" and (forms is None or fo in forms)]
    print(f"\npeer forms: {', '.join(forms) if forms else 'all'}")

    def best(rs, lo, key):
        c = [r for r in rs if float(r["error"]) <= lo]
        return min(c, key=lambda r: float(r[key])) if c else None

    print("\nmatched error: for each decade of error, the fewest f-evals and least time per side")
    for lo in decades:
        of, os_ = best(ours, lo, "f_evals"), best(ours, lo, "seconds")
        pf, ps = best(peers, lo, "f_evals"), best(peers, lo, "seconds")
        if of and pf and os_ and ps:
            print(f"error <= {lo:.0e}: f-evals ours {of['f_evals']} ({of['method']}/{of['integrator']}) vs "
                  f"{pf['f_evals']} ({pf['method']}) = {float(of['f_evals']) / float(pf['f_evals']):.2f}x; "
                  f"time ours {float(os_['seconds']) * 1e3:.3f} ms ({os_['method']}/{os_['integrator']}) "
                  f"vs {float(ps['seconds']) * 1e3:.2f} ms ({ps['method']}) = "
                  f"peer/ours {float(ps['seconds']) / float(os_['seconds']):.2f}")
        else:
            print(f"error <= {lo:.0e}: not reached by " + ("us" if not of else "the peers"))


def check_jac_rho(phi, jac_rho, q, qd, rho_rtol):
    """J against central differences of phi, rho = d2/ds2 phi(q + s qd) against second ones."""
    j, rho = jac_rho(q, qd)
    hh = 1e-6
    jfd = np.array([(phi(q + hh * e) - phi(q - hh * e)) / (2 * hh) for e in np.eye(len(q))]).T
    assert np.abs(j - jfd).max() < 1e-8, np.abs(j - jfd).max()
    s = 1e-4
    rfd = (phi(q + s * qd) - 2 * phi(q) + phi(q - s * qd)) / s ** 2
    assert np.abs(rho - rfd).max() < rho_rtol * (1 + np.abs(rho).max()), np.abs(rho - rfd).max()


def max_abs(a):
    return float(np.max(np.abs(a)))


def isclose_or_die(a, b, tol, what, quiet=False):
    d = max_abs(np.asarray(a) - np.asarray(b))
    if not quiet:
        print(f"{what}: {d:.1e}")
    if not d <= tol or math.isnan(d):
        raise SystemExit(f"{what} differs by {d:e} > {tol:e}")
