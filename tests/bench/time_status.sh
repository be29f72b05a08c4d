#!/usr/bin/env bash
# Times whole rocmtunectl commands (process start + detection + JSON output), for
# BENCHMARKS.md. Uses hyperfine when installed (Debian/Ubuntu: `sudo apt-get install hyperfine`),
# otherwise a bash loop. Prints median and mean per command. Never fails on a slow result:
# performance is reported, not asserted.
#
#   tests/bench/time_status.sh            # from the repository root, after `make`
#   RUNS=200 BUILD_DIR=build tests/bench/time_status.sh
#   FORCE_LOOP=1 tests/bench/time_status.sh   # use the bash loop even when hyperfine is there
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
ctl="$build/client/rocmtunectl"
runs="${RUNS:-50}"
warmup="${WARMUP:-5}"
worlds="$repo/tests/worlds"

if [[ ! -x "$ctl" ]]; then
  echo "time_status: $ctl not found; build first (make)" >&2
  exit 1
fi

names=("rocmtunectl --version (process-start floor)"
       "rocmtunectl --root tests/worlds/phoenix status --json"
       "rocmtunectl --root tests/worlds/mi300x-cpx status --json")
cmds=("$ctl --version"
      "$ctl --root $worlds/phoenix status --json"
      "$ctl --root $worlds/mi300x-cpx status --json")

# A systemd tool's bare process start on this machine, to compare with the D-Bus floor
# (BENCHMARKS.md: busctl call ~4.6 ms on this machine class); rocmtunectl --version is rocmtune's own floor.
if command -v busctl >/dev/null 2>&1; then
  names+=("busctl --version (systemd tool start, same machine)")
  cmds+=("$(command -v busctl) --version")
fi

# Sanity: every command must work before it is timed.
for c in "${cmds[@]}"; do
  if ! $c >/dev/null; then
    echo "time_status: '$c' failed; not timing a broken command" >&2
    exit 1
  fi
done

echo "machine: $(nproc) CPU(s), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), kernel $(uname -r)"
echo "runs: $runs (+$warmup warm-up) per command"
echo

if command -v hyperfine >/dev/null 2>&1 && [[ -z "${FORCE_LOOP:-}" ]]; then
  echo "timer: $(hyperfine --version) (-N: no intermediate shell)"
  json="$(mktemp --suffix=.json)"
  trap 'rm -f "$json"' EXIT
  args=()
  for i in "${!cmds[@]}"; do args+=(--command-name "${names[$i]}" "${cmds[$i]}"); done
  hyperfine -N --style basic --warmup "$warmup" --runs "$runs" --export-json "$json" "${args[@]}" >&2
  echo
  printf '%-58s %10s %10s %10s\n' command median_ms mean_ms min_ms
  if command -v jq >/dev/null 2>&1; then
    jq -r '.results[] | [.command, .median * 1000, .mean * 1000, .min * 1000] | @tsv' "$json"
  else
    python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("\t".join([r["command"]] + [str(r[k] * 1000) for k in ("median", "mean", "min")]))' "$json"
  fi |
    while IFS=$'\t' read -r name median mean min; do
      printf '%-58s %10.2f %10.2f %10.2f\n' "$name" "$median" "$mean" "$min"
    done
  exit 0
fi

echo "timer: bash loop (hyperfine not found; install it for better statistics:"
echo "       sudo apt-get install hyperfine   # Debian 12+/Ubuntu 22.04+; or: cargo install hyperfine)"
# EPOCHREALTIME (bash >= 5) reads the clock without a fork; otherwise `date +%s%N`, whose own
# process start then lands inside every sample (about 1 ms: subtract the 'true' row).
# now() sets NOW (ns) without a command substitution, so no subshell is forked per sample.
if [[ -n "${EPOCHREALTIME:-}" ]]; then
  now() { local t="${EPOCHREALTIME/[.,]/}"; NOW=$((10#$t * 1000)); }
  echo "clock: \$EPOCHREALTIME (no fork per sample)"
else
  now() { NOW="$(date +%s%N)"; }
  echo "clock: date +%s%N (includes starting date(1) once per sample)"
fi
echo

names=("/bin/true (fork+exec floor of this loop)" "${names[@]}")
cmds=("/bin/true" "${cmds[@]}")

printf '%-58s %10s %10s %10s\n' command median_ms mean_ms min_ms
for i in "${!cmds[@]}"; do
  c="${cmds[$i]}"
  for ((r = 0; r < warmup; r++)); do $c >/dev/null; done
  samples=()
  for ((r = 0; r < runs; r++)); do
    now; t0=$NOW
    $c >/dev/null
    now; t1=$NOW
    samples+=("$((t1 - t0))")
  done
  printf '%s\n' "${samples[@]}" | sort -n | awk -v name="${names[$i]}" '
    { v[NR] = $1; sum += $1 }
    END {
      med = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%-58s %10.2f %10.2f %10.2f\n", name, med / 1e6, sum / NR / 1e6, v[1] / 1e6
    }'
done
