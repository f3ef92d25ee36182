"""Every URDF of example-robot-data in Pinocchio and in Contour: load status, nv, and the
worst relative difference of M (CRBA), tau (RNEA) and qdd (ABA) at random states.

Pinocchio is used as its Python users write it: `pin.buildModelFromUrdf(path)` (fixed base,
mimic tags ignored, as Contour's tree keeps one coordinate per movable joint) and
`pin.crba` / `pin.rnea` / `pin.aba` on its own `Data`. Contour runs through the small bin
`benches/src/bin/urdf_dynamics.rs` (built with the debug profile, which is opt-level 3);
joints are matched by name, continuous joints get Pinocchio's (cos, sin) coordinates.
Errors are max |x_contour - x_pin| / max(1, max |x_pin|) over K states.

It also compares the mimic couplings on Panda and Baxter with Pinocchio's
`mimic=True` model: Contour's explicit reduction (G^T M G, G^T RNEA, the reduced ABA) against
Pinocchio's reduced M, tau and qdd.

Outside CI. Usage (pip install pin example-robot-data):
    cargo build -p contour-benches --bin urdf_dynamics
    python benches/peers/urdf_zoo.py [--states K] [--out benches/peers/results]
"""
import argparse
import datetime
import glob
import json
import os
import subprocess
import sys

import numpy as np
import pinocchio as pin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.path.join(ROOT, "target", "debug", "urdf_dynamics")


def robots_dir():
    for p in sys.path:
        d = os.path.join(p, "cmeel.prefix", "share", "example-robot-data", "robots")
        if os.path.isdir(d):
            return d
    raise SystemExit("example-robot-data not found (pip install example-robot-data)")


def contour(path, names=(), states=(), strict=False, mimic=False):
    lines = [f"{len(names)} {len(states)}", " ".join(names)]
    for s in states:
        for v in s:
            lines.append(" ".join(repr(float(x)) for x in v))
    args = [BIN, path] + (["--strict"] if strict else []) + (["--mimic"] if mimic else [])
    out = subprocess.run(args, input="\n".join(lines), capture_output=True, text=True)
    if out.returncode != 0:
        return {"status": "crash", "message": out.stderr.strip().splitlines()[-1:] or ["?"]}
    return json.loads(out.stdout)


def pin_q(model, angles):
    """Pinocchio's q from one angle (or displacement) per velocity coordinate."""
    q = pin.neutral(model)
    for j in model.joints[1:]:
        if j.nq == 1:
            q[j.idx_q] = angles[j.idx_v]
        elif j.nq == 2 and j.nv == 1:
            q[j.idx_q] = np.cos(angles[j.idx_v])
            q[j.idx_q + 1] = np.sin(angles[j.idx_v])
    return q


def rel(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.size == 0:
        return 0.0
    if not np.all(np.isfinite(a)) or not np.all(np.isfinite(b)):
        return float("inf")
    return float(np.max(np.abs(a - b)) / max(1.0, np.max(np.abs(b))))


def velocity_names(model):
    names = [""] * model.nv
    for k, j in enumerate(model.joints[1:], start=1):
        for i in range(j.nv):
            names[j.idx_v + i] = model.names[k]
    return names


def zoo(k_states, rng):
    rows = []
    for path in sorted(glob.glob(os.path.join(robots_dir(), "**", "*.urdf"), recursive=True)):
        rel_path = os.path.relpath(path, robots_dir())
        try:
            model = pin.buildModelFromUrdf(path)
            pin_status = "ok"
        except Exception as e:  # noqa: BLE001 — the peer's refusal is a result
            model, pin_status = None, "refused: " + str(e).splitlines()[0][:60]
        row = {"robot": rel_path, "pin": pin_status, "nv_pin": model.nv if model else "-"}
        info = contour(path)
        row["contour"] = "ok" if info["status"] == "ok" else info["status"] + ": " + str(info.get("message"))[:90]
        row["nv_contour"] = info.get("nv", "-")
        row["warnings"] = len(info.get("warnings", []))
        row["warning_text"] = info.get("warnings", [])
        row["err"] = ("-", "-", "-")
        row["back"] = ("-", "-")
        if model is not None and info["status"] == "ok" and model.nv > 0:
            names = velocity_names(model)
            states, pin_out = [], []
            data = model.createData()
            for _ in range(k_states):
                ang = rng.uniform(-1, 1, model.nv)
                v, a, tau = (rng.uniform(-1, 1, model.nv) for _ in range(3))
                q = pin_q(model, ang)
                m = pin.crba(model, data, q).copy()
                m = np.triu(m) + np.triu(m, 1).T
                t = pin.rnea(model, data, q, v, a).copy()
                try:
                    qdd = pin.aba(model, data, q, v, tau).copy()
                except Exception:  # noqa: BLE001
                    qdd = np.full(model.nv, np.nan)
                nle = pin.nonLinearEffects(model, data, q, v).copy()
                states.append((ang, v, a, tau))
                pin_out.append((m, t, qdd, nle, tau))
            out = contour(path, names, states)
            if out["status"] != "ok":
                row["contour"] = "error: " + str(out.get("message"))[:90]
            else:
                em = max(rel(np.array(s["M"], dtype=float).reshape(model.nv, model.nv), p[0]) for s, p in zip(out["states"], pin_out))
                et = max(rel(np.array(s["tau"], dtype=float), p[1]) for s, p in zip(out["states"], pin_out))
                eq = max(rel(np.array(s["qdd"], dtype=float), p[2]) for s, p in zip(out["states"], pin_out))
                row["err"] = (em, et, eq)
                # backward errors of qdd in Pinocchio's M and h: max abs(M qdd + h - tau) / max(1, max abs(tau))
                back = lambda x, p: rel(p[0] @ x + p[3], p[4]) if np.all(np.isfinite(x)) else float("inf")  # noqa: E731
                row["back"] = (
                    max(back(np.array(s["qdd"], dtype=float), p) for s, p in zip(out["states"], pin_out)),
                    max(back(p[2], p) for p in pin_out),
                )
        rows.append(row)
        print(row["robot"], row["pin"][:20], row["contour"][:60], row["err"], file=sys.stderr)
    return rows


MIMIC_ROBOTS = ["panda_description/urdf/panda.urdf", "baxter_description/urdf/baxter.urdf"]


def mimic_compare(k_states, rng):
    rows = []
    for rel_path in MIMIC_ROBOTS:
        path = os.path.join(robots_dir(), rel_path)
        model = pin.buildModelFromUrdf(path, mimic=True)
        data = model.createData()
        names = velocity_names(model)
        states, pin_out = [], []
        aba_kind = "pin.aba"
        for _ in range(k_states):
            ang = rng.uniform(-1, 1, model.nv)
            v, a, tau = (rng.uniform(-1, 1, model.nv) for _ in range(3))
            q = pin_q(model, ang)
            m = pin.crba(model, data, q).copy()
            m = np.triu(m) + np.triu(m, 1).T
            t = pin.rnea(model, data, q, v, a).copy()
            try:
                qdd = pin.aba(model, data, q, v, tau).copy()
            except Exception:  # noqa: BLE001 — ABA without mimic support: M^-1 (tau - h)
                aba_kind = "solve(crba, tau - nle)"
                qdd = np.linalg.solve(m, tau - pin.nonLinearEffects(model, data, q, v))
            states.append((ang, v, a, tau))
            pin_out.append((m, t, qdd))
        out = contour(path, names, states, mimic=True)
        if out["status"] != "ok":
            rows.append({"robot": rel_path, "error": out.get("message")})
            continue
        cs = out["states"]
        arr = lambda s, key: np.array(s[key], dtype=float)  # noqa: E731
        rows.append({
            "robot": rel_path,
            "nv_pin": model.nv,
            "nv_contour": len(names),
            "mimic": out["mimic"],
            "M": max(rel(arr(s, "M").reshape(model.nv, model.nv), p[0]) for s, p in zip(cs, pin_out)),
            "tau": max(rel(arr(s, "tau"), p[1]) for s, p in zip(cs, pin_out)),
            "qdd": max(rel(arr(s, "qdd"), p[2]) for s, p in zip(cs, pin_out)),
            "qdd_rows": max(rel(arr(s, "qdd_rows"), p[2]) for s, p in zip(cs, pin_out)),
            "rows_vs_explicit": max(rel(arr(s, "qdd_rows"), arr(s, "qdd")) for s in cs),
            "aba": aba_kind,
        })
        print(rows[-1], file=sys.stderr)
    return rows


def write_mimic(rows, out_dir, k_states):
    day = datetime.date.today().isoformat()
    lines = [
        f"# Mimic joints: Contour's two forms against Pinocchio {pin.__version__}'s mimic=True model, {day}",
        "",
        f"Max over {k_states} random states of max|Contour - Pinocchio| / max(1, max|Pinocchio|). Contour: "
        "M_y = G^T M G and tau_y = G^T RNEA(gamma(y), G y', G y'') of the explicit form; y'' from "
        "FDgq on the explicit form (`MimicReduction`) and from the KKT system of the bilateral rows "
        "(`Closure::Coupling`).",
        "",
        "| robot | nv Pinocchio (mimic) | nv Contour (y) | couplings | M_y | tau_y | y'' explicit | y'' rows | rows vs explicit | Pinocchio y'' by |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['robot']} | error: {r['error']} |")
            continue
        couplings = "; ".join(f"{m[0]} = {m[2]:g} {m[1]} + {m[3]:g}" for m in r["mimic"])
        lines.append(
            f"| {r['robot']} | {r['nv_pin']} | {r['nv_contour']} | {couplings} | {fmt(r['M'])} | {fmt(r['tau'])} | "
            f"{fmt(r['qdd'])} | {fmt(r['qdd_rows'])} | {fmt(r['rows_vs_explicit'])} | {r['aba']} |"
        )
    path = os.path.join(out_dir, f"urdf_mimic_{day}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(path)


def fmt(x):
    return x if isinstance(x, str) else f"{x:.1e}"


def write_zoo(rows, out_dir, k_states):
    day = datetime.date.today().isoformat()
    both = sum(1 for r in rows if r["pin"] == "ok" and r["contour"] == "ok")
    lines = [
        f"# URDF zoo: example-robot-data {erd_version()}, Pinocchio {pin.__version__}, {day}",
        "",
        f"{len(rows)} URDF files; Pinocchio loads {sum(r['pin'] == 'ok' for r in rows)}, "
        f"Contour loads {sum(r['contour'] == 'ok' for r in rows)}, both {both}. "
        f"Errors: max over {k_states} random states of max|Contour - Pinocchio| / max(1, max|Pinocchio|).",
        "",
        "Backward error of qdd: max |M qdd + h - tau| / max(1, max|tau|) with Pinocchio's M and h, "
        "for Contour's qdd and for Pinocchio's own (ABA): where M is ill-conditioned the two qdd "
        "differ by up to cond(M) times round-off while both solve the equations to round-off.",
        "",
        "| robot | nv Pinocchio | nv Contour | Pinocchio | Contour | M | tau (RNEA) | qdd (ABA) | qdd backward, Contour | qdd backward, Pinocchio | warnings |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        e = r["err"]
        lines.append(
            f"| {r['robot']} | {r['nv_pin']} | {r['nv_contour']} | {r['pin']} | {r['contour']} | "
            f"{fmt(e[0])} | {fmt(e[1])} | {fmt(e[2])} | {fmt(r['back'][0])} | {fmt(r['back'][1])} | {r['warnings']} |"
        )
    worst = [max(r["err"][k] for r in rows if r["err"][0] != "-") for k in range(3)]
    wb = max(r["back"][0] for r in rows if r["back"][0] != "-")
    lines += ["", f"Worst over the robots both load: M {worst[0]:.1e}, tau {worst[1]:.1e}, qdd {worst[2]:.1e} "
              f"(backward error {wb:.1e}).", "",
              "The largest qdd difference is iCub's, whose M is ill-conditioned: "
              "`urdf_zoo_icub.py` measures both ABAs' normwise backward errors and their distance to "
              "a long-double solve (results in `urdf_zoo_icub_<date>.md`).", ""]
    lines += ["## Warnings of the import report", ""]
    for r in rows:
        for w in r["warning_text"]:
            lines.append(f"- {r['robot']}: {w}")
    path = os.path.join(out_dir, f"urdf_zoo_{day}.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(path)


def erd_version():
    try:
        from importlib.metadata import version

        return version("example-robot-data")
    except Exception:  # noqa: BLE001
        return "?"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=int, default=8)
    ap.add_argument("--out", default=os.path.join(ROOT, "benches", "peers", "results"))
    ap.add_argument("--seed", type=int, default=32)
    ap.add_argument("--mimic-only", action="store_true")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    write_mimic(mimic_compare(args.states, rng), args.out, args.states)
    if not args.mimic_only:
        rows = zoo(args.states, rng)
        write_zoo(rows, args.out, args.states)


if __name__ == "__main__":
    main()
