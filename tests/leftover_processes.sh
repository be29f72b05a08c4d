#!/bin/bash
# Processes a test run left behind, found by a mark in their environment rather than by their pid
# or command line: a pid names whichever process the shell forked (a subshell, a wrapper), and a
# command line need not name the test's files (polkitd, a helper), but the environment is
# inherited by every child and /proc/PID/environ keeps the one a process started with
# (proc(5)), whatever it did to its own copy since.
#   tests/leftover_processes.sh NAME=VALUE          list them; exit 1 if there is one
#   tests/leftover_processes.sh --kill NAME=VALUE   end them (SIGTERM, then SIGKILL after 2 s)
# The mark: ROCMTUNE_TEST_RUN (set by `make check`, `make check-system` and `make asan` for the
# whole ctest run) and ROCMTUNE_TEST_WORK (set for one test by tests/daemon/suite/fixture.py and
# tests/daemon/bus_fixture.sh).
# This script and its ancestors carry the mark too and are not counted. A process that is started
# with an emptied environment (env -i; systemd-socket-activate keeps only TERM, PATH, USER and
# HOME unless given -E) is not marked: pass the mark on (-E NAME) where a test starts one.
# Only builtins run inside the scan, so the scan starts no marked process of its own.
set -u
kill_them=0
if [ "${1:-}" = --kill ]; then kill_them=1; shift; fi
[ $# = 1 ] && [[ $1 == ?*=* ]] || { echo "usage: $0 [--kill] NAME=VALUE" >&2; exit 2; }
mark=$1

# This shell and every ancestor: they hold the mark by design.
declare -A mine=()
pid=$$
while [ -n "$pid" ] && [ "$pid" != 0 ]; do
  mine[$pid]=1
  ppid=""
  while IFS=$'\t' read -r key value; do
    [ "$key" = PPid: ] && { ppid=$value; break; }
  done 2>/dev/null <"/proc/$pid/status"
  pid=$ppid
done

has_mark() {
  local entry
  while IFS= read -r -d '' entry; do
    [ "$entry" = "$mark" ] && return 0
  done 2>/dev/null <"/proc/$1/environ"
  return 1
}

# scan: the marked pids not ours in FOUND.
scan() {
  FOUND=()
  local dir p
  for dir in /proc/[0-9]*; do
    p=${dir#/proc/}
    [ -n "${mine[$p]:-}" ] && continue
    has_mark "$p" && FOUND+=("$p")
  done
}

describe() {
  local p cmd
  for p in "$@"; do
    cmd=""
    [ -r "/proc/$p/cmdline" ] && cmd=$(tr '\0' ' ' <"/proc/$p/cmdline")
    echo "  pid $p: ${cmd:-(exited or a zombie)}"
  done
}

# Scans again every 0.1 s for up to 2 s; true as soon as none is left.
gone_within_2s() {
  for _ in $(seq 20); do
    sleep 0.1
    scan
    [ ${#FOUND[@]} = 0 ] && return 0
  done
  return 1
}

scan
if [ ${#FOUND[@]} = 0 ]; then exit 0; fi
if [ $kill_them = 0 ]; then
  # A process sent SIGTERM by its test's cleanup may still be on its way out: give it 2 s.
  gone_within_2s && exit 0
  echo "leftover processes: ${#FOUND[@]} still running with $mark:"
  describe "${FOUND[@]}"
  exit 1
fi
kill -TERM "${FOUND[@]}" 2>/dev/null
gone_within_2s && exit 0
echo "leftover processes: SIGKILL to ${#FOUND[@]} that ignored SIGTERM for 2 s:"
describe "${FOUND[@]}"
kill -KILL "${FOUND[@]}" 2>/dev/null
exit 0
