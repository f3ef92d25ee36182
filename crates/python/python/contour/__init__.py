"""Contour from Python: dynamics of constrained mechanical systems.

numpy ``float64`` arrays in and out; options as keyword arguments with the Rust defaults;
every error is a ``contour.ContourError`` (``InvalidInputError`` is also a ``ValueError``).

>>> import contour
>>> m = contour.model("pendulum", length=1.0)
>>> q0, qd0 = m.initial_state(0.5)
>>> tr = contour.simulate(m, q0, qd0, (0.0, 2.0), atol=1e-8)
>>> tr.q.shape[1]
2
"""

from __future__ import annotations

from ._contour import (
    __version__,
    EvaluationCounter,
    JointPathSpec,
    Model,
    Plan,
    Trajectory,
    Urdf,
    cartesian_line,
    joint_line,
    mechanism,
    model,
    models,
    n_four_bar_reference,
    plan,
    simulate,
    simulate_contact,
    spline,
)
from ._errors import (
    CallbackError,
    ContactError,
    ContourError,
    ContourFileError,
    ContourFileNotFoundError,
    InvalidInputError,
    LinalgError,
    ModelError,
    OdeError,
    PlanningError,
    SimulationError,
)
from . import toppra_compat
from ._sweep import sweep
from ._keywords import suggest_keywords as _suggest_keywords

# An unknown keyword raises TypeError naming the function, the keyword and the closest
# keyword it takes (`simulate` names them itself: its **method_options take the methods'
# settings).
simulate_contact = _suggest_keywords(simulate_contact)
plan = _suggest_keywords(plan)
cartesian_line = _suggest_keywords(cartesian_line)
mechanism = _suggest_keywords(mechanism)
n_four_bar_reference = _suggest_keywords(n_four_bar_reference)
sweep = _suggest_keywords(sweep)

__all__ = [
    "CallbackError",
    "ContactError",
    "ContourError",
    "ContourFileError",
    "ContourFileNotFoundError",
    "EvaluationCounter",
    "InvalidInputError",
    "JointPathSpec",
    "LinalgError",
    "Model",
    "ModelError",
    "OdeError",
    "Plan",
    "PlanningError",
    "SimulationError",
    "Trajectory",
    "Urdf",
    "cartesian_line",
    "joint_line",
    "mechanism",
    "model",
    "models",
    "n_four_bar_reference",
    "plan",
    "simulate",
    "simulate_contact",
    "spline",
    "sweep",
    "toppra_compat",
]
