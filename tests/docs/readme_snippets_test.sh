#!/bin/bash
# README.md's "Compute safety" snippets, run as they are printed so the documentation cannot rot:
# the Python one with /usr/bin/python3, the shell one with /bin/sh, each taken from between its
# `<!-- check-compute:LANG -->` markers. `rocmtunectl` on PATH is this build's, run on a world
# (a wrapper adds --root WORLD). On a world whose GPU ROCm cannot use (rx6900xt: no KFD) or whose
# ROCm has no code for the GPU (phoenix: gfx1103 on ROCm 6.3.0) the snippets must pick the CPU, on
# a healthy one (mi210x8: gfx90a on ROCm 6.2.0) the GPU, and with no GPU (no-amd) the CPU. The shell snippet's `python3 train.py` is a real script here that prints its
# arguments.
#   readme_snippets_test.sh SOURCE_DIR ROCMTUNECTL
# Exit 0 pass, 1 fail, 77 skip (no /usr/bin/python3 or /bin/sh), with the reason printed.
set -u
src=$1 ctl=$(realpath "$2")
[ -x /usr/bin/python3 ] || { echo "SKIP: /usr/bin/python3 is needed to run the Python snippet"; exit 77; }
[ -x /bin/sh ] || { echo "SKIP: /bin/sh is needed to run the shell snippet"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# The fenced code between <!-- check-compute:LANG --> and <!-- /check-compute:LANG -->.
snippet() {
    awk -v start="<!-- check-compute:$1 -->" -v stop="<!-- /check-compute:$1 -->" '
        $0 == start { inside = 1; next }
        $0 == stop { inside = 0; next }
        inside && /^```/ { fence = !fence; next }
        inside && fence { print }' "$src/README.md"
}
snippet python >"$work/snippet.py"
snippet sh >"$work/snippet.sh"
[ -s "$work/snippet.py" ] || { echo "FAIL: no Python snippet between the markers in README.md"; exit 1; }
[ -s "$work/snippet.sh" ] || { echo "FAIL: no shell snippet between the markers in README.md"; exit 1; }
grep -q "check-compute" "$work/snippet.py" || fail "the Python snippet does not run check-compute"
grep -q "check-compute" "$work/snippet.sh" || fail "the shell snippet does not run check-compute"
# The Python snippet decides before torch: it must not import it (the point of asking first).
grep -Eq '^(import|from) torch' "$work/snippet.py" && fail "the Python snippet imports torch before asking"

mkdir -p "$work/bin" "$work/run"
cat >"$work/bin/rocmtunectl" <<EOF
#!/bin/sh
exec "$ctl" --root "\$ROCMTUNE_TEST_WORLD" "\$@"
EOF
chmod +x "$work/bin/rocmtunectl"
printf 'import sys\nprint("train.py", *sys.argv[1:])\n' >"$work/run/train.py"

run_world() {  # run_world WORLD WANTED_DEVICE
    local world=$1 want=$2 got
    export ROCMTUNE_TEST_WORLD="$src/tests/worlds/$world"
    got=$(cd "$work/run" && PATH="$work/bin:$PATH" /usr/bin/python3 -c "$(cat "$work/snippet.py")
print(device)" 2>"$work/py.err") || fail "$world: the Python snippet failed: $(cat "$work/py.err")"
    [ "$got" = "$want" ] || fail "$world: the Python snippet chose '$got', want '$want'"
    got=$(cd "$work/run" && PATH="$work/bin:$PATH" /bin/sh "$work/snippet.sh" 2>"$work/sh.err") \
        || fail "$world: the shell snippet failed: $(cat "$work/sh.err")"
    printf '%s\n' "$got" | grep -qxF "train.py --device $want" \
        || fail "$world: the shell snippet did not run train.py --device $want: $got"
    echo "$world: both snippets chose $want"
}
run_world rx6900xt cpu
run_world phoenix cpu
run_world mi210x8 cuda
run_world no-amd cpu

[ "$failures" = 0 ] || { echo "$failures failures"; exit 1; }
echo PASS
