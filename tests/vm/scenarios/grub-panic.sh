# shellcheck shell=bash disable=SC2034 # IMAGE, TOKEN, EXPECT are read by run-scenario.sh
# (b) GRUB's one-shot after a panic (BIOS + GRUB, no rocmtune): the one-shot entry has
# `panic=5 vmprobe.fail=panic`; in boot 2 the agent crashes the kernel (sysrq c), the kernel resets
# the machine after 5 s (panic=5), and boot 3 is the default: GRUB cleared next_entry before boot 2.
IMAGE=bios
TOKEN='vmprobe\.trial=1'
EXPECT="1:- 2:T 3:-"
. "$HERE/scenarios/grub-lib.sh"
plan() { grub_oneshot_setup 'panic=5 vmprobe.fail=panic'; }
verify() {
  check "boot 2 panicked" console_has 'Kernel panic - not syncing: sysrq triggered crash'
  check "the kernel reset the machine itself (panic=5)" console_has 'Rebooting in 5 seconds'
  check "boot 3: grubenv without next_entry" probe_has 3 'grubenv .*next_entry= '
}
