"""One model, several Python threads: the models are lent to each call (no lock), the GIL is
released during the Rust work, and every thread gets the serial results bit for bit."""

from __future__ import annotations

import concurrent.futures as cf

import numpy as np

import contour

RNG = np.random.default_rng(11)


def test_one_urdf_arm_from_eight_threads_gives_the_serial_results():
    arm = contour.Urdf("<panda>")
    n = arm.dof
    states = [tuple(RNG.uniform(-1, 1, n) for _ in range(3)) for _ in range(64)]

    def work(k):
        q, v, a = states[k]
        tau = arm.rnea(q, v, a)
        return arm.crba(q), tau, arm.aba(q, v, tau)

    def run(k):
        q0 = states[k][0] * 0.3
        tr = contour.simulate(arm, q0, np.zeros(n), (0.0, 0.05), integrator="dopri5",
                              atol=1e-8)
        return tr.t, tr.q, tr.qd

    serial = [work(k) for k in range(64)]
    serial_runs = [run(k) for k in range(8)]
    with cf.ThreadPoolExecutor(max_workers=8) as pool:
        threaded = list(pool.map(work, range(64)))
        threaded_runs = list(pool.map(run, range(8)))
    for a, b in zip(serial + serial_runs, threaded + threaded_runs):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)


def test_one_constrained_model_from_threads_gives_the_serial_results():
    m = contour.model("slider-crank")
    q0, qd0 = m.initial_state(0.3, 2.0)

    def run(end):
        tr = contour.simulate(m, q0, qd0, (0.0, end), atol=1e-9)
        return tr.t, tr.q, tr.lam

    ends = [0.1 * (k + 1) for k in range(8)]
    serial = [run(e) for e in ends]
    with cf.ThreadPoolExecutor(max_workers=4) as pool:
        threaded = list(pool.map(run, ends))
    for a, b in zip(serial, threaded):
        for x, y in zip(a, b):
            assert np.array_equal(x, y)
