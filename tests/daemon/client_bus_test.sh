#!/bin/bash
# rocmtunectl through rocmtuned (the default path) against the local path (--root): on a private
# system bus (a real dbus-daemon with rocmtune's policy), a real polkitd and the helper behind its
# socket as systemd serves it.
#   - every world: `status`, `history`, `verify`, `explain` print the same JSON and the same text
#     over the bus (the daemon serving the world, no --root) as with --root WORLD — as root and as
#     an unprivileged user. The client has no other way to see the world than the daemon, so
#     equality proves the bus path was taken;
#   - changes as root go through the daemon and the helper socket: the world ends as the local
#     path leaves a copy, the text and JSON are the same; unset, revert and reset too;
#   - refusals, drift, unknown names and polkit's no map to the documented exit codes with a
#     one-line hint; an unprivileged user's change writes nothing;
#   - without rocmtuned on the bus (not running, not activatable) the client uses the local path.
# usage: client_bus_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 SRC=$4
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
start_bus /usr/share/dbus-1/system.d
tree() { (cd "$1" && find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
# Strips the per-run parts of a result (transaction ids, times).
# Strips what differs between the two trees: their paths in messages, times.
norm() { sed -E -e "s|$WORK/expected|ROOT|g; s|$WORK/world|ROOT|g" -e 's/"time": "[^"]*"/"time": "T"/g'; }

# start_daemon WORLD (bus_fixture.sh) serves WORLD with the helper socket; reads never use it.
stop_daemon() { kill "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null; wait_name absent || fail "rocmtuned did not go"; }

# 1. Reads on every world, root and nobody.
n=0
for world in ${ONLY_WORLDS:-"$SRC"/tests/worlds/*/}; do
  name=$(basename "$world")
  W=$WORK/w-$name
  cp -a "$world" "$W"
  chmod -R a+rX "$W"
  start_daemon "$W"
  for verb in status history verify "explain amdgpu.noretry" check-compute "check-compute --workload conv" \
    "check-compute --workload gemm --device card0"; do
    # shellcheck disable=SC2086
    "$CTL" --root "$W" $verb --json >"$WORK/local.json"; lrc=$?
    # check-compute never asks the daemon (it answers for the caller's own environment):
    # without --root it is this machine, not the daemon's world.
    if [[ $verb != check-compute* ]]; then
      # shellcheck disable=SC2086
      "$CTL" $verb --json >"$WORK/bus.json"; brc=$?
      [ "$lrc" = "$brc" ] || fail "$name: '$verb --json' exits $brc over the bus, $lrc locally"
      cmp -s "$WORK/local.json" "$WORK/bus.json" || { diff "$WORK/local.json" "$WORK/bus.json" | head; fail "$name: '$verb --json' differs over the bus"; }
    fi
    root_arg=()
    [[ $verb == check-compute* ]] && root_arg=(--root "$W")
    # shellcheck disable=SC2086
    "${NOBODY[@]}" "$CTL" "${root_arg[@]}" $verb --json >"$WORK/nobody.json"; nrc=$?
    [ "$nrc" = "$lrc" ] || fail "$name: '$verb --json' as nobody exits $nrc, $lrc as root"
    cmp -s "$WORK/local.json" "$WORK/nobody.json" || fail "$name: '$verb --json' as nobody differs"
  done
  # profiles and show run here as root; nobody, who may not read a journal, asks the daemon
  # (ListProfiles, ShowProfile): the same documents and text.
  for verb in profiles "show stock" "show rdna1-safe"; do
    for fmt in --json ""; do
      # shellcheck disable=SC2086
      "$CTL" --root "$W" $verb $fmt >"$WORK/local.out" 2>&1; lrc=$?
      # shellcheck disable=SC2086
      "${NOBODY[@]}" "$CTL" $verb $fmt >"$WORK/nobody.out" 2>&1; nrc=$?
      [ "$nrc" = "$lrc" ] || fail "$name: '$verb $fmt' as nobody (rocmtuned) exits $nrc, $lrc as root"
      cmp -s "$WORK/local.out" "$WORK/nobody.out" || { diff "$WORK/local.out" "$WORK/nobody.out" | head; fail "$name: '$verb $fmt' as nobody (rocmtuned) differs"; }
    done
  done
  for verb in status verify "explain amdgpu.noretry"; do
    # shellcheck disable=SC2086
    "$CTL" --root "$W" $verb >"$WORK/local.txt" 2>&1
    # shellcheck disable=SC2086
    "$CTL" $verb >"$WORK/bus.txt" 2>&1
    cmp -s "$WORK/local.txt" "$WORK/bus.txt" || { diff "$WORK/local.txt" "$WORK/bus.txt" | head; fail "$name: '$verb' text differs over the bus"; }
  done
  stop_daemon
  n=$((n + 1))
done
[ -n "${ONLY_WORLDS:-}" ] || [ "$n" -ge 10 ] || fail "only $n worlds were compared"
echo "reads: $n worlds give the same JSON and text over the bus as locally (root and nobody; profiles and show)"

# rocmtuned's CheckCompute answers what the world has (the daemon serves it), for programs started
# with the system's environment: the same document as `rocmtunectl --root W check-compute` (which
# never asks the daemon: it answers for the caller's own environment), and the
# usage errors as InvalidArgument.
W=$WORK/w-compute
cp -a "$SRC/tests/worlds/rx6900xt" "$W"
start_daemon "$W"
for workload in conv gemm; do
  call CheckCompute ss "$workload" "" | str >"$WORK/cc.json" || fail "CheckCompute $workload failed"
  "$CTL" --root "$W" check-compute --workload "$workload" --json >"$WORK/cc-local.json"
  cmp -s <(norm <"$WORK/cc.json") <(norm <"$WORK/cc-local.json") \
    || { diff "$WORK/cc.json" "$WORK/cc-local.json" | head; fail "CheckCompute $workload differs from the CLI's"; }
done
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); ids=[r["id"] for r in d["gpus"][0]["reasons"]]; assert d["schema"] == "rocmtune.check_compute.v1" and d["safe"] is False and "gpu.no-kfd" in ids, d' "$WORK/cc.json" \
  || fail "CheckCompute gemm: $(cat "$WORK/cc.json")"
for args in "convolution ''" "conv card9"; do
  eval "set -- $args"
  err=$(call CheckCompute ss "$1" "$2" 2>&1) && fail "CheckCompute $args succeeded: $err"
  [[ $err == *"unknown workload"* || $err == *"no GPU"* ]] || fail "CheckCompute $args: $err"
done
stop_daemon
echo "check-compute: rocmtuned's CheckCompute is the CLI's document for the world; bad arguments are refused"

# 2. Changes as root through the daemon and the helper socket.
W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
cp -a "$W" "$WORK/expected"
start_helper "$HELPER" "$W"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd (package polkitd) is needed for the unprivileged cases"
start_polkitd "" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
start_daemon "$W"

step() {  # step EXPECTED_RC ARGS...: the same change over the bus (W) and locally (the copy)
  local want=$1; shift
  "$CTL" --root "$WORK/expected" "$@" --json >"$WORK/l.json"; lrc=$?
  "$CTL" "$@" --json >"$WORK/b.json"; brc=$?
  [ "$lrc" = "$want" ] || fail "local '$*' exited $lrc, want $want: $(cat "$WORK/l.json")"
  [ "$brc" = "$want" ] || fail "'$*' over the bus exited $brc, want $want: $(cat "$WORK/b.json") $(tail -3 "$WORK/daemon.log")"
  diff <(norm <"$WORK/l.json") <(norm <"$WORK/b.json") >/dev/null \
    || { diff <(norm <"$WORK/l.json") <(norm <"$WORK/b.json") | head; fail "'$*' result differs over the bus"; }
  [ "$(tree "$W")" = "$(tree "$WORK/expected")" ] || fail "after '$*' the world differs from the local copy"
}
step 0 apply rdna2-consumer-compat --check
[ "$(tree "$W")" = "$(tree "$WORK/expected")" ] || fail "a check wrote"
step 0 apply rdna2-consumer-compat
step 0 set sysfs.card1.pp_power_profile_mode=COMPUTE
step 0 unset sysfs.card1.pp_power_profile_mode
step 0 revert last
step 0 set amdgpu.noretry=0
step 0 reset
step 2 apply no-such-profile
step 3 apply strix-halo
"$CTL" history --json | norm >"$WORK/bh.json"; "$CTL" --root "$WORK/expected" history --json | norm >"$WORK/lh.json"
cmp -s "$WORK/bh.json" "$WORK/lh.json" || fail "the histories differ"
# Text: the same lines (after the transaction id).
"$CTL" --root "$WORK/expected" set amdgpu.noretry=0 2>&1 | norm >"$WORK/l.txt"
"$CTL" set amdgpu.noretry=0 2>&1 | norm >"$WORK/b.txt"
cmp -s "$WORK/l.txt" "$WORK/b.txt" || { diff "$WORK/l.txt" "$WORK/b.txt"; fail "the text of set differs over the bus"; }
grep -Eq "Transaction [0-9A-Za-z-]+ committed" "$WORK/b.txt" || fail "set over the bus did not say it committed: $(cat "$WORK/b.txt")"
# Drift: an owned file edited behind rocmtune's back (on both), exit 5 both ways.
for r in "$W" "$WORK/expected"; do echo "# edited" >>"$r/etc/modprobe.d/rocmtune.conf"; done
step 5 set amdgpu.noretry=1
echo "changes: apply, set, unset, revert, reset, refusal, drift as root over the bus equal the local path"

# 3. nobody: polkit says no (auth_admin, no agent) — exit 4, a hint, nothing written.
before=$(tree "$W")
"${NOBODY[@]}" "$CTL" set amdgpu.noretry=1 --force >"$WORK/n.out" 2>"$WORK/n.err"; rc=$?
[ $rc = 4 ] || fail "nobody's set exited $rc, want 4: $(cat "$WORK/n.out" "$WORK/n.err")"
grep -q "run with sudo" "$WORK/n.err" || fail "no hint for nobody: $(cat "$WORK/n.err")"
"${NOBODY[@]}" "$CTL" --no-ask-password --json apply stock --force >"$WORK/n.json" 2>/dev/null; rc=$?
[ $rc = 4 ] || fail "nobody's apply --no-ask-password exited $rc, want 4"
/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["schema"] in ("rocmtune.result.v1","rocmtune.error.v1"), d' "$WORK/n.json" \
  || fail "nobody's --json is not one document: $(cat "$WORK/n.json")"
[ "$(tree "$W")" = "$before" ] || fail "nobody's refused change wrote"
echo "nobody: exit 4 with a hint, nothing written"

# An apply whose settings the world already has writes nothing but is recorded (its profile is
# active): the text says so, with the transaction to revert.
cp -a "$SRC/tests/worlds/mi210x8" "$WORK/mi210x8"
out=$("$CTL" --root "$WORK/mi210x8" apply instinct 2>&1) || fail "apply instinct on mi210x8 failed: $out"
echo "$out" | grep -q "^Transaction 1 recorded: nothing needed writing (undo: rocmtunectl revert 1)" \
  || fail "a recorded apply does not say it was recorded: $out"

# 4. No daemon on the bus (stopped, not activatable): the local path.
stop_daemon
"$CTL" status --json >"$WORK/nd.json"; rc=$?
[ $rc = 0 ] || fail "status without a daemon exited $rc"
"$CTL" --root / status --json >"$WORK/root.json"
cmp -s "$WORK/nd.json" "$WORK/root.json" || fail "without a daemon, status is not the local one of /"
echo PASS
