#!/bin/bash
# The shipped units and bus/polkit files as systemd, dbus-daemon and polkit read them:
# `systemd-analyze verify` prints nothing for each unit, rocmtuned.service's exposure
# (`systemd-analyze security --offline=true`) is at most 1.5 and is printed, the activation file
# names the unit and the bus name, and the polkit actions parse with the defaults promised; no unit
# but rocmtuned.service sets RestrictSUIDSGID= (it makes openat2 fail; tests/system/nspawn_system_test.sh
# found it; only the daemon's reads of the live root fall back to openat).
# usage: units_test.sh SOURCE_DIR ROCMTUNED ROCMTUNE_HELPER
set -u
SRC=$1 DAEMON=$(readlink -f "$2") HELPER=$(readlink -f "$3")
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (package systemd)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 is needed to read the policy XML"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-units-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The units name installed paths; point them at the build so verify can check the command.
for unit in "$SRC"/systemd/*.service "$SRC"/systemd/*.socket; do
  [ -e "$unit" ] || continue
  sed -e "s|/usr/libexec/rocmtune/rocmtuned|$DAEMON|" -e "s|/usr/libexec/rocmtune/rocmtune-helper|$HELPER|" \
    "$unit" >"$WORK/$(basename "$unit")"
done
ls "$WORK"/*.service >/dev/null 2>&1 || fail "no units under systemd/"
# RestrictSUIDSGID=yes makes openat2 fail with ENOSYS (systemd's filter cannot look into its
# struct open_how), and rocmtune opens every path with openat2: a unit with it reads or writes nothing.
bad=$(grep -l '^RestrictSUIDSGID=\(yes\|true\|on\|1\)' "$WORK"/*.service | grep -v '/rocmtuned.service$')
[ -z "$bad" ] || fail "RestrictSUIDSGID= breaks openat2 in: $(basename -a $bad | tr '\n' ' ')"
for unit in "$WORK"/*; do
  out=$(cd "$WORK" && systemd-analyze verify --man=no "./$(basename "$unit")" 2>&1)
  [ -z "$out" ] || fail "systemd-analyze verify $(basename "$unit"): $out"
  echo "verify $(basename "$unit"): clean"
done

report=$(cd "$WORK" && systemd-analyze security --offline=true ./rocmtuned.service 2>&1)
exposure=$(echo "$report" | sed -n 's/.*Overall exposure level for rocmtuned.service: \([0-9.]*\).*/\1/p')
[ -n "$exposure" ] || fail "no exposure in: $report"
echo "$report" | grep '✗'
echo "rocmtuned.service exposure: $exposure (limit 1.5)"
awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' || fail "exposure $exposure is over 1.5"

act=$SRC/dbus/org.rocmtune1.service
grep -qx 'Name=org.rocmtune1' "$act" || fail "the activation file does not name org.rocmtune1"
grep -qx 'SystemdService=rocmtuned.service' "$act" || fail "the activation file does not start rocmtuned.service"
grep -qx 'BusName=org.rocmtune1' "$SRC/systemd/rocmtuned.service" || fail "rocmtuned.service has another BusName"

/usr/bin/python3 - "$SRC/polkit/org.rocmtune1.policy" <<'PY' || fail "the polkit actions are not as promised"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
actions = {a.get("id"): a for a in root.findall("action")}
want = {"org.rocmtune1.apply", "org.rocmtune1.set", "org.rocmtune1.revert"}
if set(actions) != want:
    sys.exit(f"actions {sorted(actions)} != {sorted(want)}")
for name, a in actions.items():
    d = {c.tag: c.text for c in a.find("defaults")}
    if d != {"allow_any": "auth_admin", "allow_inactive": "auth_admin", "allow_active": "auth_admin_keep"}:
        sys.exit(f"{name}: defaults {d}")
    if not a.findtext("description") or not a.findtext("message"):
        sys.exit(f"{name}: no description or message")
print(f"polkit: {len(actions)} actions, auth_admin_keep for active sessions")
PY
echo PASS
