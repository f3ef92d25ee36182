"""A URDF arm's Cartesian tool line (orientation held): the sampled tool positions lie on the
line and the orientation is held (the tree's own forward kinematics, and Pinocchio's when
installed), the phase plane and TOPP-RA agree, a UR5 line with datasheet limits against toppra
(when installed), and a 7-joint arm's redundancy resolved by minimum-norm rates."""

from __future__ import annotations

import numpy as np
import pytest

import contour

from conftest import PANDA_URDF, ROOT

UR5_URDF = ROOT / "crates" / "planning" / "tests" / "fixtures" / "ur5_robot.urdf"
UR5_Q0 = np.array([0.3, -1.2, 1.5, -1.9, -1.57, 0.2])
# UR5 datasheet: ±180 °/s on every joint; accelerations as commonly used in benchmarks.
UR5_VLIM = np.full(6, np.pi)
UR5_ALIM = np.array([8.0, 8.0, 8.0, 12.0, 12.0, 12.0])
PANDA_Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])


def ur5_line():
    ur5 = contour.Urdf(str(UR5_URDF))
    p0 = ur5.frame_position(UR5_Q0, "tool0")
    p1 = p0 + np.array([0.15, -0.2, 0.1])
    return ur5, p0, p1, contour.cartesian_line(ur5, "tool0", p1, UR5_Q0)


def distance_to_line(x, p0, p1):
    d = (p1 - p0) / np.linalg.norm(p1 - p0)
    r = x - p0
    return np.linalg.norm(r - np.outer(r @ d, d), axis=1), r @ d / np.linalg.norm(p1 - p0)


def assert_on_line_with_orientation_held(arm, frame, q, p0, p1, r0):
    x = np.array([arm.frame_position(qk, frame) for qk in q])
    dist, along = distance_to_line(x, p0, p1)
    assert dist.max() <= 1e-9
    assert along[0] == pytest.approx(0.0, abs=1e-9) and along[-1] == pytest.approx(1.0, abs=1e-9)
    assert np.all(np.diff(along) >= -1e-12)  # forward along the line
    for qk in q:
        assert np.max(np.abs(arm.frame_rotation(qk, frame) - r0)) <= 1e-9


@pytest.mark.parametrize("algorithm", ["phase_plane", "toppra"])
def test_a_ur5_tool_line_is_planned_on_the_line(algorithm):
    ur5, p0, p1, line = ur5_line()
    assert line.dof == 6 and line.s_range == (0.0, 1.0)
    p = contour.plan(ur5, line, vlim=UR5_VLIM, alim=UR5_ALIM, algorithm=algorithm, rate=500.0)
    tr = p.trajectory
    assert np.allclose(tr.q[0], UR5_Q0, atol=1e-12)
    r0 = ur5.frame_rotation(UR5_Q0, "tool0")
    assert_on_line_with_orientation_held(ur5, "tool0", tr.q, p0, p1, r0)
    assert np.all(np.abs(tr.qd) <= UR5_VLIM * (1 + 1e-3))


def test_the_phase_plane_and_toppra_agree_on_a_ur5_tool_line():
    ur5, _, _, line = ur5_line()
    pp = contour.plan(ur5, line, vlim=UR5_VLIM, alim=UR5_ALIM)
    tp = contour.plan(ur5, line, vlim=UR5_VLIM, alim=UR5_ALIM, algorithm="toppra", intervals=1000)
    assert tp.total_time == pytest.approx(pp.total_time, rel=1e-3)


def test_the_path_derivatives_are_the_derivatives_of_q():
    _, _, _, line = ur5_line()
    h = 1e-5
    for s in (0.1, 0.5, 0.9):
        q, b, bb = line.derivatives_at(s)
        qp, bp, _ = line.derivatives_at(s + h)
        qm, bm, _ = line.derivatives_at(s - h)
        assert np.allclose((qp - qm) / (2 * h), b, atol=1e-6)
        assert np.allclose((bp - bm) / (2 * h), bb, atol=1e-4)
        assert np.array_equal(line.point(s), q)


def test_a_panda_tool_line_resolves_its_redundancy():
    arm = contour.Urdf(str(PANDA_URDF))
    p0 = arm.frame_position(PANDA_Q0, "panda_link8")
    p1 = p0 + np.array([0.2, 0.25, -0.15])
    line = contour.cartesian_line(arm, "panda_link8", p1, PANDA_Q0)
    assert line.dof == 7
    p = contour.plan(arm, line, vlim=arm.velocity_limit, torque_limits=arm.effort_limit)
    r0 = arm.frame_rotation(PANDA_Q0, "panda_link8")
    assert_on_line_with_orientation_held(arm, "panda_link8", p.trajectory.q, p0, p1, r0)


def test_pinocchio_puts_the_planned_tool_on_the_line():
    pin = pytest.importorskip("pinocchio", reason="pin (Pinocchio) is not installed")
    model = pin.buildModelFromUrdf(str(UR5_URDF))
    data = model.createData()
    ur5, p0, p1, line = ur5_line()
    p = contour.plan(ur5, line, vlim=UR5_VLIM, alim=UR5_ALIM, rate=200.0)
    fid = model.getFrameId("tool0")
    x, rot = [], []
    for q in p.trajectory.q:
        pin.framesForwardKinematics(model, data, q)
        x.append(data.oMf[fid].translation.copy())
        rot.append(data.oMf[fid].rotation.copy())
    dist, _ = distance_to_line(np.array(x), p0, p1)
    assert dist.max() <= 1e-9
    assert max(np.max(np.abs(r - rot[0])) for r in rot) <= 1e-9


def test_toppra_agrees_on_a_ur5_tool_line():
    toppra = pytest.importorskip("toppra", reason="toppra is not installed")
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    ur5, _, _, line = ur5_line()
    ours = contour.plan(ur5, line, vlim=UR5_VLIM, alim=UR5_ALIM)
    # toppra's path: a cubic spline through 201 joint points of the same line
    ss = np.linspace(0.0, 1.0, 201)
    path = toppra.SplineInterpolator(ss, np.array([line.point(s) for s in ss]))
    inst = algo.TOPPRA(
        [constraint.JointVelocityConstraint(np.stack([-UR5_VLIM, UR5_VLIM], 1)),
         constraint.JointAccelerationConstraint(np.stack([-UR5_ALIM, UR5_ALIM], 1))],
        path, gridpoints=np.linspace(0, 1, 1001))
    ref = inst.compute_trajectory().duration
    assert ours.total_time == pytest.approx(ref, rel=2e-3)


def test_bad_cartesian_lines_raise():
    ur5, p0, p1, _ = ur5_line()
    with pytest.raises(ValueError, match="frame"):
        contour.cartesian_line(ur5, "no_such_link", p1, UR5_Q0)
    with pytest.raises(ValueError, match="q_start"):
        contour.cartesian_line(ur5, "tool0", p1, UR5_Q0[:5])
    with pytest.raises(ValueError):
        contour.cartesian_line(ur5, "tool0", [np.nan, 0.0, 0.0], UR5_Q0)
    with pytest.raises(contour.PlanningError):
        contour.cartesian_line(ur5, "tool0", p0 + [3.0, 0.0, 0.0], UR5_Q0)  # out of reach
    with pytest.raises(ValueError):
        contour.cartesian_line(ur5, "tool0", p0, UR5_Q0)  # a line of length 0
