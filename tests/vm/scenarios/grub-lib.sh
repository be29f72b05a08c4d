# shellcheck shell=bash
# Plan pieces shared by the GRUB scenarios (sourced by scenarios/grub-*.sh).

# grub_oneshot_setup TOKENS: boot 1 regenerates grub.cfg in the guest (grub-probe sees /dev/vda1
# there), adds the entry "vmprobe-trial" with `vmprobe.trial=1 TOKENS` to /boot/grub/custom.cfg and
# selects it for the next boot only (grub-reboot = grub-editenv grubenv set next_entry=...).
grub_oneshot_setup() {
  cat <<PLAN
if [ \$BOOT = 1 ]; then
  lines update-grub update-grub
  U=\$(findmnt -no UUID /); K=\$(uname -r)
  cat >/boot/grub/custom.cfg <<CFG
menuentry 'Debian one-shot' --id vmprobe-trial {
  insmod part_msdos
  insmod ext2
  search --no-floppy --fs-uuid --set=root \$U
  linux /boot/vmlinuz-\$K root=UUID=\$U ro console=ttyS0,115200 vmprobe.trial=1 $1
  initrd /boot/initrd.img-\$K
}
CFG
  grub-reboot vmprobe-trial
  say "set one-shot: grubenv \$(grub-editenv /boot/grub/grubenv list | tr '\n' ' ')"
  reboot_now
fi
PLAN
}
