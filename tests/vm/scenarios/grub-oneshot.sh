# shellcheck shell=bash disable=SC2034 # IMAGE, TOKEN, EXPECT are read by run-scenario.sh
# (a) GRUB's one-shot, the mechanics a grub trial rests on (BIOS + GRUB, no rocmtune): boot 1 runs
# update-grub (Debian's generated grub.cfg), adds an entry with an extra token to custom.cfg (sourced
# at boot time by Debian's 41_custom) and selects it once with grub-reboot (grubenv next_entry);
# boot 2 has the token and GRUB has already cleared next_entry; boot 3 is the default again.
IMAGE=bios
TOKEN='vmprobe\.trial=1'
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/grub-lib.sh"
plan() {
  grub_oneshot_setup ''
  # shellcheck disable=SC2016 # the guest expands it
  echo 'if [ $BOOT = 2 ]; then say "one-shot boot reached userspace"; reboot_now; fi'
}
verify() {
  check "boot 1 set next_entry=vmprobe-trial" probe_has 1 'set one-shot: grubenv .*next_entry=vmprobe-trial'
  check "GRUB cleared next_entry before booting the one-shot" probe_has 2 'grubenv .*next_entry= '
  check "boot 3: grubenv without next_entry" probe_has 3 'grubenv .*next_entry= '
}
