#!/bin/bash
# The shipped units, udev rules and bus/polkit files as systemd, udev, dbus-daemon and polkit
# read them: `systemd-analyze verify` prints nothing for each unit (every one under systemd/, the
# expected ones present), the exposure (`systemd-analyze security --offline=true`) of
# rocmtuned.service and rocmtune-apply@.service is at most 1.5 and is printed, the udev rules pass
# `udevadm verify` (or, where udevadm has none, tests/daemon/udev_rules_check.py, which is first
# shown to fail on a broken rule) and start units that exist, the boot units are ordered as
# promised, the activation file names the unit and the bus name, and the polkit actions parse
# with the defaults promised; no unit but rocmtuned.service sets RestrictSUIDSGID= (see below).
# usage: units_test.sh SOURCE_DIR ROCMTUNED ROCMTUNE_HELPER ROCMTUNECTL
set -u
SRC=$1 DAEMON=$(readlink -f "$2") HELPER=$(readlink -f "$3") CTL=$(readlink -f "$4")
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
    -e "s|/usr/bin/rocmtunectl|$CTL|" "$unit" >"$WORK/$(basename "$unit")"
done
for expected in rocmtuned.service rocmtune-helper.socket rocmtune-helper@.service rocmtune-apply@.service \
  rocmtune-resume.service rocmtune-recover.service rocmtune-reset.service; do
  [ -e "$WORK/$expected" ] || fail "systemd/$expected is missing"
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

# The instance is CARD even when it starts with a dash: `reapply --force` must not be an option
# (reapply refuses a dash-led or empty CARD, tests/world/small_holes_cli_test.cc).
grep -q '^ExecStart=[^ ]*rocmtunectl --root / reapply -- %I$' "$WORK/rocmtune-apply@.service" ||
  fail "rocmtune-apply@.service does not pass its instance after --: $(grep '^ExecStart=' "$WORK/rocmtune-apply@.service")"

# A template is analyzed as an instance (systemd-analyze names it rocmtune-apply@i.service).
for unit in rocmtuned.service rocmtune-apply@.service; do
  report=$(cd "$WORK" && systemd-analyze security --offline=true "./$unit" 2>&1)
  exposure=$(echo "$report" | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p')
  [ -n "$exposure" ] || fail "no exposure for $unit in: $report"
  echo "$report" | grep '✗'
  echo "$unit exposure: $exposure (limit 1.5)"
  awk -v e="$exposure" 'BEGIN { exit !(e <= 1.5) }' || fail "$unit: exposure $exposure is over 1.5"
done

# rocmtuned is not root: its own system user, made by the shipped sysusers.d file (read by the real
# systemd-sysusers into a scratch root), the only other user the helper's socket lets connect.
grep -qx 'User=rocmtune' "$SRC/systemd/rocmtuned.service" || fail "rocmtuned.service does not run as user rocmtune"
grep -qx 'Group=rocmtune' "$SRC/systemd/rocmtuned.service" || fail "rocmtuned.service does not run as group rocmtune"
report=$(cd "$WORK" && systemd-analyze security --offline=true ./rocmtuned.service 2>&1)
echo "$report" | grep -q '✗ User=/DynamicUser=' && fail "systemd-analyze says rocmtuned.service runs as root"
for line in SocketUser=root SocketGroup=rocmtune SocketMode=0660; do
  grep -qx "$line" "$SRC/systemd/rocmtune-helper.socket" || fail "rocmtune-helper.socket lacks $line"
done
if command -v systemd-sysusers >/dev/null; then
  mkdir -p "$WORK/sysroot/etc"
  systemd-sysusers --root="$WORK/sysroot" - <"$SRC/systemd/sysusers.d/rocmtune.conf" >/dev/null 2>&1 ||
    fail "systemd-sysusers rejects systemd/sysusers.d/rocmtune.conf"
  user=$(grep '^rocmtune:' "$WORK/sysroot/etc/passwd") || fail "sysusers.d/rocmtune.conf makes no user rocmtune"
  grep -q '^rocmtune:' "$WORK/sysroot/etc/group" || fail "sysusers.d/rocmtune.conf makes no group rocmtune"
  case $user in *:/:/usr/sbin/nologin) ;; *) fail "user rocmtune has a home or a login shell: $user" ;; esac
  uid=$(echo "$user" | cut -d: -f3)
  [ "$uid" -gt 0 ] && [ "$uid" -lt 1000 ] || fail "user rocmtune is not a system user: $user"
  echo "sysusers.d/rocmtune.conf: $user"
fi

# The boot units: before anything reads modprobe.d, after / is writable and the journal mounted.
for unit in rocmtune-recover.service rocmtune-reset.service; do
  f=$SRC/systemd/$unit
  grep -qx 'DefaultDependencies=no' "$f" || fail "$unit keeps the default dependencies (after sysinit.target)"
  for before in systemd-udev-trigger.service systemd-modules-load.service; do
    grep -q "^Before=.*\b$before\b" "$f" || fail "$unit is not ordered before $before"
  done
  grep -q '^After=.*systemd-remount-fs.service' "$f" || fail "$unit is not ordered after systemd-remount-fs.service"
  grep -q '^RequiresMountsFor=.*/var/lib/rocmtune' "$f" || fail "$unit does not wait for /var/lib/rocmtune"
done
grep -qx 'ConditionKernelCommandLine=rocmtune.reset=1' "$SRC/systemd/rocmtune-reset.service" ||
  fail "rocmtune-reset.service does not depend on rocmtune.reset=1"
grep -q 'rocmtune.reset=1' "$SRC/README.md" || fail "README.md does not document rocmtune.reset=1"
grep -q 'rocmtune.reset=1' "$SRC/systemd/README.md" || fail "systemd/README.md does not document rocmtune.reset=1"

# The udev rules: udevadm's own check where it has one (systemd >= 254), else ours, which must
# first fail on a rule with a wrong operator and a missing tag.
RULES=$SRC/udev/70-rocmtune.rules
[ -f "$RULES" ] || fail "udev/70-rocmtune.rules is missing"
if command -v udevadm >/dev/null && udevadm verify --help >/dev/null 2>&1; then
  out=$(udevadm verify --no-summary "$RULES" 2>&1) || fail "udevadm verify: $out"
  echo "udevadm verify 70-rocmtune.rules: clean"
else
  echo "udevadm verify is not available ($(command -v udevadm >/dev/null && udevadm --version || echo 'no udevadm'));" \
    "checking the syntax with tests/daemon/udev_rules_check.py"
  CHECK=$SRC/tests/daemon/udev_rules_check.py
  printf 'ACTION="add", SUBSYSTEM=="drm", ENV{SYSTEMD_WANTS}+="x.service"\n' >"$WORK/bad.rules"
  /usr/bin/python3 "$CHECK" "$WORK/bad.rules" >/dev/null && fail "udev_rules_check.py accepts a broken rule"
  out=$(/usr/bin/python3 "$CHECK" "$RULES") || fail "udev rules: $out"
  echo "udev_rules_check 70-rocmtune.rules: clean"
fi
# Every unit the rules start is shipped.
for wanted in $(grep -o 'rocmtune-[a-z-]*@%k\.service' "$RULES" | sed 's/%k//' | sort -u); do
  [ -e "$SRC/systemd/$wanted" ] || fail "70-rocmtune.rules starts $wanted, which systemd/ does not ship"
done
grep -q '^ACTION=="add".*SYSTEMD_WANTS' "$RULES" || fail "no rule for a card that appears"
grep -q '^ACTION=="change".*ENV{WEDGED}' "$RULES" || fail "no rule for a GPU reset (WEDGED)"

act=$SRC/dbus/org.rocmtune1.service
grep -qx 'Name=org.rocmtune1' "$act" || fail "the activation file does not name org.rocmtune1"
grep -qx 'SystemdService=rocmtuned.service' "$act" || fail "the activation file does not start rocmtuned.service"
grep -qx 'BusName=org.rocmtune1' "$SRC/systemd/rocmtuned.service" || fail "rocmtuned.service has another BusName"

/usr/bin/python3 - "$SRC/polkit/org.rocmtune1.policy" <<'PY' || fail "the polkit actions are not as promised"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
actions = {a.get("id"): a for a in root.findall("action")}
want = {"org.rocmtune1.apply", "org.rocmtune1.set", "org.rocmtune1.revert", "org.rocmtune1.force"}
if set(actions) != want:
    sys.exit(f"actions {sorted(actions)} != {sorted(want)}")
for name, a in actions.items():
    d = {c.tag: c.text for c in a.find("defaults")}
    # force overrides rocmtune's own refusals: an admin's password every time, never kept.
    active = "auth_admin" if name == "org.rocmtune1.force" else "auth_admin_keep"
    if d != {"allow_any": "auth_admin", "allow_inactive": "auth_admin", "allow_active": active}:
        sys.exit(f"{name}: defaults {d}")
    if not a.findtext("description") or not a.findtext("message"):
        sys.exit(f"{name}: no description or message")
print(f"polkit: {len(actions)} actions, auth_admin_keep for active sessions, force never kept")
PY
echo PASS
