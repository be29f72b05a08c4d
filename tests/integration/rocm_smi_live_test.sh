#!/bin/bash
# rocm_smi_live_test.sh -- `status` and `doctor` on the live root read rocm-smi-lib's facts, and
# they are the world's sysfs values; with --root WORLD there is no `live` key at all.
#
# usage: rocm_smi_live_test.sh [--hostile] WORLD_DIR ROCMTUNECTL [DGPU_GPU_METRICS]
#
# A COPY of WORLD_DIR gets what rocm-smi-lib 5.2.x needs (rsmi_world.sh) and, on its first GPU,
# synthetic live-fact files the captures lack (each printed "FIXTURE ..."): pp_dpm_pcie with the
# link at its slower level, pcie_replay_count 150, ras/features and ras/{umc,gfx}_err_count with
# 2 uncorrectable UMC errors; with DGPU_GPU_METRICS (a captured dGPU gpu_metrics, format 1.3), that
# file as the GPU's gpu_metrics with throttle_status (bytes 68..71, kgd_pp_interface.h
# gpu_metrics_v1_3) set to 0x4. The copy is placed over the real /sys paths in a private mount
# namespace (as rocm_smi_crosscheck.sh does) and, inside, `ROCMTUNECTL status --json`,
# `--root / status --json`, `doctor --json` and `status` run without a world root (the live
# path). Outside, /usr/bin/python3 checks every live value against the copy's files:
# fw_version/<block>_fw_version (or null with a reason where the world has none), pp_dpm_pcie,
# pcie_replay_count, ras counts; doctor's live findings; and `--root COPY status --json` has no
# `live` key.
#
# --hostile: ras/umc_err_count holds what rocm-smi-lib 5.2 does not expect ("garbage"), on which it
# fails an assert() and aborts; then status and doctor must still answer (exit 0 / one document),
# every live value null with the same reason, the abort, and doctor must say live.unknown.
#
# Exit: 0 pass, 1 fail, 77 skip (not root, no mount namespace, librocm_smi64.so.1 missing, a
# mount refused, or rocm-smi-lib cannot see the world's GPU).
set -u
set -o pipefail

SELF=$(readlink -f "$0")
# shellcheck source=rsmi_world.sh
. "$(dirname "$SELF")/rsmi_world.sh"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

if [ "${1:-}" = "--inside" ]; then
  tmp=$2 ctl=$3
  rsmi_place_world "$tmp" || exit 77
  "$ctl" status --json >"$tmp/status.json" 2>"$tmp/status.err"
  echo $? >"$tmp/status.rc"
  "$ctl" --root / status --json >"$tmp/status-root.json" 2>"$tmp/status-root.err"
  echo $? >"$tmp/status-root.rc"
  "$ctl" doctor --json >"$tmp/doctor.json" 2>"$tmp/doctor.err"
  echo $? >"$tmp/doctor.rc"
  "$ctl" status >"$tmp/status.txt" 2>&1
  "$ctl" export --format prometheus >"$tmp/export.prom" 2>"$tmp/export.err"
  # Which of them start a child: status asks rocm-smi-lib in one, check-compute must not.
  if command -v strace >/dev/null; then
    for verb in status check-compute; do
      strace -f -qq -e trace=fork,vfork,clone,clone3 -o "$tmp/$verb.strace" "$ctl" "$verb" --json >/dev/null 2>&1
    done
  fi
  exit 0
fi

HOSTILE=""
if [ "${1:-}" = "--hostile" ]; then
  HOSTILE=1
  shift
fi
[ $# = 2 ] || [ $# = 3 ] || fail "usage: $0 WORLD_DIR ROCMTUNECTL [DGPU_GPU_METRICS]"
WORLD=$(readlink -f "$1")
CTL=$(readlink -f "$2")
METRICS=${3:+$(readlink -f "$3")}
[ -z "$METRICS" ] || [ -f "$METRICS" ] || fail "$3 is not a file"
[ -d "$WORLD/sys" ] || fail "$1 is not a world (no sys/)"
[ -x "$CTL" ] || fail "$2 is not executable"
rsmi_require_namespace
ldconfig -p | grep 'librocm_smi64\.so\.1 ' >/dev/null || skip "librocm_smi64.so.1 not installed (librocm-smi64-1)"
[ -x /usr/bin/python3 ] || skip "/usr/bin/python3 missing (the checks are Python)"
rsmi_copy_world "$WORLD" rocm_smi_live
rsmi_prepare_copy "$W"

# --- live-fact fixtures on the first amdgpu card (synthetic; formats from amdgpu's sysfs) ----------
DEV=""
for link in "$W"/sys/class/drm/card*; do
  [[ ${link##*/} =~ ^card[0-9]+$ ]] || continue
  DEV=$(readlink -f "$link/device") && [ -d "$DEV" ] && break
done
[ -n "$DEV" ] || skip "world has no DRM card device"
fixture() {  # fixture REL CONTENT WHY
  mkdir -p "$(dirname "$DEV/$1")"
  printf '%b' "$2" >"$DEV/$1"
  echo "FIXTURE ${DEV#"$W"/}/$1 = $(printf '%b' "$2" | tr '\n' '|') -- $3"
}
fixture pp_dpm_pcie '0: 2.5GT/s, x8 *\n1: 8.0GT/s, x16 \n' "amdgpu_pm.c pp_dpm_pcie: the link at its slower level"
fixture pcie_replay_count '150\n' "amdgpu_device.c pcie_replay_count (%llu)"
fixture ras/features 'feature mask: 0x00000005\n' "amdgpu_ras.c ras/features: UMC and GFX"
if [ -n "$HOSTILE" ]; then
  fixture ras/umc_err_count 'garbage\n' "HOSTILE: rocm-smi-lib 5.2 asserts the first word is 'ue:'"
else
  fixture ras/umc_err_count 'ue: 2\nce: 7\n' "amdgpu_ras.c amdgpu_ras_sysfs_read (ue, ce)"
fi
fixture ras/gfx_err_count 'ue: 0\nce: 0\n' "amdgpu_ras.c amdgpu_ras_sysfs_read (ue, ce)"
if [ -n "$METRICS" ]; then
  /usr/bin/python3 - "$METRICS" "$DEV/gpu_metrics" <<'PY' || fail "cannot write the gpu_metrics fixture"
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
size, fmt, content = struct.unpack_from("<HBB", b, 0)
assert (fmt, content) == (1, 3) and size >= 72, f"not a gpu_metrics v1.3: {fmt}.{content} size {size}"
struct.pack_into("<I", b, 68, 0x4)  # throttle_status, gpu_metrics_v1_3 (kgd_pp_interface.h)
open(sys.argv[2], "wb").write(bytes(b[:size]))
PY
  echo "FIXTURE ${DEV#"$W"/}/gpu_metrics = $METRICS (format 1.3) with throttle_status 0x4 -- a dGPU's SMU metrics"
fi
GPU_ID=${DEV##*/}

# --- run in the namespace ------------------------------------------------------------------------
rsmi_run_inside "$CTL"
# check-compute answers from known issues and the support table: no rocm-smi-lib child (a program
# asks it before it starts; the probe may take seconds). status, the control, starts one.
if [ -f "$TMP/status.strace" ]; then
  # A child: fork, vfork, or a clone whose exit signal is SIGCHLD (not a thread, not ASan's
  # leak-check tracer at exit).
  grep -Eq 'v?fork\(|clone3?\(.*SIGCHLD' "$TMP/status.strace" || fail "strace saw no child of status (the control)"
  if grep -E 'v?fork\(|clone3?\(.*SIGCHLD' "$TMP/check-compute.strace"; then
    fail "check-compute started a child process (rocm-smi-lib's probe)"
  fi
  echo "ok: status starts rocm-smi-lib's child, check-compute starts none (strace)"
else
  echo "NOTE: strace not installed: which commands start rocm-smi-lib's child is not checked"
fi
"$CTL" --root "$W" status --json >"$TMP/status-world.json" 2>"$TMP/status-world.err" ||
  fail "--root status failed: $(cat "$TMP/status-world.err")"
echo "status (human, live):"
sed 's/^/  /' "$TMP/status.txt"

/usr/bin/python3 - "$TMP" "$DEV" "$GPU_ID" "$METRICS" "$HOSTILE" <<'EOF'
import json, os, sys

tmp, dev, gpu_id, metrics, hostile = sys.argv[1:6]
errors = []
def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        errors.append(what)
def load(name):
    rc = open(os.path.join(tmp, name.replace(".json", ".rc"))).read().strip() if os.path.exists(os.path.join(tmp, name.replace(".json", ".rc"))) else "0"
    try:
        return rc, json.load(open(os.path.join(tmp, name)))
    except ValueError as e:
        sys.exit(f"FAIL {name} is not one JSON document (exit {rc}): {e}; stderr: {open(os.path.join(tmp, name.replace('.json', '.err'))).read()}")

rc, status = load("status.json")
check(rc == "0", f"status --json (live) exit 0 (got {rc})")
gpu = next((g for g in status["gpus"] if g["id"] == gpu_id), None)
check(gpu is not None, f"status lists {gpu_id}")
live = gpu.get("live") if gpu else None
check(isinstance(live, dict), "the live root's GPU has a `live` object")
if not isinstance(live, dict):
    sys.exit("FAIL: " + "; ".join(errors))
print("live:", json.dumps(live, indent=1))
unknown = live["unknown"]
if hostile:
    reasons = set(unknown.values())
    check(len(reasons) == 1 and "killed by signal 6" in next(iter(reasons)), f"one reason for every value, the abort: {reasons}")
    check(all(v is None for v in live["firmware"].values()) and live["pcie"]["width"] is None, "every value null")
    rc, doctor = load("doctor.json")
    check(any(f["id"] == "live.unknown" and "killed by signal 6" in f["what"] for f in doctor["findings"]), "doctor: live.unknown names the abort")
    human = open(os.path.join(tmp, "status.txt")).read()
    check("unknown: rocm-smi-lib failed" in human, "human status says why Live is unknown")
    check(f'rocmtune_gpu_live_facts_known{{gpu="{gpu_id}"}} 0' in open(os.path.join(tmp, "export.prom")).read(),
          "export: rocmtune_gpu_live_facts_known 0 when rocm-smi-lib aborted")
    if errors:
        sys.exit("FAIL: " + "; ".join(errors))
    print("PASS")
    sys.exit(0)
if not any(isinstance(v, str) for v in live["firmware"].values()) and live["pcie"]["width"] is None:
    print(f"SKIP: rocm-smi-lib gave nothing for {gpu_id}: {unknown}")
    sys.exit(77)

# Firmware: every block the world has is that file's value; the others are null with a reason.
for block, value in live["firmware"].items():
    path = os.path.join(dev, "fw_version", f"{block}_fw_version")
    if os.path.exists(path):
        want = open(path).read().strip().lower()
        check(value == want, f"firmware.{block} = {value} == {want} (fw_version/{block}_fw_version)")
    else:
        check(value is None and unknown.get(f"firmware.{block}"), f"firmware.{block} null with a reason ({unknown.get(f'firmware.{block}')})")

# PCIe: the levels of pp_dpm_pcie, the current one marked '*'.
levels = [l.split() for l in open(os.path.join(dev, "pp_dpm_pcie")) if l.strip()]
cur = next(l for l in levels if l[-1] == "*")
gts = lambda l: float(l[1].rstrip(",").replace("GT/s", ""))
lanes = lambda l: int(l[2].lstrip("x"))
p = live["pcie"]
check(p["speed_gt_s"] == gts(cur) and p["width"] == lanes(cur), f"pcie {p['speed_gt_s']} GT/s x{p['width']} == pp_dpm_pcie's current level")
check(p["max_speed_gt_s"] == max(map(gts, levels)) and p["max_width"] == max(map(lanes, levels)), "pcie max == pp_dpm_pcie's fastest, widest")
want = int(open(os.path.join(dev, "pcie_replay_count")).read())
check(p["replay_count"] == want, f"pcie.replay_count {p['replay_count']} == pcie_replay_count {want}")

# ECC: ras/<block>_err_count ue/ce, ras/features' mask; sdma has no file -> null with a reason.
ecc = live["ecc"]
check(ecc["enabled_blocks"] == ["umc", "gfx"], f"ecc.enabled_blocks {ecc['enabled_blocks']} from ras/features 0x5")
check(ecc["umc"] == {"correctable": 7, "uncorrectable": 2}, f"ecc.umc {ecc['umc']} == ras/umc_err_count")
check(ecc["gfx"] == {"correctable": 0, "uncorrectable": 0}, f"ecc.gfx {ecc['gfx']} == ras/gfx_err_count")
check(ecc["sdma"] is None and bool(unknown.get("ecc.sdma")), f"ecc.sdma null with a reason ({unknown.get('ecc.sdma')})")

# Throttle: known, or null with a reason (rocm-smi-lib 5.2 reads only the dGPU gpu_metrics format 1).
t = live["throttle_status"]
if metrics:
    check(t == 4 and live["throttling"] is True, f"throttle_status {t} == 0x4 from the gpu_metrics fixture, throttling true")
else:
    check(isinstance(t, int) or bool(unknown.get("throttle_status")), f"throttle_status {t} or a reason ({unknown.get('throttle_status')})")
check(all(isinstance(v, str) and v for v in unknown.values()), "every reason is a non-empty string")

rc, rooted = load("status-root.json")
check(any("live" in g for g in rooted["gpus"]), "--root / is the live root too: `live` present")

rc, doctor = load("doctor.json")
check(rc == "1", f"doctor exits 1 (an uncorrectable ECC error is a problem; got {rc})")
ids = {f["id"]: f for f in doctor["findings"] if f["id"].startswith("live.") and f["subject"] == gpu_id}
print("doctor live findings:", sorted(ids))
for fid, sev in [("live.ecc-uncorrectable", "error"), ("live.ecc-correctable", "info"),
                 ("live.pcie-below-max", "info"), ("live.pcie-replays", "warning")] + \
                ([("live.throttling", "info")] if metrics else []):
    f = ids.get(fid)
    check(f is not None and f["severity"] == sev and f["why"] and f["fix"]["text"] and f["sources"],
          f"doctor {fid} ({sev}) with why, fix and sources")
check(ids.get("live.ecc-uncorrectable", {}).get("what") == "Uncorrectable ECC errors since boot: umc 2", "doctor names the block and count")

human = open(os.path.join(tmp, "status.txt")).read()
check("Live (rocm-smi-lib" in human and "replays 150" in human, "human status shows the Live block")

# export --format prometheus on the live root: the same live values as status's `live`.
import re
series = {}
for line in open(os.path.join(tmp, "export.prom")):
    m = re.match(r'^(rocmtune_gpu_[a-z_]+)\{(.*)\} (\d+)$', line.strip())
    if m:
        labels = tuple(sorted(re.findall(r'([a-z_]+)="([^"]*)"', m.group(2))))
        series[(m.group(1), labels)] = int(m.group(3))
def metric(name, **labels):
    return series.get((name, tuple(sorted(dict(gpu=gpu_id, **labels).items()))))
check(metric("rocmtune_gpu_live_facts_known") == 1, "export: rocmtune_gpu_live_facts_known 1")
check(metric("rocmtune_gpu_ecc_errors_total", block="umc", type="uncorrectable") == 2 and
      metric("rocmtune_gpu_ecc_errors_total", block="umc", type="correctable") == 7, "export: umc ECC counts 2 and 7")
check(metric("rocmtune_gpu_pcie_replays_total") == p["replay_count"], "export: PCIe replays == status's")
check(metric("rocmtune_gpu_pcie_link_lanes") == p["width"] and metric("rocmtune_gpu_pcie_link_max_lanes") == p["max_width"],
      "export: PCIe lanes == status's")
check(metric("rocmtune_gpu_pcie_link_transfers_per_second") == round(p["speed_gt_s"] * 1e9),
      f"export: PCIe rate {metric('rocmtune_gpu_pcie_link_transfers_per_second')} T/s == status's {p['speed_gt_s']} GT/s")
if metrics:
    check(metric("rocmtune_gpu_throttling") == 1, "export: rocmtune_gpu_throttling 1 (the fixture's throttle_status)")

world = json.load(open(os.path.join(tmp, "status-world.json")))
check(world["gpus"] and all("live" not in g for g in world["gpus"]), "--root WORLD: no `live` key on any GPU")

if errors:
    sys.exit("FAIL: " + "; ".join(errors))
print("PASS")
EOF
