#!/usr/bin/python3
"""Self-test of nfd_check.py: /usr/bin/python3 nfd_check_test.py PATH_TO_nfd_check.py

Each case is a feature file plus either the labels/expiry the checker must print (exit 0) or the
exact list of (line, message fragment) problems it must report (exit 1)."""
import datetime
import json
import os
import subprocess
import sys
import tempfile

NOW = ["--now", "2026-01-01T00:00:00Z"]
NS = ["--namespace", "rocmtune.org"]
HEAD = "# rocmtune (rocmtunectl export --format nfd)\n# +expiry-time=2026-01-02T00:00:00Z\n"

# (case, file content, extra args, expected): expected is a dict {"labels", "expiry"} for an
# accepted file, or a list of (line, fragment) for a rejected one.
CASES = [
    ("valid", HEAD + "rocmtune.org/compute-safe=true\r\n\n  rocmtune.org/gpus=2  \n"
     "rocmtune.org/flag\nrocmtune.org/empty=\n# +no-label\nplain-feature=1\n"
     "# +no-feature\nrocmtune.org/label-only=Gfx_11.0-x\n", NS + NOW,
     {"labels": {"rocmtune.org/compute-safe": "true", "rocmtune.org/gpus": "2",
                 "rocmtune.org/flag": "true", "rocmtune.org/empty": "",
                 "rocmtune.org/label-only": "Gfx_11.0-x"},
      "expiry": "2026-01-02T00:00:00Z"}),
    ("no expiry, nfd namespaces", "feature.node.kubernetes.io/a=1\n"
     "x.feature.node.kubernetes.io/b=2\nprofile.node.kubernetes.io/c=3\n", NOW,
     {"labels": {"feature.node.kubernetes.io/a": "1", "x.feature.node.kubernetes.io/b": "2",
                 "profile.node.kubernetes.io/c": "3"}, "expiry": None}),
    ("size exactly 65536", HEAD + "rocmtune.org/a=1\n#" + "x" * (65536 - len(HEAD) - 19) + "\n",
     NOW, {"labels": {"rocmtune.org/a": "1"}, "expiry": "2026-01-02T00:00:00Z"}),
    ("offset expiry in future", "# +expiry-time=2026-01-01T01:00:00.5+00:59\nrocmtune.org/a\n",
     NOW, {"labels": {"rocmtune.org/a": "true"}, "expiry": "2026-01-01T01:00:00.5+00:59"}),
    ("expiry value TrimSpace'd", "# +expiry-time=\t2026-01-02T00:00:00Z\nrocmtune.org/a\n", NOW,
     {"labels": {"rocmtune.org/a": "true"}, "expiry": "2026-01-02T00:00:00Z"}),
    ("far-future expiry, default now", "# +expiry-time=9999-12-31T23:59:59Z\nrocmtune.org/a\n",
     [], {"labels": {"rocmtune.org/a": "true"}, "expiry": "9999-12-31T23:59:59Z"}),

    ("over size limit", HEAD + "rocmtune.org/a=1\n#" + "x" * (65537 - len(HEAD) - 19) + "\n",
     NOW, [(0, "over NFD's limit of 65536")]),
    ("empty name", HEAD + "=1\n", NOW, [(3, "malformed line")]),
    ("space around =", HEAD + "rocmtune.org/a = 1\n", NOW, [(3, "malformed line")]),
    ("bad name part", HEAD + "rocmtune.org/-a=1\nrocmtune.org/" + "n" * 64 + "=1\n", NOW,
     [(3, "is not a qualified name: name part"), (4, "is not a qualified name: name part")]),
    ("bad prefix", HEAD + "Rocmtune.org/a=1\nrocmtune..org/b=1\n" + "p" * 254 + "/c=1\n", NOW,
     [(3, "prefix is not a DNS-1123"), (4, "prefix is not a DNS-1123"),
      (5, "prefix is not a DNS-1123")]),
    ("two slashes", HEAD + "rocmtune.org/a/b=1\n", NOW, [(3, "more than one '/'")]),
    ("bad values", HEAD + "rocmtune.org/a=b c\nrocmtune.org/b=" + "v" * 64 + "\nrocmtune.org/c=-x\n"
     "rocmtune.org/d=@local.label.x\nrocmtune.org/e=a=b\n", NOW,
     [(3, "not a valid label value"), (4, "not a valid label value"),
      (5, "not a valid label value"), (6, "not a valid label value"), (7, "value 'a=b'")]),
    ("no namespace", HEAD + "compute-safe=true\n", NOW, [(3, "has no namespace")]),
    ("denied namespaces", HEAD + "kubernetes.io/a=1\nnode.kubernetes.io/b=1\n"
     "nfd.node.kubernetes.io/c=1\nfeature.node.kubernetes.io.evil.kubernetes.io/d=1\n", NOW,
     [(3, "denied by nfd-master"), (4, "denied by nfd-master"), (5, "denied by nfd-master"),
      (6, "denied by nfd-master")]),
    ("outside namespace", HEAD + "other.org/a=1\nsub.rocmtune.org/b=1\n", NS + NOW,
     [(3, "outside namespace 'rocmtune.org'"), (4, "outside namespace 'rocmtune.org'")]),
    ("duplicate", HEAD + "rocmtune.org/a=1\nrocmtune.org/a=2\n", NOW, [(4, "duplicate name")]),
    ("no-label deletes a label", HEAD + "rocmtune.org/a=1\n# +no-label\nrocmtune.org/a=2\n", NOW,
     [(5, "duplicate name")]),
    ("expiry not RFC 3339", "# +expiry-time=2026-01-02 00:00:00Z\n# +expiry-time=2026-02-30T00:00:00Z\n"
     "# +expiry-time=2026-01-02T00:00:60Z\n# +expiry-time=2026-01-02t00:00:00z\n"
     "# +expiry-time=2026-01-02T00:00:00+24:00\n# +expiry-time=tomorrow\nrocmtune.org/a\n", NOW,
     [(1, "is not RFC 3339"), (2, "is not RFC 3339"), (3, "is not RFC 3339"),
      (4, "is not RFC 3339"), (5, "is not RFC 3339"), (6, "is not RFC 3339")]),
    ("expiry without value", "# +expiry-time\nrocmtune.org/a\n", NOW, [(1, "no '=value'")]),
    ("expiry past", "# +expiry-time=2025-12-31T23:59:59Z\nrocmtune.org/a\n", NOW,
     [(1, "already past")]),
    ("expiry past via offset", "# +expiry-time=2026-01-01T00:30:00+01:00\nrocmtune.org/a\n", NOW,
     [(1, "already past")]),
    ("expiry past, default now", "# +expiry-time=2000-01-01T00:00:00Z\nrocmtune.org/a\n", [],
     [(1, "already past")]),
    ("label before expiry", "rocmtune.org/a=1\n# +expiry-time=2026-01-02T00:00:00Z\n"
     "rocmtune.org/b=1\n", NOW, [(1, "precedes the expiry-time directive at line 2")]),
    ("label between expiries", HEAD + "rocmtune.org/a=1\n# +expiry-time=2026-01-03T00:00:00Z\n",
     NOW, [(3, "precedes the expiry-time directive at line 4")]),
    ("past expiry, bad label after it", "# +expiry-time=2025-01-01T00:00:00Z\nrocmtune.org/a=-\n",
     NOW, [(1, "already past"), (2, "not a valid label value")]),
    ("unknown directive", HEAD + "# +expiry=2026-01-02T00:00:00Z\n# + no-label\nrocmtune.org/a\n",
     NOW, [(3, "unknown directive 'expiry'"), (4, "unknown directive ' no-label'")]),
    ("directive without space", "#+expiry-time=2026-01-02T00:00:00Z\nrocmtune.org/a\n", NOW,
     [(1, "plain comment")]),
]


def run(checker, path, args):
    p = subprocess.run(["/usr/bin/python3", checker, *args, path], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def check_case(checker, tmp, name, content, args, expected, fname="rocmtune"):
    path = os.path.join(tmp, fname)
    with open(path, "w", newline="") as f:
        f.write(content)
    rc, out, err = run(checker, path, args)
    os.unlink(path)
    fails = []
    if isinstance(expected, dict):
        if rc != 0:
            return [f"{name}: expected exit 0, got {rc}: {out}{err}"]
        try:
            got = json.loads(out)
        except ValueError:
            return [f"{name}: stdout is not JSON: {out!r}"]
        if got != expected:
            fails.append(f"{name}: expected {expected}, got {got}")
        return fails
    if rc != 1:
        fails.append(f"{name}: expected exit 1, got {rc}: {out}{err}")
    lines = out.splitlines()
    if len(lines) != len(expected):
        fails.append(f"{name}: expected {len(expected)} problem(s), got {len(lines)}: {lines}")
    for line, fragment in expected:
        prefix = f"{path}:{line}: "
        if not any(l.startswith(prefix) and fragment in l for l in lines):
            fails.append(f"{name}: no problem '{prefix}...{fragment}...' in {lines}")
    return fails


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: nfd_check_test.py PATH_TO_nfd_check.py")
    checker = sys.argv[1]
    fails = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in CASES:
            fails += check_case(checker, tmp, *case)
        fails += check_case(checker, tmp, "hidden file", HEAD + "rocmtune.org/a\n", NOW,
                            [(0, "hidden (dot) file")], fname=".rocmtune")
        # The default --now is the current time: one minute ago is past, an hour ahead is not.
        real = datetime.datetime.now(datetime.timezone.utc)
        for delta, expected in ((-60, [(1, "already past")]),
                                (3600, {"labels": {"rocmtune.org/a": "true"}})):
            when = (real + datetime.timedelta(seconds=delta)).strftime("%Y-%m-%dT%H:%M:%SZ")
            if isinstance(expected, dict):
                expected["expiry"] = when
            fails += check_case(checker, tmp, f"expiry now{delta:+d}s, default now",
                                f"# +expiry-time={when}\nrocmtune.org/a\n", [], expected)
        rc, out, err = run(checker, tmp, NOW)
        if rc != 1 or f"{tmp}:0: not a regular file" not in out:
            fails.append(f"directory: expected exit 1 and 'not a regular file', got {rc}: {out}{err}")
        rc, out, err = run(checker, os.path.join(tmp, "missing"), NOW)
        if rc != 1 or "cannot read" not in out:
            fails.append(f"missing file: expected exit 1 and 'cannot read', got {rc}: {out}{err}")
        rc, out, err = run(checker, os.path.join(tmp, "missing"), ["--now", "yesterday"])
        if rc != 2 or "not RFC 3339" not in err:
            fails.append(f"bad --now: expected exit 2 and 'not RFC 3339', got {rc}: {out}{err}")
    for f in fails:
        print("FAIL", f)
    print(f"{len(fails)} failure(s)" if fails else f"all {len(CASES) + 6} cases passed")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
