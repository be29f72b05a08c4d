#!/usr/bin/python3
"""The tests a ctest run skipped, and whether each may be skipped.

  tests/check_skips.py --report RESULTS.xml...
      lists every skipped or disabled test with the reason it printed; never fails (make check).
  tests/check_skips.py --allowed tests/allowed-skips.txt RESULTS.xml...
      fails (exit 1) when a test was skipped that the list does not allow, printing the test and
      the reason it gave, or when the list itself is wrong: an entry without a reason, or one that
      names no test of the results (a stale entry hides nothing but misleads). .ci/run runs this
      over every step's results, so CI is not green because a test it can run was skipped.

RESULTS.xml is ctest's JUnit output (ctest --output-junit, CMake >= 3.21; tests/run_ctest.sh
writes Testing/NAME.xml): a skipped test has status="notrun" and a <skipped> element
(SKIP_RETURN_CODE or SKIP_REGULAR_EXPRESSION), a DISABLED one status="disabled".
"""
import argparse
import fnmatch
import re
import sys
import xml.etree.ElementTree as ET

# The line a test prints to say why it skips: our shell tests' `SKIP: reason` (exit 77), and
# googletest's "FILE:LINE: Skipped" followed by the GTEST_SKIP() message.
SKIP_LINE = re.compile(r"^SKIP:\s*(.*)$")
GTEST_SKIPPED = re.compile(r":\d+: Skipped$")


def SkipReason(output):
    lines = [line.rstrip() for line in (output or "").splitlines()]
    for line in lines:
        match = SKIP_LINE.match(line)
        if match:
            return match.group(1)
    for i, line in enumerate(lines):
        if GTEST_SKIPPED.search(line) and i + 1 < len(lines) and lines[i + 1].strip():
            return lines[i + 1].strip()
    tail = [line for line in lines if line.strip() and not line.startswith("[  SKIPPED ]")]
    return tail[-1].strip() if tail else "(the test printed no reason)"


def ReadResults(path):
    """(name, skipped, reason) of every test in one JUnit file."""
    tests = []
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        out = case.findtext("system-out") or ""
        if status == "disabled":
            tests.append((case.get("name"), True, "DISABLED in CMake"))
        elif status == "notrun" and case.find("skipped") is not None:
            tests.append((case.get("name"), True, SkipReason(out)))
        else:
            tests.append((case.get("name"), False, ""))
    return tests


def ReadAllowList(path):
    """[(pattern, reason, line number)] and the errors in the file."""
    entries, errors = [], []
    with open(path, encoding="utf-8") as f:
        for number, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            pattern, sep, reason = line.partition(" | ")
            pattern, reason = pattern.strip(), reason.strip()
            if not sep or not pattern or len(reason.split()) < 3:
                errors.append(f"{path}:{number}: an entry is `TEST-OR-PATTERN | why CI's machine cannot run it` "
                              f"(a reason of a few words): {line}")
                continue
            entries.append((pattern, reason, number))
    return entries, errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--report", action="store_true")
    mode.add_argument("--allowed", metavar="LIST")
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()

    runs = []
    for path in args.results:
        try:
            runs.append((path, ReadResults(path)))
        except (OSError, ET.ParseError) as e:
            if args.report:
                print(f"skips: cannot read {path}: {e}")
                continue
            print(f"skips: no results in {path} ({e}): did that step run its tests?")
            return 1

    if args.report:
        for path, tests in runs:
            skipped = [(name, reason) for name, is_skipped, reason in tests if is_skipped]
            if skipped:
                print(f"skipped in {path} ({len(skipped)}):")
                for name, reason in skipped:
                    print(f"  {name}: {reason}")
        return 0

    entries, errors = ReadAllowList(args.allowed)
    all_names = {name for _, tests in runs for name, _, _ in tests}
    for pattern, _, number in entries:
        if not any(fnmatch.fnmatchcase(name, pattern) for name in all_names):
            errors.append(f"{args.allowed}:{number}: `{pattern}` names no test of these results: remove it")
    unexpected, allowed = [], []
    for path, tests in runs:
        for name, is_skipped, reason in tests:
            if not is_skipped:
                continue
            entry = next((e for e in entries if fnmatch.fnmatchcase(name, e[0])), None)
            (allowed if entry else unexpected).append((path, name, reason, entry))
    for path, name, reason, entry in allowed:
        print(f"skips: allowed in {path}: {name}: {reason} ({args.allowed}:{entry[2]}: {entry[1]})")
    for path, name, reason, _ in unexpected:
        print(f"skips: NOT ALLOWED in {path}: {name}: {reason}")
    for error in errors:
        print(f"skips: {error}")
    if unexpected:
        print(f"skips: {len(unexpected)} test(s) skipped that {args.allowed} does not allow: make them run on "
              f"this machine (install what they need: scripts/install-deps.sh), or add them there with the reason")
    return 1 if unexpected or errors else 0


if __name__ == "__main__":
    sys.exit(main())
