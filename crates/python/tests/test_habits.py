"""Python habits: pickling and deep copies of models, trajectories and plans (what
multiprocessing and joblib pools need), `__version__`."""

from __future__ import annotations

import copy
import importlib.metadata
import pickle

import numpy as np
import pytest

import contour

from conftest import ARM7_URDF


def test_version_is_the_package_version():
    assert contour.__version__ == importlib.metadata.version("contour-dynamics")


def test_a_registry_model_pickles_as_its_name_and_parameters():
    m = contour.model("pendulum", length=2.0)
    for back in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
        assert back.name == m.name and back.dof == m.dof
        q0, qd0 = back.initial_state(0.4)
        assert np.array_equal(q0, m.initial_state(0.4)[0])
        a = contour.simulate(m, q0, qd0, (0.0, 0.2))
        b = contour.simulate(back, q0, qd0, (0.0, 0.2))
        assert np.array_equal(a.q, b.q)


def test_a_urdf_model_pickles_as_its_path_and_options():
    arm = contour.Urdf(ARM7_URDF, gravity=[0.0, 0.0, -1.0])
    back = pickle.loads(pickle.dumps(arm))
    assert isinstance(back, contour.Urdf)
    q = np.linspace(0.1, 0.7, 7)
    assert np.array_equal(back.crba(q), arm.crba(q))
    assert np.array_equal(back.rnea(q, q, q), arm.rnea(q, q, q))


def test_a_mechanism_of_python_callables_refuses_to_pickle_with_a_clear_error():
    m, _ = contour.mechanism(1, mass_matrix=lambda q: np.eye(1), bias_forces=lambda q, qd: np.zeros(1))
    with pytest.raises(TypeError, match="contour.mechanism"):
        pickle.dumps(m)


def test_a_trajectory_pickles_bit_for_bit():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    tr = contour.simulate(m, q0, qd0, (0.0, 0.5))
    for back in (pickle.loads(pickle.dumps(tr)), copy.deepcopy(tr)):
        for k in ("t", "q", "qd", "lam", "phi", "step_t"):
            assert np.array_equal(getattr(back, k), getattr(tr, k)), k
        assert back.stats == tr.stats and back.method == tr.method


def test_a_plan_pickles():
    p = contour.plan(None, contour.joint_line([0.0, 0.0], [1.0, 0.5]), vlim=[1.0, 1.0], alim=[2.0, 2.0])
    back = pickle.loads(pickle.dumps(p))
    assert back.total_time == p.total_time and back.algorithm == p.algorithm
    assert np.array_equal(back.trajectory.q, p.trajectory.q)
    assert np.array_equal(back.sd, p.sd)
