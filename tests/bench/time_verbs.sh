#!/usr/bin/env bash
# Whole rocmtunectl commands against Python's start and against another build (BENCHMARKS.md
# "Before Python starts"), in alternated pairs (tests/bench/pairs.py: A and B back to back, the
# median of the pairs' wall-time ratios and of their CPU-time ratios, which the load hardly moves):
#   1. `/usr/bin/python3 -c pass` (the reference: Debian's interpreter, its site-packages, no
#      venv) against `rocmtunectl --root WORLD check-compute --json` on a one-GPU world (target:
#      B/A <= 0.5);
#   2. with BASE_DIR, a build of the commit to compare: its rocmtunectl (A) against this build's
#      (B) for status, doctor, export and check-compute on WORLD and on mi300x-cpx (64 partitions):
#      B/A below 1 is faster.
# Worlds have no live facts (no rocm-smi-lib child) and --root asks no power-profiles-daemon.
# check-compute and doctor exit 1 on these worlds (a GPU that is not ready): that counts as success.
#   tests/bench/time_verbs.sh                                  # from the repository root, after `make`
#   PAIRS=50 WORLD=phoenix BASE_DIR=/path/to/main/build tests/bench/time_verbs.sh
set -eu
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$SRC/$build" ;; esac
CTL=$build/client/rocmtunectl
PAIRS=${PAIRS:-30} WARMUP=${WARMUP:-5} WORLD=${WORLD:-rx5700xt}
PYTHON=${PYTHON:-/usr/bin/python3}
export PAIRS_OK_EXIT=0,1
[ -x "$CTL" ] || { echo "time_verbs: $CTL not found; build first" >&2; exit 1; }
pairs() { /usr/bin/python3 "$SRC/tests/bench/pairs.py" "$PAIRS" "$WARMUP" "$@"; }

echo "machine: $(nproc) CPU(s), kernel $(uname -r); reference: $PYTHON ($("$PYTHON" --version 2>&1))"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| B / A | pairs | A median ms | B median ms | A min ms | B min ms | median of B/A | B/A of medians | A CPU ms | B CPU ms | median of B/A CPU |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
W=$SRC/tests/worlds/$WORLD
pairs "python3 -c pass" "check-compute --json ($WORLD)" -- "$PYTHON" -c pass -- "$CTL" --root "$W" check-compute --json
pairs "python3 -c pass" "status --json ($WORLD)" -- "$PYTHON" -c pass -- "$CTL" --root "$W" status --json
if [ -n "${BASE_DIR:-}" ]; then
  BASE=$BASE_DIR/client/rocmtunectl
  [ -x "$BASE" ] || { echo "time_verbs: $BASE not found" >&2; exit 1; }
  for world in "$WORLD" mi300x-cpx; do
    W=$SRC/tests/worlds/$world
    for verb in "check-compute --json" "status --json" "doctor --json" "export --no-live"; do
      # shellcheck disable=SC2086 # the verb's words
      pairs "before: $verb ($world)" "after" -- "$BASE" --root "$W" $verb -- "$CTL" --root "$W" $verb
    done
  done
fi
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
