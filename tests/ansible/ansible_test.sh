#!/usr/bin/env bash
# The Ansible role (packaging/ansible/roles/rocmtune) driven by Debian's ansible-core on localhost
# against a scratch copy of a world, with the built rocmtunectl (which runs the built helper):
# a first run changes and writes, a second changes nothing, --check writes nothing, --check --diff
# shows the unified diffs of the files the profile writes, a refused profile and drift fail the
# task with rocmtune's reason, the reboot handler is notified only when allowed and only for the
# host's own / (never for rocmtune_root, a tree that boots elsewhere), state=absent resets, the
# local fact is installed inside rocmtune_root and prints rocmtune.status.v1 (or an error object
# without rocmtunectl), and check mode reports `changed` as the real run then does.
# Usage: ansible_test.sh SOURCE_DIR ROCMTUNECTL. Exit 77 (skip) without ansible-playbook.
set -euo pipefail

src="$1"
ctl="$2"
playbook="${ROCMTUNE_ANSIBLE_PLAYBOOK:-/usr/bin/ansible-playbook}" # Debian's; the variable only for trying the skip
python=/usr/bin/python3
if [ ! -x "$playbook" ]; then
  echo "SKIP: $playbook not found (apt-get install ansible-core; scripts/install-deps.sh installs it)"
  exit 77
fi
[ -x "$ctl" ] || { echo "FAIL: rocmtunectl $ctl is not executable"; exit 1; }

# The world: an RX 5700 XT (gfx1010) on Ubuntu with GRUB and initramfs-tools. No built-in profile
# writes a file there (rdna1-safe only notes and unsets), so the world copy gets an admin profile
# (/etc/rocmtune/profiles, as an administrator would add one) that sets a module option
# (/etc/modprobe.d/rocmtune.conf: reboot required, initramfs pending) and has an optional item
# (a /etc/default/grub.d drop-in) the role passes with rocmtune_optional_items (--with).
world_name=rx5700xt
profile=fleet-rdna1
with_optional=(-e '{"rocmtune_optional_items": ["fleet-iommu-pt"]}')
refused_profile=instinct # matches gfx908/gfx90a/gfx942/gfx950 only: refused here (exit 3)
written=etc/modprobe.d/rocmtune.conf
written_optional=etc/default/grub.d/zz-rocmtune.cfg

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
world="$tmp/world"
cp -a "$src/tests/worlds/$world_name" "$world"
while IFS= read -r d; do [ -n "$d" ] && mkdir -p "$world/$d"; done <"$world/EMPTY_DIRS"
mkdir -p "$world/etc/rocmtune/profiles"
cat >"$world/etc/rocmtune/profiles/$profile.toml" <<'EOF'
schema_version = 1
description = "An admin profile of the Ansible test: RDNA1 with a module option and an optional kernel option"

[match]
gfx = ["gfx1010"]

[[items]]
id = "fleet-noretry"
action = "set"
key = "amdgpu.noretry"
value = "0"
why = "The Ansible test's module option: written to /etc/modprobe.d/rocmtune.conf"
source = "tests/ansible/ansible_test.sh"

[[items]]
id = "fleet-iommu-pt"
action = "set"
key = "cmdline.iommu"
value = "pt"
optional = true
why = "The Ansible test's optional item (--with): a kernel command-line option"
source = "tests/ansible/ansible_test.sh"
EOF

# Ansible writes nothing outside $tmp: no ~/.ansible, no ansible.cfg picked up from the cwd.
mkdir -p "$tmp/home"
: >"$tmp/ansible.cfg"
cd "$tmp"
export HOME="$tmp/home" ANSIBLE_CONFIG="$tmp/ansible.cfg"
export ANSIBLE_LOCAL_TEMP="$tmp/ansible-local" ANSIBLE_REMOTE_TEMP="$tmp/ansible-remote"
export ANSIBLE_PYTHON_INTERPRETER="$python" ANSIBLE_ROLES_PATH="$src/packaging/ansible/roles"
export ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_LOCALHOST_WARNING=0
export ANSIBLE_INVENTORY_UNPARSED_WARNING=0 ANSIBLE_STDOUT_CALLBACK=default ANSIBLE_GATHERING=explicit
export ANSIBLE_PERSISTENT_CONTROL_PATH_DIR="$tmp/ansible-pc"
unset ANSIBLE_LOG_PATH ANSIBLE_LIBRARY ANSIBLE_MODULE_UTILS

cat >"$tmp/play.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  roles:
    - rocmtune
EOF

failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# ansible-playbook with the role's variables; output in $tmp/out.N, exit code in $rc.
n=0
play() {
  n=$((n + 1))
  out="$tmp/out.$n"
  set +e
  "$playbook" -i localhost, -c local "$tmp/play.yml" -e rocmtune_install_package=false \
    -e "rocmtune_root=$world" -e "rocmtune_rocmtunectl=$ctl" "$@" >"$out" 2>&1
  rc=$?
  set -e
  echo "== ansible-playbook $* (exit $rc)"
  sed 's/^/   /' "$out"
}

# The status line (ok/changed/fatal/skipping) of the task named $1 in the last run's output.
task_status() {
  awk -v task="TASK [rocmtune : $1]" 'index($0, task) == 1 { found = 1; next }
    found && /^(ok|changed|fatal|skipping|failed):/ { sub(/:.*/, ""); print; exit }' "$out"
}
recap() { grep -o "$1=[0-9]*" "$out" | head -1 | cut -d= -f2 || true; }

expect_task() {
  local got
  got="$(task_status "$1")"
  [ "$got" = "$2" ] || fail "run $n: task '$1' is '${got:-absent}', expected '$2'"
}
expect_recap() {
  local got
  got="$(recap "$1")"
  [ "$got" = "$2" ] || fail "run $n: recap $1=${got:-absent}, expected $2"
}
expect_in_output() { grep -qF -- "$1" "$out" || fail "run $n: output lacks: $1"; }
expect_not_in_output() { ! grep -qF -- "$1" "$out" || fail "run $n: output has: $1"; }

# Every path of the world copy with its type, mode and content digest (symlinks: their target).
tree_state() {
  (cd "$world" && find . -printf '%p %y %m ' -exec sh -c '
    if [ -L "$1" ]; then readlink "$1"; elif [ -f "$1" ]; then sha256sum <"$1" | cut -d" " -f1; else echo; fi' _ {} \; |
    LC_ALL=C sort)
}

# 0. The module's documentation: ansible-doc reads it, and every option it documents is one the
# module takes, with the same type, default, choices and requiredness (what validate-modules checks).
library="$src/packaging/ansible/roles/rocmtune/library"
"${playbook%-playbook}-doc" -M "$library" --json rocmtune_profile >"$tmp/doc.json" 2>"$tmp/doc.err" ||
  fail "ansible-doc cannot read the module's documentation: $(head -3 "$tmp/doc.err")"
"$python" - "$tmp/doc.json" "$library" <<'EOF' || fail "DOCUMENTATION and ARGUMENT_SPEC disagree"
import json, sys
sys.path.insert(0, sys.argv[2])
from rocmtune_profile import ARGUMENT_SPEC, EXAMPLES, RETURN
import yaml
doc = json.load(open(sys.argv[1]))["rocmtune_profile"]
options = doc["doc"]["options"]
assert set(options) == set(ARGUMENT_SPEC), (sorted(options), sorted(ARGUMENT_SPEC))
for name, spec in ARGUMENT_SPEC.items():
    o = options[name]
    for key, default in (("type", "str"), ("default", None), ("choices", None), ("required", False), ("elements", None)):
        assert o.get(key, default) == spec.get(key, default), (name, key, o.get(key), spec.get(key))
assert doc["return"] and yaml.safe_load(EXAMPLES) and yaml.safe_load(RETURN)
EOF

# 1. --check --diff: the plan with both files' unified diffs; nothing written, not even the journal.
before="$(tree_state)"
play -e "rocmtune_profile=$profile" "${with_optional[@]}" --check --diff
[ "$rc" = 0 ] || fail "run $n: --check --diff exited $rc"
expect_task "Apply the rocmtune profile" changed
expect_task "Install the rocmtune local fact" changed
expect_not_in_output "+#!/usr/bin/python3" # the fact's copy shows no diff: only rocmtune's changes do
expect_in_output "+++ b/$written"
expect_in_output "+options amdgpu noretry=0"
expect_in_output "+++ b/$written_optional"
# shellcheck disable=SC2016 # the literal text of the drop-in
expect_in_output '+GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt"'
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: --check changed the world: $(diff <(echo "$before") <(echo "$after") | head -5)"
[ ! -e "$world/etc/ansible/facts.d/rocmtune.fact" ] || fail "run $n: --check installed the fact"

# 2. The reboot handler. For the tree under rocmtune_root it is never notified, allowed or not:
# the tree takes the setting when it boots, and rebooting the host (an image's build host) would
# not apply it.
play -e "rocmtune_profile=$profile" "${with_optional[@]}" -e rocmtune_allow_reboot=true --check
expect_task "Reboot needed" ok
expect_in_output "a boot-time setting of the tree $world, which takes effect when that tree boots"
expect_not_in_output "RUNNING HANDLER"
play -e "rocmtune_profile=$profile" "${with_optional[@]}" --check
expect_task "Reboot needed" ok
expect_not_in_output "RUNNING HANDLER"
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: a --check run changed the world"
# For the host's own / ("" or "/"), notified when a reboot is needed and allowed: the role's
# reboot tasks with a result that needs one, only ever in --check (ansible.builtin.reboot refuses
# the local connection anyway: "would reboot the control node").
cat >"$tmp/reboot.yml" <<'EOF'
- hosts: localhost
  gather_facts: false
  vars:
    rocmtune_result: {reboot_required: true}
  tasks:
    - ansible.builtin.import_role:
        name: rocmtune
        tasks_from: reboot
EOF
reboot_play() {
  n=$((n + 1))
  out="$tmp/out.$n"
  set +e
  "$playbook" -i localhost, -c local "$tmp/reboot.yml" --check "$@" >"$out" 2>&1
  rc=$?
  set -e
  echo "== ansible-playbook reboot.yml --check $* (exit $rc)"
  sed 's/^/   /' "$out"
}
for host_root in "" /; do
  reboot_play -e "rocmtune_root=$host_root" -e rocmtune_allow_reboot=true
  expect_task "Reboot needed" changed
  expect_in_output "RUNNING HANDLER [rocmtune : Reboot for rocmtune]"
  reboot_play -e "rocmtune_root=$host_root" -e rocmtune_allow_reboot=false
  expect_task "Reboot needed" ok
  expect_not_in_output "RUNNING HANDLER"
done
reboot_play -e "rocmtune_root=$world" -e rocmtune_allow_reboot=true
expect_task "Reboot needed" ok
expect_not_in_output "RUNNING HANDLER"

# 2b. rocmtune_trial: the module passes --trial. On a tree a trial is planned only, in check mode:
# the plan is the one-shot GRUB entry, its switch and the trial's state, nothing permanent; the
# role's trial reboot, wait and verify are skipped (not the host's /, and check mode), and so is
# the ordinary reboot message (a trial has its own reboot). Without check mode the CLI refuses it
# with its reason (exit 3) and the task fails with it. A copy of the world that can boot a trial
# (grub-editenv, rocmtune's /etc/grub.d script, / on ext4), so the steps below keep theirs.
trial_world="$tmp/trial-world"
cp -a "$world" "$trial_world"
mkdir -p "$trial_world/usr/bin" "$trial_world/etc/grub.d" "$trial_world/proc/self"
printf '#!/bin/sh\nexit 0\n' >"$trial_world/usr/bin/grub-editenv"
chmod 0755 "$trial_world/usr/bin/grub-editenv"
cp "$src/grub/42_rocmtune" "$trial_world/etc/grub.d/42_rocmtune"
echo "22 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw" >"$trial_world/proc/self/mountinfo"
# The tree as rocmtune sees it (the role's own fact under etc/ansible is installed by a real run).
# Sizes of files only: a directory's size on tmpfs grows with its entries (etc/ansible's parent).
trial_tree() {
  (cd "$trial_world" && find . -path ./etc/ansible -prune -o -type f -printf '%p %m %s\n' -o -printf '%p %y %m\n' |
    LC_ALL=C sort)
}
trial_before="$(trial_tree)"
play -e "rocmtune_profile=$profile" -e "rocmtune_root=$trial_world" -e rocmtune_trial=true --check --diff
[ "$rc" = 0 ] || fail "run $n: a trial in check mode exited $rc"
expect_task "Apply the rocmtune profile" changed
expect_in_output "+++ b/boot/grub/rocmtune-trial.cfg"
expect_in_output "amdgpu.noretry=0"
expect_not_in_output "+++ b/$written" # nothing permanent in a trial's plan
expect_task "Reboot into the trial boot" skipping
expect_task "Wait for the trial's check and commit" skipping
expect_task "Verify the committed change" skipping
expect_task "Reboot needed" skipping
trial_after="$(trial_tree)"
[ "$trial_before" = "$trial_after" ] ||
  fail "run $n: a trial in check mode changed the tree: $(diff <(echo "$trial_before") <(echo "$trial_after") | head -5)"
play -e "rocmtune_profile=$profile" -e "rocmtune_root=$trial_world" -e rocmtune_trial=true
[ "$rc" != 0 ] || fail "run $n: a trial on a tree (not check mode) did not fail the play"
expect_task "Apply the rocmtune profile" fatal
expect_in_output "apply $profile --trial: refused (exit 3)"
expect_in_output "on a --root tree it is planned only"
trial_after="$(trial_tree)"
[ "$trial_before" = "$trial_after" ] ||
  fail "run $n: a refused trial changed the tree: $(diff <(echo "$trial_before") <(echo "$trial_after") | head -5)"

# 3. The real run: both files written, changed; the fact installed.
play -e "rocmtune_profile=$profile" "${with_optional[@]}"
[ "$rc" = 0 ] || fail "run $n: apply exited $rc"
expect_task "Apply the rocmtune profile" changed
expect_task "Reboot needed" ok
expect_recap changed 3 # the fact's directory in the tree and the fact (--check runs installed nothing), the profile
expect_recap failed 0
grep -qx 'options amdgpu noretry=0' "$world/$written" 2>/dev/null || fail "run $n: $written not written as planned"
grep -q 'iommu=pt' "$world/$written_optional" 2>/dev/null || fail "run $n: $written_optional not written as planned"
[ -x "$world/etc/ansible/facts.d/rocmtune.fact" ] || fail "run $n: the fact is not installed executable in the tree"
# Read whole before grep: grep -q stops at the first match, and under pipefail the writer's SIGPIPE
# (a long document) would fail the check that just matched.
history_json="$("$ctl" --root "$world" history --json)"
grep -q "\"profile\": \"$profile\"" <<<"$history_json" ||
  fail "run $n: rocmtunectl history has no transaction of $profile"

# 4. The same again: nothing changes anywhere in the role, nothing is written.
before="$(tree_state)"
play -e "rocmtune_profile=$profile" "${with_optional[@]}"
[ "$rc" = 0 ] || fail "run $n: second apply exited $rc"
expect_task "Apply the rocmtune profile" ok
expect_recap changed 0
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: the second run changed the world"

# 5. A profile for another GPU family: the task fails with rocmtune's reason, nothing written.
play -e "rocmtune_profile=$refused_profile"
[ "$rc" != 0 ] || fail "run $n: a refused profile did not fail the play"
expect_task "Apply the rocmtune profile" fatal
expect_in_output "rocmtunectl --no-ask-password --root $world apply $refused_profile: refused (exit 3)"
expect_in_output "does not fit this machine"
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: the refused profile changed the world"

# 6. An unknown profile: the CLI's not-found message.
play -e rocmtune_profile=no-such-profile
[ "$rc" != 0 ] || fail "run $n: an unknown profile did not fail the play"
expect_in_output "usage error (exit 2)"
expect_in_output "no-such-profile"

# 6b. Drift: rocmtune's drop-in edited by hand; removing the profile fails with rocmtune's message
# (exit 5) and leaves the file as the admin left it. The edit undone, nothing is drift any more.
cp "$world/$written" "$tmp/written.orig"
echo "options amdgpu gpu_recovery=1" >>"$world/$written"
edited="$(tree_state)"
play -e "rocmtune_profile=$profile" -e rocmtune_state=absent
[ "$rc" != 0 ] || fail "run $n: removing a profile whose file drifted did not fail the play"
expect_task "Apply the rocmtune profile" fatal
expect_in_output "reset: drift or conflict (exit 5): drift: $world/$written was edited by someone else"
after="$(tree_state)"
[ "$edited" = "$after" ] || fail "run $n: the drifted world was changed"
cp "$tmp/written.orig" "$world/$written"

# 7. The local fact: rocmtune.status.v1 of the world (its GPUs, the active profile), read by
# Ansible's setup module from the fact directory; an error object without rocmtunectl.
printf '#!/bin/sh\nexec %q --root %q "$@"\n' "$ctl" "$world" >"$tmp/ctl-world"
chmod +x "$tmp/ctl-world"
fact="$world/etc/ansible/facts.d/rocmtune.fact"
[ -x "$fact" ] || cp "$src/packaging/ansible/roles/rocmtune/files/rocmtune.fact" "$fact" # failed above
fact_json="$(ROCMTUNECTL="$tmp/ctl-world" "$fact" || true)"
echo "$fact_json" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"].startswith("rocmtune.status."), d.get("schema")
assert d["profile"] == "fleet-rdna1", d.get("profile")
assert [g["gfx_target"] for g in d["gpus"]] == ["gfx1010"], d["gpus"]
' || fail "the fact does not print the world's rocmtune.status document"
missing="$(ROCMTUNECTL="$tmp/no-such-rocmtunectl" "$fact" || true)"
echo "$missing" | "$python" -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] is None and "no-such-rocmtunectl" in d["error"], d
' || fail "without rocmtunectl the fact does not print an error object: $missing"
cat >"$tmp/facts.yml" <<EOF
- hosts: localhost
  gather_facts: false
  tasks:
    - ansible.builtin.setup:
        fact_path: $world/etc/ansible/facts.d
        gather_subset: ['!all', '!min', 'local']
    - ansible.builtin.assert:
        that:
          - ansible_local.rocmtune.schema == 'rocmtune.status.v1'
          - ansible_local.rocmtune.profile == 'fleet-rdna1'
EOF
n=$((n + 1))
out="$tmp/out.$n"
ROCMTUNECTL="$tmp/ctl-world" "$playbook" -i localhost, -c local "$tmp/facts.yml" >"$out" 2>&1 ||
  fail "run $n: ansible_local.rocmtune is not the world's status: $(grep -A3 -E 'fatal|FAILED' "$out" | head -8)"

# 8. state=absent of another profile: nothing; of the active one: back to stock (files removed).
play -e rocmtune_profile=rdna1-safe -e rocmtune_state=absent
expect_task "Apply the rocmtune profile" ok
[ -e "$world/$written" ] || fail "run $n: state=absent of an inactive profile removed $written"
before="$(tree_state)"
play -e "rocmtune_profile=$profile" -e rocmtune_state=absent --check --diff
expect_task "Apply the rocmtune profile" changed
expect_in_output "--- a/$written"
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: state=absent --check changed the world"
play -e "rocmtune_profile=$profile" -e rocmtune_state=absent
expect_task "Apply the rocmtune profile" changed
[ ! -e "$world/$written" ] || fail "run $n: state=absent left $written"
[ ! -e "$world/$written_optional" ] || fail "run $n: state=absent left $written_optional"
play -e "rocmtune_profile=$profile" -e rocmtune_state=absent
expect_task "Apply the rocmtune profile" ok

# 9. Check mode predicts the real run: rdna1-safe writes nothing on this stock RX 5700 XT, and
# applying it still makes it the active profile (a journaled change): --check says changed, the
# run then is changed, and the same again is ok in both modes.
before="$(tree_state)"
play -e rocmtune_profile=rdna1-safe --check
expect_task "Apply the rocmtune profile" changed
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: --check changed the world"
play -e rocmtune_profile=rdna1-safe
expect_task "Apply the rocmtune profile" changed
status_json="$("$ctl" --root "$world" status --json)"
grep -q '"profile": "rdna1-safe"' <<<"$status_json" || fail "run $n: rdna1-safe is not active"
play -e rocmtune_profile=rdna1-safe --check
expect_task "Apply the rocmtune profile" ok
play -e rocmtune_profile=rdna1-safe
expect_task "Apply the rocmtune profile" ok

# 10. The fleet exports: rocmtune_export writes export.toml and the exports once (the timer only
# for the host's own /), a second run changes nothing, --check writes nothing, a bad format fails.
mkdir -p "$world/var/lib/prometheus/node-exporter" "$world/etc/kubernetes/node-feature-discovery/features.d"
prom="$world/var/lib/prometheus/node-exporter/rocmtune.prom"
labels="$world/etc/kubernetes/node-feature-discovery/features.d/rocmtune"
before="$(tree_state)"
play -e rocmtune_profile=rdna1-safe -e '{"rocmtune_export": ["prometheus", "nfd"]}' --check
expect_task "Write /etc/rocmtune/export.toml" changed
after="$(tree_state)"
[ "$before" = "$after" ] || fail "run $n: rocmtune_export --check changed the world"
play -e rocmtune_profile=rdna1-safe -e '{"rocmtune_export": ["prometheus", "nfd"]}'
expect_task "Write /etc/rocmtune/export.toml" changed
expect_task "Write the exports now" ok
expect_task "Enable rocmtune-export.timer" skipping
grep -q '^rocmtune_compute_safe{workload="any"} [01]$' "$prom" 2>/dev/null ||
  fail "run $n: no Prometheus export in $prom"
grep -q '^rocmtune.org/compute-safe=' "$labels" 2>/dev/null || fail "run $n: no NFD labels in $labels"
play -e rocmtune_profile=rdna1-safe -e '{"rocmtune_export": ["prometheus", "nfd"]}'
expect_recap changed 0
play -e rocmtune_profile=rdna1-safe -e '{"rocmtune_export": ["prometheus"]}'
expect_task "Write /etc/rocmtune/export.toml" changed
[ ! -e "$labels" ] || fail "run $n: turning nfd off left rocmtune's labels"
[ -e "$prom" ] || fail "run $n: the Prometheus export went with NFD's"
play -e rocmtune_profile=rdna1-safe -e '{"rocmtune_export": ["grafana"]}'
expect_task "Check the export variables" fatal
expect_in_output "rocmtune_export lists formats of: prometheus, nfd"

# 11. The fleet example (packaging/ansible/fleet-rollout.yml) is a playbook ansible-core takes
# with this role (its trial needs a real host: tests/vm's ansible-trial runs the role's trial).
"$playbook" --syntax-check -i localhost, "$src/packaging/ansible/fleet-rollout.yml" >"$tmp/syntax.out" 2>&1 ||
  fail "fleet-rollout.yml: $(tail -3 "$tmp/syntax.out")"

if [ "$failures" != 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "PASS: the rocmtune role and module with ansible-core $("$playbook" --version | head -1)"
