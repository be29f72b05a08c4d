#!/usr/bin/env bash
# The change half of `make demo`: on a scratch copy of a bundled world (never the world itself),
# a folklore setting refused, a profile planned and applied (this world already has its settings:
# the apply is recorded, nothing written), a module option set, verified and reverted byte for byte;
# then a hand-written folklore override on an RDNA1 world, reported where it is.
set -euo pipefail
build="${1:-build}"
ctl="$build/client/rocmtunectl"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -a tests/worlds/mi210x8 "$work/world"
w="$work/world"

run() { echo "== rocmtunectl $*"; "$ctl" --root "$w" "$@" || echo "(exit $?)"; echo; }

run set amdgpu.mtype_local=1 --check
run set cmdline.amd_iommu=on --check
run apply instinct --check --diff
run apply instinct
echo "== rocmtunectl apply instinct --json   (again: nothing to do; fields Ansible reads)"
"$ctl" --root "$w" apply instinct --json | grep -E '^  "(schema|changed|check|transaction)"'
echo
run set amdgpu.noretry=0 --diff
run history
run verify
run revert last
if diff -r --no-dereference -x var tests/worlds/mi210x8 "$w" >/dev/null; then
  echo "== after revert: the world copy is byte-identical to tests/worlds/mi210x8 (journal in var/lib/rocmtune aside)"
else
  echo "== after revert: the world copy DIFFERS from tests/worlds/mi210x8" >&2
  exit 1
fi
echo

# The seeds' folklore written by hand on an RDNA1 box: rocmtune does not edit files it does not
# own, but status and rdna1-safe say what the override does and where it is.
cp -a tests/worlds/rx5700xt "$work/rdna1"
printf 'HSA_OVERRIDE_GFX_VERSION=10.3.0\n' > "$work/rdna1/etc/environment"
w="$work/rdna1"
echo "== (an RX 5700 XT world whose /etc/environment has HSA_OVERRIDE_GFX_VERSION=10.3.0 from a forum)"
echo "== rocmtunectl status   (knobs and findings)"
"$ctl" --root "$w" status | sed -n '/^KNOB/,$p'
echo
run apply rdna1-safe
