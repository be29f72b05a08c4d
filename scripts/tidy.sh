#!/bin/sh
# Runs clang-tidy 14 with the repository's .clang-tidy over the sources of core/, helper/, client/ and
# daemon/ (not tests/: gtest's macros trip the class-design checks, and they would double the time).
#   scripts/tidy.sh [BUILD_DIR [REGEX]]    BUILD_DIR (default build/tidy, what `make lint` configures)
#                                          must be configured with -DROCMTUNE_UNITY_BUILD=OFF: it holds
#                                          compile_commands.json, one command per source; REGEX narrows
#                                          the files (e.g. core/knobs/)
#   TIDY_UNITY=1 scripts/tidy.sh BUILD_DIR    checks a unity build's batches instead (BUILD_DIR configured
#                                          with the unity build, as `make lint LINT_UNITY=1` does): the
#                                          same checks on the same code, each batch's headers parsed once,
#                                          about 8 times less CPU (BENCHMARKS.md, CI); what it cannot see
#                                          is a source missing an include another source of its batch had
# Exit 1 when any finding is reported: every enabled check is an error (WarningsAsErrors in .clang-tidy).
# JOBS sets the parallel clang-tidy processes (default: nproc); TIDY_CHECKS adds to .clang-tidy's checks
# (e.g. TIDY_CHECKS='clang-analyzer-*' for a slower, deeper run).
set -eu
cd "$(dirname "$0")/.."
build=${1:-build/tidy}
filter=${2:-}

RUN_CLANG_TIDY=${RUN_CLANG_TIDY:-run-clang-tidy-14}
CLANG_TIDY=${CLANG_TIDY:-clang-tidy-14}
for tool in "$RUN_CLANG_TIDY" "$CLANG_TIDY"; do
  command -v "$tool" >/dev/null 2>&1 || {
    echo "tidy.sh: $tool not found (Debian: apt-get install clang-tidy-14, or scripts/install-deps.sh)" >&2; exit 2; }
done
[ -f "$build/compile_commands.json" ] || {
  echo "tidy.sh: no $build/compile_commands.json: configure first (make lint does)" >&2; exit 2; }
# A unity build's commands name Unity/unity_N_cxx.cxx, not the sources: nothing would be checked,
# unless TIDY_UNITY=1 asks for those batches.
unity=${TIDY_UNITY:-0}
if [ "$unity" = 1 ]; then
  grep -q '/Unity/unity_[0-9]*_cxx\.cxx"' "$build/compile_commands.json" || {
    echo "tidy.sh: TIDY_UNITY=1 but $build is not a unity build" >&2; exit 2; }
elif grep -q '/Unity/unity_[0-9]*_cxx\.cxx"' "$build/compile_commands.json"; then
  echo "tidy.sh: $build is a unity build; clang-tidy needs one command per source:" \
    "configure with -DROCMTUNE_UNITY_BUILD=OFF (make lint uses build/tidy)" >&2
  exit 2
fi

# Sources only, by absolute path as compile_commands.json names them: generated files under the build
# folder (the embedded data) are left out. Headers are checked through the sources that include them.
files="^$(pwd -P)/(core|helper|client|daemon)/.*${filter}"
[ -n "$filter" ] && files="^$(pwd -P)/.*${filter}"
# The batches of the programs' and libraries' targets (those of tests/ are left out as above); the
# sources they include are reported through .clang-tidy's HeaderFilterRegex.
[ "$unity" = 1 ] && files="^$(cd "$build" && pwd -P)/(core|helper|client|daemon)/.*/Unity/unity_[0-9]*_cxx\.cxx$"
# A batch is nothing but #include "x.cc" lines, which bugprone-suspicious-include exists to flag.
checks=${TIDY_CHECKS:-}
[ "$unity" = 1 ] && checks="${checks:+$checks,}-bugprone-suspicious-include"

# The result cache (scripts/tidy_cache.py): only sources whose preprocessed text (headers, macros,
# comments), flags, or checks changed since they last passed clean are checked again. TIDY_CACHE
# names its directory (default ~/.cache/rocmtune/clang-tidy, outside the clone); TIDY_CACHE=0
# checks everything.
cache=${TIDY_CACHE-${XDG_CACHE_HOME:-$HOME/.cache}/rocmtune/clang-tidy}
[ -z "$cache" ] && cache=0
keys=""
if [ "$cache" != 0 ]; then
  salt=$(mktemp) keys=$(mktemp)
  trap 'rm -f "$salt" "$keys"' EXIT
  { "$CLANG_TIDY" --version
    find . -path './build*' -prune -o -name .clang-tidy -print | sort | xargs cat
    printf 'checks=%s unity=%s\n' "$checks" "$unity"
    cat "$0"; } >"$salt"
  cache_start=$(date +%s)
  todo=$(/usr/bin/python3 scripts/tidy_cache.py misses "$build" "$files" "$cache" "$salt" "$keys")
  checked=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["checked"])' "$keys")
  todo_n=$(printf '%s' "$todo" | grep -c . || true)
  echo "tidy.sh: $todo_n of $checked source(s) changed since they last passed clean" \
    "($(($(date +%s) - cache_start)) s to tell; cache: $cache)"
  if [ "$todo_n" = 0 ]; then
    echo "tidy.sh: 0 finding(s): nothing to check again"
    exit 0
  fi
  files=$(printf '%s\n' "$todo" | /usr/bin/python3 -c 'import re,sys; print("^(" + "|".join(re.escape(l.rstrip("\n")) for l in sys.stdin if l.strip()) + ")$")')
fi

# -Wno-error: the build's -Werror is gcc's contract; clang's own warnings are not what this run checks
# (.clang-tidy disables clang-diagnostic-*), and -Werror would turn them into errors nothing can filter.
start=$(date +%s)
set +e
"$RUN_CLANG_TIDY" -clang-tidy-binary "$(command -v "$CLANG_TIDY")" -p "$build" -j "${JOBS:-$(nproc)}" -quiet \
  ${checks:+-checks="$checks"} -extra-arg=-Wno-error "$files" >"$build/clang-tidy.raw" 2>&1
rc=$?
sed 's/\x1b\[[0-9;]*m//g' "$build/clang-tidy.raw" >"$build/clang-tidy.log"  # run-clang-tidy forces --use-color
rm -f "$build/clang-tidy.raw"
set -e
# run-clang-tidy prints each command and clang's "N warnings generated" noise: keep the findings.
grep -v -e '^[^ ]*clang-tidy[^ ]* --use-color' -e '^[0-9]* warnings\? \(and [0-9]* errors\? \)\?generated\.$' \
  -e '^Suppressed [0-9]* warnings' -e '^Use -header-filter=' -e '^Running clang-tidy for' \
  "$build/clang-tidy.log" || true
# A finding in a header is reported once per source including it: count each place once.
n=$(grep '^/.*: \(warning\|error\): .* \[[a-z0-9.,-]*\]$' "$build/clang-tidy.log" | sort -u | wc -l)
echo "tidy.sh: $n finding(s) in $(($(date +%s) - start)) s (full log: $build/clang-tidy.log)"
[ "$rc" = 0 ] && [ "$n" = 0 ] || exit 1
# Clean: these sources need no check until what clang-tidy reads of them changes.
[ -z "$keys" ] || /usr/bin/python3 scripts/tidy_cache.py store "$cache" "$keys"
