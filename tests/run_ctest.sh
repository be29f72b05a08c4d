#!/bin/bash
# One ctest run of a make target (check, check-system, asan), from its build folder:
#   tests/run_ctest.sh NAME [CTEST ARGUMENTS...]
# - the results, skips and their reasons included, go to Testing/NAME.xml (JUnit) for CI's skip
#   check (tests/check_skips.py --allowed tests/allowed-skips.txt, in .ci/run); the skipped tests
#   and their reasons are printed at the end;
# - every process the tests start carries ROCMTUNE_TEST_RUN=NAME-<uuid> in its environment, and
#   the run fails if one is still alive after ctest (tests/leftover_processes.sh), which then ends
#   them, so they do not pile up on CI's machine run after run;
# - with --tmpfs, the tests' temporary trees (TMPDIR) go to a directory of their own on /dev/shm
#   when that is a tmpfs where files can be executed, else stay where TMPDIR says. Copying a world
#   is mostly mkdir and small files: 2.1 s for mi300x-cpx on this disk (ext4), 0.17 s on tmpfs.
#   What the tests check does not change: they kill processes, not the power, so fsync and rename
#   behave alike on both. The directory is removed at the end. ROCMTUNE_TEST_TMPFS=0 turns it off.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmpfs=0
[ "${1:-}" = --tmpfs ] && { tmpfs=1; shift; }
[ $# -ge 1 ] || { echo "usage: $0 [--tmpfs] NAME [CTEST ARGUMENTS...]" >&2; exit 2; }
name=$1
shift
if [ $tmpfs = 1 ] && [ "${ROCMTUNE_TEST_TMPFS:-1}" != 0 ]; then
  if tmp=$("$here/tmpfs_dir.sh" "$name"); then
    export TMPDIR=$tmp
    trap 'rm -rf "$tmp"' EXIT
    echo "== test trees on tmpfs: TMPDIR=$tmp"
  else
    echo "== test trees in ${TMPDIR:-/tmp} (no usable tmpfs: see tests/tmpfs_dir.sh)"
  fi
fi
ROCMTUNE_TEST_RUN="$name-$(cat /proc/sys/kernel/random/uuid)"
export ROCMTUNE_TEST_RUN
results=Testing/$name.xml
# A stale file from an earlier run would let the skip check read old results.
rm -f "$results"
rc=0
ctest --output-junit "$results" "$@" || rc=1
/usr/bin/python3 "$here/check_skips.py" --report "$results"
echo "== processes the tests left running (ROCMTUNE_TEST_RUN=$ROCMTUNE_TEST_RUN)"
if "$here/leftover_processes.sh" "ROCMTUNE_TEST_RUN=$ROCMTUNE_TEST_RUN"; then
  echo "none"
else
  rc=1
  "$here/leftover_processes.sh" --kill "ROCMTUNE_TEST_RUN=$ROCMTUNE_TEST_RUN"
fi
exit $rc
