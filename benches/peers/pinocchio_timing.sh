#!/bin/sh
# CRBA, RNEA rnea(q, v, a) and ABA per call, Pinocchio's C++ beside Contour, in one sitting, on
# UR5, Panda, xArm7, Kinova and Talos (full, 44 dof without its free flyer: the root link is
# the fixed base on both sides) from example-robot-data, 64 cycling states: builds
# benches/peers/pinocchio_timing.cpp against the `pin` wheel (its headers and libraries are in
# the wheel's cmeel prefix) and the Contour bin `tree_timing` (debug profile = opt-level 3),
# then runs the two one after the other ROUNDS times (default 3) and keeps, per robot and
# column, the fastest of the rounds. Writes benches/peers/results/pinocchio_timing_<date>.csv
# with both sides and the ratios, like for like: CRBA upper triangle (Pinocchio's `crba`
# against `mass_matrix_upper_with`) and both triangles (Pinocchio's `crba` plus the copy of
# the upper triangle into the lower one, against `mass_matrix_with`).
# With CALLGRIND=1 it writes instead pinocchio_instructions_<date>.csv: instructions per call
# under `valgrind --tool=callgrind` (load-independent) from the timers' --calls=N modes, the
# difference of 0 and 4000 calls over 4000.
# -DBOOST_FUSION_INVOKE_MAX_ARITY=12 lets rnea(model, data, q, v, a) compile with these
# Boost headers. No -march=native: the wheel's library is built without it, and mixing the
# two changes Eigen's alignment (a crash at the first call).
# Usage: VENV=/tmp/venv sh benches/peers/pinocchio_timing.sh   (pip install pin example-robot-data cmeel-eigen cmeel-urdfdom-headers)
# On a shared machine, build first (BUILD_ONLY=1), then time alone (NO_BUILD=1), e.g. under a
# tool that gives the run a dedicated core.
set -e
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VENV=${VENV:-/tmp/venv}
ROUNDS=${ROUNDS:-3}
P=$(ls -d "$VENV"/lib/python3*/site-packages/cmeel.prefix)
R="$P/share/example-robot-data/robots"
OUT="$ROOT/benches/peers/results"
PIN=${PIN:-/tmp/pinocchio_timing}
OURS="$ROOT/target/debug/tree_timing"
mkdir -p "$OUT"
if [ -z "$NO_BUILD" ]; then
  [ "$PIN" -nt "$ROOT/benches/peers/pinocchio_timing.cpp" ] || g++ -O3 -DNDEBUG -std=c++17 -DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS -DBOOST_MPL_LIMIT_LIST_SIZE=30 \
    -DBOOST_MPL_LIMIT_VECTOR_SIZE=30 -DBOOST_FUSION_INVOKE_MAX_ARITY=12 -DPINOCCHIO_WITH_URDFDOM \
    -I"$P/include" -I"$P/include/eigen3" -I"$P/include/urdfdom_headers" -I"$P/include/urdfdom" \
    "$ROOT/benches/peers/pinocchio_timing.cpp" -o "$PIN" \
    -L"$P/lib" -Wl,-rpath,"$P/lib" -lpinocchio_default -lpinocchio_parsers -lurdfdom_model \
    -lboost_filesystem 2>&1 | grep -v "deprecated" || true
  (cd "$ROOT" && cargo build -q -p contour-benches --bin tree_timing)
fi
[ -z "$BUILD_ONLY" ] || exit 0
ROBOTS="ur5=$R/ur_description/urdf/ur5_robot.urdf panda=$R/panda_description/urdf/panda.urdf \
xarm7=$R/xarm_description/urdf/xarm7.urdf kinova=$R/kinova_description/robots/kinova.urdf \
talos=$R/talos_data/robots/talos_full_v2.urdf"
DAY=$(date -u +%Y-%m-%d)
if [ -z "$CALLGRIND" ]; then
: > /tmp/pinocchio_timing.csv
: > /tmp/contour_timing.csv
i=0
while [ "$i" -lt "$ROUNDS" ]; do
  # shellcheck disable=SC2086
  "$PIN" $ROBOTS | tail -n +2 >> /tmp/pinocchio_timing.csv
  # shellcheck disable=SC2086
  "$OURS" $ROBOTS | tail -n +2 >> /tmp/contour_timing.csv
  i=$((i + 1))
done
# fastest round per robot and column (the order of first appearance kept)
best() {
  awk -F, '{ if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
             for (c = 2; c <= NF; c++) if (!(($1, c) in v) || $c < v[$1, c]) v[$1, c] = $c; nf = NF }
           END { for (k = 1; k <= n; k++) { r = order[k]; line = r
                 for (c = 2; c <= nf; c++) line = line "," v[r, c]; print line } }' "$1"
}
best /tmp/pinocchio_timing.csv > /tmp/pinocchio_best.csv
best /tmp/contour_timing.csv > /tmp/contour_best.csv
{
  echo "# $DAY Pinocchio $("$VENV"/bin/python -c 'import pinocchio; print(pinocchio.__version__)') (C++, pin wheel) and Contour (debug profile = opt-level 3), $(nproc) core(s) visible to the run, $(uname -m), one sitting, $ROUNDS alternating rounds (fastest kept), 64 cycling states, fastest of 41 batches of >= 1 ms; ratio = Contour / Pinocchio"
  echo "robot,nv,pin_crba_upper_us,contour_crba_upper_us,crba_ratio_upper,pin_crba_full_us,contour_crba_us,contour_crba_mechanism_us,crba_ratio_full,pin_rnea_us,contour_rnea_us,rnea_ratio,pin_aba_us,contour_aba_us,aba_ratio"
  # pin: robot,nv,crba,crba_full,rnea,aba ($1-$6); contour: robot,nv,crba,crba_mechanism,crba_upper,rnea,aba ($7-$13)
  paste -d, /tmp/pinocchio_best.csv /tmp/contour_best.csv | awk -F, '{
    printf "%s,%s,%s,%s,%.2f,%s,%s,%s,%.2f,%s,%s,%.2f,%s,%s,%.2f\n", $1, $2, $3, $11, $11 / $3, $4, $9, $10, $9 / $4, $5, $12, $12 / $5, $6, $13, $13 / $6
  }'
} > "$OUT/pinocchio_timing_$DAY.csv"
cat "$OUT/pinocchio_timing_$DAY.csv"
exit 0
fi
ir() { # ir BIN ALGO ROBOT=PATH: instructions per call
  a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --calls=0 --only="$2" "$3" 2>&1 | awk '/Collected/{print $4}')
  b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" --calls=4000 --only="$2" "$3" 2>&1 | awk '/Collected/{print $4}')
  echo $(((b - a) / 4000))
}
{
  echo "# $DAY instructions per call (valgrind --tool=callgrind, load-independent), 64 cycling states; ratio = Contour / Pinocchio"
  echo "robot,pin_crba_upper,contour_crba_upper,ratio,pin_crba_full,contour_crba,ratio,pin_rnea,contour_rnea,ratio,pin_aba,contour_aba,ratio"
  for rp in $ROBOTS; do
    r=${rp%%=*}
    line=$r
    for pair in crba:crba_upper crba_full:crba rnea:rnea aba:aba; do
      p=$(ir "$PIN" "${pair%%:*}" "$rp")
      c=$(ir "$OURS" "${pair##*:}" "$rp")
      line="$line,$p,$c,$(awk -v c="$c" -v p="$p" 'BEGIN { printf "%.2f", c / p }')"
    done
    echo "$line"
  done
} > "$OUT/pinocchio_instructions_$DAY.csv"
cat "$OUT/pinocchio_instructions_$DAY.csv"
