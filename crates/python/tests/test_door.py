"""The door's promises: never silently wrong (unilateral rows refused by `simulate`, a
consistent state left as it is by `consistent="make"`, every registry model runs with its own
defaults), errors in Python's words, and checks at the door."""

from __future__ import annotations

import errno
import pathlib

import numpy as np
import pytest

import contour

from conftest import ARM7_URDF

# The registry's models with the parameters they need.
REQUIRED = {"n-four-bar": {"n": 2}, "urdf": {"file": str(ARM7_URDF)}}


@pytest.mark.parametrize("name", [m["name"] for m in contour.models()])
def test_every_registry_model_runs_one_second_with_its_defaults(name):
    m = contour.model(name, **REQUIRED.get(name, {}))
    q0, qd0 = m.initial_state()
    if m.unilateral:
        tr = contour.simulate_contact(m, q0, qd0, 1.0)
    else:
        tr = contour.simulate(m, q0, qd0, (0.0, 1.0))
        assert tr.stats["max_phi"] < 1e-3, tr.stats
    assert tr.t[-1] == pytest.approx(1.0)
    assert np.isfinite(tr.q).all()


def test_the_redundant_four_bar_defaults_to_the_projector():
    (entry,) = [m for m in contour.models() if m["name"] == "four-bar"]
    assert entry["method"] == "projector"
    m = contour.model("four_bar")
    q0, qd0 = m.initial_state()
    assert contour.simulate(m, q0, qd0, (0.0, 0.5)).method == "projector"


def test_keerthi_initial_state_is_consistent():
    m = contour.model("keerthi")
    q0, qd0 = m.initial_state()
    tr = contour.simulate(m, q0, qd0, (0.0, 0.1), consistent="require")
    assert np.array_equal(tr.q[0], q0)


def test_simulate_refuses_unilateral_rows_and_names_simulate_contact():
    m = contour.model("huang")
    q0, qd0 = m.initial_state()
    for consistent in ("require", "make"):
        with pytest.raises(contour.InvalidInputError, match="simulate_contact"):
            contour.simulate(m, q0, qd0, (0.0, 1.0), consistent=consistent)


def test_make_leaves_a_consistent_state_as_it_is():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5, 0.3)
    made = contour.simulate(m, q0, qd0, (0.0, 0.1), consistent="make")
    required = contour.simulate(m, q0, qd0, (0.0, 0.1), consistent="require")
    assert np.array_equal(made.q[0], q0) and np.array_equal(made.qd[0], qd0)
    assert np.array_equal(made.q, required.q)
    # an inconsistent one is still projected
    tr = contour.simulate(m, [0.0, -1.1], [0.0, 0.0], (0.0, 0.1), consistent="make")
    assert abs(np.linalg.norm(tr.q[0]) - 1.0) < 1e-9


def test_an_inconsistent_start_names_the_python_keyword():
    m = contour.model("pendulum")
    with pytest.raises(contour.SimulationError) as e:
        contour.simulate(m, [0.0, -1.1], [0.0, 0.0], (0.0, 1.0))
    assert 'consistent="make"' in str(e.value)
    assert "make_consistent" not in str(e.value)


@pytest.mark.parametrize(
    "call, function, key, close",
    [
        (lambda m, q, qd: contour.simulate(m, q, qd, (0, 1), atoll=1e-6), "simulate", "atoll", "atol"),
        (lambda m, q, qd: contour.simulate(m, q, qd, (0, 1), mehtod="direct"), "simulate", "mehtod", "method"),
        (lambda m, q, qd: contour.simulate_contact(m, q, qd, 1.0, output_td=0.1), "simulate_contact", "output_td", "output_dt"),
    ],
)
def test_an_unknown_keyword_is_a_type_error_with_the_closest_match(call, function, key, close):
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state()
    with pytest.raises(TypeError) as e:
        call(m, q0, qd0)
    msg = str(e.value)
    assert f"{function}()" in msg and f"'{key}'" in msg and f"'{close}'" in msg, msg


def test_a_setting_of_another_method_stays_an_invalid_input_error():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state()
    with pytest.raises(contour.InvalidInputError):
        contour.simulate(m, q0, qd0, (0, 1), method="direct", alpha=1.0)


def test_a_callback_error_is_a_callback_error_with_the_original_chained():
    def bad_mass(q):
        raise ZeroDivisionError("boom")

    m, _ = contour.mechanism(2, mass_matrix=bad_mass, bias_forces=lambda q, qd: np.zeros(2))
    with pytest.raises(contour.CallbackError) as e:
        contour.simulate(m, [0.0, 0.0], [0.0, 0.0], (0.0, 1.0), method="direct")
    assert "mass_matrix" in str(e.value)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    assert e.value.__cause__.__traceback__ is not None


def test_a_callable_of_the_wrong_arity_is_refused_when_the_mechanism_is_built():
    with pytest.raises(contour.CallbackError, match=r"jacobian\(t, q\)"):
        contour.mechanism(
            2,
            mass_matrix=lambda q: np.eye(2),
            bias_forces=lambda q, qd: np.zeros(2),
            n_constraints=1,
            constraints=lambda t, q: np.zeros(1),
            jacobian=lambda q: np.zeros((1, 2)),
            accel_bias=lambda t, q, qd: np.zeros(1),
        )


@pytest.mark.parametrize("as_path", [str, pathlib.Path])
def test_a_missing_urdf_is_a_contour_file_not_found_error(tmp_path, as_path):
    missing = tmp_path / "missing.urdf"
    for build in (lambda: contour.Urdf(as_path(missing)), lambda: contour.model("urdf", file=as_path(missing))):
        with pytest.raises(contour.ContourError) as e:
            build()
        assert isinstance(e.value, FileNotFoundError) and isinstance(e.value, OSError)
        assert e.value.errno == errno.ENOENT
        assert pathlib.Path(e.value.filename).name == "missing.urdf"


def test_a_path_like_is_accepted():
    arm = contour.Urdf(ARM7_URDF)
    assert arm.dof == 7
    assert contour.model("urdf", file=ARM7_URDF).dof == 7


@pytest.mark.parametrize(
    "params, key",
    [({"length": -1.0}, "length"), ({"gravity": float("nan")}, "gravity"), ({"mass": 0.0}, "mass")],
)
def test_model_parameters_are_checked_when_the_model_is_built(params, key):
    with pytest.raises(contour.InvalidInputError, match=key):
        contour.model("pendulum", **params)


@pytest.mark.parametrize(
    "q0, dtype",
    [
        (np.array([0.3 + 1j, -0.9]), "complex"),
        (np.array([True, False]), "bool"),
        (np.array([0.3, -0.9], dtype=object), "object"),
        (["0.3", "-0.9"], "<U"),
    ],
)
def test_complex_bool_object_and_string_arrays_are_refused(q0, dtype):
    m = contour.model("pendulum")
    with pytest.raises(contour.InvalidInputError, match="q0") as e:
        contour.simulate(m, q0, [0.0, 0.0], (0, 1))
    assert dtype in str(e.value)


@pytest.mark.parametrize("bad", [-1, 0, 2**70, 1.5, True])
def test_counts_are_invalid_input_errors(bad):
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state()
    with pytest.raises(contour.InvalidInputError, match="max_steps"):
        contour.simulate(m, q0, qd0, (0, 1), max_steps=bad)
    with pytest.raises(contour.InvalidInputError, match="max_events"):
        contour.simulate_contact(contour.model("huang"), [0.0, -1.2], [0.0, 0.0], 1.0,
                                 max_events=-1 if bad in (0, True) else bad)


def test_too_many_output_times_are_refused_before_the_run():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state()
    t = np.linspace(0.0, 1.0, 10_000_001)
    with pytest.raises(contour.InvalidInputError, match="t_eval"):
        contour.simulate(m, q0, qd0, (0, 1), t_eval=t)


def test_the_simulate_keyword_list_is_its_signature():
    import inspect

    names = [p for p in inspect.signature(contour.simulate).parameters if p != "method_options"]
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state()
    # a keyword of the signature is never "unexpected"; one letter off is
    for k in names[4:]:
        with pytest.raises(TypeError, match=f"did you mean '{k}'"):
            contour.simulate(m, q0, qd0, (0, 1), **{k + "x": 1})


def test_simulate_contact_returns_exactly_the_output_times():
    m = contour.model("huang")
    q0, qd0 = m.initial_state()
    tr = contour.simulate_contact(m, q0, qd0, 0.03, output_dt=0.01)
    assert np.allclose(tr.t, [0.0, 0.01, 0.02, 0.03])
    assert tr.q.shape == (4, 2) and tr.qd.shape == (4, 2)
