#!/bin/bash
# boot.sh: one headless QEMU session of a disk image, with a time limit; the guest may reboot (or
# panic and reset) any number of times inside it, so firmware and boot loader run again each time.
#
#   usage: tests/vm/boot.sh [-u VARS] [-p PLAN] [-t SECONDS] [-n PORT] DISK LOGPREFIX
#     -u VARS     UEFI: OVMF with VARS as this VM's own variable store (a copy of OVMF_VARS_4M.fd is
#                 made when VARS is missing); without -u: SeaBIOS
#     -p PLAN     the bash snippet the guest agent runs at the end of every boot (fw_cfg opt/vmprobe/plan)
#     -t SECONDS  limit of the whole session (default 600). At the limit QEMU gets SIGTERM, for the guest
#                 a power cut, for QEMU a clean exit (the qcow2 metadata is flushed), and SIGKILL 15 s later
#     -n PORT     a network card (QEMU's user network, no way out but to the host) and the guest's ssh on
#                 127.0.0.1:PORT of the host; without -n the guest has no network
#   env: ACCEL=kvm|tcg (default: lib.sh's vm_accel), MEM=768 (MiB)
#
# Writes LOGPREFIX.console (ttyS0: firmware, boot loader, kernel, systemd), LOGPREFIX.probe (ttyS1: the
# agent's "VMPROBE boot=N ..." lines, and OVMF's own) and LOGPREFIX.pid (QEMU's pid while it runs:
# `kill -TERM` cuts the power). DISK is raw (.img) or qcow2 (.qcow2, e.g. an overlay of a cached image).
# Exit status: QEMU's (0 after a guest poweroff or a SIGTERM from the caller), 124 at the time limit.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/lib.sh"
VARS="" PLAN="" LIMIT=600 PORT=""
while getopts u:p:t:n: o; do
  case $o in
    u) VARS=$OPTARG ;; p) PLAN=$OPTARG ;; t) LIMIT=$OPTARG ;; n) PORT=$OPTARG ;;
    *) sed -n 2,21p "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
DISK=${1:?usage: boot.sh [-u VARS] [-p PLAN] [-t SECONDS] [-n PORT] DISK LOGPREFIX} LOG=${2:?LOGPREFIX}
need_tools qemu-system-x86_64 timeout
FMT=raw; [[ $DISK == *.qcow2 ]] && FMT=qcow2

if [ "$(vm_accel)" = kvm ]; then
  # Plain "-cpu host" aborted on a nested KVM host: "failed to set MSR 0x10a" (IA32_ARCH_CAPABILITIES).
  ACC=(-accel kvm -cpu "host,-arch-capabilities")
else
  # tb-size=256 (MiB of translated code): QEMU's RSS ~0.4 GB a boot instead of 0.7-1.4 GB, as fast.
  # Plain "max": with "-cpu max,-vmx,-svm" systemd 252 in the guest lost its API mounts ("Mount
  # process finished, but there is no mount") and waited 90 s for dev-ttyS0.device every boot.
  ACC=(-accel "tcg,tb-size=256" -cpu max)
fi
FW=()
if [ -n "$VARS" ]; then
  need_ovmf
  [ -e "$VARS" ] || cp "$OVMF_VARS" "$VARS"
  FW=(-machine q35 -drive "if=pflash,format=raw,unit=0,readonly=on,file=$OVMF_CODE"
      -drive "if=pflash,format=raw,unit=1,file=$VARS")
fi
PL=()
[ -n "$PLAN" ] && PL=(-fw_cfg "name=opt/vmprobe/plan,file=$PLAN")
NET=()
# restrict=on: the guest reaches nothing outside; only the forwarded port reaches it.
[ -n "$PORT" ] && NET=(-nic "user,model=virtio-net-pci,restrict=on,hostfwd=tcp:127.0.0.1:$PORT-:22")

start=$(date +%s.%N)
rc=0
# cache=unsafe: the disk is a throw-away overlay; flushes cost TCG time and prove nothing here.
timeout -k 15 "$LIMIT" qemu-system-x86_64 "${ACC[@]}" "${FW[@]}" -m "${MEM:-768}" -smp 1 \
  -display none -monitor none -nodefaults -no-user-config \
  -drive "file=$DISK,if=virtio,format=$FMT,cache=unsafe" \
  -serial "file:$LOG.console" -serial "file:$LOG.probe" -pidfile "$LOG.pid" "${PL[@]}" "${NET[@]}" || rc=$?
[ $rc = 137 ] && rc=124   # it took the SIGKILL: still "timed out"
rm -f "$LOG.pid"
echo "boot.sh: $(basename "$LOG") rc=$rc $(awk "BEGIN{printf \"%.1f s\", $(date +%s.%N) - $start}")"
exit $rc
