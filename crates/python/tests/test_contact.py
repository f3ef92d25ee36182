"""Contact: a ball dropped on the floor (a unilateral row written in Python): impact time and
rebound against the closed form; events are dicts; Huang's built-in robot runs."""

from __future__ import annotations

import math

import numpy as np
import pytest

import contour

G = 9.81


def ball():
    return contour.mechanism(
        2,
        mass_matrix=lambda q: np.eye(2),
        bias_forces=lambda q, qd: np.array([0.0, G]),
        n_constraints=1,
        constraints=lambda t, q: np.array([q[1]]),
        jacobian=lambda t, q: np.array([[0.0, 1.0]]),
        accel_bias=lambda t, q, qd: np.zeros(1),
        unilateral=True,
        name="ball",
    )[0]


def test_ball_bounces_as_the_closed_form_says():
    m = ball()
    assert m.unilateral
    e = 0.5
    tr = contour.simulate_contact(m, [0.0, 1.0], [0.3, 0.0], 1.0, restitution=e)
    impacts = [ev for ev in tr.events if "mpact" in str(ev["kind"])]
    assert impacts, tr.events
    first = impacts[0]
    assert isinstance(first, dict)
    t1 = math.sqrt(2.0 / G)
    assert first["t"] == pytest.approx(t1, abs=1e-6)
    v1 = G * t1
    assert first["normal_velocity_before"] == pytest.approx(-v1, rel=1e-6)
    assert first["normal_velocity_after"] == pytest.approx(e * v1, rel=1e-6)
    # energy lost in the impact: ½ (1 − e²) v1² (unit mass)
    assert first["energy_loss"] == pytest.approx(0.5 * (1 - e * e) * v1 * v1, rel=1e-6)
    assert np.all(tr.q[:, 1] >= -1e-8)


def test_huang_robot_runs():
    m = contour.model("huang", force=[0.0, 5.0])
    q0, qd0 = m.initial_state()
    tr = contour.simulate_contact(m, q0, qd0, 1.0, output_dt=0.01)
    assert tr.q.shape[1] == 2 and isinstance(tr.events, list)


def test_contact_input_errors():
    with pytest.raises(ValueError):
        contour.simulate_contact(ball(), [0.0], [0.0, 0.0], 1.0)
    with pytest.raises(ValueError):
        contour.simulate_contact(ball(), [0.0, 1.0], [0.0, 0.0], 1.0, scheme="euler")
    with pytest.raises(ValueError):
        contour.simulate_contact(ball(), [0.0, 1.0], [0.0, 0.0], 1.0, restitution=-1.0)
