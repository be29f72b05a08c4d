#!/usr/bin/env bash
# Times the live root's extra step, asking rocm-smi-lib in a child process (sys/rocm_smi.h), for
# BENCHMARKS.md "Live facts": a world is placed over the real /sys paths in a private mount
# namespace (tests/integration/rsmi_world.sh, as the rocm_smi_live test does) and, inside,
#   - `status --json` on the live root (detection + rocm-smi-lib's child: fork, dlopen, rsmi_init,
#     every value, rsmi_shut_down);
#   - `--root COPY status --json` (the same files as a world: no rocm-smi-lib);
#   - `check-compute --json` on the live root (no rocm-smi-lib) and `doctor --json` (with it).
# Needs root, unshare, librocm_smi64.so.1 and hyperfine.
#   tests/bench/time_live.sh                 # from the repository root, after `make`
#   RUNS=50 WORLDS="phoenix strixpoint" tests/bench/time_live.sh
set -u
set -o pipefail
SELF=$(readlink -f "$0")
SRC="$(cd "$(dirname "$SELF")/../.." && pwd)"
# shellcheck source=../integration/rsmi_world.sh
. "$SRC/tests/integration/rsmi_world.sh"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

time_cmds() {  # time_cmds JSON NAME CMD [NAME CMD...]: one table row per command, in ms
  local json=$1 args=()
  shift
  while [ $# -gt 0 ]; do args+=(--command-name "$1" "$2"); shift 2; done
  hyperfine -N --style none --warmup 3 --runs "$RUNS" --export-json "$json" "${args[@]}" >"$json.log" 2>&1 ||
    fail "hyperfine failed: $(tail -5 "$json.log")"
  /usr/bin/python3 -c 'import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print("| %s | %.2f | %.2f | %.2f |" % (r["command"], r["median"]*1000, r["mean"]*1000, r["min"]*1000))' "$json"
}

if [ "${1:-}" = "--inside" ]; then
  tmp=$2 ctl=$3 world=$4
  rsmi_place_world "$tmp" >/dev/null || exit 77
  "$ctl" status --json | /usr/bin/python3 -c 'import json, sys
d = json.load(sys.stdin)
live = [g.get("live") for g in d["gpus"]]
assert live and all(l and l["library_version"] for l in live), "rocm-smi-lib gave no live facts here"' ||
    fail "status on the live root has no live facts (rocm-smi-lib did not answer)"
  time_cmds "$tmp/h.json" \
    "status --json, live root ($world)" "$ctl status --json" \
    "status --json --root COPY ($world)" "$ctl --root $tmp/world status --json" \
    "check-compute --json, live root ($world)" "$ctl check-compute --json" \
    "doctor --json, live root ($world)" "$ctl doctor --json"
  exit 0
fi

build="${BUILD_DIR:-build}"
case "$build" in /*) ;; *) build="$SRC/$build" ;; esac
CTL=$build/client/rocmtunectl
export RUNS=${RUNS:-30}
WORLDS=${WORLDS:-"phoenix strixpoint"}
[ -x "$CTL" ] || fail "$CTL missing (run make first)"
rsmi_require_namespace
ldconfig_list="$(ldconfig -p)"
grep -q 'librocm_smi64\.so\.1 ' <<<"$ldconfig_list" || skip "librocm_smi64.so.1 not installed (librocm-smi64-1)"
command -v hyperfine >/dev/null || skip "hyperfine is needed (apt-get install hyperfine)"

echo "machine: $(nproc) CPU(s), kernel $(uname -r); runs: $RUNS per command"
echo
echo "| command | median ms | mean ms | min ms |"
echo "|---|---:|---:|---:|"
for world in $WORLDS; do
  (
    rsmi_copy_world "$SRC/tests/worlds/$world" rocmtune-time-live >/dev/null
    rsmi_prepare_copy "$W" >/dev/null
    rsmi_run_inside "$CTL" "$world"
  ) || exit $?
done
