# shellcheck shell=bash
# Plan pieces shared by the systemd-boot scenarios (sourced by scenarios/sdboot-*.sh).

# sdboot_oneshot_setup TOKENS: boot 1 copies the default entry (kernel-install's
# MACHINE_ID-KVER.conf on the ESP) to loader/entries/vmprobe-trial.conf with `vmprobe.trial=1
# TOKENS` added, and selects it for the next boot only: bootctl set-oneshot writes the EFI variable
# LoaderEntryOneShot, which systemd-boot deletes when it boots that entry.
sdboot_oneshot_setup() {
  cat <<PLAN
if [ \$BOOT = 1 ]; then
  E=/boot/efi/loader/entries
  D=\$(ls \$E | grep -v '^vmprobe-' | head -1)
  sed -e 's/^title .*/title Debian one-shot/' -e 's/^sort-key .*/sort-key vmprobe/' \\
      -e 's|^options .*|& vmprobe.trial=1 $1|' "\$E/\$D" >\$E/vmprobe-trial.conf
  [ -s \$E/vmprobe-trial.conf ] || say "ERROR: could not write \$E/vmprobe-trial.conf (ESP not mounted?)"
  lines bootctl bootctl set-oneshot vmprobe-trial.conf
  say "set one-shot: oneshot=\$(efivar LoaderEntryOneShot) entries=\$(ls \$E | tr '\n' ' ')"
  reboot_now
fi
PLAN
}
