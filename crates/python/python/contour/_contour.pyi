"""Type stubs of the native module ``contour._contour`` (re-exported by ``contour``)."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

ArrayLike = Union[npt.ArrayLike, Sequence[float]]
F64 = npt.NDArray[np.float64]

class Model:
    """A mechanical model: M(q) q̈ + h = u + Jᵀλ, φ(t, q) = 0 (or ≥ 0 for unilateral rows)."""

    @property
    def dof(self) -> int: ...
    @property
    def n_constraints(self) -> int: ...
    @property
    def name(self) -> str: ...
    @property
    def unilateral(self) -> bool: ...
    def initial_state(
        self, angle: Optional[float] = None, rate: Optional[float] = None
    ) -> tuple[F64, F64]: ...
    def accelerations(self, q: ArrayLike, qd: ArrayLike, t: float = 0.0) -> tuple[F64, F64]: ...

class Urdf(Model):
    """A robot from a URDF file (``"<arm7>"``, ``"<panda>"``: the bundled ones)."""

    def __init__(
        self,
        path: Union[str, "os.PathLike[str]"],
        gravity: Optional[ArrayLike] = None,
        closures: Optional[Sequence[dict[str, Any]]] = None,
        q: Optional[ArrayLike] = None,
    ) -> None: ...
    @property
    def joint_names(self) -> list[str]: ...
    @property
    def lower(self) -> F64: ...
    @property
    def upper(self) -> F64: ...
    @property
    def velocity_limit(self) -> F64: ...
    @property
    def effort_limit(self) -> F64: ...
    def frame_position(self, q: ArrayLike, frame: str, point: Optional[ArrayLike] = None) -> F64: ...
    def frame_rotation(self, q: ArrayLike, frame: str) -> F64: ...
    def crba(self, q: ArrayLike) -> F64: ...
    def rnea(self, q: ArrayLike, v: ArrayLike, a: ArrayLike) -> F64: ...
    def aba(self, q: ArrayLike, v: ArrayLike, tau: ArrayLike) -> F64: ...

class Trajectory:
    """Times, q, q̇, λ at the output times; ‖φ‖ history; events; statistics."""

    @property
    def t(self) -> F64: ...
    @property
    def q(self) -> F64: ...
    @property
    def qd(self) -> F64: ...
    @property
    def lam(self) -> F64: ...
    @property
    def qdd(self) -> F64: ...
    @property
    def tau(self) -> F64: ...
    @property
    def step_t(self) -> F64: ...
    @property
    def phi(self) -> F64: ...
    @property
    def phidot(self) -> F64: ...
    @property
    def x_final(self) -> F64: ...
    @property
    def stats(self) -> dict[str, Any]: ...
    @property
    def events(self) -> list[dict[str, Any]]: ...
    @property
    def method(self) -> str: ...
    @property
    def integrator(self) -> str: ...
    def to_json(self) -> str: ...
    def to_pandas(self) -> Any: ...
    def __len__(self) -> int: ...

class JointPathSpec:
    """A joint-space path q = Q(s)."""

    @property
    def dof(self) -> int: ...
    @property
    def s_range(self) -> tuple[float, float]: ...
    def point(self, s: float) -> F64: ...
    def derivatives_at(self, s: float) -> tuple[F64, F64, F64]: ...

class Plan:
    """The result of ``plan``: the motion sampled at ``rate`` (phase plane or TOPP-RA)."""

    total_time: float
    algorithm: str
    switching_points: int
    trajectory: Trajectory
    s: F64
    sd: F64
    sdd: F64
    grid_s: Optional[F64]
    grid_sd: Optional[F64]
    max_violation: float

class EvaluationCounter:
    """Counts the callable evaluations of a ``mechanism``."""

    @property
    def count(self) -> int: ...
    def reset(self) -> None: ...

def model(name: str, **params: Any) -> Model:
    """A built-in model of the registry by name, its parameters as keywords (checked here:
    an unknown name or parameter, or a value out of range, raises ``InvalidInputError``)."""
def models() -> list[dict[str, Any]]:
    """The registry: dicts with ``name``, ``summary``, ``params``, ``initial`` and ``method``
    (the method ``simulate`` runs when none is named)."""
def n_four_bar_reference(
    n: int,
    times: ArrayLike,
    theta: float = 1.5707963267948966,
    theta_dot: float = -1.0,
    length: float = 1.0,
    mass: float = 1.0,
    gravity: float = 9.81,
    steps_per_second: int = 20_000,
) -> tuple[F64, F64]: ...
def simulate(
    model: Model,
    q0: ArrayLike,
    qd0: ArrayLike,
    t_span: ArrayLike,
    method: Optional[str] = None,
    integrator: str = "dopri5",
    rtol: float = 0.0,
    atol: float = 1e-4,
    norm: str = "l2",
    t_eval: Optional[ArrayLike] = None,
    consistent: str = "require",
    consistency_tol: float = 1e-10,
    max_steps: int = 1_000_000,
    lambda_at_steps: bool = False,
    passage_policy: str = "stop",
    energy_tolerance: Optional[float] = None,
    kkt: str = "range_space",
    kkt_rank_rtol: Optional[float] = None,
    kkt_pivot_rtol: Optional[float] = None,
    rank_deficiency: str = "minimum_norm",
    **method_options: Any,
) -> Trajectory:
    """Simulates a model with bilateral constraints over ``t_span``; returns a
    ``Trajectory``. ``method=None`` runs the model's registry default. A model with unilateral
    rows is refused (``simulate_contact`` runs it); ``consistent="make"`` projects an
    inconsistent start and leaves a consistent one as given. An unknown keyword raises
    ``TypeError`` naming the closest one; a count or array out of range ``InvalidInputError``;
    a Python callable that raised ``CallbackError``."""
def simulate_contact(
    model: Model,
    q0: ArrayLike,
    qd0: ArrayLike,
    t_end: float,
    t0: float = 0.0,
    scheme: str = "modern",
    restitution: float = 0.0,
    friction: float = 0.0,
    output_dt: Optional[float] = None,
    max_events: int = 10_000,
) -> Trajectory:
    """Simulates a model with unilateral rows (impacts, Coulomb friction)
    from ``t0`` to ``t_end``; with ``output_dt`` the outputs are ``t0, t0 + output_dt, ...``,
    each once."""
def joint_line(q_start: ArrayLike, q_end: ArrayLike) -> JointPathSpec: ...
def spline(waypoints: ArrayLike) -> JointPathSpec: ...
def cartesian_line(
    urdf: Urdf,
    frame: str,
    p_end: ArrayLike,
    q_start: ArrayLike,
    p_start: Optional[ArrayLike] = None,
    point: Optional[ArrayLike] = None,
) -> JointPathSpec: ...
def plan(
    model: Optional[Model],
    path: JointPathSpec,
    vlim: Optional[ArrayLike] = None,
    alim: Optional[ArrayLike] = None,
    torque_limits: Optional[ArrayLike] = None,
    algorithm: str = "phase_plane",
    rate: float = 1000.0,
    intervals: int = 2000,
) -> Plan:
    """Minimum-time motion along ``path`` under velocity, acceleration and torque
    limits (phase plane or TOPP-RA); returns a ``Plan``."""
def mechanism(
    dof: int,
    mass_matrix: Any,
    bias_forces: Any,
    n_constraints: int = 0,
    constraints: Any = None,
    jacobian: Any = None,
    accel_bias: Any = None,
    rate_bias: Any = None,
    applied_forces: Any = None,
    unilateral: bool = False,
    name: str = "python",
) -> tuple[Model, EvaluationCounter]:
    """A model whose terms are Python callables, each taking the variables its
    term depends on in the order ``t, q, qd`` (``M(q)``, ``h(q, qd)``, ``u(t, q, qd)``,
    ``φ(t, q)``, ``J(t, q)``, ``b(t, q)``, ``ρ(t, q, qd)``); a callable of the wrong arity is
    refused here. Returns ``(model, counter)``. Such a model cannot be pickled."""
def sweep_columns(
    spec: Union[dict[str, Any], str],
    grid: Optional[dict[str, Any]] = None,
    random: Optional[dict[str, Any]] = None,
    samples: Optional[int] = None,
    seed: Optional[int] = None,
    jobs: Optional[int] = None,
    base_dir: Optional[str] = None,
) -> tuple[list[tuple[str, str, list[Any]]], str]: ...
