"""Draws benches/peers/results/andrews_work_precision.svg from the CSV written by
`cargo run --release -p contour-benches --bin andrews_work_precision` (issue 13): final
position error against the IVP test set's reference vs f-evaluations and vs wall time, every
method x integrator. Not run in CI. Needs matplotlib (pip install matplotlib)."""
import csv
import datetime
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("svg")
import matplotlib.pyplot as plt  # noqa: E402

src = sys.argv[1] if len(sys.argv) > 1 else "benches/peers/results/andrews_work_precision.csv"
dst = src.replace(".csv", ".svg")
runs = defaultdict(list)
with open(src) as f:
    for r in csv.DictReader(f):
        if r["status"] == "ok":
            runs[(r["method"], r["integrator"])].append(
                (float(r["error"]), int(r["f_evals"]), float(r["seconds"]))
            )
fig, (a1, a2) = plt.subplots(1, 2, figsize=(13, 6))
for (m, i), pts in sorted(runs.items()):
    pts.sort()
    style = "-" if i in ("abm", "dopri5") else "--"
    e = [p[0] for p in pts]
    a1.loglog([p[1] for p in pts], e, style, marker=".", label=f"{m}/{i}")
    a2.loglog([p[2] for p in pts], e, style, marker=".", label=f"{m}/{i}")
a1.set_xlabel("f-evaluations")
a2.set_xlabel("wall time per run [s] (best of 5)")
for a in (a1, a2):
    a.set_ylabel("max relative error of q(0.03) vs IVP test set")
    a.grid(True, which="both", alpha=0.3)
a2.legend(fontsize=6, ncol=2)
fig.suptitle(
    f"Andrews' squeezer, mixed(tau), tau = 1e-3 ... 1e-11 — measured {datetime.date.today()}"
)
fig.tight_layout()
fig.savefig(dst)
print("wrote", dst)
