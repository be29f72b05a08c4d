#!/usr/bin/python3
"""rocmtunectl export --format nfd on every world, as captured and with the one-verdict issue's
hidden-failure cases (an override of another ISA, no KFD): each file passes nfd_check.py (NFD's
own parsing and label rules, tests/export/nfd_check.py) with rocmtune's namespace, its expiry lies
ahead, and its labels say what check-compute, status and verify say for the same tree.

  nfd_test.py ROCMTUNECTL WORLDS_DIR [WORLD...]
"""
import collections
import json
import os
import shutil
import subprocess
import sys
import tempfile
from datetime import datetime, timedelta, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_lib import ctl  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
NS = "rocmtune.org"


def check(rocmtunectl, root, tmp):
    text = ctl(rocmtunectl, root, "export", "--format", "nfd", "--no-live")
    path = os.path.join(tmp, "rocmtune")
    with open(path, "w") as f:
        f.write(text)
    r = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "nfd_check.py"), "--namespace", NS, path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(f"nfd_check.py: {r.stdout}{r.stderr}")
    parsed = json.loads(r.stdout)
    labels = {k.split("/", 1)[1]: v for k, v in parsed["labels"].items()}
    expiry = datetime.fromisoformat(parsed["expiry"].replace("Z", "+00:00"))
    now = datetime.now(timezone.utc)
    if not now + timedelta(minutes=5) < expiry <= now + timedelta(minutes=11):
        raise AssertionError(f"expiry {parsed['expiry']} is not about 10 minutes ahead of {now}")
    status = json.loads(ctl(rocmtunectl, root, "status", "--json"))
    verify = json.loads(ctl(rocmtunectl, root, "verify", "--json", ok=(0, 6)))
    expect = {"gpus": str(len(status["gpus"])),
              "gpus-usable": str(sum(g["compute"]["usable"] for g in status["gpus"])),
              "reboot-pending": str(status["pending_reboot"]).lower(),
              "profile": status["profile"] or "none",
              "in-effect": str(verify["ok"]).lower()}
    for w in ("any", "conv", "gemm"):
        cc = json.loads(ctl(rocmtunectl, root, "check-compute", "--json", "--workload", w, ok=(0, 1)))
        suffix = "" if w == "any" else "." + w
        # safe is true, false or null (unknown): a label says true only for true.
        expect["compute-safe" + suffix] = "true" if cc["safe"] is True else "false"
        expect["gpus-safe" + suffix] = str(sum(g["safe"] is True for g in cc["gpus"]))
        expect["compute-state" + suffix] = cc["state"]
    severities = collections.Counter(f["severity"] for f in status["findings"])
    for sev in ("error", "warning", "info"):
        expect["findings." + sev] = str(severities[sev])
    targets = collections.Counter(g["gfx_target"] for g in status["gpus"] if g["gfx_target"])
    for t, n in targets.items():
        expect[t] = str(n)
    wrong = [f"{k}={labels.get(k)!r}, expected {v!r}" for k, v in expect.items() if labels.get(k) != v]
    if wrong:
        raise AssertionError("; ".join(wrong))


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    rocmtunectl, worlds = sys.argv[1:3]
    names = sys.argv[3:] or sorted(d for d in os.listdir(worlds) if os.path.isdir(os.path.join(worlds, d)))
    if sys.argv[3:]:
        print(f"worlds: {len(names)} named on the command line ({' '.join(names)}), a sample")
    selftest = subprocess.run(["/usr/bin/python3", os.path.join(HERE, "nfd_check_test.py"),
                               os.path.join(HERE, "nfd_check.py")], capture_output=True, text=True)
    if selftest.returncode != 0:
        print(f"FAIL: the checker's self-test: {selftest.stdout}{selftest.stderr}")
        return 1
    tmp = tempfile.mkdtemp(prefix="nfd-")
    failures, cases = [], 0
    try:
        for name in names:
            w = os.path.join(tmp, name)
            shutil.copytree(os.path.join(worlds, name), w, symlinks=True)
            for label, change in (("as captured", None), ("HSA_OVERRIDE_GFX_VERSION=10.3.0", "override"),
                                  ("without KFD", "nokfd")):
                if change == "override":
                    with open(os.path.join(w, "etc/environment"), "w") as f:
                        f.write("HSA_OVERRIDE_GFX_VERSION=10.3.0\n")
                elif change == "nokfd":
                    shutil.rmtree(os.path.join(w, "sys/class/kfd"), ignore_errors=True)
                cases += 1
                try:
                    check(rocmtunectl, w, tmp)
                except AssertionError as e:
                    failures.append(f"{name} {label}: {e}")
        w = os.path.join(tmp, "pending")
        shutil.copytree(os.path.join(worlds, "rx5700xt"), w, symlinks=True)
        ctl(rocmtunectl, w, "set", "amdgpu.noretry=1")
        cases += 1
        try:
            check(rocmtunectl, w, tmp)
        except AssertionError as e:
            failures.append(f"rx5700xt after set amdgpu.noretry=1: {e}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{cases - len(failures)} of {cases} NFD files valid by NFD's rules and equal to check-compute/status/verify")
    return 1 if failures or cases == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
