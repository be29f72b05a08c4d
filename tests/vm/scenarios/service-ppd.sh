# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (i) Settling power-profiles-daemon's amdgpu_dpm action on a running system (one boot, BIOS): the
# double of tests/daemon/ppd_double.py runs as power-profiles-daemon.service (its unit at the
# vendor's place, Type=dbus, its binary at /usr/libexec/power-profiles-daemon; Debian 12's real
# 0.12 has no such action, see daemon.writers). With the 0.30 double:
#   - status warns (writer.power-profiles-daemon: "0.30 resets ...");
#   - `rocmtunectl set service.power-profiles-daemon.amdgpu_dpm=off` writes the drop-in, runs
#     `systemctl daemon-reload` and busctl's SetActionEnabled(amdgpu_dpm, false) for real (the
#     double logs the call; systemd lists the drop-in); status says "disabled now";
#   - restarted, the daemon starts with --block-action=amdgpu_dpm (no such action any more);
#   - `rocmtunectl revert` removes the drop-in and restarts it: the action runs again, and every
#     file under /etc/systemd and /usr/lib/systemd is as before, byte for byte.
# With the double as 0.25 (no SetActionEnabled), the set restarts the daemon instead.
IMAGE=bios
EXPECT="1:-"
plan() {
  cat <<'EOF'
units_sum() { find /etc/systemd /usr/lib/systemd /lib/systemd -type f 2>/dev/null | sort | xargs sha256sum | sha256sum | cut -c1-16; }
ppd_finding() { rocmtunectl status --json | python3 -c '
import json, sys
for f in json.load(sys.stdin)["findings"]:
    if f["id"] == "writer.power-profiles-daemon": print(f["severity"], f["message"])'; }
say "ppd: install the double"
mkdir -p /usr/libexec /etc/dbus-1/system.d
cat >/usr/libexec/power-profiles-daemon <<'PY'
EOF
  cat "$SRC/tests/daemon/ppd_double.py"
  cat <<'EOF'
PY
chmod 755 /usr/libexec/power-profiles-daemon
cat >/etc/dbus-1/system.d/ppd-double.conf <<'XML'
<busconfig>
  <policy user="root"><allow own="org.freedesktop.UPower.PowerProfiles"/></policy>
  <policy context="default"><allow send_destination="org.freedesktop.UPower.PowerProfiles"/></policy>
</busconfig>
XML
cat >/lib/systemd/system/power-profiles-daemon.service <<'UNIT'
[Unit]
Description=Power Profiles daemon (rocmtune's test double)
[Service]
Type=dbus
BusName=org.freedesktop.UPower.PowerProfiles
Environment=PPD_DOUBLE_CALLS=/run/ppd-double-calls
ExecStart=/usr/libexec/power-profiles-daemon
[Install]
WantedBy=graphical.target
UNIT
systemctl reload dbus
systemctl daemon-reload
lines ppd-start systemctl start power-profiles-daemon.service
before=$(units_sum)
say "ppd: finding before: $(ppd_finding)"
json ppd-set rocmtunectl set service.power-profiles-daemon.amdgpu_dpm=off --json
say "ppd: calls after set: $(tr '\n' ';' </run/ppd-double-calls 2>/dev/null)"
say "ppd: dropins: $(systemctl show -p DropInPaths --value power-profiles-daemon.service)"
say "ppd: finding after set: $(ppd_finding)"
lines ppd-restart systemctl restart power-profiles-daemon.service
say "ppd: argv after restart: $(tr '\0' ' ' </proc/$(systemctl show -p MainPID --value power-profiles-daemon.service)/cmdline)"
say "ppd: finding after restart: $(ppd_finding)"
txn=$(rocmtunectl history --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["transactions"][-1]["id"])')
json ppd-revert rocmtunectl revert "$txn" --json
say "ppd: argv after revert: $(tr '\0' ' ' </proc/$(systemctl show -p MainPID --value power-profiles-daemon.service)/cmdline)"
say "ppd: finding after revert: $(ppd_finding)"
say "ppd: units before=$before after=$(units_sum)"
# Before 0.30: no SetActionEnabled, a restart.
mkdir -p /etc/systemd/system/power-profiles-daemon.service.d
printf '[Service]\nEnvironment=PPD_DOUBLE_VERSION=0.25\n' >/etc/systemd/system/power-profiles-daemon.service.d/10-old.conf
systemctl daemon-reload
lines ppd-old-start systemctl restart power-profiles-daemon.service
json ppd-old-set rocmtunectl set service.power-profiles-daemon.amdgpu_dpm=off --json
say "ppd: old argv after set: $(tr '\0' ' ' </proc/$(systemctl show -p MainPID --value power-profiles-daemon.service)/cmdline)"
say "ppd: old finding after set: $(ppd_finding)"
EOF
}
# ppd_json LABEL: the JSON of the report line "LABEL rc=N {...}"
ppd_json() { say_line 1 "$1 rc=[0-9]+ " | sed -E "s/^$1 rc=[0-9]+ //"; }
argv_of() { ppd_json "$1" | /usr/bin/python3 -c 'import json, sys; print(" ; ".join(" ".join(c["argv"]) for c in json.load(sys.stdin)["changes"] if c.get("argv")))'; }
units_same() { local l; l=$(say_line 1 'ppd: units '); [[ $l =~ before=([0-9a-f]+)\ after=([0-9a-f]+) ]] && [ "${BASH_REMATCH[1]}" = "${BASH_REMATCH[2]}" ]; }
verify() {
  check "the double runs as power-profiles-daemon.service" probe_has 1 'ppd-start rc=0'
  check "status warns before: 0.30 resets the level" probe_has 1 'ppd: finding before: warning power-profiles-daemon 0.30 resets'
  check "set: committed" probe_has 1 'ppd-set rc=0 '
  check "set: daemon-reload, then SetActionEnabled false" \
    test "$(argv_of ppd-set)" = "systemctl daemon-reload ; busctl call org.freedesktop.UPower.PowerProfiles /org/freedesktop/UPower/PowerProfiles org.freedesktop.UPower.PowerProfiles SetActionEnabled sb amdgpu_dpm false"
  check "the double was called: amdgpu_dpm false" probe_has 1 'ppd: calls after set: amdgpu_dpm false;'
  check "systemd reads rocmtune's drop-in" probe_has 1 'ppd: dropins: .*power-profiles-daemon.service.d/50-rocmtune.conf'
  check "status after set: disabled now (info)" probe_has 1 'ppd: finding after set: info .*disabled now'
  check "restarted: --block-action=amdgpu_dpm" probe_has 1 'ppd: argv after restart: .*--block-action=amdgpu_dpm'
  check "status after restart: no such action, blocked by the drop-in" probe_has 1 'ppd: finding after restart: info .*runs without an amdgpu_dpm action \(blocked by'
  check "revert: committed, restarting the daemon" test "$(argv_of ppd-revert)" = "systemctl daemon-reload ; systemctl try-restart power-profiles-daemon.service"
  check "after revert: started without the block" bash -c "! grep -a -q 'ppd: argv after revert: .*block-action' '$RUN/probe.txt'"
  check "after revert: the warning again" probe_has 1 'ppd: finding after revert: warning'
  check "after revert: every unit file as before, byte for byte" units_same
  check "0.25: set restarts the daemon" test "$(argv_of ppd-old-set)" = "systemctl daemon-reload ; systemctl try-restart power-profiles-daemon.service"
  check "0.25: restarted with the block" probe_has 1 'ppd: old argv after set: .*--block-action=amdgpu_dpm'
  check "0.25: status says blocked" probe_has 1 'ppd: old finding after set: info .*blocked by'
}
