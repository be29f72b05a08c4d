#!/bin/bash
# Purge on worlds, without dpkg: on a copy of a world, rocmtune changes things (a profile, or set),
# `rocmtunectl reset --purge-plan` records the plan as the package's prerm does, and
# debian/rocmtune.postrm purge carries it out on the copy (DPKG_ROOT): the copy must then equal the
# world as it was, byte for byte, every file and directory, modes included. One case per boot
# setup and backend the worlds cover, so every kind of write a reset plans goes through the reader.
# usage: purge_world_test.sh ROCMTUNECTL WORLDS_DIR POSTRM
set -u
CTL=$1 WORLDS=$2 POSTRM=$(realpath "$3")
fail() { echo "FAIL: $*"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-purge-world-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# tree DIR: every entry and every file's hash; with RUNTIME_SET=1 without sys/ (a runtime
# attribute is not a file: purge leaves it, the next boot resets it).
tree() {
  local prune=(-false)
  [ "${RUNTIME_SET:-0}" = 1 ] && prune=(-path ./sys)
  (cd "$1" && find . \( "${prune[@]}" \) -prune -o -printf '%y %m %p -> %l\n' | sort &&
    find . \( "${prune[@]}" \) -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
}

# purge_case WORLD CMD...: CMD (rocmtunectl arguments, "+" between commands) on a copy, then the
# purge plan and postrm; the copy must be the world again.
purge_case() {
  local world=$1; shift
  local copy=$WORK/$world plan
  rm -rf "$copy"
  cp -a "$WORLDS/$world" "$copy" || fail "copy of $world"
  # A real system has /var/lib; rocmtune's state directory in it goes whole at purge.
  mkdir -p "$copy/var/lib"
  # PREP: what the admin had done before (a shell command run in the copy).
  if [ -n "${PREP:-}" ]; then (cd "$copy" && eval "$PREP") || fail "$world: PREP"; fi
  local reference
  reference=$(tree "$copy")
  local args=()
  for a in "$@" +; do
    if [ "$a" = + ]; then
      "$CTL" --root "$copy" "${args[@]}" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "$world: rocmtunectl ${args[*]}"; }
      args=()
    else
      args+=("$a")
    fi
  done
  [ "$(tree "$copy")" != "$reference" ] || fail "$world: '$*' changed nothing, the case tests nothing"
  "$CTL" --root "$copy" reset --purge-plan "$copy/var/lib/rocmtune/purge" >"$WORK/out" 2>&1 ||
    { cat "$WORK/out"; fail "$world: reset --purge-plan"; }
  plan=$(grep -Ec '^(write|remove) ' "$copy/var/lib/rocmtune/purge/plan")
  DPKG_ROOT=$copy sh "$POSTRM" purge >"$WORK/postrm" 2>&1 || { cat "$WORK/postrm"; fail "$world: postrm purge"; }
  if [ "$(tree "$copy")" != "$reference" ]; then
    cat "$WORK/postrm"
    diff <(echo "$reference") <(tree "$copy")
    fail "$world: after '$*' and purge the world differs from what it was"
  fi
  echo "ok: $world: $* -> purge plan of $plan file steps -> the world as it was"
}

purge_case rx5700xt apply rdna1-safe
purge_case rx6600 set amdgpu.runpm=0 cmdline.iommu=pt env.HSA_ENABLE_SDMA=0
purge_case rx6600 set amdgpu.runpm=0 + set cmdline.iommu=pt + unset amdgpu.runpm + set env.HSA_ENABLE_SDMA=0
purge_case ubuntu-cloud set cmdline.iommu=pt
purge_case mi300x-cpx set cmdline.intel_iommu=on amdgpu.runpm=0
purge_case rx6900xt set cmdline.iommu=pt amdgpu.runpm=0 env.HSA_ENABLE_SDMA=0
purge_case strixpoint set cmdline.iommu=pt amdgpu.runpm=0
RUNTIME_SET=1 purge_case rx7900xtx set amdgpu.runpm=0 sysfs.card0.pp_power_profile_mode=COMPUTE
grep -q "a runtime setting, back to the driver's default at the next boot" "$WORK/out" ||
  { cat "$WORK/out"; fail "rx7900xtx: the purge plan does not say the runtime setting stays until the next boot"; }

# The admin's own iommu=soft, replaced by rocmtune's value and remembered: purge puts it back.
PREP='sed -i "s/^GRUB_CMDLINE_LINUX_DEFAULT=\"/&iommu=soft /" etc/default/grub && grep -q iommu=soft etc/default/grub' \
  purge_case rx6900xt set cmdline.iommu=pt
grep -q iommu=soft "$WORK/rx6900xt/etc/default/grub" || fail "rx6900xt: the admin's iommu=soft is not back"

# Drift: rocmtune's drop-in edited by the admin is left with the admin's content.
copy=$WORK/drift
cp -a "$WORLDS/rx6600" "$copy"
"$CTL" --root "$copy" set amdgpu.runpm=0 env.HSA_ENABLE_SDMA=0 >/dev/null 2>&1 || fail "drift: set"
echo "options amdgpu lockup_timeout=10000" >>"$copy/etc/modprobe.d/rocmtune.conf"
edited=$(sha256sum <"$copy/etc/modprobe.d/rocmtune.conf")
"$CTL" --root "$copy" reset --purge-plan "$copy/var/lib/rocmtune/purge" >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "drift: purge plan"; }
grep -q "edited by someone else" "$WORK/out" || { cat "$WORK/out"; fail "drift: the plan does not say the edited file is left"; }
DPKG_ROOT=$copy sh "$POSTRM" purge >"$WORK/postrm" 2>&1 || fail "drift: postrm"
[ "$(sha256sum <"$copy/etc/modprobe.d/rocmtune.conf")" = "$edited" ] || fail "drift: purge changed the admin's edit"
[ -e "$copy/etc/environment.d/90-rocmtune.conf" ] && fail "drift: purge left the environment drop-in"
echo "ok: drift: the edited drop-in is left, the rest undone"

# A directory that is not empty is no plan target: --purge-plan refuses it and writes nothing.
mkdir -p "$WORK/full" && touch "$WORK/full/x"
"$CTL" --root "$WORLDS/rx6600" reset --purge-plan "$WORK/full" >"$WORK/out" 2>&1
rc=$?
[ $rc = 2 ] || { cat "$WORK/out"; fail "--purge-plan into a non-empty directory exited $rc, want 2"; }
[ "$(ls "$WORK/full")" = x ] || fail "--purge-plan wrote into a non-empty directory"
echo "PASS: purge on worlds"
