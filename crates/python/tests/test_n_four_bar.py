"""MBS benchmark A02 from Python: ``contour.model("n_four_bar", n=...)`` through
``contour.simulate``, judged on point B0 = (q[0], q[1]) against the exact motion
``contour.n_four_bar_reference`` (itself checked against closed forms), and the direct method
stopping with a ``SimulationError`` at a singular passage instead of returning a wrong branch.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import contour

T = np.linspace(0.0, 20.0, 401)  # A02: 20 s, 400 outputs


def b0_error(tr, n):
    """Largest distance of B0 = (q[0], q[1]) from the exact (cos θ, sin θ) over the run."""
    th, _ = contour.n_four_bar_reference(n, tr.t)
    return np.hypot(tr.q[:, 0] - np.cos(th), tr.q[:, 1] - np.sin(th)).max()


def test_the_model_has_a02s_coordinates_and_initial_state():
    for n in (1, 4):
        m = contour.model("n_four_bar", n=n)
        assert (m.dof, m.n_constraints, m.name) == (2 * n + 2, 2 * n + 1, "n-four-bar")
        q0, qd0 = m.initial_state()
        # Every crank at θ = π/2 turning at θ̇ = −1: B_i = (i, 1), Ḃ_i = (1, 0).
        np.testing.assert_allclose(q0, np.ravel([(i, 1.0) for i in range(n + 1)]), atol=1e-15)
        np.testing.assert_allclose(qd0, np.ravel([(1.0, 0.0)] * (n + 1)), atol=1e-15)
    # theta / theta_dot set the default state; initial_state's arguments override them.
    m = contour.model("n-four-bar", n=2, theta=0.3, theta_dot=0.5, length=2.0)
    q0, qd0 = m.initial_state()
    assert q0[:2] == pytest.approx([2.0 * math.cos(0.3), 2.0 * math.sin(0.3)])
    assert qd0[:2] == pytest.approx([-2.0 * math.sin(0.3) * 0.5, 2.0 * math.cos(0.3) * 0.5])
    q1, qd1 = m.initial_state(1.0, 0.0)
    assert q1[:2] == pytest.approx([2.0 * math.cos(1.0), 2.0 * math.sin(1.0)])
    assert np.all(qd1 == 0.0)


@pytest.mark.parametrize("n, method", [(4, "projector"), (1, "perturbation")])
def test_a_safe_method_follows_the_exact_motion_for_twenty_seconds(n, method):
    m = contour.model("n_four_bar", n=n)
    q0, qd0 = m.initial_state()
    tr = contour.simulate(m, q0, qd0, (0.0, 20.0), method=method, integrator="abm",
                          atol=1e-6, t_eval=T)
    th, _ = contour.n_four_bar_reference(n, tr.t)
    # The cranks turn over several flat configurations (θ = 0, −π, …), where a jump to
    # another branch would put B0 off by up to 2 m; A02's high precision is 1e-3 m.
    assert th.min() < -3.0 * math.pi
    assert b0_error(tr, n) < 1e-3


def test_the_direct_method_stops_at_the_singular_passage_with_a_partial_result():
    m = contour.model("n_four_bar", n=1)
    q0, qd0 = m.initial_state()
    with pytest.raises(contour.SimulationError) as e:
        contour.simulate(m, q0, qd0, (0.0, 20.0), method="direct", atol=1e-6, t_eval=T)
    err = e.value
    message = str(err)
    assert "singular passage" in message or "ambiguous branch" in message, message
    assert isinstance(err.partial, contour.Trajectory)
    # Stopped near a flat configuration (θ a multiple of π) before the end, still on the
    # physical branch: the partial result agrees with the exact motion.
    th_stop, _ = contour.n_four_bar_reference(1, [err.t])
    assert 0.0 < err.t < 20.0 and abs(math.sin(th_stop[0])) < 0.3, (err.t, th_stop)
    assert len(err.partial) > 1 and err.partial.t[-1] <= err.t
    assert b0_error(err.partial, 1) < 1e-3


def test_the_reference_against_closed_forms():
    # t = 0 gives the initial state exactly.
    th, w = contour.n_four_bar_reference(4, [0.0, 0.0])
    assert list(th) == [math.pi / 2] * 2 and list(w) == [-1.0] * 2
    # Resting at the bottom (θ = −π/2, every bar hanging) it stays there.
    th, w = contour.n_four_bar_reference(3, [0.0, 5.0], theta=-math.pi / 2, theta_dot=0.0)
    assert np.abs(th + math.pi / 2).max() < 1e-14 and np.abs(w).max() < 1e-14
    # Small swings about the bottom: θ = −π/2 + ε cos(ω t), ω² = g ((n+1)/2 + n) /
    # (l ((n+1)/3 + n)) (θ̈ = −ω² sin(θ + π/2) ≈ −ω² (θ + π/2)); the neglected term is O(ε³).
    n, eps, g, l = 2, 1e-4, 9.81, 0.5
    t = np.linspace(0.0, 3.0, 31)
    th, w = contour.n_four_bar_reference(n, t, theta=-math.pi / 2 + eps, theta_dot=0.0,
                                         length=l, mass=3.0, gravity=g)
    omega = math.sqrt(g * ((n + 1) / 2 + n) / (l * ((n + 1) / 3 + n)))
    np.testing.assert_allclose(th, -math.pi / 2 + eps * np.cos(omega * t), rtol=0, atol=1e-11)
    np.testing.assert_allclose(w, -eps * omega * np.sin(omega * t), rtol=0, atol=1e-10)
    # Over A02's 20 s the energy ½ I θ̇² + V sin θ is conserved (I = (n+1)/3 + n,
    # V = g ((n+1)/2 + n) for unit bars).
    n = 4
    th, w = contour.n_four_bar_reference(n, T)
    inertia, moment = (n + 1) / 3 + n, 9.81 * ((n + 1) / 2 + n)
    energy = 0.5 * inertia * w**2 + moment * np.sin(th)
    assert np.abs(energy - energy[0]).max() < 1e-9 * energy[0]


@pytest.mark.parametrize(
    "params, needle",
    [
        ({}, "n-four-bar.n"),
        ({"n": 0}, "n-four-bar.n = 0"),
        ({"n": -2}, "n-four-bar.n = -2"),
        ({"n": 10**6}, "1 to 1000"),
        ({"n": 2.5}, "n-four-bar.n"),
        ({"n": 2, "loops": 2}, "no parameter `loops`"),
        ({"n": 2, "length": -1.0}, "length"),
        ({"n": 2, "theta": float("nan")}, "theta"),
    ],
)
def test_bad_model_parameters_are_refused_naming_them(params, needle):
    with pytest.raises(contour.InvalidInputError, match=needle):
        contour.model("n_four_bar", **params)


@pytest.mark.parametrize(
    "args, kwargs, needle",
    [
        ((0, [0.0]), {}, "n-four-bar.n = 0"),
        ((2, [-1.0, 0.0]), {}, r"times\[0\]"),
        ((2, [0.0, 2.0, 1.0]), {}, r"times\[2\]"),
        ((2, [[0.0, 1.0]]), {}, "times"),
        ((2, [0.0, float("inf")]), {}, "times"),
        ((2, [1.0]), {"steps_per_second": 0}, "steps_per_second"),
        ((2, [1e9]), {}, "steps"),
        ((2, [1.0]), {"mass": 0.0}, "mass"),
    ],
)
def test_bad_reference_arguments_are_refused_naming_them(args, kwargs, needle):
    with pytest.raises(contour.InvalidInputError, match=needle):
        contour.n_four_bar_reference(*args, **kwargs)
