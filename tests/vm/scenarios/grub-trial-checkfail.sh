# shellcheck shell=bash disable=SC2034 # IMAGE, EXPECT are read by run-scenario.sh
# (e) A GRUB trial whose check fails: /etc/rocmtune/trial.toml names an admin check command that fails
# on purpose; boot 2 is the trial, its check fails (state failed); boot 3 is the old boot: no change in
# modprobe.d, noretry back to -1.
IMAGE=bios
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/trial-lib.sh"
plan() { checkfail_plan; }
verify() {
  check "boot 1: the trial is prepared" state_is 1 prepared
  check "boot 2: the change and panic=N on the trial's command line" has_trial_tokens 2
  check "boot 2: the trial failed" state_is 2 'failed|cleaned'
  check "boot 3: the trial shows failed" state_is 3 'failed|cleaned'
  check "boot 3: amdgpu's noretry is the default (-1)" noretry_is 3 -1
  check "boot 3: grubenv without next_entry" probe_has 3 'grubenv .*next_entry= '
  check "boot 3: modprobe.d without the change" no_change_kept 3
}
