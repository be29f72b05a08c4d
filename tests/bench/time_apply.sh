#!/usr/bin/env bash
# Times whole changing commands on a copy of a world, for BENCHMARKS.md: a set that commits a
# transaction (plan, helper, journal, fsyncs), the same set again (nothing to do: plan only),
# the revert, and a profile applied (profile store, match, desired state) and applied again. The copy is refreshed before every timed run and not counted. Uses hyperfine
# (sudo apt-get install hyperfine); performance is reported, never asserted.
#
#   tests/bench/time_apply.sh                 # from the repository root, after `make`
#   RUNS=30 WORLD=mi300x-cpx tests/bench/time_apply.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$repo/$build" ;; esac
ctl="$build/client/rocmtunectl"
runs="${RUNS:-20}"
world="$repo/tests/worlds/${WORLD:-mi210x8}"
knobs="${KNOBS:-amdgpu.noretry=1 cmdline.iommu=pt}"
profile="${PROFILE:-instinct}"

if [[ ! -x "$ctl" ]]; then echo "time_apply: $ctl not found; build first (make)" >&2; exit 1; fi
if ! command -v hyperfine >/dev/null 2>&1; then
  echo "time_apply: needs hyperfine (sudo apt-get install hyperfine)" >&2; exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy="$work/w"
fresh="rm -rf $copy && cp -a $world $copy"
applied="$fresh && $ctl --root $copy set $knobs >/dev/null"
profiled="$fresh && $ctl --root $copy apply $profile >/dev/null"

echo "machine: $(nproc) CPU(s), kernel $(uname -r); world $(basename "$world"); knobs: $knobs; profile: $profile"
echo "runs: $runs per command; the world copy is prepared outside the timing"
hyperfine -N --style basic --runs "$runs" \
  --prepare "bash -c '$fresh'" --command-name "set (commits a transaction)" "$ctl --root $copy set $knobs" \
  --prepare "bash -c '$applied'" --command-name "set again (already so: plan only)" "$ctl --root $copy set $knobs" \
  --prepare "bash -c '$applied'" --command-name "revert last" "$ctl --root $copy revert last" \
  --prepare "bash -c '$fresh'" --command-name "set --check (plan, no helper)" "$ctl --root $copy set $knobs --check" \
  --prepare "bash -c '$fresh'" --command-name "apply $profile (commits a transaction)" "$ctl --root $copy apply $profile" \
  --prepare "bash -c '$profiled'" --command-name "apply $profile again (plan only)" "$ctl --root $copy apply $profile"
