"""Planning: closed-form minimum time of a joint line with velocity and acceleration limits,
the phase plane against TOPP-RA (two algorithms), torque limits of a URDF arm, the toppra
adapter, and toppra itself when installed."""

from __future__ import annotations

import numpy as np
import pytest

import contour
import contour.toppra_compat as ta

from conftest import PANDA_URDF

Q0 = np.array([0.0, -0.785, 0.0, -2.356, 0.0, 1.571, 0.785])
Q1 = np.array([0.8, -0.2, 0.4, -1.6, 0.5, 2.2, 0.2])
VLIM = np.array([2.175, 2.175, 2.175, 2.175, 2.61, 2.61, 2.61])
ALIM = np.array([15.0, 7.5, 10.0, 12.5, 15.0, 20.0, 20.0])


def line_time(d, vlim, alim):
    """Bang-coast-bang along s ∈ [0, 1] with |ṡ| ≤ V, |s̈| ≤ A (closed form)."""
    V = np.min(vlim / np.abs(d))
    A = np.min(alim / np.abs(d))
    return 1.0 / V + V / A if V * V / A < 1.0 else 2.0 / np.sqrt(A)


def test_kinematic_line_matches_the_closed_form():
    p = contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=ALIM)
    assert p.algorithm == "phase_plane"
    assert p.total_time == pytest.approx(line_time(Q1 - Q0, VLIM, ALIM), rel=1e-6)
    tr = p.trajectory
    assert tr.q.shape == (len(tr.t), 7)
    assert np.allclose(tr.q[0], Q0) and np.allclose(tr.q[-1], Q1, atol=1e-6)
    assert np.all(np.abs(tr.qd) <= VLIM * (1 + 1e-6))
    assert np.all(np.abs(tr.qdd) <= ALIM * (1 + 1e-4))


def test_toppra_algorithm_agrees_with_the_phase_plane():
    pp = contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=ALIM)
    tp = contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=ALIM,
                      algorithm="toppra", intervals=2000)
    assert tp.grid_s.shape == tp.grid_sd.shape == (2001,) and pp.grid_s is None
    assert tp.total_time == pytest.approx(pp.total_time, rel=1e-3)


def test_toppra_plans_are_sampled_in_time_like_the_phase_plane():
    pp = contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=ALIM, rate=1000.0)
    tp = contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM, alim=ALIM,
                      algorithm="toppra", intervals=2000, rate=1000.0)
    tr = tp.trajectory
    assert tr.integrator == "toppra" and pp.trajectory.integrator == "phase_plane"
    k = len(tr.t)
    assert tr.q.shape == tr.qd.shape == tr.qdd.shape == (k, 7)
    assert tp.s.shape == tp.sd.shape == tp.sdd.shape == (k,)
    # sampled at 1 kHz up to TOPP-RA's own minimum time, which is the phase plane's to 1e-3
    assert tr.t[-1] == pytest.approx(tp.total_time, rel=1e-12)
    assert np.allclose(np.diff(tr.t[:-1]), 1e-3)
    assert tp.total_time == pytest.approx(pp.total_time, rel=1e-3)
    assert np.allclose(tr.q[0], Q0) and np.allclose(tr.q[-1], Q1, atol=1e-9)
    # the same motion as the phase plane's, up to the grid
    m = min(k, len(pp.trajectory.t))
    assert np.max(np.abs(tr.q[:m] - pp.trajectory.q[:m])) < 5e-3
    # q on the joint line: q = Q0 + s (Q1 − Q0), q̇ = ṡ (Q1 − Q0), q̈ = s̈ (Q1 − Q0)
    assert np.allclose(tr.q, Q0 + np.outer(tp.s, Q1 - Q0), atol=1e-12)
    assert np.allclose(tr.qd, np.outer(tp.sd, Q1 - Q0), atol=1e-12)
    assert np.allclose(tr.qdd, np.outer(tp.sdd, Q1 - Q0), atol=1e-12)
    # q̇ is the time derivative of q (central differences)
    fd = (tr.q[2:-1] - tr.q[:-3]) / 2e-3
    assert np.max(np.abs(fd - tr.qd[1:-2])) < 1e-3 * np.max(VLIM)
    # limits met up to TOPP-RA's discretization
    assert np.all(np.abs(tr.qd) <= VLIM * (1 + 1e-3))
    assert np.all(np.abs(tr.qdd) <= ALIM * (1 + 1e-2))


def test_torque_limits_of_a_urdf_arm():
    arm = contour.Urdf(str(PANDA_URDF), gravity=[0.0, 0.0, 0.0])
    effort = arm.effort_limit * 0.05  # tight enough that torque, not speed, limits the motion
    p = contour.plan(arm, contour.joint_line(Q0, Q1), vlim=arm.velocity_limit,
                     torque_limits=effort, rate=500.0)
    tau = p.trajectory.tau
    assert tau.shape == p.trajectory.q.shape
    assert np.max(np.abs(tau) / effort) <= 1.0 + 1e-3
    assert np.max(np.abs(tau) / effort) > 0.99  # some joint saturates
    # the torques are the inverse dynamics of the sampled motion (an independent witness)
    k = len(p.trajectory.t) // 2
    t = p.trajectory
    assert np.allclose(arm.rnea(t.q[k], t.qd[k], t.qdd[k]), tau[k], atol=1e-6 * np.abs(effort).max())


def test_spline_through_waypoints():
    w = np.array([Q0, (Q0 + Q1) / 2 + 0.1, Q1])
    p = contour.plan(None, contour.spline(w), vlim=VLIM, alim=ALIM)
    assert p.total_time > line_time(Q1 - Q0, VLIM, ALIM) * 0.5
    assert np.allclose(p.trajectory.q[-1], Q1, atol=1e-6)


def test_plan_input_errors():
    with pytest.raises(ValueError):
        contour.joint_line(Q0, Q1[:3])
    with pytest.raises(ValueError):
        contour.plan(None, contour.joint_line(Q0, Q1), vlim=VLIM[:3])
    with pytest.raises(ValueError):
        contour.plan(None, contour.joint_line(Q0, Q1), torque_limits=VLIM)
    with pytest.raises(ValueError):
        contour.plan(None, contour.joint_line(Q0, Q1), algorithm="rrt")


def test_toppra_style_three_line_switch():
    constraint, algo = ta.constraint, ta.algorithm
    path = ta.SplineInterpolator(np.linspace(0, 1, 2), np.array([Q0, Q1]))
    pc_vel = constraint.JointVelocityConstraint(np.stack([-VLIM, VLIM], axis=1))
    pc_acc = constraint.JointAccelerationConstraint(np.stack([-ALIM, ALIM], axis=1))
    instance = algo.TOPPRA([pc_vel, pc_acc], path)
    jnt_traj = instance.compute_trajectory()
    assert jnt_traj.duration == pytest.approx(line_time(Q1 - Q0, VLIM, ALIM), rel=1e-6)
    ts = np.linspace(0, jnt_traj.duration, 50)
    assert jnt_traj(ts).shape == (50, 7) and jnt_traj(ts, 1).shape == (50, 7)
    with pytest.raises(ValueError):
        constraint.JointVelocityConstraint(np.stack([-VLIM, 2 * VLIM], axis=1))


def test_toppra_agrees():
    toppra = pytest.importorskip("toppra", reason="toppra is not installed")
    import toppra.algorithm as algo
    import toppra.constraint as constraint
    path = toppra.SplineInterpolator(np.linspace(0, 1, 2), np.array([Q0, Q1]))
    pc_vel = constraint.JointVelocityConstraint(np.stack([-VLIM, VLIM], axis=1))
    pc_acc = constraint.JointAccelerationConstraint(np.stack([-ALIM, ALIM], axis=1))
    inst = algo.TOPPRA([pc_vel, pc_acc], path, gridpoints=np.linspace(0, 1, 2001))
    ref = inst.compute_trajectory().duration
    ours = ta.TOPPRA([ta.JointVelocityConstraint(VLIM), ta.JointAccelerationConstraint(ALIM)],
                     ta.SplineInterpolator(None, np.array([Q0, Q1]))).compute_trajectory()
    assert ours.duration == pytest.approx(ref, rel=1e-3)
