#!/bin/sh
# Builds benches/peers/pinocchio_timing.cpp against the `pin` wheel (Pinocchio 4.1, with
# cmeel-eigen for the Eigen headers) and writes benches/peers/results/pinocchio_timing.csv.
# No -march=native: the wheel's library is built without it, and mixing the two changes
# Eigen's alignment (a crash at the first call).
# Usage: VENV=/tmp/venv sh benches/peers/pinocchio_timing.sh   (pip install pin cmeel-eigen cmeel-urdfdom-headers)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${VENV:-/tmp/venv}
P=$(ls -d "$VENV"/lib/python3*/site-packages/cmeel.prefix)
OUT="$ROOT/benches/peers/results"
mkdir -p "$OUT"
g++ -O3 -DNDEBUG -std=c++17 -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30 -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 -DPINOCCHIO_WITH_URDFDOM -I"$P/include" -I"$P/include/eigen3" -I"$P/include/urdfdom_headers" -I"$P/include/urdfdom" \
  "$ROOT/benches/peers/pinocchio_timing.cpp" -o /tmp/pinocchio_timing \
  -L"$P/lib" -Wl,-rpath,"$P/lib" -lpinocchio_default -lpinocchio_parsers -lurdfdom_model \
  -lboost_filesystem 2>&1 | grep -v "deprecated" || true
{ echo "# $(date -u +%Y-%m-%d) Pinocchio $("$VENV"/bin/python -c 'import pinocchio; print(pinocchio.__version__)'), $(nproc) cores, $(uname -m)"; /tmp/pinocchio_timing "$ROOT"; } > "$OUT/pinocchio_timing.csv"
cat "$OUT/pinocchio_timing.csv"
