"""A mechanism written in Python: the same pendulum as the built-in one, written with the same
formulas, gives the same trajectory bit for bit; callable errors surface as the cause."""

from __future__ import annotations

import numpy as np
import pytest

import contour

L, MASS, G = 1.0, 1.0, 9.81


def python_pendulum():
    return contour.mechanism(
        2,
        mass_matrix=lambda q: np.diag([MASS, MASS]),
        bias_forces=lambda q, qd: np.array([0.0, MASS * G]),
        n_constraints=1,
        constraints=lambda t, q: np.array([q[0] * q[0] + q[1] * q[1] - L * L]),
        jacobian=lambda t, q: np.array([[2.0 * q[0], 2.0 * q[1]]]),
        accel_bias=lambda t, q, qd: np.array([2.0 * (qd[0] * qd[0] + qd[1] * qd[1])]),
        name="python pendulum",
    )


def test_same_numbers_as_the_rust_model():
    rust = contour.model("pendulum", length=L, mass=MASS, gravity=G)
    q0, qd0 = rust.initial_state(0.5)
    py, counter = python_pendulum()
    ref = contour.simulate(rust, q0, qd0, (0.0, 1.0), atol=1e-8)
    got = contour.simulate(py, q0, qd0, (0.0, 1.0), atol=1e-8)
    assert counter.count > got.stats["f_evals"]
    assert np.array_equal(got.t, ref.t)
    assert np.array_equal(got.q, ref.q)
    assert np.array_equal(got.lam, ref.lam)


def test_a_raising_callable_is_the_cause():
    def bad_mass(q):
        raise ZeroDivisionError("boom")

    m, _ = contour.mechanism(2, mass_matrix=bad_mass, bias_forces=lambda q, qd: np.zeros(2))
    with pytest.raises(contour.ContourError) as e:
        contour.simulate(m, [0.0, 0.0], [0.0, 0.0], (0.0, 1.0), method="direct")
    assert isinstance(e.value.__cause__, ZeroDivisionError)


def test_a_wrong_shape_from_a_callable_is_reported():
    m, _ = contour.mechanism(2, mass_matrix=lambda q: np.eye(3), bias_forces=lambda q, qd: np.zeros(2))
    with pytest.raises(contour.ContourError) as e:
        contour.simulate(m, [0.0, 0.0], [0.0, 0.0], (0.0, 1.0), method="direct")
    assert "mass_matrix" in str(e.value.__cause__)


def test_missing_constraint_callables():
    with pytest.raises(ValueError):
        contour.mechanism(2, mass_matrix=lambda q: np.eye(2), bias_forces=lambda q, qd: np.zeros(2),
                          n_constraints=1)
