#!/usr/bin/python3
"""How many translation units include <nlohmann/json.hpp> (BENCHMARKS.md, "CI").

A source counts when it or a project header it includes (transitively, by the include roots the
build gives: core/<layer>/, the folder of the file, tests/support, tests/unit) names
<nlohmann/json.hpp>. Precompiled headers aside: this is what a build without them parses.

  tests/bench/json_includes.py [REV]     # REV: a git revision (default: the working tree)
"""
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REV = sys.argv[1] if len(sys.argv) > 1 else None


def git(*args):
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout


names = git("ls-tree", "-r", "--name-only", REV).split() if REV else git("ls-files").split()
sources = {}
for name in names:
    if name.endswith((".h", ".cc")):
        sources[name] = git("show", f"{REV}:{name}") if REV else open(os.path.join(REPO, name)).read()


def resolve(include, origin):
    for candidate in (os.path.join(os.path.dirname(origin), include), "core/" + include, include,
                      "tests/support/" + include, "tests/unit/" + include):
        candidate = os.path.normpath(candidate)
        if candidate in sources:
            return candidate
    return None


memo = {}


def includes_json(name, seen=()):
    if name not in memo:
        found = False
        for m in re.finditer(r'^#include ([<"])([^>"]+)[>"]', sources[name], re.M):
            if m.group(2) == "nlohmann/json.hpp":
                found = True
            elif m.group(1) == '"':
                header = resolve(m.group(2), name)
                found = header is not None and header not in seen and includes_json(header, seen + (name,))
            if found:
                break
        memo[name] = found
    return memo[name]


units = [n for n in sources if n.endswith(".cc") and not n.startswith("tests/layers/")]
headers = [n for n in sources if n.endswith(".h") and "#include <nlohmann/json.hpp>" in sources[n]]
print(f"{REV or 'working tree'}: {sum(map(includes_json, units))} of {len(units)} sources include "
      f"nlohmann/json.hpp; {len(headers)} headers include it")
