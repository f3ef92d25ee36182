"""Tree dynamics from URDF: crba / rnea / aba checked against each other (two algorithms
each way), joint limits, loop closures, and Pinocchio's values when `pin` is installed."""

from __future__ import annotations

import numpy as np
import pytest

import contour

from conftest import ARM7_URDF, PANDA_URDF

RNG = np.random.default_rng(7)


def state(n):
    return RNG.uniform(-1, 1, n), RNG.uniform(-1, 1, n), RNG.uniform(-1, 1, n)


@pytest.mark.parametrize("path", [str(PANDA_URDF), str(ARM7_URDF), "<panda>"])
def test_crba_rnea_aba_agree(path):
    arm = contour.Urdf(path)
    n = arm.dof
    for _ in range(5):
        q, v, a = state(n)
        M = arm.crba(q)
        assert M.shape == (n, n) and M.dtype == np.float64
        assert np.array_equal(M, M.T)
        assert np.all(np.linalg.eigvalsh(M) > 0)
        h = arm.rnea(q, v, np.zeros(n))
        tau = arm.rnea(q, v, a)
        # RNEA with q̈ = a equals CRBA's M a + RNEA's bias (RBDA (5.x) vs Table 6.2)
        assert np.allclose(M @ a + h, tau, rtol=0, atol=1e-10 * (1 + np.abs(tau).max()))
        # ABA inverts RNEA (RBDA Table 7.1)
        assert np.allclose(arm.aba(q, v, tau), a, rtol=0, atol=1e-9)


def test_limits_come_from_the_urdf():
    arm = contour.Urdf(str(PANDA_URDF))
    assert arm.dof == 7 and len(arm.joint_names) == 7
    assert np.all(arm.lower < arm.upper)
    assert np.all(arm.velocity_limit > 0) and np.all(arm.effort_limit > 0)


def test_gravity_argument():
    free = contour.Urdf(str(ARM7_URDF), gravity=[0.0, 0.0, 0.0])
    q = np.linspace(-0.5, 0.5, 7)
    assert np.allclose(free.rnea(q, np.zeros(7), np.zeros(7)), 0.0, atol=1e-12)
    heavy = contour.Urdf(str(ARM7_URDF))
    assert np.abs(heavy.rnea(q, np.zeros(7), np.zeros(7))).max() > 1.0


@pytest.mark.parametrize("bad", [np.zeros(6), np.zeros((7, 1)), np.full(7, np.nan), "x"])
def test_bad_arrays_raise_value_error(bad):
    arm = contour.Urdf(str(PANDA_URDF))
    with pytest.raises(ValueError):
        arm.crba(bad)
    with pytest.raises(ValueError):
        arm.rnea(np.zeros(7), bad, np.zeros(7))
    with pytest.raises(ValueError):
        arm.aba(np.zeros(7), np.zeros(7), bad)


def test_missing_file_and_bad_urdf():
    with pytest.raises(FileNotFoundError):
        contour.Urdf("/no/such/robot.urdf")


def test_urdf_with_a_loop_closure_simulates():
    q0 = np.array([0.3, -0.4, 0.2, -1.2, 0.1, 0.9, 0.0])
    arm = contour.Urdf(str(ARM7_URDF), gravity=[0.0, 0.0, -9.81],
                       closures=[{"kind": "point-at-world", "body": "tip"}], q=q0)
    assert arm.n_constraints == 3
    qdd, lam = arm.accelerations(q0, np.zeros(7))
    assert qdd.shape == (7,) and lam.shape == (3,)
    tr = contour.simulate(arm, q0, np.zeros(7), (0.0, 0.5), method="projector", atol=1e-8)
    assert tr.stats["max_phi"] < 1e-6
    with pytest.raises(ValueError, match="no link"):
        contour.Urdf(str(ARM7_URDF), closures=[{"kind": "weld", "body": "nope"}])


def test_pinocchio_agrees():
    pin = pytest.importorskip("pinocchio", reason="pin (Pinocchio) is not installed")
    model = pin.buildModelFromUrdf(str(PANDA_URDF))
    data = model.createData()
    arm = contour.Urdf(str(PANDA_URDF))
    if model.nq != arm.dof:
        pytest.skip("Pinocchio's model has a different coordinate count (fixed fingers)")
    for _ in range(5):
        q, v, a = state(arm.dof)
        M = pin.crba(model, data, q)
        M = np.triu(M) + np.triu(M, 1).T
        assert np.allclose(arm.crba(q), M, atol=1e-10)
        assert np.allclose(arm.rnea(q, v, a), pin.rnea(model, data, q, v, a), atol=1e-9)
        tau = arm.rnea(q, v, a)
        assert np.allclose(arm.aba(q, v, tau), pin.aba(model, data, q, v, tau), atol=1e-8)
