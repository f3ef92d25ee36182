"""Draws a work-precision figure from the CSV of a project work-precision binary
(`cargo run --release -p contour-benches --bin andrews_work_precision` or
`keerthi_work_precision`) and, if it exists next to it, the scipy peers' CSV of the same
problem (`andrews_scipy.py`, `keerthi_scipy.py`): final position error vs f-evaluations and vs
wall time, every method x integrator, the peers in black. Not run in CI. Needs matplotlib.

    python3 benches/peers/work_precision_figure.py benches/peers/results/andrews_work_precision.csv
    python3 benches/peers/work_precision_figure.py benches/peers/results/keerthi_work_precision.csv
"""
import csv
import datetime
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

TITLES = {
    "andrews": "Andrews' squeezer, t = 0.03, error of q vs the IVP test set",
    "keerthi": "Keerthi's robot + control law (4.5), IC2 made consistent, t = 5 s, error of q vs reference",
}

src = sys.argv[1] if len(sys.argv) > 1 else "benches/peers/results/andrews_work_precision.csv"
problem = os.path.basename(src).split("_")[0]
dst = src.replace(".csv", ".svg")
peers_csv = os.path.join(os.path.dirname(src), f"{problem}_scipy.csv")
runs = defaultdict(list)
with open(src) as f:
    for r in csv.DictReader(f):
        if r["status"] == "ok":
            runs[(r["method"], r["integrator"])].append(
                (float(r["error"]), int(r["f_evals"]), float(r["seconds"]))
            )
peers = defaultdict(list)
if os.path.exists(peers_csv):
    with open(peers_csv) as f:
        for r in csv.DictReader(f):
            if r["status"] == "ok":
                peers[r["method"]].append((float(r["error"]), int(r["f_evals"]), float(r["seconds"])))
fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 6))
for (m, i), pts in sorted(runs.items()):
    pts.sort()
    style = "-" if i in ("abm", "dopri5") else "--"
    e = [p[0] for p in pts]
    a1.loglog([p[1] for p in pts], e, style, marker=".", label=f"{m}/{i}")
    a2.loglog([p[2] for p in pts], e, style, marker=".", label=f"{m}/{i}")
for m, pts in sorted(peers.items()):
    pts.sort()
    e = [p[0] for p in pts]
    a1.loglog([p[1] for p in pts], e, "k:", marker="x", label=f"scipy {m}")
    a2.loglog([p[2] for p in pts], e, "k:", marker="x", label=f"scipy {m}")
a1.set_xlabel("f-evaluations")
a2.set_xlabel("wall time per run [s] (best of 5; scipy best of 3, Python right-hand side)")
for a in (a1, a2):
    a.set_ylabel("final position error")
    a.grid(True, which="both", alpha=0.3)
a2.legend(fontsize=6, ncol=2)
fig.suptitle(f"{TITLES.get(problem, problem)}, mixed(tau) — measured {datetime.date.today()}")
fig.tight_layout()
fig.savefig(dst)
print("wrote", dst)
