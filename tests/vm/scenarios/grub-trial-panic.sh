# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (f) A GRUB trial that panics: the trial boot crashes early (guest/vmprobe-crash-trial.service, before
# rocmtune's check), the kernel resets the machine after the trial's panic=N, and the next boot is the
# old one by itself: the agent never saw the trial boot, so it reports boots 1 and 2; in boot 2 the
# trial shows failed, noretry is -1 and nothing was committed.
IMAGE=bios
EXPECT="1:- 2:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { trial_plan 2 "mkdir -p /etc/vmprobe; touch /etc/vmprobe/crash-trial-boot"; }
verify() {
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "the trial boot crashed" console_has 'Kernel panic - not syncing: sysrq triggered crash'
  check "the trial boot had rocmtune's token" console_has 'Command line: .*rocmtune\.trial='
  check "the kernel reset the machine itself (panic=N)" console_has 'Rebooting in [0-9]+ seconds'
  check "boot 2 (the old one): the trial shows failed" state_is 2 'failed|cleaned'
  check "boot 2: amdgpu's noretry is the default (-1)" noretry_is 2 -1
  check "boot 2: grubenv without next_entry" probe_has 2 'grubenv .*next_entry= '
  check "boot 2: modprobe.d without the change" no_change_kept 2
}
