"""``contour.sweep``: the command line's sweeps (``contour sweep``) as a pandas DataFrame."""

from __future__ import annotations

import os
from typing import Any, Mapping, Optional, Union

from . import _contour


def sweep(
    scenario: Union[Mapping[str, Any], str],
    grid: Optional[Mapping[str, Any]] = None,
    random: Optional[Mapping[str, Any]] = None,
    samples: Optional[int] = None,
    seed: Optional[int] = None,
    jobs: Optional[int] = None,
    base_dir: Optional[Union[str, "os.PathLike[str]"]] = None,
):
    """Runs a sweep with the command line's engine and returns its rows as a DataFrame.

    ``scenario`` is a scenario (the schema of ``contour simulate``'s TOML files) as a dict or
    TOML text, completed by ``grid`` (dotted key → list of values), ``random`` (dotted key →
    ``{"uniform": [a, b]}``, ``normal``, ``log-uniform``, ``integer``, ``choice``),
    ``samples`` (draws per grid point) and ``seed``; or a whole sweep file's content (a dict or
    TOML text with ``base``, ``grid``, ``random``, ``samples``, ``seed``). Relative paths (a
    base scenario file, a URDF file) are taken from ``base_dir`` (default: the working
    directory).

    The rows are those of ``contour sweep`` (same runs, same seeds, same cells; one row per
    run, sorted by ``run``): ``run``, ``seed``, the swept keys, ``status`` (``ok``, ``failed``,
    ``invalid``), ``t_final``, ``max_phi``, ``f_evals``, ``steps``, ``wall_time_s``,
    ``error``, then the final state ``q0…``, ``qd0…``. A run that fails is a row with its error;
    a sweep that cannot run at all (an unknown key, a bad value) raises
    ``InvalidInputError`` before its first run.

    The runs use ``jobs`` threads (default: every core) with the GIL released. Ctrl-C stops
    the sweep: no new run starts, the running ones finish, and ``KeyboardInterrupt`` is
    raised.

    Returns a ``pandas.DataFrame`` (string columns backed by pyarrow when it is installed),
    or, without pandas, a dict of column name → numpy array or list. Example::

        df = contour.sweep({"model": {"pendulum": {}}, "time": {"end": 1.0}},
                           grid={"model.pendulum.length": [0.5, 1.0, 2.0]},
                           random={"initial.angle": {"uniform": [-1.0, 1.0]}},
                           samples=10, seed=1)
    """
    import numpy as np

    cols, fingerprint = _contour.sweep_columns(
        scenario, grid, random, samples, seed, jobs,
        None if base_dir is None else os.fspath(base_dir),
    )
    try:
        import pandas as pd
    except ImportError:
        return {name: _numpy_column(np, kind, values) for name, kind, values in cols}
    try:
        import pyarrow  # noqa: F401

        text = "string[pyarrow]"
    except ImportError:
        text = None
    data = {}
    for name, kind, values in cols:
        if kind == "uint64":
            data[name] = (pd.array(values, dtype="UInt64") if None in values
                          else np.array(values, dtype=np.uint64))
        elif kind == "float64":
            data[name] = np.array(values, dtype=np.float64)
        else:
            data[name] = pd.array(values, dtype=text) if text else values
    df = pd.DataFrame(data)
    df.attrs["fingerprint"] = fingerprint
    return df


def _numpy_column(np, kind, values):
    if kind == "uint64":
        return (np.array(values, dtype=np.uint64) if None not in values
                else np.array([np.nan if v is None else float(v) for v in values]))
    if kind == "float64":
        return np.array(values, dtype=np.float64)
    return list(values)
