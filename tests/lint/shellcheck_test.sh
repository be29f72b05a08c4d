#!/bin/sh
# Proves scripts/shellcheck.sh (what `make lint` and CI run) looks at every kind of shell script and
# fails on a warning: its list holds .ci/run, the Debian maintainer scripts, the sourced libraries
# and the worlds' stub tools, not Python or C++; a script with an `rm -rf "$dir/"` of a variable
# that may be empty (SC2115) fails and is named, and its fixed copy passes. Run by `make lint`
# before the check itself. Exit 77 (skip) without shellcheck.
set -eu
cd "$(dirname "$0")/../.."
command -v "${SHELLCHECK:-shellcheck}" >/dev/null 2>&1 || { echo "SKIP: shellcheck not installed"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }

list=$(scripts/shellcheck.sh --list)
for f in .ci/run debian/rocmtune.postinst debian/rocmtune.postrm debian/rocmtune.prerm \
  tests/daemon/bus_fixture.sh tests/fuzz/run-fuzz.sh tests/worlds/rx5700xt/usr/sbin/update-grub; do
  echo "$list" | grep -qx "$f" || fail "scripts/shellcheck.sh --list leaves out $f"
done
echo "$list" | grep -qE '\.(py|cc|h)$' && fail "scripts/shellcheck.sh --list names a file that is not a shell script"

dir=$(mktemp -d "${TMPDIR:-/tmp}/shellcheck-test.XXXXXX")
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nout=$1\nrm -rf "$out/"*\n' >"$dir/bad.sh"
printf '#!/bin/sh\nout=$1\nrm -rf "${out:?}/"*\n' >"$dir/good.sh"
out=$(scripts/shellcheck.sh "$dir/bad.sh" "$dir/good.sh" 2>&1) && fail "a script with a warning passes: $out"
echo "$out" | grep -q "bad.sh:3:.*SC2115" || fail "the check does not name the script, line and warning: $out"
echo "$out" | grep -q "good.sh" && fail "the check names a clean script: $out"
scripts/shellcheck.sh "$dir/good.sh" >/dev/null 2>&1 || fail "the fixed script fails the check"
echo "PASS: shellcheck covers every kind of shell script and fails on a warning"
