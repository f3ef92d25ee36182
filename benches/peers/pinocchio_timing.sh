#!/bin/sh
# CRBA, RNEA rnea(q, v, a) and ABA per call, Pinocchio's C++ beside Contour, in one sitting, on
# UR5, Panda, xArm7, Kinova and Talos (full, 44 dof without its free flyer: the root link is
# the fixed base on both sides) from example-robot-data, 64 cycling states: builds
# benches/peers/pinocchio_timing.cpp against the `pin` wheel (its headers and libraries are in
# the wheel's cmeel prefix), builds the Contour bin `tree_timing` (debug profile = opt-level
# 3), runs them one after the other, and writes
# benches/peers/results/pinocchio_timing_<date>.csv with both sides and the ratios.
# -DBOOST_FUSION_INVOKE_MAX_ARITY=12 lets rnea(model, data, q, v, a) compile with these
# Boost headers. No -march=native: the wheel's library is built without it, and mixing the
# two changes Eigen's alignment (a crash at the first call).
# Usage: VENV=/tmp/venv sh benches/peers/pinocchio_timing.sh   (pip install pin example-robot-data cmeel-eigen cmeel-urdfdom-headers)
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${VENV:-/tmp/venv}
P=$(ls -d "$VENV"/lib/python3*/site-packages/cmeel.prefix)
R="$P/share/example-robot-data/robots"
OUT="$ROOT/benches/peers/results"
mkdir -p "$OUT"
[ /tmp/pinocchio_timing -nt "$ROOT/benches/peers/pinocchio_timing.cpp" ] || g++ -O3 -DNDEBUG -std=c++17 -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30 \
  -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 -DBOOST_FUSION_INVOKE_MAX_ARITY=12 -DPINOCCHIO_WITH_URDFDOM \
  -I"$P/include" -I"$P/include/eigen3" -I"$P/include/urdfdom_headers" -I"$P/include/urdfdom" \
  "$ROOT/benches/peers/pinocchio_timing.cpp" -o /tmp/pinocchio_timing \
  -L"$P/lib" -Wl,-rpath,"$P/lib" -lpinocchio_default -lpinocchio_parsers -lurdfdom_model \
  -lboost_filesystem 2>&1 | grep -v "deprecated" || true
(cd "$ROOT" && cargo build -q -p contour-benches --bin tree_timing)
ROBOTS="ur5=$R/ur_description/urdf/ur5_robot.urdf panda=$R/panda_description/urdf/panda.urdf \
xarm7=$R/xarm_description/urdf/xarm7.urdf kinova=$R/kinova_description/robots/kinova.urdf \
talos=$R/talos_data/robots/talos_full_v2.urdf"
# shellcheck disable=SC2086
/tmp/pinocchio_timing $ROBOTS > /tmp/pinocchio_timing.csv
# shellcheck disable=SC2086
"$ROOT/target/debug/tree_timing" $ROBOTS > /tmp/contour_timing.csv
DAY=$(date -u +%Y-%m-%d)
{
  echo "# $DAY Pinocchio $("$VENV"/bin/python -c 'import pinocchio; print(pinocchio.__version__)') (C++, pin wheel) and Contour (debug profile = opt-level 3), $(nproc) cores, $(uname -m), one sitting, 64 cycling states, fastest of 41 batches of >= 1 ms; ratio = Contour / Pinocchio"
  echo "robot,nv,pin_crba_upper_us,pin_crba_full_us,contour_crba_us,contour_crba_mechanism_us,crba_ratio_full,pin_rnea_us,contour_rnea_us,rnea_ratio,pin_aba_us,contour_aba_us,aba_ratio"
  paste -d, /tmp/pinocchio_timing.csv /tmp/contour_timing.csv | tail -n +2 | awk -F, '{
    best = ($9 < $10) ? $9 : $10;
    printf "%s,%s,%s,%s,%s,%s,%.2f,%s,%s,%.2f,%s,%s,%.2f\n", $1, $2, $3, $4, $9, $10, best / $4, $5, $11, $11 / $5, $6, $12, $12 / $6
  }'
} > "$OUT/pinocchio_timing_$DAY.csv"
cat "$OUT/pinocchio_timing_$DAY.csv"
