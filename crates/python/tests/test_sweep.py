"""Sweeps: ``contour.sweep`` from a dict, from a scenario's TOML text and from a whole sweep
file gives the rows of the command line's ``contour sweep`` (its summary.csv), cell for cell
(floats bit for bit; the wall-time column aside); bad sweeps raise before any run."""

from __future__ import annotations

import csv
import math
import subprocess

import numpy as np
import pytest

import contour

from conftest import ROOT

pd = pytest.importorskip("pandas")

BASE = {
    "model": {"pendulum": {"mass": 2.0}},
    "initial": {"angle": 0.5},
    "integrator": {"name": "dopri5"},
    "tolerance": {"atol": 1e-8},
    "time": {"end": 0.5},
}
GRID = {"model.pendulum.length": [0.5, 1.0, 2.0], "method.name": ["perturbation", "baumgarte"]}
RANDOM = {"initial.angle": {"uniform": [-1.0, 1.0]}}

# The same sweep as a sweep file, for the command line.
SWEEP_TOML = """
seed = 7
samples = 3

[base.model.pendulum]
mass = 2.0
[base.initial]
angle = 0.5
[base.integrator]
name = "dopri5"
[base.tolerance]
atol = 1e-8
[base.time]
end = 0.5

[grid]
"model.pendulum.length" = [0.5, 1.0, 2.0]
"method.name" = ["perturbation", "baumgarte"]

[random]
"initial.angle" = { uniform = [-1.0, 1.0] }
"""

SCENARIO_TOML = """
[model.pendulum]
mass = 2.0
[initial]
angle = 0.5
[integrator]
name = "dopri5"
[tolerance]
atol = 1e-8
[time]
end = 0.5
"""


def cli_rows(cli, sweep_file, out):
    subprocess.run([str(cli), "sweep", str(sweep_file), "-o", str(out), "--jobs", "2"],
                   check=True, capture_output=True)
    with open(out / "summary.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], sorted(rows[1:], key=lambda r: int(r[0]))
    return header, body


def assert_same_rows(df, header, body):
    assert list(df.columns) == header
    assert len(df) == len(body)
    for j, name in enumerate(header):
        if name == "wall_time_s":
            continue
        col = df[name]
        for i, cell in enumerate(body):
            v, c = col.iloc[i], cell[j]
            if col.dtype == np.float64:
                if c == "":
                    assert math.isnan(v), (name, i)
                else:
                    assert v == float(c) or (math.isnan(v) and math.isnan(float(c))), (name, i, v, c)
            elif str(col.dtype) in ("uint64", "UInt64"):
                assert (pd.isna(v) and c == "") or int(v) == int(c), (name, i, v, c)
            else:
                assert str(v) == c, (name, i, v, c)


def test_a_sweep_from_a_dict_equals_the_command_line(cli, tmp_path):
    (tmp_path / "sweep.toml").write_text(SWEEP_TOML)
    header, body = cli_rows(cli, tmp_path / "sweep.toml", tmp_path / "out")
    df = contour.sweep(BASE, grid=GRID, random=RANDOM, samples=3, seed=7, jobs=2)
    assert len(df) == 18 and (df.status == "ok").all()
    assert_same_rows(df, header, body)
    # run i is grid point i // samples; the last key (in key order) varies fastest
    assert list(df.columns[2:5]) == ["method.name", "model.pendulum.length", "initial.angle"]
    assert list(df["model.pendulum.length"][:9:3]) == [0.5, 1.0, 2.0]
    assert list(df["method.name"][::9]) == ["perturbation", "baumgarte"]
    assert df["initial.angle"].nunique() == 18


def test_a_sweep_from_toml_text_equals_the_command_line(cli, tmp_path):
    (tmp_path / "sweep.toml").write_text(SWEEP_TOML)
    header, body = cli_rows(cli, tmp_path / "sweep.toml", tmp_path / "out")
    # a whole sweep file's text, and a scenario's text completed by the arguments
    assert_same_rows(contour.sweep(SWEEP_TOML, jobs=1), header, body)
    assert_same_rows(contour.sweep(SCENARIO_TOML, grid=GRID, random=RANDOM, samples=3, seed=7),
                     header, body)


def test_the_example_sweep_file_with_a_base_file_equals_the_command_line(cli, tmp_path):
    scen = ROOT / "examples" / "scenarios"
    header, body = cli_rows(cli, scen / "sweep_pendulum.toml", tmp_path / "out")
    df = contour.sweep((scen / "sweep_pendulum.toml").read_text(), base_dir=scen)
    assert len(df) == 64
    assert_same_rows(df, header, body)


def test_jobs_do_not_change_the_rows():
    a = contour.sweep(BASE, grid=GRID, random=RANDOM, samples=3, seed=7, jobs=1)
    b = contour.sweep(BASE, grid=GRID, random=RANDOM, samples=3, seed=7, jobs=3)
    pd.testing.assert_frame_equal(a.drop(columns="wall_time_s"), b.drop(columns="wall_time_s"))


def test_a_failed_run_is_a_row_with_its_error():
    df = contour.sweep(dict(BASE, time={"end": 0.5, "max_steps": 3}),
                       grid={"model.pendulum.length": [1.0]})
    assert list(df.status) == ["failed"] and "step" in df.error[0]
    assert df.f_evals[0] > 0


@pytest.mark.parametrize(
    "kwargs, words",
    [
        (dict(grid={"model.pendulum.colour": [1.0]}), "colour"),
        (dict(grid={"model.pendulum.length": []}), "non-empty"),
        (dict(random={"initial.angle": {"uniform": [1.0, -1.0]}}, samples=2), "a < b"),
        (dict(random={"initial.angle": {"uniform": [0.0, 1.0]}}), "samples"),
        (dict(grid={"model.pendulum.length": [1.0]}, jobs=0), "jobs"),
        (dict(grid={"model.pendulum.length": [object()]}), "grid.model.pendulum.length[0]"),
    ],
)
def test_bad_sweeps_raise_before_running(kwargs, words):
    with pytest.raises(contour.InvalidInputError, match=words.replace("[", r"\[").replace("]", r"\]")):
        contour.sweep(BASE, **kwargs)
    with pytest.raises(ValueError):
        contour.sweep(BASE, **kwargs)


def test_a_key_given_twice_is_refused():
    with pytest.raises(contour.InvalidInputError, match="seed: given both"):
        contour.sweep(SWEEP_TOML, seed=1)
    with pytest.raises(contour.InvalidInputError, match="TOML"):
        contour.sweep("[model.pendulum")


def test_ctrl_c_stops_a_sweep_after_its_running_runs():
    import _thread
    import signal
    import threading
    import time

    # Python's own Ctrl-C handler, also where the test runner was started with SIGINT ignored
    # (a background job of a non-interactive shell inherits SIG_IGN, and interrupt_main then
    # does nothing)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        # 20,000 runs take about 9 s; Ctrl-C (interrupt_main) 0.3 s in stops the sweep at once
        timer = threading.Timer(0.3, _thread.interrupt_main)
        t0 = time.perf_counter()
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            contour.sweep(dict(BASE, time={"end": 2.0}),
                          random={"initial.angle": {"uniform": [-1.0, 1.0]}}, samples=20_000,
                          jobs=1)
        assert time.perf_counter() - t0 < 5.0
        timer.join()
    finally:
        signal.signal(signal.SIGINT, previous)
