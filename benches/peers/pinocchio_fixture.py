#!/usr/bin/env python3
"""Pinocchio cross-check fixture for the kinematic trees of contour-model.

Loads the shipped URDFs (crates/model/data/{arm7,panda}.urdf) with Pinocchio (`pip install pin`,
4.1), evaluates at seeded states

    M(q)            pinocchio.crba (upper triangle, symmetrized)
    tau             pinocchio.rnea(q, qd, qdd)          (gravity as the shipped models: zero for
                                                         the space arm arm7, (0, 0, -9.81) for panda)
    qdd             pinocchio.aba(q, qd, tau_in)

and writes crates/model/tests/fixtures/pinocchio.json, which the test
crates/model/tests/pinocchio_crosscheck.rs compares with CRBA, RNEA and ABA of contour-model.
Not run in CI: the values are committed, with the Pinocchio version and the date.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install pin numpy
    /tmp/venv/bin/python benches/peers/pinocchio_fixture.py
"""
import datetime
import json
import pathlib

import numpy as np
import pinocchio as pin

ROOT = pathlib.Path(__file__).resolve().parents[2]
OUT = ROOT / "crates/model/tests/fixtures/pinocchio.json"


def cases(model, seed, count=4):
    rng = np.random.default_rng(seed)
    data = model.createData()
    out = []
    for _ in range(count):
        q = rng.uniform(-2.0, 2.0, model.nq)
        qd = rng.uniform(-1.5, 1.5, model.nv)
        qdd = rng.uniform(-3.0, 3.0, model.nv)
        tau_in = rng.uniform(-5.0, 5.0, model.nv)
        m = pin.crba(model, data, q).copy()
        m = np.triu(m) + np.triu(m, 1).T
        tau = pin.rnea(model, data, q, qd, qdd).copy()
        aba = pin.aba(model, data, q, qd, tau_in).copy()
        out.append(
            {
                "q": q.tolist(),
                "qd": qd.tolist(),
                "qdd": qdd.tolist(),
                "tau_in": tau_in.tolist(),
                "mass_matrix": m.tolist(),
                "rnea_tau": tau.tolist(),
                "aba_qdd": aba.tolist(),
            }
        )
    return out


def main():
    fixture = {
        "generator": "benches/peers/pinocchio_fixture.py",
        "pinocchio": pin.__version__,
        "date": datetime.date.today().isoformat(),
        "robots": {},
    }
    # contour_model::models::ssrms_arm() is a space arm (zero gravity); panda_arm() has -9.81 z
    for name, seed, gravity in [("arm7", 1, [0.0, 0.0, 0.0]), ("panda", 2, [0.0, 0.0, -9.81])]:
        model = pin.buildModelFromUrdf(str(ROOT / f"crates/model/data/{name}.urdf"))
        model.gravity.linear = np.array(gravity)
        assert model.nq == model.nv, "revolute/prismatic joints only"
        fixture["robots"][name] = {
            "nv": model.nv,
            "gravity": gravity,
            "joints": [model.names[i] for i in range(1, model.njoints)],
            "cases": cases(model, seed),
        }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fixture, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)} (pinocchio {pin.__version__})")


if __name__ == "__main__":
    main()
