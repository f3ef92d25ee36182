"""A mechanism written in Python costs one re-entry into the interpreter per term: this measures
the cost per evaluation of the constrained right-hand side for the Cartesian pendulum written as
Python callables, next to the built-in Rust model and next to scipy's solve_ivp on the same
model (index-1 form, a scalar Python right-hand side — the form a competent scipy user writes
for two coordinates), all at the same tolerance.

    python python_mechanism_cost.py [OUT_DIR]
"""

import time

import numpy as np

import contour

L, G = 1.0, 9.81
pm, counter = contour.mechanism(
    2,
    mass_matrix=lambda q: np.diag([1.0, 1.0]),
    bias_forces=lambda q, qd: np.array([0.0, G]),
    n_constraints=1,
    constraints=lambda t, q: np.array([q[0] * q[0] + q[1] * q[1] - L * L]),
    jacobian=lambda t, q: np.array([[2.0 * q[0], 2.0 * q[1]]]),
    accel_bias=lambda t, q, qd: np.array([2.0 * (qd[0] * qd[0] + qd[1] * qd[1])]),
)
rust = contour.model("pendulum")
q0, qd0 = rust.initial_state(0.5)


def timed(f):
    t0 = time.perf_counter()
    r = f()
    return r, time.perf_counter() - t0


tr_r, t_r = timed(lambda: contour.simulate(rust, q0, qd0, (0.0, 10.0), atol=1e-8))
counter.reset()
tr_p, t_p = timed(lambda: contour.simulate(pm, q0, qd0, (0.0, 10.0), atol=1e-8))
n_f = tr_p.stats["f_evals"]
print(f"Rust model:    {t_r * 1e3:8.2f} ms, {tr_r.stats['f_evals']} f-evals, "
      f"{t_r / tr_r.stats['f_evals'] * 1e6:.2f} µs per f-eval (driver included)")
print(f"Python model:  {t_p * 1e3:8.2f} ms, {n_f} f-evals ({counter.count} callable calls), "
      f"{t_p / n_f * 1e6:.2f} µs per f-eval, {t_p / counter.count * 1e6:.2f} µs per callable call")
print(f"same trajectory: {np.array_equal(tr_p.q, tr_r.q)}")

try:
    from scipy.integrate import solve_ivp
except ImportError:
    print("scipy is not installed: its line is skipped")
else:
    def rhs(t, x):
        qx, qy, vx, vy = x
        # M = I, J = 2 q, rho = 2|v|²: λ from J M⁻¹ (Jᵀλ − h) = −ρ (index-1 form)
        lam = (-2.0 * (vx * vx + vy * vy) + 2.0 * qy * G) / (4.0 * (qx * qx + qy * qy))
        return [vx, vy, 2.0 * qx * lam, 2.0 * qy * lam - G]

    x0 = np.concatenate([q0, qd0])
    sol, t_s = timed(lambda: solve_ivp(rhs, (0.0, 10.0), x0, method="RK45", rtol=1e-10, atol=1e-10))
    drift = abs(np.hypot(sol.y[0, -1], sol.y[1, -1]) - 1.0)
    print(f"scipy RK45:    {t_s * 1e3:8.2f} ms, {sol.nfev} f-evals, {t_s / sol.nfev * 1e6:.2f} µs per f-eval, "
          f"|phi| drift at 10 s {drift:.1e} (no projection)")
