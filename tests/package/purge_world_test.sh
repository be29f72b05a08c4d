#!/bin/bash
# Purge on worlds, without dpkg: on a copy of a world, rocmtune changes things (a profile, or set),
# `rocmtunectl reset --purge-plan` records the plan as the package's prerm does, and
# debian/rocmtune.postrm purge carries it out on the copy (DPKG_ROOT): the copy must then equal the
# world as it was, byte for byte, every file and directory, modes included. One case per boot
# setup and backend the worlds cover, so every kind of write a reset plans goes through the reader.
# The last cases run the real prerm too, as dpkg --root --force-script-chrootless runs both
# scripts for an image builder: on the host with DPKG_ROOT set to the tree.
# usage: purge_world_test.sh ROCMTUNECTL WORLDS_DIR POSTRM PRERM
set -u
CTL=$(realpath "$1") WORLDS=$2 POSTRM=$(realpath "$3") PRERM=$(realpath "$4")
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
# Image builders: dpkg --root DIR --force-script-chrootless runs prerm remove and postrm purge on
# the host with DPKG_ROOT=DIR. A profile's GRUB token and modprobe.d drop-in in the tree are gone
# after purge, the tree's /var/lib/rocmtune (the journal) last, and the host is untouched. With the
# tree's own rocmtunectl (the package's, still there at prerm), and with only the host's.
host_state() {
  for f in /var/lib/rocmtune /etc/modprobe.d/rocmtune.conf /etc/default/grub /etc/default/grub.d/zz-rocmtune.cfg; do
    if [ -e "$f" ]; then find "$f" -type f -print0 | sort -z | xargs -0 -r sha256sum; else echo "absent $f"; fi
  done
}
# dpkg_root_case WHICH: WHICH is "tree" (rocmtunectl in the tree, none on PATH), "host" (none in
# the tree, the built one on PATH) or "foreign" (one in the tree that cannot run on this host, as
# another architecture's would not, and the built one on PATH).
dpkg_root_case() {
  local which=$1 copy=$WORK/dpkg-root-$1 bin=$WORK/host-bin path
  rm -rf "$copy" "$bin"
  cp -a "$WORLDS/rx6600" "$copy" || fail "dpkg-root: copy"
  mkdir -p "$copy/var/lib" "$bin"
  path=/usr/sbin:/usr/bin:/sbin:/bin
  local used=$bin/rocmtunectl
  case "$which" in
    tree) install -D -m 0755 "$CTL" "$copy/usr/bin/rocmtunectl"; used=$copy/usr/bin/rocmtunectl ;;
    foreign) mkdir -p "$copy/usr/bin" && printf '\177ELF\002\001\001' >"$copy/usr/bin/rocmtunectl" &&
               chmod 0755 "$copy/usr/bin/rocmtunectl" ;;
  esac
  if [ "$which" != tree ]; then
    ln -s "$CTL" "$bin/rocmtunectl"
    path=$bin:$path
  fi
  local reference host
  reference=$(tree "$copy")
  host=$(host_state)
  "$CTL" --root "$copy" set amdgpu.runpm=0 cmdline.iommu=pt >"$WORK/out" 2>&1 || { cat "$WORK/out"; fail "dpkg-root: set"; }
  grep -q 'iommu=pt' "$copy/etc/default/grub" "$copy"/etc/default/grub.d/* 2>/dev/null ||
    fail "dpkg-root: no GRUB token written, the case tests nothing"
  [ -f "$copy/etc/modprobe.d/rocmtune.conf" ] || fail "dpkg-root: no modprobe.d drop-in written"
  (cd / && PATH=$path DPKG_ROOT=$copy sh "$PRERM" remove) >"$WORK/prerm" 2>&1 ||
    { cat "$WORK/prerm"; fail "dpkg-root ($which): prerm remove"; }
  [ -f "$copy/var/lib/rocmtune/purge/plan" ] || { cat "$WORK/prerm"; fail "dpkg-root ($which): prerm wrote no plan in the tree"; }
  grep -qF " with $used" "$WORK/prerm" || { cat "$WORK/prerm"; fail "dpkg-root ($which): not planned with $used"; }
  (cd / && PATH=$path DPKG_ROOT=$copy sh "$POSTRM" purge) >"$WORK/postrm" 2>&1 ||
    { cat "$WORK/postrm"; fail "dpkg-root ($which): postrm purge"; }
  if [ "$(tree "$copy")" != "$reference" ]; then
    cat "$WORK/prerm" "$WORK/postrm"
    diff <(echo "$reference") <(tree "$copy")
    fail "dpkg-root ($which): after purge the tree differs from what it was"
  fi
  [ "$(host_state)" = "$host" ] || fail "dpkg-root ($which): the host changed"
  echo "ok: DPKG_ROOT, planned with $used ($which): the token and the drop-in are gone, the host untouched"
}
dpkg_root_case tree
dpkg_root_case host
dpkg_root_case foreign

echo "PASS: purge on worlds"
