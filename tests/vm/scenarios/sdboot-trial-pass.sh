# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (g) A systemd-boot trial that passes (UEFI: OVMF + systemd-boot): `rocmtunectl set amdgpu.noretry=1
# --trial` in boot 1 sets LoaderEntryOneShot; boot 2 is the trial entry, the check passes, the change is
# committed; boot 3 is the default entry and keeps the change.
IMAGE=uefi
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { trial_plan 3; }
verify() {
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "boot 1: LoaderEntryOneShot names the trial entry" probe_has 1 'efi .*oneshot=[^-]'
  check "boot 2: the change and panic=N on the trial's command line" has_trial_tokens 2
  check "boot 2: systemd-boot deleted LoaderEntryOneShot" probe_has 2 'efi .*oneshot=-'
  check "boot 2: the trial is committed" state_is 2 'confirmed|committed'
  check "boot 3: the default entry" probe_has 3 'efi selected=[0-9a-f]{32}-.*\.conf '
  check "boot 3: the trial stays committed" state_is 3 committed
  check "boot 3: amdgpu's noretry is 1" noretry_is 3 1
  check "boot 2: every token of the trial on its command line" tokens_on_cmdline 1 2
  check "boot 3: the committing transaction is in the history" committed_in_history 3
}
