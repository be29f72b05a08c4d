# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (h) A systemd-boot trial that panics: as grub-trial-panic, with OVMF + systemd-boot; the next boot is
# the default entry, the trial shows failed, nothing was committed.
IMAGE=uefi
EXPECT="1:- 2:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { trial_plan 2 "mkdir -p /etc/vmprobe; touch /etc/vmprobe/crash-trial-boot"; }
verify() {
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "the trial boot crashed" console_has 'Kernel panic - not syncing: sysrq triggered crash'
  check "the trial boot had rocmtune's token" console_has 'Command line: .*rocmtune\.trial='
  check "boot 2: the default entry" probe_has 2 'efi selected=[0-9a-f]{32}-.*\.conf .*oneshot=-'
  check "boot 2: the trial shows failed" state_is 2 'failed|cleaned'
  check "boot 2: amdgpu's noretry is the default (-1)" noretry_is 2 -1
  check "boot 2: modprobe.d without the change" no_change_kept 2
}
