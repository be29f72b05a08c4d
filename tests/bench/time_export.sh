#!/bin/bash
# BENCHMARKS.md "The fleet export": what rocmtune-export.timer's job costs each minute. On the
# largest world (mi300x-cpx: 64 partitions) and a one-GPU one (rx6900xt), without live facts
# (worlds have none): `status --json` (the assessment alone, the floor), `export` in each format,
# and `export --write` of both formats through the helper (a copy of the world with export.toml).
# Needs hyperfine. RUNS=40 by default.
set -u
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CTL=${BUILD_DIR:-$SRC/build}/client/rocmtunectl
RUNS=${RUNS:-40}
command -v hyperfine >/dev/null || { echo "hyperfine is not installed (apt-get install hyperfine)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for w in mi300x-cpx rx6900xt; do
  cp -a "$SRC/tests/worlds/$w" "$T/$w"
  mkdir -p "$T/$w/etc/rocmtune" "$T/$w/textfile" "$T/$w/features.d"
  printf '[prometheus]\nenabled = true\ndirectory = "/textfile"\n[nfd]\nenabled = true\ndirectory = "/features.d"\n' \
    >"$T/$w/etc/rocmtune/export.toml"
  hyperfine -N --style basic --warmup 3 --runs "$RUNS" \
    -n "$w status --json" "$CTL --root $T/$w status --json" \
    -n "$w export (prometheus)" "$CTL --root $T/$w export --no-live" \
    -n "$w export --format nfd" "$CTL --root $T/$w export --no-live --format nfd" \
    -n "$w export --write (both, helper)" "$CTL --root $T/$w export --no-live --write" 2>&1 | grep -E "^Benchmark|Time"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
