"""The exception hierarchy of ``contour``: one class per error family of the Rust facade.

Every exception carries the Rust message as its text. ``InvalidInputError`` is also a
``ValueError``: wrong shapes, NaN or infinite inputs, unknown options and out-of-range
parameters raise it. A simulation that fails after it has started raises the class of its
cause with ``partial`` (a ``Trajectory`` up to the last accepted step), ``t``, ``q`` and ``qd``
attached.
"""

from __future__ import annotations


class ContourError(Exception):
    """Base class of every error raised by ``contour``.

    Attributes set when a run fails after it has started: ``partial`` (the ``Trajectory``
    computed so far, or ``None``), ``t`` (time of the last accepted step), ``q``, ``qd``.
    """

    partial = None
    t = None
    q = None
    qd = None


class InvalidInputError(ContourError, ValueError):
    """Wrong shape, NaN/inf, unknown option or out-of-range parameter (also a ``ValueError``)."""


class LinalgError(ContourError):
    """Dense linear algebra: definiteness, rank, singular matrices."""


class ModelError(ContourError):
    """Model evaluation, constrained dynamics, consistent states, URDF import."""


class OdeError(ContourError):
    """Integrators: step size or tolerance too small, no convergence, too many steps."""


class SimulationError(ContourError):
    """Bilateral constraint handling: projection failure, inconsistent initial state, ..."""


class ContactError(ContourError):
    """Unilateral contact: LCP without a solution, too many events, penetration."""


class PlanningError(ContourError):
    """Paths and minimum-time parameterization: empty admissible region, bad limits."""


class CallbackError(ContourError):
    """A Python callable of a user mechanism raised or returned a wrong shape (see ``__cause__``)."""


class ContourFileError(ContourError, OSError):
    """A file that cannot be read (also an ``OSError``: ``errno``, ``strerror``, ``filename``)."""


class ContourFileNotFoundError(ContourFileError, FileNotFoundError):
    """A file that does not exist (also a ``FileNotFoundError``, ``filename`` set)."""


__all__ = [
    "ContourError",
    "ContourFileError",
    "ContourFileNotFoundError",
    "InvalidInputError",
    "LinalgError",
    "ModelError",
    "OdeError",
    "SimulationError",
    "ContactError",
    "PlanningError",
    "CallbackError",
]
