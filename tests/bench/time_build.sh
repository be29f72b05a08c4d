#!/usr/bin/env bash
# The CPU a cold full build costs (BENCHMARKS.md, "CI"): a fresh build folder configured as
# `make check` configures it (RelWithDebInfo, no compiler launcher), built without ccache, timed
# with /usr/bin/time. On a shared machine the wall time says little: the CPU seconds (user + sys of
# every compiler) do, and CPU / 2 estimates the build on CI's 2 idle cores.
#
#   tests/bench/time_build.sh [BUILD_DIR [CMAKE_ARGS...]]     # default build-time; removed first
#   tests/bench/time_build.sh build-g -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g -DNDEBUG"   # -g, not -g1
#   tests/bench/time_build.sh build-1by1 -DROCMTUNE_UNITY_BUILD=OFF                           # no unity build
# Prints the time line and the most expensive steps (from .ninja_log: wall ms, so only a ranking).
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-build-time}"
shift || true
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
[ -x /usr/bin/time ] || { echo "time_build.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 2; }

rm -rf "$build"
export CCACHE_DISABLE=1
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "$@" >/dev/null
/usr/bin/time -f '%U user %S sys %e wall' -o "$build/build-time.txt" cmake --build "$build" -j "${JOBS:-2}" >/dev/null
read -r user _ sys _ wall _ <"$build/build-time.txt"
awk -v u="$user" -v s="$sys" -v w="$wall" 'BEGIN {
  printf "cold build: %.0f CPU s (user %.0f + sys %.0f), %.0f s wall; on 2 idle cores about %.1f min\n",
         u + s, u, s, w, (u + s) / 2 / 60 }'
echo "most expensive steps (wall ms):"
awk 'NR > 1 { print $2 - $1, $4 }' "$build/.ninja_log" | sort -rn | head -15
