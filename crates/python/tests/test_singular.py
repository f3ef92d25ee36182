"""contour.simulate at a singular configuration: ``passage_policy``, ``energy_tolerance`` and
the options of the constrained solve (``kkt``, ``kkt_rank_rtol``, ``kkt_pivot_rtol``,
``rank_deficiency``).

The mechanism is the built-in four-bar made a parallelogram (crank = rocker, coupler =
ground). Released at a crank angle of 1 rad it swings through the flat configurations at 0
and −π, where ``J`` loses rank and the parallelogram and anti-parallelogram branches cross.
"""

from __future__ import annotations

import numpy as np
import pytest

import contour

T_END = 1.0


@pytest.fixture(scope="module")
def parallelogram():
    m = contour.model(
        "four-bar",
        crank_length=0.1,
        coupler_length=0.3,
        rocker_length=0.1,
        ground_length=0.3,
    )
    q0, qd0 = m.initial_state(1.0)
    return m, q0, qd0


def run(parallelogram, method="direct", **options):
    m, q0, qd0 = parallelogram
    return contour.simulate(
        m, q0, qd0, (0.0, T_END), method=method, integrator="dopri5", atol=1e-6, **options
    )


def test_the_direct_method_stops_at_the_singular_passage_by_default(parallelogram):
    for options in ({}, {"passage_policy": "stop"}):
        with pytest.raises(contour.SimulationError) as e:
            run(parallelogram, **options)
        err = e.value
        message = str(err)
        assert "singular passage" in message or "ambiguous branch" in message, message
        assert "passage_policy" in message, message
        assert isinstance(err.partial, contour.Trajectory)
        assert 0.0 < err.t < T_END and err.partial.t[-1] <= err.t
        # Stopped near a flat configuration (crank angle a multiple of π).
        assert abs(np.sin(err.q[0])) < 0.3, err.q


def test_continue_runs_through_the_passage(parallelogram):
    tr = run(parallelogram, passage_policy="continue")
    assert tr.t[-1] == T_END
    assert tr.q[:, 0].min() < -3.5  # the crank went through the flat configurations at 0, −π


def test_an_energy_tolerance_fails_the_run_with_the_energy_drift(parallelogram):
    # The projector method passes the flat configurations.
    tr = run(parallelogram, method="projector")
    drift = tr.stats["energy_drift"]
    assert drift > 1e-12
    # Half the drift of the whole run is exceeded during it: the run fails there, with the
    # trajectory up to the last step within the tolerance.
    with pytest.raises(contour.SimulationError, match="energy drift") as e:
        run(parallelogram, method="projector", energy_tolerance=0.5 * drift)
    assert isinstance(e.value.partial, contour.Trajectory)
    assert 0.0 < e.value.t < T_END and e.value.partial.t[-1] <= e.value.t
    # A tolerance above the drift of the whole run does not fire.
    tr = run(parallelogram, method="projector", energy_tolerance=2.0 * drift + 1e-9)
    assert tr.t[-1] == T_END


def test_the_dynamics_options_reach_the_solve(parallelogram):
    # The rank cut-off sets where the direct method sees the passage: at 1e-3 an evaluation
    # near the flat configuration finds J below its initial rank; at the default 1e-6 none
    # does, and the run stops where its step shrinks with its distance from the crossing.
    with pytest.raises(contour.SimulationError, match="stalled at a singular passage"):
        run(parallelogram)
    with pytest.raises(contour.SimulationError, match="singular passage"):
        run(parallelogram, kkt_rank_rtol=1e-3, kkt="full_lu")
    # The four-bar's third row is redundant (rank 2 of 3 everywhere): the default solve takes
    # the minimum-norm multipliers, rank_deficiency="error" refuses them.
    with pytest.raises(contour.ModelError, match="numerical rank 2 < 3 rows"):
        run(parallelogram, rank_deficiency="error")


@pytest.mark.parametrize(
    "bad, needle",
    [
        ({"passage_policy": "halt"}, "passage_policy"),
        ({"passage_policy": "Continue"}, "passage_policy"),
        ({"energy_tolerance": -1.0}, "energy_tolerance"),
        ({"energy_tolerance": 0.0}, "energy_tolerance"),
        ({"energy_tolerance": float("nan")}, "energy_tolerance"),
        ({"kkt": "qr"}, "kkt"),
        ({"kkt_rank_rtol": 1.5}, "kkt_rank_rtol"),
        ({"kkt_rank_rtol": -1e-3}, "kkt_rank_rtol"),
        ({"kkt_rank_rtol": 0.0}, r"kkt_rank_rtol.*\(0, 1\)"),
        ({"kkt_pivot_rtol": float("inf")}, "kkt_pivot_rtol"),
        ({"rank_deficiency": "ignore"}, "rank_deficiency"),
    ],
)
def test_bad_values_are_refused_naming_the_argument(parallelogram, bad, needle):
    with pytest.raises(contour.InvalidInputError, match=needle):
        run(parallelogram, **bad)


def test_the_projector_keeps_its_own_rank_rtol(parallelogram):
    # ``rank_rtol`` stays the projector's option (ProjectorConfig.rank_rtol); the solve's is
    # ``kkt_rank_rtol``, which the projector's own accelerations (29)-(31) do not use: set, it
    # is refused before the run, never silently ignored.
    tr = run(parallelogram, method="projector", rank_rtol=1e-8)
    assert np.all(np.isfinite(tr.q))
    with pytest.raises(contour.InvalidInputError, match="does not use DynamicsOptions::rank_rtol"):
        run(parallelogram, method="projector", rank_rtol=1e-8, kkt_rank_rtol=1e-8)
    with pytest.raises(contour.InvalidInputError, match="rank_rtol"):
        run(parallelogram, method="projector", rank_rtol=2.0)
