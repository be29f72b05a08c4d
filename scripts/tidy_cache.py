#!/usr/bin/python3
"""clang-tidy's result cache for scripts/tidy.sh: a source is checked again only when what
clang-tidy would read changed since it last passed with no finding.

The key of a source is the SHA-256 of
  - the preprocessed source with its comments (the compile command's own compiler with -E -C):
    every header it includes, the macros, and the NOLINT comments clang-tidy reads; the clone's
    and the build folder's absolute paths in it are replaced by fixed words, so a fresh clone
    elsewhere finds the keys of an earlier one;
  - the compile command's flags (paths replaced the same way);
  - the salt: clang-tidy's version, every .clang-tidy file, the checks and arguments tidy.sh adds,
    and tidy.sh itself.
Only clean results are kept: a run with any finding or failure stores nothing, so a finding is
reported again on every run until it is fixed. Like ccache, the cache is a directory of its own
outside the clone (default ~/.cache/rocmtune/clang-tidy), one empty file per key.

  tidy_cache.py misses BUILD REGEX CACHE SALT KEYS   prints the sources of BUILD's
      compile_commands.json whose path matches REGEX and whose key is not in CACHE, one a line,
      and writes their keys to the file KEYS
  tidy_cache.py store CACHE KEYS                     records the keys of KEYS as clean
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

# Flags that name output or dependency files: not part of what clang-tidy reads.
DROP_WITH_VALUE = {"-o", "-MF", "-MT", "-MQ"}
DROP = {"-c", "-MD", "-MMD"}


def entry_args(entry):
    return entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])


def preprocess_args(entry):
    args, out, skip = entry_args(entry), [], False
    for i, a in enumerate(args):
        if skip:
            skip = False
            continue
        if a in DROP_WITH_VALUE:
            skip = True
            continue
        if a in DROP or a == entry["file"] or (i > 0 and os.path.join(entry["directory"], a) == entry["file"]):
            continue
        out.append(a)
    return out


def key(entry, salt, paths):
    args = preprocess_args(entry)
    proc = subprocess.run(args + ["-E", "-C", entry["file"], "-o", "-"], cwd=entry["directory"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        return None  # clang-tidy will report what the compiler could not read: never cached
    h = hashlib.sha256(salt)
    for text in (" ".join(args).encode(), proc.stdout):
        for path, word in paths:
            text = text.replace(path, word)
        h.update(len(text).to_bytes(8, "little"))
        h.update(text)
    return h.hexdigest()


def misses(build, regex, cache, salt_file, keys_file):
    with open(os.path.join(build, "compile_commands.json"), encoding="utf-8") as f:
        entries = [e for e in json.load(f) if re.search(regex, e["file"])]
    with open(salt_file, "rb") as f:
        salt = f.read()
    # The clone this script is in (TIDY_CACHE_SOURCE: another tree, for tests/lint/tidy_cache_test.sh).
    source = os.path.realpath(os.environ.get("TIDY_CACHE_SOURCE")
                              or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    build_abs = os.path.realpath(build)
    # The build folder first: it is usually inside the clone.
    paths = [(build_abs.encode(), b"@BUILD@"), (source.encode(), b"@SOURCE@")]
    with ThreadPoolExecutor(max_workers=int(os.environ.get("JOBS") or os.cpu_count() or 1)) as pool:
        keys = list(pool.map(lambda e: key(e, salt, paths), entries))
    todo = {}
    for entry, k in zip(entries, keys):
        if k is None or not os.path.exists(os.path.join(cache, k)):
            todo[entry["file"]] = k
    with open(keys_file, "w", encoding="utf-8") as f:
        json.dump({"checked": len(entries), "keys": [k for k in todo.values() if k]}, f)
    for file in sorted(todo):
        print(file)


def store(cache, keys_file):
    with open(keys_file, encoding="utf-8") as f:
        keys = json.load(f)["keys"]
    os.makedirs(cache, exist_ok=True)
    for k in keys:
        with open(os.path.join(cache, k), "w", encoding="utf-8"):
            pass


def main(argv):
    if len(argv) == 6 and argv[0] == "misses":
        misses(*argv[1:])
        return 0
    if len(argv) == 3 and argv[0] == "store":
        store(*argv[1:])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
