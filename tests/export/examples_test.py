#!/usr/bin/python3
"""The shipped examples work as shipped: examples/export.toml, copied to a world's
/etc/rocmtune/export.toml, makes `export --write` write node_exporter's file and not NFD's (off
there); examples/node-problem-detector.json's rule runs rocmtunectl check-compute, whose exit
codes are node-problem-detector's custom plugin protocol: 0 OK (a safe world), 1 NonOK (an unsafe
one), 2 Unknown (a question it cannot answer); its temporary rule runs rocmtunectl faults --since 60s,
which exits 1 when it lists a fault of that time.

  examples_test.py ROCMTUNECTL WORLDS_DIR SOURCE_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile


def main():
    rocmtunectl, worlds, src = sys.argv[1:4]
    failures = []
    tmp = tempfile.mkdtemp(prefix="examples-")
    try:
        w = os.path.join(tmp, "w")
        shutil.copytree(os.path.join(worlds, "mi210x8"), w, symlinks=True)
        os.makedirs(os.path.join(w, "etc/rocmtune"), exist_ok=True)
        shutil.copy(os.path.join(src, "examples/export.toml"), os.path.join(w, "etc/rocmtune/export.toml"))
        os.makedirs(os.path.join(w, "var/lib/prometheus/node-exporter"))
        os.makedirs(os.path.join(w, "etc/kubernetes/node-feature-discovery/features.d"))
        r = subprocess.run([rocmtunectl, "--root", w, "export", "--write", "--no-live"], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"export --write with examples/export.toml: exit {r.returncode}: {r.stderr}")
        if not os.path.exists(os.path.join(w, "var/lib/prometheus/node-exporter/rocmtune.prom")):
            failures.append("examples/export.toml: no rocmtune.prom written")
        if os.path.exists(os.path.join(w, "etc/kubernetes/node-feature-discovery/features.d/rocmtune")):
            failures.append("examples/export.toml: NFD's file written though the example leaves it off")

        with open(os.path.join(src, "examples/node-problem-detector.json")) as f:
            npd = json.load(f)
        # The temporary rule: an event for each GPU fault of the last interval (rocmtunectl faults
        # exits 1 when it lists one, 0 when there is none).
        temporary = [r for r in npd["rules"] if r["type"] == "temporary"]
        if len(temporary) != 1 or temporary[0]["args"][0] != "faults":
            failures.append("node-problem-detector.json: one temporary rule running rocmtunectl faults expected")
        else:
            r = subprocess.run([rocmtunectl, "--root", os.path.join(worlds, "mi210x8")] + temporary[0]["args"],
                               capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "/usr/bin")})
            if r.returncode != 0:
                failures.append(f"the NPD faults rule on a world without faults: exit {r.returncode}, needs 0")
        rules = [r for r in npd["rules"] if r["type"] == "permanent"]
        if len(rules) != 1 or rules[0]["condition"] not in [c["type"] for c in npd["conditions"]]:
            failures.append("node-problem-detector.json: one permanent rule on a declared condition expected")
        rule = rules[0]
        if os.path.basename(rule["path"]) != "rocmtunectl":
            failures.append(f"node-problem-detector.json runs {rule['path']}, not rocmtunectl")
        for world, extra, expected in (("mi210x8", [], 0), ("rx5700xt", [], 1), ("mi210x8", ["--device", "card99"], 2)):
            r = subprocess.run([rocmtunectl, "--root", os.path.join(worlds, world)] + rule["args"] + extra,
                               capture_output=True, text=True, env={"PATH": os.environ.get("PATH", "/usr/bin")})
            if r.returncode != expected:
                failures.append(f"the NPD rule on {world} {extra}: exit {r.returncode}, the protocol needs {expected}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for f in failures:
        print(f"FAIL: {f}")
    print("examples: export.toml and node-problem-detector.json " + ("fail" if failures else "work as shipped"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
