# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT, SSH are read by run-scenario.sh
# (j) The Ansible role with rocmtune_trial: true against a real host (GRUB, BIOS): ansible-playbook on the
# host reaches the guest's root over ssh (QEMU's user network, a forwarded port) and applies a site
# profile (amdgpu.noretry=1) as a trial, with rocmtune_force because the guest has no AMD GPU (a
# profile fits machines with one; the trial's state keeps --force for the commit); the role reboots
# into the trial boot (ansible.builtin.reboot),
# waits until rocmtune-trial-commit.service committed it, and verifies. Then the host reboots the guest
# once more: boot 3 is the default entry and keeps the change.
IMAGE=bios
EXPECT="1:- 2:T 3:-"
SSH=1
. "$HERE/scenarios/trial-lib.sh"
# /etc/rocmtune/profiles/vmtest.toml: a site profile for every machine (no [match]), one item.
PROFILE_LINES=("schema_version = 1" 'description = "rocmtune VM test: amdgpu.noretry=1 (the guest has no GPU)"'
  "[[items]]" 'id = "vmtest-noretry"' 'action = "set"' 'key = "amdgpu.noretry"' 'value = "1"'
  'why = "The change the Ansible trial scenario tries"' 'source = "tests/vm/scenarios/ansible-trial.sh"')
plan() {
  cat <<PLAN
say "amdgpu noretry=\$(cat /sys/module/amdgpu/parameters/noretry 2>&1)"
lines modprobe.d cat /etc/modprobe.d/rocmtune.conf
if [ \$BOOT = 1 ]; then
  lines update-grub update-grub
  echo amdgpu >/etc/modules-load.d/vmtest-amdgpu.conf
  lines modprobe modprobe amdgpu
  mkdir -p /etc/rocmtune/profiles
  printf '%s\n' $(printf "'%s' " "${PROFILE_LINES[@]}") >/etc/rocmtune/profiles/vmtest.toml
  lines network networkctl --no-pager --no-legend list
  say "ansible ready"
  exec sleep infinity
fi
# The trial boot: Ansible waits for the commit and verifies, then reboots the guest.
[ \$BOOT = 2 ] && { say "ansible trial boot"; exec sleep infinity; }
PLAN
}

host_driver() {
  local a=$RUN/ansible rc
  wait_probe 'boot=1 ansible ready' 900 || { echo "the guest never said it was ready"; return 1; }
  mkdir -p "$a/home"
  : >"$a/ansible.cfg"
  printf -- '- hosts: vm\n  gather_facts: false\n  roles:\n    - rocmtune\n' >"$a/play.yml"
  echo "vm ansible_host=127.0.0.1 ansible_port=$SSH_PORT ansible_user=root ansible_ssh_private_key_file=$SSH_KEY" \
    "ansible_python_interpreter=/usr/bin/python3" >"$a/inventory"
  echo "ansible-playbook: the role rocmtune with rocmtune_trial=true (host 127.0.0.1:$SSH_PORT)"
  HOME=$a/home ANSIBLE_CONFIG=$a/ansible.cfg ANSIBLE_LOCAL_TEMP=$a/tmp ANSIBLE_ROLES_PATH=$SRC/packaging/ansible/roles \
    ANSIBLE_HOST_KEY_CHECKING=False ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=0 ANSIBLE_STDOUT_CALLBACK=default \
    ANSIBLE_SSH_ARGS="-o UserKnownHostsFile=/dev/null -o ControlMaster=auto -o ControlPersist=60s" \
    timeout 1500 ansible-playbook -v -i "$a/inventory" "$a/play.yml" -e rocmtune_profile=vmtest \
    -e rocmtune_trial=true -e rocmtune_force=true -e rocmtune_install_package=false -e rocmtune_reboot_timeout=900 \
    -e rocmtune_trial_timeout=900
  rc=$?
  echo "ansible-playbook rc=$rc"
  # Boot 3: the default entry again, which must keep the committed change.
  vm_ssh systemctl reboot
  echo "reboot for boot 3: rc=$?"
  return $rc
}

# ansible_task NAME: the status word of the role's task NAME in the playbook's output (ok, changed, ...):
# the first result line after its header (a [WARNING] may come between)
ansible_task() {
  sed -n "/^TASK \[rocmtune : $1\]/,/^TASK /p" "$RUN/driver.log" |
    grep -m1 -E '^(ok|changed|skipping|fatal|failed): ' | cut -d: -f1
}
verify() {
  check "the playbook passed" grep -q '^ansible-playbook rc=0$' "$RUN/driver.log"
  check "the playbook recap: no failed task" grep -Eq 'vm +: ok=[0-9]+ +changed=[1-9][0-9]* .*failed=0 ' "$RUN/driver.log"
  check "task: apply (the trial prepared) changed" test "$(ansible_task 'Apply the rocmtune profile')" = changed
  check "task: reboot into the trial boot changed" test "$(ansible_task 'Reboot into the trial boot')" = changed
  check "task: wait for the check and commit ok" test "$(ansible_task "Wait for the trial's check and commit")" = ok
  check "task: verify the committed change ok" test "$(ansible_task 'Verify the committed change')" = ok
  check "boot 2: the change and panic=N on the trial's command line" has_trial_tokens 2
  check "boot 2: the trial is committed" state_is 2 committed
  check "boot 3: the trial stays committed" state_is 3 committed
  check "boot 3: amdgpu's noretry is 1" noretry_is 3 1
  check "boot 3: the committing transaction is in the history" committed_in_history 3
}
