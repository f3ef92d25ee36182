#!/usr/bin/env python3
"""Pinocchio fixture for joints with nq != nv (free-flyer, spherical, planar, unbounded revolute).

For each model it writes the model itself as Pinocchio holds it (per joint in Pinocchio's order:
kind, axis, parent, placement, inertia after the URDF import's lumping), so that the Rust test
builds the same tree without the URDF reader, and at seeded states

    M(q)                      pinocchio.crba (upper triangle, symmetrized)
    tau                       pinocchio.rnea(q, v, a)
    qdd                       pinocchio.aba(q, v, tau_in)
    integrate, difference     pinocchio.integrate(q, v), pinocchio.difference(q0, q1)
    com, com_velocity         pinocchio.centerOfMass(q, v): data.com[0], data.vcom[0]
    com_jacobian              pinocchio.jacobianCenterOfMass(q)
    ag, hg                    pinocchio.ccrba(q, v): data.Ag, data.hg (linear; angular at the CoM)

Models: solo12 and a1 (example-robot-data, free-flyer root), a chain with spherical joints,
a planar base carrying an unbounded revolute and a spherical joint (built here joint by joint).
A free-flyer state with pitch +-pi/2 is included for each floating robot.
Writes crates/model/tests/fixtures/pinocchio_floating.json, which
crates/model/tests/pinocchio_floating.rs compares. Not run in CI.

    python3 -m venv /work/venv-pin && /work/venv-pin/bin/pip install pin example-robot-data
    /work/venv-pin/bin/python benches/peers/pinocchio_floating.py
"""
import datetime
import json
import pathlib
import sys

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "crates/model/tests/fixtures/pinocchio_floating.json"
ERD = pathlib.Path(sys.prefix) / "lib/python3.11/site-packages/cmeel.prefix/share/example-robot-data/robots"
URDFS = {
    "solo12": ERD / "solo_description/robots/solo12.urdf",
    "a1": ERD / "a1_description/urdf/a1.urdf",
}


def joint_entry(model, j):
    jm = model.joints[j]
    name = jm.shortname()
    kinds = {
        "JointModelFreeFlyer": ("free_flyer", None),
        "JointModelSpherical": ("spherical", None),
        "JointModelPlanar": ("planar", None),
        "JointModelRX": ("revolute", [1, 0, 0]),
        "JointModelRY": ("revolute", [0, 1, 0]),
        "JointModelRZ": ("revolute", [0, 0, 1]),
        "JointModelPX": ("prismatic", [1, 0, 0]),
        "JointModelPY": ("prismatic", [0, 1, 0]),
        "JointModelPZ": ("prismatic", [0, 0, 1]),
        "JointModelRUBX": ("revolute_unbounded", [1, 0, 0]),
        "JointModelRUBY": ("revolute_unbounded", [0, 1, 0]),
        "JointModelRUBZ": ("revolute_unbounded", [0, 0, 1]),
    }
    if name == "JointModelRevoluteUnaligned":
        kind, axis = "revolute", jm.extract().axis.tolist()
    elif name == "JointModelPrismaticUnaligned":
        kind, axis = "prismatic", jm.extract().axis.tolist()
    elif name == "JointModelRevoluteUnboundedUnaligned":
        kind, axis = "revolute_unbounded", jm.extract().axis.tolist()
    else:
        kind, axis = kinds[name]
    placement = model.jointPlacements[j]
    inertia = model.inertias[j]
    return {
        "name": model.names[j],
        "kind": kind,
        "axis": axis,
        "parent": int(model.parents[j]) - 1,  # -1: the base
        "rotation": placement.rotation.tolist(),
        "translation": placement.translation.tolist(),
        "mass": float(inertia.mass),
        "com": inertia.lever.tolist(),
        "inertia": inertia.inertia.tolist(),
        "idx_q": int(jm.idx_q),
        "idx_v": int(jm.idx_v),
    }


def floating_q_pitch(model, rng, pitch):
    q = pin.randomConfiguration(model)
    quat = pin.Quaternion(pin.rpy.rpyToMatrix(rng.uniform(-1, 1), pitch, rng.uniform(-1, 1)))
    q[3:7] = quat.coeffs()
    return q


def states(model, seed, count, pitch_cases):
    rng = np.random.default_rng(seed)
    pin.seed(seed)
    data = model.createData()
    out = []
    qs = [pin.randomConfiguration(model) for _ in range(count)]
    qs += [floating_q_pitch(model, rng, p) for p in pitch_cases]
    for q in qs:
        v = rng.uniform(-1.5, 1.5, model.nv)
        a = rng.uniform(-3.0, 3.0, model.nv)
        tau_in = rng.uniform(-5.0, 5.0, model.nv)
        m = pin.crba(model, data, q).copy()
        m = np.triu(m) + np.triu(m, 1).T
        tau = pin.rnea(model, data, q, v, a).copy()
        qdd = pin.aba(model, data, q, v, tau_in).copy()
        q1 = pin.randomConfiguration(model)
        pin.centerOfMass(model, data, q, v)
        com, vcom = data.com[0].copy(), data.vcom[0].copy()
        jcom = pin.jacobianCenterOfMass(model, data, q).copy()
        ag = pin.ccrba(model, data, q, v).copy()
        hg = data.hg.vector.copy()
        out.append(
            {
                "q": q.tolist(),
                "v": v.tolist(),
                "a": a.tolist(),
                "tau_in": tau_in.tolist(),
                "mass_matrix": m.tolist(),
                "rnea_tau": tau.tolist(),
                "aba_qdd": qdd.tolist(),
                "integrate": pin.integrate(model, q, v).tolist(),
                "q1": q1.tolist(),
                "difference": pin.difference(model, q, q1).tolist(),
                "com": com.tolist(),
                "com_velocity": vcom.tolist(),
                "com_jacobian": jcom.tolist(),
                "ag": ag.tolist(),
                "hg": hg.tolist(),
            }
        )
    return out


def limit_translation(model, lo, hi):
    """Bounds [lo, hi] for the translations of the free-flyer and planar joints and for any
    coordinate without a finite limit, so that randomConfiguration draws finite values."""
    for j in range(1, model.njoints):
        jm = model.joints[j]
        if jm.shortname() in ("JointModelFreeFlyer", "JointModelPlanar"):
            k = 3 if jm.shortname() == "JointModelFreeFlyer" else 2
            model.lowerPositionLimit[jm.idx_q : jm.idx_q + k] = lo
            model.upperPositionLimit[jm.idx_q : jm.idx_q + k] = hi
    for i in range(model.nq):
        if not abs(model.lowerPositionLimit[i]) < 1e10:
            model.lowerPositionLimit[i] = lo
        if not abs(model.upperPositionLimit[i]) < 1e10:
            model.upperPositionLimit[i] = hi


def body(model, parent, joint, name, placement, seed):
    rng = np.random.default_rng(seed)
    j = model.addJoint(parent, joint, placement, name)
    mass = rng.uniform(0.5, 2.0)
    com = rng.uniform(-0.2, 0.2, 3)
    a = rng.uniform(-0.05, 0.05, (3, 3))
    inertia = a @ a.T + 0.02 * np.eye(3)
    model.appendBodyToJoint(j, pin.Inertia(mass, com, inertia), pin.SE3.Identity())
    return j


def placement(seed):
    rng = np.random.default_rng(seed)
    rpy = rng.uniform(-1.0, 1.0, 3)
    return pin.SE3(pin.rpy.rpyToMatrix(rpy), rng.uniform(-0.4, 0.4, 3))


def spherical_chain():
    model = pin.Model()
    model.name = "spherical_chain"
    j = body(model, 0, pin.JointModelSpherical(), "ball1", placement(1), 11)
    j = body(model, j, pin.JointModelRY(), "hinge", placement(2), 12)
    # depth-first order, which Pinocchio's CRBA needs (a subtree's velocities contiguous)
    j2 = body(model, j, pin.JointModelSpherical(), "ball2", placement(3), 13)
    body(model, j2, pin.JointModelSpherical(), "ball3", placement(5), 15)
    body(model, j, pin.JointModelRevoluteUnaligned(np.array([0.6, 0.0, 0.8])), "side", placement(4), 14)
    return model


def planar_mix():
    model = pin.Model()
    model.name = "planar_mix"
    j = body(model, 0, pin.JointModelPlanar(), "base", placement(6), 21)
    j = body(model, j, pin.JointModelRUBZ(), "wheel", placement(7), 22)
    j = body(model, j, pin.JointModelSpherical(), "ball", placement(8), 23)
    body(model, j, pin.JointModelPX(), "slider", placement(9), 24)
    return model


def main():
    models = []
    for name, path in URDFS.items():
        model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
        model.name = name
        limit_translation(model, -1.0, 1.0)
        models.append((model, [np.pi / 2, -np.pi / 2]))
    for model in (spherical_chain(), planar_mix()):
        limit_translation(model, -1.0, 1.0)
        models.append((model, []))
    fixture = {
        "generator": "benches/peers/pinocchio_floating.py",
        "pinocchio": pin.__version__,
        "date": datetime.date.today().isoformat(),
        "models": [],
    }
    for seed, (model, pitches) in enumerate(models):
        fixture["models"].append(
            {
                "name": model.name,
                "nq": model.nq,
                "nv": model.nv,
                "gravity": model.gravity.linear.tolist(),
                "joints": [joint_entry(model, j) for j in range(1, model.njoints)],
                "states": states(model, 100 + seed, 3, pitches),
            }
        )
    OUT.write_text(json.dumps(fixture, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
