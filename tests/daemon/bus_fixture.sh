# shellcheck shell=bash
# Sourced by the shell tests that need the daemon on a bus (tests/integration/rocm_smi_*_test.sh,
# tests/bench/time_bus.sh): a private system bus (a real dbus-daemon), optionally a real polkitd
# on it, rocmtuned serving a world. Needs: DAEMON, SRC set; defines skip/fail, WORK, W. The daemon
# tests themselves are Python (tests/daemon/suite/fixture.py does the same there).
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v dbus-daemon >/dev/null || skip "dbus-daemon is not installed (package dbus)"
command -v busctl >/dev/null || skip "busctl is not installed (package systemd)"
/usr/bin/python3 -c 'import dbus' 2>/dev/null || skip "python3-dbus is needed to call with typed arguments"
[ "$(id -u)" = 0 ] || skip "needs root: the bus policy lets only root own org.rocmtune1"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to call as an unprivileged user"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is needed to call as 'nobody'"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-bus-XXXXXX")
chmod 755 "$WORK"
PIDS=()
# Every process the test starts inherits this mark, whatever its command line and whoever forked
# it (tests/leftover_processes.sh); systemd-socket-activate passes it on with -E.
export ROCMTUNE_TEST_WORK=$WORK
# Every process started for the test ends with it: the PIDS it recorded, then anything still
# running with the test's mark (a client a subshell started, a helper whose socket went away).
cleanup() {
  [ -n "${KEEP_WORK:-}" ] && cp -a "$WORK" "$KEEP_WORK"
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
  "$SRC/tests/leftover_processes.sh" --kill "ROCMTUNE_TEST_WORK=$WORK"
  wait 2>/dev/null
  rm -rf "${WORK:?}"
}
trap cleanup EXIT
# The Python helpers where the unprivileged callers can read them: a clone may sit in a 0700
# directory (mktemp -d), which nobody cannot enter.
PYDIR=$WORK/py
mkdir -p "$PYDIR" && cp "$SRC"/tests/daemon/*.py "$PYDIR"/ && chmod -R a+rX "$PYDIR"
# shellcheck disable=SC2034 # NOBODY is for the tests that source this file
NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups --)
BUS=(busctl --system --no-pager)

# TEST_PASSWD / TEST_GROUP (set before start_bus and start_polkitd): files the bus and polkitd
# read as /etc/passwd and /etc/group, in their own mount namespaces: test users and groups that
# exist for them only, nothing added to the machine's own files.
account_binds() {
  [ -n "${TEST_PASSWD:-}" ] && printf "mount --bind '%s' /etc/passwd && " "$TEST_PASSWD"
  [ -n "${TEST_GROUP:-}" ] && printf "mount --bind '%s' /etc/group && " "$TEST_GROUP"
}
# exec_with_test_accounts CMD...: replaces the calling shell with CMD, so a background job
# `exec_with_test_accounts CMD &` has CMD's pid in $! (a function run with & is a subshell: without
# the exec, $! was that subshell and killing it left CMD running).
exec_with_test_accounts() {
  if [ -z "${TEST_PASSWD:-}${TEST_GROUP:-}" ]; then exec "$@"; fi
  exec unshare -m --propagation private bash -c "$(account_binds) exec \"\$@\"" bash "$@"
}
# The marks a process started by systemd-socket-activate gets (it passes on only TERM, PATH,
# USER and HOME and what -E names: systemd-socket-activate(1)).
ssa_marks() {
  SSA_MARKS=(-E ROCMTUNE_TEST_WORK)
  [ -n "${ROCMTUNE_TEST_RUN:-}" ] && SSA_MARKS+=(-E ROCMTUNE_TEST_RUN)
  return 0
}

# start_bus [DIR...]: the bus with rocmtune's policy and the given policy directories.
start_bus() {
  mkdir -p "$WORK/policy"
  cp "$SRC/dbus/org.rocmtune1.conf" "$WORK/policy/"
  local extra=""
  for d in "$@"; do extra="$extra<includedir>$d</includedir>"; done
  sed -e "s|@SOCKET@|$WORK/bus.sock|" -e "s|@POLICY_DIR@|$WORK/policy|" -e "s|<!-- @EXTRA@ -->|$extra|" \
    "$SRC/tests/daemon/private-bus.conf.in" >"$WORK/bus.conf"
  exec_with_test_accounts dbus-daemon --config-file="$WORK/bus.conf" --nofork --nopidfile >"$WORK/bus.log" 2>&1 &
  BUS_PID=$!
  PIDS+=("$BUS_PID")
  for _ in $(seq 100); do [ -S "$WORK/bus.sock" ] && break; sleep 0.05; done
  [ -S "$WORK/bus.sock" ] || fail "the private bus did not start: $(cat "$WORK/bus.log")"
  # The pid the test ends is the bus itself, not a shell in between (which, killed, left the bus
  # running after the test).
  [ "$(cat "/proc/$BUS_PID/comm" 2>/dev/null)" = dbus-daemon ] ||
    fail "the bus's recorded pid $BUS_PID is $(cat "/proc/$BUS_PID/comm" 2>/dev/null), not dbus-daemon"
  chmod 666 "$WORK/bus.sock"
  export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$WORK/bus.sock"
}

# wait_for NAME present|absent
wait_for() {
  for _ in $(seq 100); do
    if "${BUS[@]}" status "$1" >/dev/null 2>&1; then [ "$2" = present ] && return 0
    else [ "$2" = absent ] && return 0; fi
    sleep 0.05
  done
  return 1
}
wait_name() { wait_for org.rocmtune1 "$1"; }

# start_polkitd RULES_FILE: the real polkitd on the private bus, with rocmtune's actions and one
# rules file bind-mounted over the compiled-in directories in a private mount namespace.
start_polkitd() {
  [ -x /usr/lib/polkit-1/polkitd ] || return 1
  command -v unshare >/dev/null || return 1
  mkdir -p "$WORK/pk/actions" "$WORK/pk/rules.d"
  cp "$SRC/polkit/org.rocmtune1.policy" "$WORK/pk/actions/"
  [ -n "${1:-}" ] && cp "$1" "$WORK/pk/rules.d/"
  chown -R polkitd "$WORK/pk/rules.d" 2>/dev/null; chmod 700 "$WORK/pk/rules.d"
  unshare -m --propagation private bash -c "mount --bind '$WORK/pk/actions' /usr/share/polkit-1/actions &&
    mount --bind '$WORK/pk/rules.d' /etc/polkit-1/rules.d && $(account_binds) exec /usr/lib/polkit-1/polkitd --no-debug" \
    >"$WORK/polkitd.log" 2>&1 &
  PIDS+=($!)
  wait_for org.freedesktop.PolicyKit1 present
}

call() { "${BUS[@]}" --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager "$@"; }
# The one string a method returns, from busctl's JSON.
str() { /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])'; }

# start_account_helper ROOT GID: $HELPER behind $WORK/helper.sock for a daemon running as the test
# account rocmtune (exec_with_test_accounts: the helper's peer check reads the bound test passwd), the
# socket as rocmtune-helper.socket makes it: SocketUser=root, SocketGroup=rocmtune, SocketMode=0660.
start_account_helper() {
  local root=$1 gid=$2
  ssa_marks
  exec_with_test_accounts systemd-socket-activate -l "$WORK/helper.sock" --accept --inetd "${SSA_MARKS[@]}" "$HELPER" \
    --root "$root" socket \
    >>"$WORK/helper.log" 2>&1 &
  PIDS+=($!)
  for _ in $(seq 100); do [ -S "$WORK/helper.sock" ] && break; sleep 0.05; done
  [ -S "$WORK/helper.sock" ] || fail "the helper socket did not appear: $(cat "$WORK/helper.log")"
  chgrp "$gid" "$WORK/helper.sock" && chmod 660 "$WORK/helper.sock"
}

# start_helper HELPER ROOT [ENV...]: rocmtune-helper behind $WORK/helper.sock as systemd serves
# rocmtune-helper.socket (one helper per connection, stdin/stdout the connection); each ENV
# (NAME=VALUE) is passed to every helper. Sets HELPER_SSA (systemd-socket-activate's pid: each
# helper is its child).
start_helper() {
  local helper=$1 root=$2; shift 2
  ssa_marks
  local env=("${SSA_MARKS[@]}")
  for e in "$@"; do env+=(-E "$e"); done
  rm -f "$WORK/helper.sock"
  systemd-socket-activate -l "$WORK/helper.sock" --accept --inetd "${env[@]}" "$helper" --root "$root" socket \
    >>"$WORK/helper.log" 2>&1 &
  HELPER_SSA=$!
  PIDS+=("$HELPER_SSA")
  for _ in $(seq 100); do [ -S "$WORK/helper.sock" ] && break; sleep 0.05; done
  [ -S "$WORK/helper.sock" ] || fail "the helper socket did not appear: $(cat "$WORK/helper.log")"
  chmod 600 "$WORK/helper.sock"
}

# start_daemon ROOT: rocmtuned serving ROOT, writing through $WORK/helper.sock. Sets DAEMON_PID.
start_daemon() {
  "$DAEMON" --root "$1" --helper-socket "$WORK/helper.sock" --idle-timeout 0 >>"$WORK/daemon.log" 2>&1 &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  wait_name present || fail "rocmtuned did not take the name: $(cat "$WORK/daemon.log")"
}

# world_hash DIR: every file's path and content hash, and every directory and symlink.
world_hash() { (cd "$1" && find . \( -type f -exec sha256sum {} + \) -o \( ! -type f -printf '%y %p %l\n' \) | sort | sha256sum); }
