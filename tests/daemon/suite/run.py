#!/usr/bin/python3
"""The daemon tests (tests/daemon/suite/test_*.py), one ctest per scenario.

  run.py --list
      one line per scenario: CTEST_NAME UNITTEST_ID TIMEOUT LABELS (read by CMakeLists.txt at
      configure time; imports no dbus)
  run.py --rocmtuned P --rocmtunectl P --helper P --fault-helper P --src DIR [ID|CTEST_NAME...]
      runs the scenarios (all without a name); exit 0 when all passed, 77 when every one was
      skipped (each skip's reason printed), 1 otherwise.

A ctest name is daemon.<module>.<scenario>: test_bus.py's BusTest.test_idle_exit is
daemon.bus.idle_exit. Module attributes TIMEOUT (seconds, default 120) and LABELS (a ;-list) are
the ctest's properties.
"""
import argparse
import importlib
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixture  # noqa: E402


def scenarios():
    """(ctest name, unittest id, timeout, labels) of every test method, in file order."""
    out = []
    for f in sorted(os.listdir(HERE)):
        if not (f.startswith("test_") and f.endswith(".py")):
            continue
        mod = importlib.import_module(f[:-3])
        short = f[len("test_"):-3]
        for case in unittest.defaultTestLoader.loadTestsFromModule(mod):
            for t in case:
                method = t.id().rsplit(".", 1)[1]
                out.append((f"daemon.{short}.{method[len('test_'):]}", t.id(), getattr(mod, "TIMEOUT", 120),
                            getattr(mod, "LABELS", "")))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--list", action="store_true")
    for opt in ("rocmtuned", "rocmtunectl", "helper", "fault-helper", "src"):
        ap.add_argument(f"--{opt}")
    ap.add_argument("tests", nargs="*")
    a = ap.parse_args()
    if a.list:
        for row in scenarios():
            print(" ".join(str(x) if x != "" else "-" for x in row))
        return 0
    fixture.CONFIG.update(rocmtuned=a.rocmtuned, rocmtunectl=a.rocmtunectl, helper=a.helper,
                          fault_helper=a.fault_helper,
                          src=a.src or os.path.dirname(os.path.dirname(os.path.dirname(HERE))))
    by_name = {name: tid for name, tid, _, _ in scenarios()}
    ids = []
    for t in a.tests or ["daemon."]:
        # A ctest name, a prefix of ctest names ending in "." (daemon.bus.), or a unittest id.
        ids += [tid for name, tid in by_name.items() if name.startswith(t)] if t.endswith(".") else [by_name.get(t, t)]
    suite = unittest.defaultTestLoader.loadTestsFromNames(ids)
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    # The reason CI's skip report shows (tests/check_skips.py reads the last "SKIP: " line).
    for test, reason in result.skipped:
        print(f"SKIP: {reason}" if len(ids) == 1 else f"SKIP: {test.id()}: {reason}")
    sys.stdout.flush()
    if not result.wasSuccessful():
        return 1
    if result.testsRun and len(result.skipped) == result.testsRun:
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
