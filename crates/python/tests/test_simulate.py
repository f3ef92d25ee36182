"""contour.simulate: shapes, physics, errors, partial results, threads, and bit-for-bit
equality with the Rust API (through the `contour` command line, which calls the same
`Simulation` driver from Rust)."""

from __future__ import annotations

import json
import subprocess
import threading

import numpy as np
import pytest

import contour

from conftest import ARM7_URDF

T_OUT = [k * 0.125 for k in range(17)]  # 0 .. 2 s, exact binary fractions


def pendulum_run(**kw):
    m = contour.model("pendulum", length=1.0, mass=1.0)
    q0, qd0 = m.initial_state(0.5)
    return m, contour.simulate(m, q0, qd0, (0.0, 2.0), atol=1e-8, t_eval=T_OUT, **kw)


def test_shapes_and_dtypes():
    m, tr = pendulum_run()
    assert tr.t.dtype == np.float64 and tr.t.shape == (17,)
    assert tr.q.shape == (17, 2) and tr.qd.shape == (17, 2)
    assert tr.lam.shape == (17, 1)
    assert tr.phi.shape == tr.step_t.shape and tr.phi.size == tr.stats["steps"]
    assert tr.method == "perturbation" and tr.integrator == "dopri5"
    assert len(tr) == 17


def test_pendulum_keeps_its_rod_and_energy():
    m, tr = pendulum_run()
    r = np.linalg.norm(tr.q, axis=1)
    assert np.max(np.abs(r - 1.0)) < 1e-9
    # energy: ½|v|² + g y (m = 1), conserved by the exact flow; witness independent of the solver
    e = 0.5 * np.sum(tr.qd**2, axis=1) + 9.81 * tr.q[:, 1]
    assert np.max(np.abs(e - e[0])) < 1e-6
    # the rod force: λ of a point pendulum is the centripetal + gravity term (sign by convention)
    assert np.all(np.isfinite(tr.lam))


def test_stats_is_a_dict_of_numbers():
    _, tr = pendulum_run()
    s = tr.stats
    assert isinstance(s, dict) and s["steps"] > 0 and s["f_evals"] >= s["steps"]
    assert s["max_phi"] < 1e-9


def test_to_pandas():
    pd = pytest.importorskip("pandas", reason="pandas is not installed")
    _, tr = pendulum_run()
    df = tr.to_pandas()
    assert list(df.columns) == ["t", "q0", "q1", "qd0", "qd1", "lam0"]
    assert np.array_equal(df["q1"].to_numpy(), tr.q[:, 1])


@pytest.mark.parametrize("method,opts", [
    ("direct", {}),
    ("baumgarte", {"alpha": 10.0, "beta": 25.0}),
    ("perturbation", {}),
    ("parametrization", {}),
    ("projector", {}),
])
def test_every_method_runs(method, opts):
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    tr = contour.simulate(m, q0, qd0, (0.0, 1.0), method=method, atol=1e-8, **opts)
    assert abs(np.linalg.norm(tr.q[-1]) - 1.0) < 1e-5


def test_exact_stabilization_needs_bdf():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    with pytest.raises(ValueError):
        contour.simulate(m, q0, qd0, (0.0, 1.0), method="exact_stabilization", integrator="dopri5")
    tr = contour.simulate(m, q0, qd0, (0.0, 1.0), method="exact_stabilization", integrator="bdf", atol=1e-6)
    assert tr.t[-1] == 1.0


@pytest.mark.parametrize("bad", [
    dict(q0=[1.0, 2.0, 3.0]),
    dict(q0=[[0.0, -1.0]]),
    dict(q0=[np.nan, -1.0]),
    dict(qd0=[np.inf, 0.0]),
    dict(t_span=(0.0,)),
    dict(t_span=(1.0, 0.0)),
    dict(atol=-1.0),
    dict(method="nope"),
    dict(integrator="euler"),
    dict(method="baumgarte", delta=-1.0),
    dict(t_eval=[0.5, 0.25]),
    dict(consistent="maybe"),
    dict(q0="abc"),
])
def test_bad_input_raises_value_error(bad):
    m = contour.model("pendulum")
    args = dict(q0=[0.0, -1.0], qd0=[0.0, 0.0], t_span=(0.0, 1.0))
    args.update(bad)
    with pytest.raises(contour.InvalidInputError) as e:
        contour.simulate(m, args.pop("q0"), args.pop("qd0"), args.pop("t_span"), **args)
    assert isinstance(e.value, ValueError) and isinstance(e.value, contour.ContourError)
    assert str(e.value)


def test_method_options_reach_the_rust_configuration():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    # a setting of another method: the method's options
    with pytest.raises(contour.InvalidInputError, match="options:"):
        contour.simulate(m, q0, qd0, (0.0, 1.0), method="perturbation", alpha=1.0)
    # a keyword no method takes: Python's TypeError for an unexpected keyword
    with pytest.raises(TypeError, match="no_such_field"):
        contour.simulate(m, q0, qd0, (0.0, 1.0), method="perturbation", no_such_field=1)


def test_unknown_model_and_parameter():
    with pytest.raises(ValueError, match="unknown model"):
        contour.model("double-pendulum")
    with pytest.raises(ValueError, match="no parameter `radius`"):
        contour.model("pendulum", radius=2.0)
    with pytest.raises(ValueError):
        contour.model("pendulum", length="long")


def test_every_builtin_model_builds_and_runs():
    for name in ["pendulum", "slider_crank", "four-bar", "keerthi", "arm7", "andrews"]:
        m = contour.model(name)
        q0, qd0 = m.initial_state()
        assert q0.shape == (m.dof,) and qd0.shape == (m.dof,)
    m = contour.model("slider-crank", crank_length=0.1, rod_length=0.4)
    q0, qd0 = m.initial_state(0.3, 1.0)
    tr = contour.simulate(m, q0, qd0, (0.0, 0.1), atol=1e-8)
    assert tr.stats["max_phi"] < 1e-7


def test_inconsistent_state_is_a_simulation_error():
    m = contour.model("pendulum")
    with pytest.raises(contour.SimulationError, match="inconsistent initial state"):
        contour.simulate(m, [0.0, -1.1], [0.0, 0.0], (0.0, 1.0))
    tr = contour.simulate(m, [0.0, -1.1], [0.0, 0.0], (0.0, 1.0), consistent="make")
    assert abs(np.linalg.norm(tr.q[0]) - 1.0) < 1e-9


def test_failed_run_keeps_its_partial_trajectory():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    with pytest.raises(contour.ContourError) as e:
        contour.simulate(m, q0, qd0, (0.0, 10.0), atol=1e-8, max_steps=20)
    err = e.value
    assert "maximum number of steps" in str(err)
    assert isinstance(err.partial, contour.Trajectory)
    assert 0.0 < err.t < 10.0 and err.partial.t[-1] <= err.t
    assert err.q.shape == (2,)


def test_threads_share_a_model_and_release_the_gil():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    ref = contour.simulate(m, q0, qd0, (0.0, 20.0), atol=1e-10)
    results = []
    ticks = []
    done = threading.Event()

    def run():
        results.append(contour.simulate(m, q0, qd0, (0.0, 20.0), atol=1e-10))

    def tick():
        while not done.is_set():
            ticks.append(1)
            done.wait(0.001)

    ticker = threading.Thread(target=tick)
    ticker.start()
    workers = [threading.Thread(target=run) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    done.set()
    ticker.join()
    assert len(results) == 3
    for r in results:
        assert np.array_equal(r.q, ref.q)
    assert len(ticks) > 3  # the ticker thread ran while the simulations ran


def _cli_trajectory(cli, tmp_path, toml: str) -> dict:
    scen = tmp_path / "s.toml"
    scen.write_text(toml)
    subprocess.run([str(cli), "simulate", str(scen), "-o", str(tmp_path / "out")],
                   check=True, capture_output=True)
    return json.loads((tmp_path / "out" / "trajectory.json").read_text())


def test_pendulum_bit_for_bit_with_rust(cli, tmp_path):
    ref = _cli_trajectory(cli, tmp_path, f"""
[model.pendulum]
length = 1.0
mass = 1.0
[initial]
angle = 0.5
rate = 0.0
consistent = "require"
[method]
name = "perturbation"
[integrator]
name = "dopri5"
[tolerance]
atol = 1e-8
[time]
end = 2.0
outputs = {T_OUT!r}
""")
    _, tr = pendulum_run()
    assert tr.t.tolist() == ref["times"]
    assert tr.q.tolist() == ref["q"]
    assert tr.qd.tolist() == ref["qd"]
    assert tr.lam.tolist() == ref["lambda"]
    assert tr.stats["steps"] == ref["stats"]["steps"]
    assert tr.stats["f_evals"] == ref["stats"]["f_evals"]


def test_urdf_arm_bit_for_bit_with_rust(cli, tmp_path):
    q0 = [0.1, -0.2, 0.3, -0.4, 0.5, -0.6, 0.7]
    ref = _cli_trajectory(cli, tmp_path, f"""
[model.urdf]
file = "{ARM7_URDF}"
gravity = [0.0, 0.0, -9.81]
[initial]
q = {q0!r}
qd = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
consistent = "require"
[method]
name = "direct"
[integrator]
name = "dopri5"
[tolerance]
atol = 1e-8
[time]
end = 0.5
outputs = [0.0, 0.125, 0.25, 0.375, 0.5]
""")
    arm = contour.Urdf(str(ARM7_URDF), gravity=[0.0, 0.0, -9.81])
    tr = contour.simulate(arm, q0, np.zeros(7), (0.0, 0.5), method="direct", atol=1e-8,
                          t_eval=[0.0, 0.125, 0.25, 0.375, 0.5])
    assert tr.q.tolist() == ref["q"]
    assert tr.qd.tolist() == ref["qd"]


def test_the_model_registry_lists_every_model_with_its_parameters():
    entries = contour.models()
    names = [m["name"] for m in entries]
    assert "pendulum" in names and "n-four-bar" in names
    for name in names:
        if name not in ("n-four-bar", "urdf"):
            assert contour.model(name).name
    n4 = next(m for m in entries if m["name"] == "n-four-bar")
    n = next(p for p in n4["params"] if p["name"] == "n")
    assert n["required"] and "1 to 1000" in n["range"]


def test_baumgarte_without_gains_takes_the_one_default():
    m = contour.model("pendulum")
    q0, qd0 = m.initial_state(0.5)
    a = contour.simulate(m, q0, qd0, (0.0, 0.5), method="baumgarte", atol=1e-8)
    b = contour.simulate(m, q0, qd0, (0.0, 0.5), method="baumgarte", alpha=10.0, beta=25.0, atol=1e-8)
    assert np.array_equal(a.q, b.q)
    with pytest.raises(contour.InvalidInputError, match="delta"):
        contour.simulate(m, q0, qd0, (0.0, 0.5), method="baumgarte", delta=2.0, alpha=1.0)
