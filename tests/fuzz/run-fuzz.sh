#!/bin/sh
# Runs every fuzz target of a ROCMTUNE_FUZZ build for FUZZ_SECONDS each (make fuzz).
# Usage: tests/fuzz/run-fuzz.sh BUILD_DIR [TARGET...]
# Each target starts from a scratch copy of tests/fuzz/corpus/<target> (new corpus files stay
# out of the tree: merge interesting ones by hand) and its reproducers; a crash is saved in
# BUILD_DIR/fuzz-out/<target>/ and fails the run. Prints executions and exec/s per target.
set -u
build=$1; shift
src=$(cd "$(dirname "$0")" && pwd)
seconds=${FUZZ_SECONDS:-60}
max_len=${FUZZ_MAX_LEN:-4096}
targets=${*:-$(cat "$src/targets")}
out="$build/fuzz-out"
failed=""
summary=""
for t in $targets; do
  bin="$build/tests/fuzz/rocmtune_fuzz_$t"
  [ -x "$bin" ] || { echo "fuzz: $bin missing (build it first)" >&2; exit 2; }
  rm -rf "${out:?}/${t:?}"; mkdir -p "$out/$t/corpus" "$out/$t/artifacts" "$out/$t/tmp"
  # repro/<target> exists once a crash was found there (git keeps no empty directory).
  repro=""
  [ -d "$src/repro/$t" ] && repro="$src/repro/$t"
  cp "$src/corpus/$t/"* "$out/$t/corpus/" 2>/dev/null
  # tests/fuzz/options/<target>: libFuzzer flags of that target alone, each with its reason there.
  flags=""
  [ -f "$src/options/$t" ] && flags=$(grep -v '^#' "$src/options/$t" | tr '\n' ' ')
  echo "== fuzz $t for ${seconds}s (-max_len=$max_len)"
  # TMPDIR: the targets' scratch worlds, removed with the rest of fuzz-out on the next run.
  TMPDIR="$out/$t/tmp" "$bin" -max_total_time="$seconds" -max_len="$max_len" -timeout=25 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$t/artifacts/" $flags "$out/$t/corpus" ${repro:+"$repro"} \
    > "$out/$t/log" 2>&1
  rc=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/$t/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/$t/log" | tail -1)
  crashes=$(ls "$out/$t/artifacts" 2>/dev/null | tr '\n' ' ')
  line=$(printf '%-15s %10s execs %7s exec/s  %s' "$t" "${execs:-?}" "${rate:-?}" "${crashes:-no crash}")
  echo "$line"
  summary="$summary$line
"
  if [ $rc -ne 0 ] || [ -n "$crashes" ]; then
    failed="$failed $t"
    grep -m3 -E "ERROR: |runtime error|SUMMARY" "$out/$t/log" | sed 's/^/    /'
    echo "    log: $out/$t/log"
  fi
done
echo
echo "== fuzz summary (${seconds}s each)"
printf '%s' "$summary"
[ -z "$failed" ] || { echo "fuzz: crashes in:$failed (reproducers in $out/<target>/artifacts)" >&2; exit 1; }
