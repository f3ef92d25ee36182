"""The cost of the Python door: a whole simulation from Python against the same run from Rust
(the `rust_reference` example), and crba / rnea per call from Python against Rust and against
Pinocchio's Python binding (`pin`, when installed: its documented `pin.crba(model, data, q)`
calls, the way its Python users call it).

    python overhead.py [OUT_DIR] [RUST_REFERENCE_BINARY]
"""

import json
import pathlib
import subprocess
import sys
import time

import numpy as np

import contour

ROOT = pathlib.Path(__file__).resolve().parents[3]
binary = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT / "target" / "debug" / "examples" / "rust_reference"


def fastest_time(f, reps):
    """The fastest of `reps` runs: on a shared machine, load only ever adds time."""
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t0)
    return float(np.min(ts))


p = contour.model("pendulum")
q0, qd0 = p.initial_state(0.5)
t_eval = np.arange(1001) * 0.01
pendulum = fastest_time(lambda: contour.simulate(p, q0, qd0, (0.0, 10.0), atol=1e-8, t_eval=t_eval), 21)
panda = contour.Urdf("<panda>")
pq0 = np.array([0.1, -0.2, 0.3, -1.4, 0.5, 1.6, 0.7])
arm = fastest_time(lambda: contour.simulate(panda, pq0, np.zeros(7), (0.0, 1.0), method="direct", atol=1e-8), 11)

q, v, a = np.full(7, 0.3), np.full(7, 0.2), np.full(7, 0.1)
calls = 20_000


def loop(f):
    def run():
        for _ in range(calls):
            f()
    return fastest_time(run, 5) / calls


crba = loop(lambda: panda.crba(q))
rnea = loop(lambda: panda.rnea(q, v, a))

rust = None
if binary.exists():
    rust = json.loads(subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout)
else:
    print(f"{binary} is not built (cargo build -p contour-python --examples): Rust column empty")

pin_crba = pin_rnea = None
try:
    import pinocchio as pin
except ImportError:
    print("pin (Pinocchio) is not installed: its column is empty")
else:
    model = pin.buildModelFromUrdf(str(ROOT / "crates" / "model" / "data" / "panda.urdf"))
    data = model.createData()
    if model.nq == 7:
        pin_crba = loop(lambda: pin.crba(model, data, q))
        pin_rnea = loop(lambda: pin.rnea(model, data, q, v, a))


def cell(x, scale, unit):
    return "—" if x is None else f"{x * scale:.3g} {unit}"


print()
print("| what | Python | Rust | Python / Rust | Pinocchio (Python) |")
print("|---|---|---|---|---|")
if rust is not None and "pendulum_dyn_run_s" in rust:
    # The Python door holds every model as `&dyn Mechanism`: the same run in Rust that way.
    r = rust["pendulum_dyn_run_s"]
    print(f"| pendulum as in the first row, Rust through `&dyn Mechanism` | {cell(pendulum, 1e3, 'ms')} "
          f"| {cell(r, 1e3, 'ms')} | {pendulum / r:.3f} | — |")
for name, py, key, scale, unit, pin_val in [
    ("pendulum, perturbation + DOPRI5, 10 s, 1001 outputs (whole run)", pendulum, "pendulum_run_s", 1e3, "ms", None),
    ("Panda URDF, direct + DOPRI5, 1 s (whole run)", arm, "panda_run_s", 1e3, "ms", None),
    ("crba, Panda, per call", crba, "crba_call_s", 1e6, "µs", pin_crba),
    ("rnea, Panda, per call", rnea, "rnea_call_s", 1e6, "µs", pin_rnea),
]:
    r = None if rust is None else rust[key]
    ratio = "—" if r is None else f"{py / r:.3f}"
    print(f"| {name} | {cell(py, scale, unit)} | {cell(r, scale, unit)} | {ratio} | {cell(pin_val, scale, unit)} |")
