# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (i) A systemd-boot trial whose check fails: as grub-trial-checkfail, with OVMF + systemd-boot. The
# admin check of /etc/rocmtune/trial.toml fails on purpose; boot 2 is the trial, its check fails; boot 3
# is the default entry with no change.
IMAGE=uefi
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { checkfail_plan; }
verify() {
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "boot 1: LoaderEntryOneShot names the trial entry" probe_has 1 'efi .*oneshot=[^-]'
  check "boot 2: the change and panic=N on the trial's command line" has_trial_tokens 2
  check "boot 2: the trial failed" state_is 2 'failed|cleaned'
  check "boot 3: the default entry" probe_has 3 'efi selected=[0-9a-f]{32}-.*\.conf '
  check "boot 3: the trial shows failed" state_is 3 'failed|cleaned'
  check "boot 3: amdgpu's noretry is the default (-1)" noretry_is 3 -1
  check "boot 3: modprobe.d without the change" no_change_kept 3
}
