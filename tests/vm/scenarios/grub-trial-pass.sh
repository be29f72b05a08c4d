# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (d) A GRUB trial that passes: `rocmtunectl set amdgpu.noretry=1 --trial` in boot 1 (state prepared,
# grubenv next_entry = the trial entry); boot 2 is the trial (its token, the change and panic=N on the
# command line), the check passes and the change is committed (modprobe.d, history); boot 3 is the
# default entry again and keeps the change (noretry=1 from modprobe.d).
IMAGE=bios
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { trial_plan 3; }
verify() {
  check "boot 1: amdgpu's noretry is the default (-1)" noretry_is 1 -1
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "boot 1: its undo is trial cancel, not a revert" probe_has 1 'trial-set: Transaction [0-9]+ committed \(undo: rocmtunectl trial cancel\)'
  check "boot 1: grubenv next_entry names the trial entry" probe_has 1 'grubenv .*next_entry=[^ ]'
  check "boot 2: the change and panic=N on the trial's command line" has_trial_tokens 2
  check "boot 2: amdgpu's noretry is 1" noretry_is 2 1
  check "boot 2: GRUB cleared next_entry" probe_has 2 'grubenv .*next_entry= '
  check "boot 2: the trial is committed" state_is 2 'confirmed|committed'
  check "boot 3: the trial stays committed" state_is 3 committed
  check "boot 3: modprobe.d keeps the change" probe_has 3 'modprobe.d: options amdgpu .*noretry=1'
  check "boot 3: amdgpu's noretry is 1" noretry_is 3 1
  check "boot 2: every token of the trial on its command line" tokens_on_cmdline 1 2
  check "boot 3: the committing transaction is in the history" committed_in_history 3
}
