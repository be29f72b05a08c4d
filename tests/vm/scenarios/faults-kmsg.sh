# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (j) GPU fault lines in a real kernel log and journal (one boot, BIOS; no GPU in the guest). The
# guest writes a captured amdgpu page fault (tests/fixtures/faults/gfx1031-python3-page-fault.log,
# from https://github.com/ROCm/legacy-rocm-build/issues/6003) to /dev/kmsg line by line, as the
# kernel printed it (dev_err: level 3), and a unit prints the ROCm runtime's fault line
# (ollama-memory-access-fault-stderr.log, https://github.com/ollama/ollama/issues/12131) on its
# standard error. Then:
#   - how journald (252) recorded them: the written lines are _TRANSPORT=kernel like the kernel's
#     own, but with SYSLOG_FACILITY=1 (a written line without a facility gets LOG_USER, printk.c
#     devkmsg_write) and no SYSLOG_IDENTIFIER, where the kernel's own have SYSLOG_FACILITY=0 and
#     SYSLOG_IDENTIFIER=kernel;
#   - sys::ReadSystemLog (tests/vm/log_probe.cc, carried into the guest) reads them from the
#     journal: the kernel lines marked written_by_process, the service line with its unit; again
#     from its cursor: nothing new; as uid 65534: nothing (the system journal is 0640
#     root:systemd-journal), as uid 65534 in group systemd-journal: the lines;
#   - with no journal in sight (a mount namespace with empty /var/log and /run/log) it reads
#     /dev/kmsg: the same lines, marked written; as uid 65534 with kernel.dmesg_restrict=1: no
#     source, and why.
#   - `rocmtunectl faults --json` and `rocmtunectl doctor` report the page fault (pasid 32772,
#     python3, pid 4010) in this boot, and faults the runtime's line of ollama-double.service;
#   - rocmtuned, as user rocmtune under its unit, answers Faults from the journal through the
#     helper's read-log: root's answer has the page fault, uid 65534's (not in sudo, adm,
#     systemd-journal) does not.
IMAGE=bios
EXPECT="1:-"
PROBE=$BUILD/tests/vm/rocmtune_vm_log_probe
[ -x "$PROBE" ] || skip "$PROBE is not built (cmake --build $BUILD --target rocmtune_vm_log_probe)"
FAULT_LOG=$SRC/tests/fixtures/faults/gfx1031-python3-page-fault.log
RUNTIME_LOG=$SRC/tests/fixtures/faults/ollama-memory-access-fault-stderr.log
plan() {
  echo 'base64 -d >/usr/local/bin/log-probe <<'"'"'B64'"'"
  local stripped
  stripped=$(mktemp)
  objcopy --strip-all "$PROBE" "$stripped"
  base64 "$stripped"
  rm -f "$stripped"
  echo 'B64'
  cat <<'EOF'
chmod 755 /usr/local/bin/log-probe
# report LABEL CMD...: every output line of CMD as "LABEL: line", then "LABEL rc=N"
report() { lines "$@"; }
# The captured block from its page fault line on, without dmesg's "[  402.306487] ".
cat >/run/fault-lines <<'FAULT'
EOF
  sed -n '/page fault/,$p' "$FAULT_LOG" | sed -E 's/^\[[^]]*\] //'
  cat <<'EOF'
FAULT
cat >/run/runtime-line <<'RUNTIME'
EOF
  grep 'Memory access fault' "$RUNTIME_LOG"
  cat <<'EOF'
RUNTIME
say "faults: writing $(wc -l </run/fault-lines) lines to /dev/kmsg"
# One write, one record; each redirection opens /dev/kmsg anew (its own rate limit of 10 lines).
while IFS= read -r l; do printf '<3>%s\n' "$l" >/dev/kmsg; done </run/fault-lines
lines ollama-double systemd-run --wait --quiet --unit=ollama-double -p StandardError=journal \
  /bin/sh -c 'cat /run/runtime-line >&2'
for i in $(seq 60); do
  journalctl -b -k --no-pager | grep -q 'pasid:32772' && journalctl -b -u ollama-double --no-pager | grep -q 'fault by GPU' && break
  sleep 1
done
journalctl -b -o json --no-pager | python3 -c '
import json, sys
for line in sys.stdin:
    e = json.loads(line)
    m = e.get("MESSAGE")
    if not isinstance(m, str): continue
    kind = "written" if "pasid:32772" in m else "kernel" if m.startswith("Linux version") else "runtime" if "fault by GPU" in m else None
    if kind:
        print(kind, " ".join(f"{k}={e[k]}" for k in ("_TRANSPORT", "SYSLOG_FACILITY", "SYSLOG_IDENTIFIER", "PRIORITY", "_SYSTEMD_UNIT") if k in e))
' | sort -u >/run/journald-fields
report journald cat /run/journald-fields
report probe-root /usr/local/bin/log-probe --boot 0
cursor=$(/usr/local/bin/log-probe --boot 0 | sed -n 's/^C //p')
report probe-again /usr/local/bin/log-probe --boot 0 --after "$cursor"
report probe-nobody setpriv --reuid=65534 --regid=65534 --clear-groups /usr/local/bin/log-probe --boot 0
jg=$(getent group systemd-journal | cut -d: -f3)
report probe-journal-group setpriv --reuid=65534 --regid=65534 --groups="$jg" /usr/local/bin/log-probe --boot 0
say "faults: dmesg_restrict=$(cat /proc/sys/kernel/dmesg_restrict)"
# No journal in sight: empty file systems over /var/log and /run/log, in a mount namespace.
nojournal='mount -t tmpfs none /var/log && { [ ! -d /run/log ] || mount -t tmpfs none /run/log; } && exec "$@"'
report probe-kmsg unshare -m sh -c "$nojournal" sh /usr/local/bin/log-probe
report probe-kmsg-nobody unshare -m sh -c "$nojournal" sh setpriv --reuid=65534 --regid=65534 --clear-groups /usr/local/bin/log-probe
# (`rocmtunectl faults --help` exits 0 for an unknown verb too: ask the verb list.)
if rocmtunectl --help 2>&1 | grep -q -E '^  faults '; then
  say "faults: the installed rocmtunectl has the faults verb"
  json faults-json rocmtunectl faults --json
  report doctor rocmtunectl doctor
  # rocmtuned under its unit (user rocmtune, not in systemd-journal) reads through the helper.
  json bus-faults-root busctl --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Faults it 0 0
  json bus-faults-nobody setpriv --reuid=65534 --regid=65534 --clear-groups \
    busctl --json=short call org.rocmtune1 /org/rocmtune1 org.rocmtune1.Manager Faults it 0 0
  say "faults: rocmtuned runs as $(ps -o user= -C rocmtuned | sort -u | tr '\n' ' ')"
else
  say "faults: the installed rocmtunectl has no faults verb"
fi
EOF
}
# probe_field LABEL N: field N of LABEL's "S" line ("LABEL: S SOURCE ENTRIES BOOTS ..."): 3 the
# source, 4 the entries
probe_field() { say_line 1 "$1: S " | awk -v f="$2" '{print $f}'; }
entries_of() { grep -a -E "^VMPROBE boot=1 $1: E " "$RUN/probe.txt" | sed -E "s/^VMPROBE boot=1 $1: E //"; }
# every captured line is an entry "kernel 1 -" (a kernel-transport line a process wrote) of LABEL
has_fault_lines() {
  local l want got
  got=$(entries_of "$1")
  while IFS= read -r l; do
    want="kernel 1 - ${l//$'\t'/\\t}"
    grep -q -F -x -- "$want" <<<"$got" || { echo "missing in $1: $want"; return 1; }
  done < <(sed -n '/page fault/,$p' "$FAULT_LOG" | sed -E 's/^\[[^]]*\] //')
}
faults_present() { probe_has 1 'faults: the installed rocmtunectl has the faults verb'; }
# faults_json_where PYTHON_CONDITION: `faults --json` (rocmtune.faults.v1) exited 1 (it lists a
# fault, rocmtunectl(1)) and has a record r for which the condition holds
faults_json_where() {
  say_line 1 'faults-json rc=1 ' | sed 's/^faults-json rc=1 //' | /usr/bin/python3 -c "
import json, sys
d = json.load(sys.stdin)
sys.exit(0 if any($1 for r in d['faults']) else 1)"
}
faults_json_has_page_fault() {
  faults_json_where "r['kind'] == 'page-fault' and r['pasid'] == 32772 and r['process'] == 'python3' and r['pid'] == 4010 and r['boot'] == 0"
}
faults_json_has_runtime_fault() { faults_json_where "r['unit'] == 'ollama-double.service'"; }
# bus_faults LABEL PYTHON_CONDITION: busctl's reply to Faults (LABEL rc=0, {"type":"s","data":[DOC]})
# is a rocmtune.faults.v1 document d for which the condition holds
bus_faults() {
  say_line 1 "$1 rc=0 " | sed "s/^$1 rc=0 //" | /usr/bin/python3 -c "
import json, sys
d = json.loads(json.load(sys.stdin)['data'][0])
page = [r for r in d['faults'] if r['kind'] == 'page-fault' and r['pasid'] == 32772 and r['pid'] == 4010]
sys.exit(0 if $2 else 1)"
}
verify() {
  check "journald: a written line is _TRANSPORT=kernel with SYSLOG_FACILITY=1" \
    probe_has 1 'journald: written _TRANSPORT=kernel SYSLOG_FACILITY=1 PRIORITY=3'
  check "journald: the kernel's own line is _TRANSPORT=kernel, SYSLOG_FACILITY=0, SYSLOG_IDENTIFIER=kernel" \
    probe_has 1 'journald: kernel _TRANSPORT=kernel SYSLOG_FACILITY=0 SYSLOG_IDENTIFIER=kernel PRIORITY=5'
  check "journald: the runtime line is the unit's stderr" \
    probe_has 1 'journald: runtime _TRANSPORT=stdout .*_SYSTEMD_UNIT=ollama-double.service'
  check "reader, root: the journal" test "$(probe_field probe-root 3)" = journal
  check "reader, root: every captured line, as written by a process" has_fault_lines probe-root
  check "reader, root: the runtime line with its unit" \
    probe_has 1 'probe-root: E service 0 ollama-double.service Memory access fault by GPU node-1 \(Agent handle: 0x724828692930\)'
  check "reader, root: nothing new after its cursor" test "$(probe_field probe-again 4)" = 0
  check "reader, uid 65534: the journal, none of the system journal's lines" \
    test "$(probe_field probe-nobody 3) $(probe_field probe-nobody 4)" = "journal 0"
  check "reader, uid 65534 in group systemd-journal: the lines" has_fault_lines probe-journal-group
  check "reader without a journal: /dev/kmsg" test "$(probe_field probe-kmsg 3)" = kmsg
  check "reader on /dev/kmsg: every captured line, as written by a process" has_fault_lines probe-kmsg
  if probe_has 1 'faults: dmesg_restrict=1'; then
    check "reader on /dev/kmsg, uid 65534, dmesg_restrict=1: none, and why" \
      probe_has 1 'probe-kmsg-nobody: S none 0 0 0 .*dmesg_restrict'
  else
    check "reader on /dev/kmsg, uid 65534, dmesg_restrict=0: read" test "$(probe_field probe-kmsg-nobody 3)" = kmsg
  fi
  check "the installed rocmtunectl has the faults verb" faults_present
  if faults_present; then
    check "faults --json: the page fault of python3 (pasid 32772, pid 4010), this boot" faults_json_has_page_fault
    check "faults --json: the runtime's fault of ollama-double.service" faults_json_has_runtime_fault
    check "doctor: this boot's GPU faults, the page fault of python3 among them" \
      bash -c "grep -a -q -E '^VMPROBE boot=1 doctor: GPU faults in this boot:\$' '$RUN/probe.txt' &&
               grep -a -q -E '^VMPROBE boot=1 doctor: python3 \\(pid 4010\\) hit a GPU page fault' '$RUN/probe.txt'"
    check "rocmtuned runs as user rocmtune under its unit" probe_has 1 'faults: rocmtuned runs as rocmtune $'
    check "rocmtuned's Faults, root: the page fault of python3, read through the helper" \
      bus_faults bus-faults-root "page and d['source'] == 'journal'"
    check "rocmtuned's Faults, uid 65534: an answer without other users' faults" \
      bus_faults bus-faults-nobody "not page"
  fi
}
