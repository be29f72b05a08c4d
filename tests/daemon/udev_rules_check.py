#!/usr/bin/python3
"""The syntax of udev rules files as udev(7) defines it, for systems whose udevadm has no
`verify` (it came with systemd 254; Debian 12 has 252): every line a comma-separated list of
KEY{attr} OP "value"; known keys; match-only keys with == or !=, assignment-only keys with
=, += , -= or :=; RUN programs absolute and executable here; a rule that sets SYSTEMD_WANTS also
tags the device for systemd (without it systemd never sees the device).
usage: udev_rules_check.py FILE...   (exit 1 and one line per problem)"""
import os
import re
import sys

MATCH_ONLY = {"ACTION", "DEVPATH", "KERNEL", "KERNELS", "SUBSYSTEM", "SUBSYSTEMS", "DRIVER", "DRIVERS",
              "ATTRS", "TAGS", "TEST", "PROGRAM", "RESULT", "CONST"}
ASSIGN_ONLY = {"OWNER", "GROUP", "MODE", "SECLABEL", "RUN", "LABEL", "GOTO", "IMPORT", "OPTIONS"}
BOTH = {"NAME", "SYMLINK", "ATTR", "SYSCTL", "ENV", "TAG"}
WITH_ATTRIBUTE = {"ATTR", "ATTRS", "SYSCTL", "ENV", "TEST", "IMPORT", "SECLABEL", "RUN", "CONST"}
PAIR = re.compile(r'\s*([A-Z_]+)(?:\{([^}]*)\})?\s*(==|!=|\+=|-=|:=|=)\s*"((?:[^"\\]|\\.)*)"\s*')


def rules(path):
    """(line number, text) of each rule, continuation lines joined."""
    pending, start = "", 0
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not pending:
                start = number
            if line.endswith("\\"):
                pending += line[:-1]
                continue
            text = (pending + line).strip()
            pending = ""
            if text and not text.startswith("#"):
                yield start, text


def check_rule(text):
    problems, pos, keys = [], 0, {}
    while pos < len(text):
        m = PAIR.match(text, pos)
        if not m:
            return problems + [f"cannot read a KEY OP \"value\" at column {pos + 1}: {text[pos:pos + 30]!r}"]
        key, attr, op, value = m.groups()
        pos = m.end()
        if key not in MATCH_ONLY | ASSIGN_ONLY | BOTH:
            problems.append(f"unknown key {key}")
        elif key in MATCH_ONLY and op not in ("==", "!="):
            problems.append(f"{key} is a match key: {op} is not allowed")
        elif key in ASSIGN_ONLY and op in ("==", "!="):
            problems.append(f"{key} is an assignment key: {op} is not allowed")
        if key in WITH_ATTRIBUTE and attr is None and key not in ("RUN", "IMPORT", "TEST"):
            problems.append(f"{key} needs {{attribute}}")
        if key == "RUN":
            program = value.split()[0] if value.split() else ""
            if not program.startswith("/"):
                problems.append(f"RUN program {program!r} is not an absolute path")
            elif not os.access(program, os.X_OK):
                problems.append(f"RUN program {program} is not executable here")
        keys.setdefault((key, attr), []).append((op, value))
        if pos < len(text):
            if text[pos] != ",":
                return problems + [f"expected ',' after {key} at column {pos + 1}"]
            pos += 1
    if ("ENV", "SYSTEMD_WANTS") in keys and ("systemd" not in [v for _, v in keys.get(("TAG", None), [])]):
        problems.append('SYSTEMD_WANTS without TAG+="systemd": systemd never sees the device')
    if not any(op in ("==", "!=") for entries in keys.values() for op, _ in entries):
        problems.append("a rule without any match applies to every event")
    return problems


def main(paths):
    failed = False
    for path in paths:
        count = 0
        for number, text in rules(path):
            count += 1
            for problem in check_rule(text):
                print(f"{path}:{number}: {problem}")
                failed = True
        if count == 0:
            print(f"{path}: no rules")
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
