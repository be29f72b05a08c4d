#!/bin/bash
# Reads work for every user after rocmtune changed something. rocmtuned runs as
# user rocmtune on a private system bus with a real polkitd and the helper behind its socket, as
# in daemon_user_test.sh; root applies a profile through it, so the journal is 0640 root:rocmtune.
# Then, as another user (uid 64321, no group rocmtune):
#   - `profiles`, `show`, `doctor` (with a log holding bytes that are not UTF-8 and a NUL) and bash
#     completion of `apply <TAB>` exit as for root, show the active profile, and answer from the
#     journal (rocmtuned's ListProfiles, ShowProfile, Doctor); doctor's findings are root's, its
#     check of who may open /dev/kfd is the caller's own;
#   - `snapshot` works and lists the journal as left out;
#   - with no daemon (--root, or the daemon gone), profiles/show/doctor still exit as before with
#     the active profile "unknown" and a note, and no error finding;
#   - bad input to the new methods: a log over 16 MiB (InvalidArgument), an unknown profile
#     (NotFound), a string that is not UTF-8 (refused by the bus before it reaches the daemon),
#     and the daemon goes on answering.
# usage: daemon_reads_test.sh ROCMTUNED ROCMTUNECTL ROCMTUNE_HELPER SOURCE_DIR
set -u
DAEMON=$1 CTL=$2 HELPER=$3 SRC=$4
. "$SRC/tests/daemon/bus_fixture.sh"
command -v systemd-socket-activate >/dev/null || skip "systemd-socket-activate is needed to serve the helper socket"
[ -x /usr/lib/polkit-1/polkitd ] || skip "polkitd is not installed (package polkitd)"

DAEMON_ID=64320 USER_ID=64321
for id in $DAEMON_ID $USER_ID; do
  getent passwd $id >/dev/null && skip "uid $id is in use"
  getent group $id >/dev/null && skip "gid $id is in use"
done
getent passwd rocmtune >/dev/null && skip "this machine has a user rocmtune: the test's own would be shadowed"
cp /etc/passwd "$WORK/passwd"
cp /etc/group "$WORK/group"
printf 'rocmtune:x:%s:%s::/:/usr/sbin/nologin\nrtreader:x:%s:%s::/nonexistent:/usr/sbin/nologin\n' \
  $DAEMON_ID $DAEMON_ID $USER_ID $USER_ID >>"$WORK/passwd"
printf 'rocmtune:x:%s:\nrtreader:x:%s:\n' $DAEMON_ID $USER_ID >>"$WORK/group"
TEST_PASSWD=$WORK/passwd TEST_GROUP=$WORK/group
start_bus /usr/share/dbus-1/system.d
start_polkitd "" || fail "polkitd did not start: $(cat "$WORK/polkitd.log")"
as_user() { local id=$1; shift; setpriv --reuid="$id" --regid="$id" --clear-groups -- "$@"; }
reader() { as_user $USER_ID env HOME=/nonexistent "$@"; }
# What the user runs, where it can reach it: a clone may sit in a 0700 directory it cannot
# enter (the build's rocmtunectl and the completion script would be out of its reach).
mkdir -p "$WORK/bin" && cp "$CTL" "$WORK/bin/rocmtunectl" && cp "$SRC/completions/rocmtunectl.bash" "$WORK/bin/" &&
  chmod -R a+rX "$WORK/bin" || fail "cannot copy rocmtunectl for the user"
UCTL=$WORK/bin/rocmtunectl
json_get() { /usr/bin/python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$3"; }

W=$WORK/world
cp -a "$SRC/tests/worlds/rx6600" "$W"
printf 'root:x:0:\nrocmtune:x:%s:\n' $DAEMON_ID >"$W/etc/group"
chmod -R a+rX "$W"
start_account_helper "$W" "$DAEMON_ID"
start_reads_daemon() {
  setpriv --reuid=$DAEMON_ID --regid=$DAEMON_ID --clear-groups -- "$DAEMON" --root "$W" \
    --helper-socket "$WORK/helper.sock" --idle-timeout 0 >>"$WORK/daemon.log" 2>&1 &
  DAEMON_PID=$!
  PIDS+=("$DAEMON_PID")
  wait_name present || fail "rocmtuned did not take the name: $(cat "$WORK/daemon.log") $(cat "$WORK/bus.log")"
}
start_reads_daemon

PROFILE=rdna2-consumer-compat
call Apply 'sa{sv}' $PROFILE 0 | str >"$WORK/apply.json" ||
  fail "Apply through the daemon failed: $(tail -5 "$WORK/daemon.log") $(tail -5 "$WORK/helper.log")"
[ "$(stat -c '%a %u %g' "$W/var/lib/rocmtune/journal")" = "750 0 $DAEMON_ID" ] ||
  fail "journal directory: $(stat -c '%a %u %g' "$W/var/lib/rocmtune/journal")"
reader ls "$W/var/lib/rocmtune/journal" >/dev/null 2>&1 && fail "the reader can list the journal: the test shows nothing"
echo "ok: root applied $PROFILE through the daemon; the journal is 0750 root:rocmtune, closed to uid $USER_ID"

# --- With the daemon: the user's reads answered from the journal. ---
reader "$UCTL" profiles --json >"$WORK/profiles.json" 2>"$WORK/profiles.err" ||
  fail "profiles --json as a user exited $?: $(cat "$WORK/profiles.err")"
/usr/bin/python3 - "$WORK/profiles.json" $PROFILE <<'PY' || fail "profiles --json: $(head -c 600 "$WORK/profiles.json")"
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
assert d["schema"] == "rocmtune.profiles.v1", d
assert d["active_profile"] == name, d["active_profile"]
rows = {p["name"]: p for p in d["profiles"]}
assert rows[name]["active"] is True and rows["stock"]["active"] is False, rows
assert d["notes"] == [], d["notes"]
PY
reader "$UCTL" profiles >"$WORK/profiles.txt" 2>&1 || fail "profiles as a user failed: $(cat "$WORK/profiles.txt")"
grep -qx "Active profile: $PROFILE" "$WORK/profiles.txt" || fail "profiles does not show the active profile: $(tail -3 "$WORK/profiles.txt")"
echo "ok: profiles as uid $USER_ID: exit 0, active profile $PROFILE (rocmtuned's ListProfiles)"

reader "$UCTL" show $PROFILE --json >"$WORK/show.json" 2>"$WORK/show.err" || fail "show --json as a user: $(cat "$WORK/show.err")"
[ "$(json_get x '(d["schema"], d["active"])' "$WORK/show.json")" = "('rocmtune.profile.v1', True)" ] ||
  fail "show --json as a user: $(head -c 400 "$WORK/show.json")"
"$CTL" --root "$W" show $PROFILE --json >"$WORK/show-root.json" || fail "show as root failed"
cmp -s "$WORK/show.json" "$WORK/show-root.json" || fail "the user's show differs from root's: $(diff "$WORK/show.json" "$WORK/show-root.json" | head -5)"
reader "$UCTL" show $PROFILE >"$WORK/show.txt" 2>&1 || fail "show as a user failed: $(cat "$WORK/show.txt")"
grep -q '^  active:   yes$' "$WORK/show.txt" || fail "show does not say the profile is active: $(head -8 "$WORK/show.txt")"
"$CTL" --root "$W" show $PROFILE >"$WORK/show-root.txt" || fail "show as root failed"
cmp -s "$WORK/show.txt" "$WORK/show-root.txt" || fail "the user's show text differs from root's"
echo "ok: show $PROFILE as uid $USER_ID: root's document and text, active: yes (rocmtuned's ShowProfile)"

# doctor with a crash log that holds a NUL and bytes that are not UTF-8 around a known symptom.
printf 'garbage \377\376 and a NUL \000 here\nMemory access fault by GPU node-1 (Agent handle: 0x55d0) on address 0x7f00. Reason: Page not present or supervisor privilege.\n' \
  >"$WORK/crash.log"
chmod 644 "$WORK/crash.log"
reader "$UCTL" doctor --json --log "$WORK/crash.log" >"$WORK/doctor.json" 2>"$WORK/doctor.err"
rc=$?
"$CTL" --root "$W" doctor --json --log "$WORK/crash.log" >"$WORK/doctor-root.json" 2>/dev/null
rc_root=$?
[ "$rc" = "$rc_root" ] || fail "doctor as a user exited $rc, as root $rc_root: $(cat "$WORK/doctor.err")"
/usr/bin/python3 - "$WORK/doctor.json" "$WORK/doctor-root.json" <<'PY' || fail "doctor as a user: $(head -c 800 "$WORK/doctor.json")"
import json, sys
d, r = (json.load(open(p)) for p in sys.argv[1:3])
assert d["schema"] == "rocmtune.doctor.v1", d
ids = lambda doc: sorted(f["id"] for f in doc["findings"] if not f["id"].startswith("access."))
assert ids(d) == ids(r), (ids(d), ids(r))
assert not {"journal.not-permitted", "journal.unreadable"} & set(ids(d)), "the daemon read the journal"
assert all(f["id"] != "access.not-checked" for f in d["findings"]), "the caller's access checks replace the daemon's note"
assert d["log"] is not None and [m["id"] for m in d["log"]["matches"]] == [m["id"] for m in r["log"]["matches"]], (d["log"], r["log"])
assert d["log"]["matches"], "the symptom in the log is matched"
assert d["problems"] == r["problems"]
PY
reader "$UCTL" doctor >"$WORK/doctor.txt" 2>&1
grep -qE 'journal.(not-permitted|unreadable)|Permission denied' "$WORK/doctor.txt" &&
  fail "doctor as a user could not read the journal: $(grep -E 'journal|Permission' "$WORK/doctor.txt")"
echo "ok: doctor --log as uid $USER_ID (a log with a NUL and non-UTF-8 bytes): root's findings and log matches (rocmtuned's Doctor), exit $rc as root"

# bash completion of `rocmtunectl apply <TAB>`: asks `profiles --json` as the user.
reader bash -c '. "$1"; COMP_WORDS=("$2" apply ""); COMP_CWORD=2; _rocmtunectl; printf "%s\n" "${COMPREPLY[@]}"' _ \
  "$WORK/bin/rocmtunectl.bash" "$UCTL" >"$WORK/complete.txt" 2>&1
grep -qx "$PROFILE" "$WORK/complete.txt" && grep -qx stock "$WORK/complete.txt" ||
  fail "completion of apply <TAB> as a user: $(head -5 "$WORK/complete.txt")"
echo "ok: bash completion of 'apply <TAB>' as uid $USER_ID offers $(wc -l <"$WORK/complete.txt") profiles"

# snapshot: made by the user, without the journal, which it lists as left out.
mkdir "$WORK/user" && chown $USER_ID:$USER_ID "$WORK/user"
reader "$UCTL" --root "$W" snapshot --json "$WORK/user/snap" >"$WORK/snapshot.json" 2>"$WORK/snapshot.err"
[ $? = 0 ] || fail "snapshot as a user failed: $(cat "$WORK/snapshot.err") $(cat "$WORK/snapshot.json")"
[ "$(json_get x '"var/lib/rocmtune/journal" in d["left_out"]' "$WORK/snapshot.json")" = True ] ||
  fail "the snapshot does not list the journal as left out: $(cat "$WORK/snapshot.json")"
ls "$WORK/user/snap/var/lib/rocmtune/journal"/*.jsonl >/dev/null 2>&1 && fail "the user's snapshot holds journal records"
reader "$UCTL" --root "$W" snapshot "$WORK/user/snap2" >"$WORK/snapshot.txt" 2>&1 || fail "snapshot as a user: $(cat "$WORK/snapshot.txt")"
grep -qx '  /var/lib/rocmtune/journal' "$WORK/snapshot.txt" || fail "snapshot's text does not name the journal: $(cat "$WORK/snapshot.txt")"
echo "ok: snapshot as uid $USER_ID works and names what it left out: $(json_get x 'd["left_out"]' "$WORK/snapshot.json")"

# --- Bad input to the new methods, as the user: typed errors, and the daemon goes on. ---
export PYTHONPATH=$PYDIR
reader /usr/bin/python3 - <<'PY' || fail "bad input to Doctor/ShowProfile: $(tail -5 "$WORK/daemon.log")"
import dbus
from busclient import manager
m = manager()
def error_of(f, *a):
    try:
        f(*a, timeout=120)
    except dbus.DBusException as e:
        return e.get_dbus_name()
    return None
assert error_of(m.Doctor, "x" * ((16 << 20) + 1)) == "org.rocmtune1.Error.InvalidArgument"
assert error_of(m.ShowProfile, "no-such-profile") == "org.rocmtune1.Error.NotFound"
assert error_of(m.ShowProfile, "../../etc/passwd") == "org.rocmtune1.Error.NotFound"
# A string that is not UTF-8 never leaves the caller: libdbus refuses to send it.
try:
    m.Doctor(b"\xff\xfe crash")
    raise SystemExit("bytes that are not UTF-8 were sent as a string")
except (UnicodeError, TypeError, ValueError):
    pass
import json
assert json.loads(m.Doctor(""))["schema"] == "rocmtune.doctor.v1"
print("ok: Doctor(17 MiB) InvalidArgument, ShowProfile(unknown) NotFound, non-UTF-8 refused before the bus; the daemon answers")
PY
grep -q "Doctor from .*: org.rocmtune1.Error.InvalidArgument: the log given is larger than 16 MiB" "$WORK/daemon.log" || fail "the daemon did not log the refusal"

# --- Without the daemon: the user's reads work, the active profile is unknown. ---
reader "$UCTL" --root "$W" profiles --json >"$WORK/profiles-local.json" 2>"$WORK/profiles-local.err" ||
  fail "profiles --root as a user exited $?: $(cat "$WORK/profiles-local.err")"
/usr/bin/python3 - "$WORK/profiles-local.json" <<'PY' || fail "profiles without the daemon: $(head -c 600 "$WORK/profiles-local.json")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["active_profile"] is None and all(p["active"] is None for p in d["profiles"]), d
assert len(d["notes"]) == 1 and "unknown to this user" in d["notes"][0], d["notes"]
PY
reader "$UCTL" --root "$W" profiles >"$WORK/profiles-local.txt" 2>&1 || fail "profiles --root as a user: $(cat "$WORK/profiles-local.txt")"
grep -qx "Active profile: unknown" "$WORK/profiles-local.txt" || fail "profiles text: $(tail -3 "$WORK/profiles-local.txt")"
reader "$UCTL" --root "$W" show $PROFILE >"$WORK/show-local.txt" 2>&1 || fail "show --root as a user: $(cat "$WORK/show-local.txt")"
grep -q '^  active:   unknown$' "$WORK/show-local.txt" || fail "show text: $(head -8 "$WORK/show-local.txt")"
reader "$UCTL" --root "$W" doctor --json >"$WORK/doctor-local.json" 2>"$WORK/doctor-local.err"
/usr/bin/python3 - "$WORK/doctor-local.json" <<'PY' || fail "doctor without the daemon: $(head -c 800 "$WORK/doctor-local.json")"
import json, sys
d = json.load(open(sys.argv[1]))
j = [f for f in d["findings"] if f["id"].startswith("journal.")]
assert [(f["id"], f["severity"]) for f in j] == [("journal.not-permitted", "info")], j
PY
kill "$DAEMON_PID"; wait "$DAEMON_PID" 2>/dev/null
wait_name absent || fail "the daemon did not give its name back"
reader "$UCTL" profiles --json >"$WORK/profiles-gone.json" 2>&1 || fail "profiles with the daemon gone: $(cat "$WORK/profiles-gone.json")"
reader "$UCTL" show stock --json >/dev/null 2>&1 || fail "show with the daemon gone failed"
echo "ok: without the daemon (--root, or gone) profiles, show and doctor exit 0 as a user; active profile unknown, one note, no error"
echo PASS
