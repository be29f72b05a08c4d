#!/bin/bash
# rocm_smi_crosscheck.sh -- rocm-smi-lib and rocmtune must see the same GPUs in a world.
#
# usage: rocm_smi_crosscheck.sh [--expect-mismatch KIND] WORLD_DIR RSMI_LIST ROCMTUNECTL [STATUS_GPU_IDS]
#
# A COPY of WORLD_DIR (never the world itself) is placed over the real /sys paths in a private mount
# namespace (`unshare -m --propagation private`): sys/class/{drm,kfd,hwmon}, sys/module/<each module>,
# every device directory sys/devices/<bus>/<dev> (the class links are relative, so they must resolve
# at the real /sys/devices paths) and proc/cmdline. A path that does not exist on the host (sysfs
# refuses mkdir) gets its mountpoint from a read-only overlay of the world's parent directory over
# the host's parent. Inside, RSMI_LIST (librocm_smi64) and `ROCMTUNECTL status --json` WITHOUT
# --root (the live code path) list "pci-address vendor:device"; the two sets must be equal and
# non-empty. rocmtune's JSON is reduced to gpus[].id/gpus[].pci_id by STATUS_GPU_IDS (or jq).
#
# rocm-smi-lib 5.2.x needs a few files real sysfs always has but captures may lack; they are added
# to the copy only, and every addition is printed ("ADDED for rocm-smi-lib: ...").
#
# --expect-mismatch KIND: negative control. Perturbs the copy, then exits 0 only if the comparison
# reports a difference (1 if the lists still agree). KIND:
#   uevent-pci-id   device id in the GPU's uevent PCI_ID (what rocmtune reads; rocm-smi-lib reads
#                   the `device` attribute) -> rocmtune's pci_id differs from rocm-smi-lib's
#   kfd-device-id   device_id in the KFD GPU node's properties (neither tool takes a DRM card's id
#                   from KFD, so this is expected NOT to be detected; kept for manual checks)
#
# Exit: 0 pass, 1 fail, 77 skip (not root, no mount namespace, no librocm_smi64, overlay
# unsupported, or rocm-smi-lib cannot see the world's GPU at all).
set -u
set -o pipefail

SELF=$(readlink -f "$0")
# shellcheck source=rsmi_world.sh
. "$(dirname "$SELF")/rsmi_world.sh"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

# ---------------------------------------------------------------------------------------------------
# Inner mode (runs inside the private mount namespace): mount the copy, run both tools.
# ---------------------------------------------------------------------------------------------------
inner() {
  local tmp=$1 rsmi=$2 ctl=$3
  rsmi_place_world "$tmp" || return 77
  "$rsmi" >"$tmp/rsmi.out" 2>"$tmp/rsmi.err"
  echo $? >"$tmp/rsmi.rc"
  "$ctl" status --json >"$tmp/status.json" 2>"$tmp/status.err"
  echo $? >"$tmp/status.rc"
  return 0
}

if [ "${1:-}" = "--inside" ]; then
  shift
  inner "$@"
  exit $?
fi

# ---------------------------------------------------------------------------------------------------
# Outer mode.
# ---------------------------------------------------------------------------------------------------
MISMATCH=""
if [ "${1:-}" = "--expect-mismatch" ]; then
  MISMATCH=${2:-}
  case $MISMATCH in uevent-pci-id | kfd-device-id) ;; *) fail "--expect-mismatch needs uevent-pci-id or kfd-device-id" ;; esac
  shift 2
fi
[ $# -ge 3 ] && [ $# -le 4 ] || fail "usage: $0 [--expect-mismatch KIND] WORLD_DIR RSMI_LIST ROCMTUNECTL [STATUS_GPU_IDS]"
WORLD=$(readlink -f "$1")
RSMI=$(readlink -f "$2")
CTL=$(readlink -f "$3")
GPU_IDS=${4:+$(readlink -f "$4")}
[ -d "$WORLD/sys" ] || fail "$1 is not a world (no sys/)"
[ -x "$CTL" ] || fail "$3 is not executable"

rsmi_require_namespace
[ -x "$RSMI" ] || skip "$2 not built (librocm_smi64 missing at configure time)"
if ldd "$RSMI" 2>/dev/null | grep -q 'not found'; then
  skip "librocm_smi64 (or a dependency) missing at run time: $(ldd "$RSMI" | grep 'not found' | tr -s ' \t\n' ' ')"
fi
if [ -n "$GPU_IDS" ]; then
  [ -x "$GPU_IDS" ] || fail "$4 is not executable"
  gpu_ids() { "$GPU_IDS"; }
elif command -v jq >/dev/null; then
  gpu_ids() { jq -r '.gpus[] | "\(.id) \(.pci_id)"'; }
else
  skip "no STATUS_GPU_IDS helper given and jq not installed (cannot read rocmtune's JSON)"
fi
rsmi_copy_world "$WORLD" rocm_smi_crosscheck

# --- files rocm-smi-lib 5.2.x strictly needs that the capture lacks (added to the copy only) ------
rsmi_prepare_copy "$W"

# --- negative control ------------------------------------------------------------------------------
if [ -n "$MISMATCH" ]; then
  case $MISMATCH in
  uevent-pci-id)
    for link in "$W"/sys/class/drm/card*; do
      [[ ${link##*/} =~ ^card[0-9]+$ ]] || continue
      ue=$(readlink -f "$link/device")/uevent
      grep -q '^PCI_ID=' "$ue" 2>/dev/null || continue
      sed -i 's/^PCI_ID=\([0-9A-Fa-f]*\):.*/PCI_ID=\1:1234/' "$ue"
      echo "PERTURBED (negative control): ${ue#"$W"/} PCI_ID -> $(sed -n 's/^PCI_ID=//p' "$ue")"
      break
    done
    ;;
  kfd-device-id)
    for p in "$W"/sys/class/kfd/kfd/topology/nodes/*/properties; do
      grep -Eq '^simd_count [1-9]' "$p" || continue  # the GPU node (CPU nodes have simd_count 0)
      sed -i 's/^device_id .*/device_id 4660/' "$p"
      echo "PERTURBED (negative control): ${p#"$W"/} device_id -> 4660 (0x1234)"
      break
    done
    ;;
  esac
  grep -rq 'PCI_ID=[0-9A-Fa-f]*:1234\|^device_id 4660' "$W/sys/devices" || fail "negative control: nothing to perturb"
fi

# --- run both tools in the namespace ---------------------------------------------------------------
rsmi_run_inside "$RSMI" "$CTL"

rsmi_rc=$(cat "$TMP/rsmi.rc")
status_rc=$(cat "$TMP/status.rc")
[ "$status_rc" = 0 ] || fail "rocmtunectl status --json exited $status_rc: $(cat "$TMP/status.err")"
gpu_ids <"$TMP/status.json" | sort >"$TMP/rocmtune.list" || fail "cannot read rocmtune's status JSON"
sort "$TMP/rsmi.out" >"$TMP/rsmi.list"

echo "rocm-smi-lib (rsmi_list, exit $rsmi_rc):"
sed 's/^/  /' "$TMP/rsmi.list"
sed 's/^/  stderr: /' "$TMP/rsmi.err"
echo "rocmtune (status --json, live root /):"
sed 's/^/  /' "$TMP/rocmtune.list"

if [ "$rsmi_rc" = 2 ]; then
  skip "rocm-smi-lib cannot initialise on this world: $(cat "$TMP/rsmi.err")"
fi
[ "$rsmi_rc" = 0 ] || fail "rsmi_list exited $rsmi_rc: $(cat "$TMP/rsmi.err")"
[ -s "$TMP/rsmi.list" ] || skip "rocm-smi-lib sees no GPU in this world (rocmtune sees $(wc -l <"$TMP/rocmtune.list"))"

if diff -u --label rocm-smi-lib --label rocmtune "$TMP/rsmi.list" "$TMP/rocmtune.list" >"$TMP/diff"; then
  same=1
else
  same=0
fi
if [ -n "$MISMATCH" ]; then
  if [ "$same" = 0 ]; then
    echo "difference (expected):"
    cat "$TMP/diff"
    echo "PASS: the comparison detects the $MISMATCH mismatch"
    exit 0
  fi
  fail "negative control: the lists still agree after perturbing $MISMATCH"
fi
if [ "$same" = 0 ]; then
  cat "$TMP/diff"
  fail "rocm-smi-lib and rocmtune disagree"
fi
echo "PASS: rocm-smi-lib and rocmtune see the same $(wc -l <"$TMP/rsmi.list") GPU(s)"
exit 0
