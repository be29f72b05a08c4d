#!/bin/sh
# Proves `scripts/format.sh --check` (what `make lint` and CI run) catches a file that is not formatted:
# a deliberately misformatted copy of a formatted file fails the check and is named, `scripts/format.sh FILE` fixes it,
# and then the check passes. Run by `make lint` before the check itself. Exit 77 (skip) without clang-format-14.
set -eu
cd "$(dirname "$0")/../.."
command -v "${CLANG_FORMAT:-clang-format-14}" >/dev/null 2>&1 || { echo "SKIP: clang-format-14 not installed"; exit 77; }

# clang-format takes the style from the .clang-format nearest the file: the repository's, copied.
dir=$(mktemp -d "${TMPDIR:-/tmp}/format-check-test.XXXXXX")
cp .clang-format "$dir/"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

good=$dir/good.cc
cat >"$good" <<'CC'
#include <string>

namespace rocmtune {

int Twice(int x) { return 2 * x; }

std::string Name(bool a) {
  if (a) return "a";
  return "b";
}

}  // namespace rocmtune
CC
scripts/format.sh --check "$good" >/dev/null 2>&1 || fail "a formatted file fails the check"

bad=$dir/bad.cc
sed -e 's/return 2 \* x;/return 2*x;/' -e 's/^  if (a) return "a";/  if (a)\n      return "a";/' "$good" >"$bad"
cmp -s "$good" "$bad" && fail "the test did not manage to misformat its copy"
out=$(scripts/format.sh --check "$good" "$bad" 2>&1) && fail "a misformatted file passes the check"
echo "$out" | grep -q "bad.cc:5:" || fail "the check does not name the misformatted file and line: $out"
echo "$out" | grep -q "good.cc" && fail "the check names a formatted file: $out"

scripts/format.sh "$bad"
cmp -s "$good" "$bad" || fail "scripts/format.sh did not restore the formatted text: $(diff "$good" "$bad")"
scripts/format.sh --check "$bad" >/dev/null 2>&1 || fail "the reformatted file still fails the check"
echo "PASS: format check fails on a misformatted file and passes once it is reformatted"
