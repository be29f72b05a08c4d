# shellcheck shell=bash disable=SC2034 # IMAGE, TOKEN, EXPECT are read by run-scenario.sh
# (c) systemd-boot's one-shot, the mechanics a systemd-boot trial rests on (UEFI: OVMF + systemd-boot,
# no rocmtune): boot 1 adds an entry with an extra token and an amdgpu option and runs
# `bootctl set-oneshot`; boot 2 is that entry (systemd-boot deleted LoaderEntryOneShot) and
# `modprobe amdgpu` (no GPU needed) shows the option in /sys/module; boot 3 is the default again.
IMAGE=uefi
TOKEN='vmprobe\.trial=1'
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/sdboot-lib.sh"
plan() {
  sdboot_oneshot_setup 'amdgpu.noretry=1'
  # shellcheck disable=SC2016 # the guest expands it
  echo 'if [ $BOOT = 2 ]; then lines modprobe modprobe amdgpu
  say "amdgpu noretry=$(cat /sys/module/amdgpu/parameters/noretry 2>&1)"; reboot_now; fi'
}
verify() {
  check "boot 1 set LoaderEntryOneShot" probe_has 1 'set one-shot: oneshot=vmprobe-trial.conf '
  check "boot 2 was the one-shot entry, the variable deleted" probe_has 2 'efi selected=vmprobe-trial.conf .*oneshot=-'
  check "boot 2: amdgpu's noretry is 1" probe_has 2 'amdgpu noretry=1$'
  check "boot 3 was the default entry" probe_has 3 'efi selected=[0-9a-f]{32}-.*\.conf .*oneshot=-'
}
