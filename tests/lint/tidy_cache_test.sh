#!/bin/sh
# Proves clang-tidy's result cache (scripts/tidy_cache.py, used by scripts/tidy.sh in `make lint`
# and CI) asks for a new check whenever what clang-tidy reads changed, and only then: a source
# whose key was stored is skipped; a changed comment (a NOLINT), a changed header, a changed flag
# or a changed salt (clang-tidy's version, .clang-tidy) makes it a miss again; the same tree in
# another directory (a fresh clone) hits; a source the compiler cannot read is never cached. Run by
# `make lint` before clang-tidy. Exit 77 (skip) without a C++ compiler.
set -eu
cd "$(dirname "$0")/../.."
command -v c++ >/dev/null 2>&1 || { echo "SKIP: no c++ to preprocess with"; exit 77; }
here=$(pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/tidy-cache-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# A tree with one source, its header, and a compile_commands.json naming them by absolute path.
make_tree() {
  mkdir -p "$1/src" "$1/inc" "$1/build"
  printf '#pragma once\ninline int Twice(int x) { return 2 * x; }\n' >"$1/inc/h.h"
  printf '#include "h.h"\nint Four() { return Twice(2); }\n' >"$1/src/a.cc"
  cat >"$1/build/compile_commands.json" <<JSON
[{"directory": "$1/build", "file": "$1/src/a.cc",
  "command": "c++ -I$1/inc ${2:-} -MD -MT a.o -MF a.o.d -o a.o -c $1/src/a.cc"}]
JSON
}
cache=$dir/cache salt=$dir/salt keys=$dir/keys
echo "clang-tidy 14, .clang-tidy v1" >"$salt"
misses() { TIDY_CACHE_SOURCE=$1 /usr/bin/python3 "$here/scripts/tidy_cache.py" misses "$1/build" "$1/src/" "$cache" "$salt" "$keys"; }
store() { /usr/bin/python3 "$here/scripts/tidy_cache.py" store "$cache" "$keys"; }

a=$dir/a
make_tree "$a"
[ "$(misses "$a")" = "$a/src/a.cc" ] || fail "a source never checked is not a miss"
store
[ -z "$(misses "$a")" ] || fail "a source stored clean is checked again unchanged"

printf '#include "h.h"\nint Four() { return Twice(2); }  // NOLINT\n' >"$a/src/a.cc"
[ "$(misses "$a")" = "$a/src/a.cc" ] || fail "a new NOLINT comment does not make the source a miss"
printf '#include "h.h"\nint Four() { return Twice(2); }\n' >"$a/src/a.cc"
[ -z "$(misses "$a")" ] || fail "the source as it was stored is not a hit again"

printf '#pragma once\ninline int Twice(int x) { return x + x; }\n' >"$a/inc/h.h"
[ "$(misses "$a")" = "$a/src/a.cc" ] || fail "a changed header does not make its includer a miss"
printf '#pragma once\ninline int Twice(int x) { return 2 * x; }\n' >"$a/inc/h.h"

echo "clang-tidy 14, .clang-tidy v2" >"$salt"
[ "$(misses "$a")" = "$a/src/a.cc" ] || fail "a changed salt (.clang-tidy, version) does not make a miss"
echo "clang-tidy 14, .clang-tidy v1" >"$salt"

b=$dir/elsewhere/b
make_tree "$b"
[ -z "$(misses "$b")" ] || fail "the same tree in another directory (a fresh clone) misses"

c=$dir/c
make_tree "$c" -DROCMTUNE_X=1
[ "$(misses "$c")" = "$c/src/a.cc" ] || fail "a changed flag does not make a miss"

printf '#include "missing.h"\n' >"$c/src/a.cc"
[ "$(misses "$c")" = "$c/src/a.cc" ] || fail "a source that does not preprocess is not a miss"
grep -q '"keys": \[\]' "$keys" || fail "a source that does not preprocess got a key to store: $(cat "$keys")"
echo "tidy_cache_test: ok"
