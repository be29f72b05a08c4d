#!/bin/bash
# mkinitramfs_test.sh -- Debian's own mkinitramfs (initramfs-tools-core) builds the image rocmtune
# then reads: `rocmtunectl set amdgpu.noretry=0` on a copy of worlds/rx5700xt (initramfs-tools,
# kernel 6.8.0-45-generic), then mkinitramfs writes WORLD/boot/initrd.img-6.8.0-45-generic with
# amdgpu in it, once from a modprobe.d without rocmtune's file (a regeneration that
# missed it: verify's "initramfs" difference, status "lacks") and once with the world's
# etc/modprobe.d bound over /etc/modprobe.d (mkinitramfs copies /etc/modprobe.d/*.conf into the
# image: status "carries", no such difference).
#
# usage: mkinitramfs_test.sh ROCMTUNECTL WORLDS_DIR
#
# mkinitramfs reads the host's /lib/modules/VER and /boot/config-VER: a private mount namespace
# (`unshare -m`) gets an overlay on /usr/lib with a modules directory of one fake amdgpu.ko.xz
# and a tmpfs on /boot with the config's CONFIG_RD_ZSTD=y, so
# nothing of the host changes. Exit: 0 pass, 1 fail, 77 skip (no mkinitramfs, not root, no mount
# namespace or overlayfs).
set -u -o pipefail

CTL=${1:?usage: mkinitramfs_test.sh ROCMTUNECTL WORLDS_DIR}
WORLDS=${2:?usage: mkinitramfs_test.sh ROCMTUNECTL WORLDS_DIR}
VER=6.8.0-45-generic
skip() { echo "SKIP: $*"; exit 77; }
FAILED=0
fail() { echo "FAIL: $*"; FAILED=1; }

if [ "${1:-}" != --inside ] && [ -z "${MKINITRAMFS_TEST_INSIDE:-}" ]; then
  command -v mkinitramfs >/dev/null || skip "mkinitramfs not installed (Debian package initramfs-tools-core)"
  command -v unshare >/dev/null || skip "unshare(1) not installed (util-linux)"
  [ "$(id -u)" = 0 ] || skip "needs root for a private mount namespace over /usr/lib, /boot and /etc/modprobe.d"
  err=$(unshare -m --propagation private true 2>&1) || skip "unshare cannot create a mount namespace: $err"
  MKINITRAMFS_TEST_INSIDE=1 exec unshare -m --propagation private "$0" "$@"
fi

TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-mkinitramfs-XXXXXX")
trap 'umount -l /etc/modprobe.d /etc/modprobe.d /boot /usr/lib "$TMP/ovl" 2>/dev/null; rm -rf "$TMP"' EXIT
mkdir -p "$TMP/ovl" && mount -t tmpfs none "$TMP/ovl" && mkdir -p "$TMP/ovl/upper" "$TMP/ovl/work" ||
  skip "no tmpfs in the mount namespace"
mount -t overlay overlay -o "lowerdir=/usr/lib,upperdir=$TMP/ovl/upper,workdir=$TMP/ovl/work" /usr/lib 2>/dev/null ||
  skip "no overlayfs for /usr/lib"
MODS=/usr/lib/modules/$VER
mkdir -p "$MODS/kernel/drivers/gpu/drm/amd/amdgpu"
printf 'not a real module' | xz > "$MODS/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
touch "$MODS/modules.order" "$MODS/modules.builtin"
mount -t tmpfs none /boot || skip "cannot mount a tmpfs on /boot"
printf 'CONFIG_BLK_DEV_INITRD=y\nCONFIG_RD_ZSTD=y\nCONFIG_RD_GZIP=y\n' > "/boot/config-$VER"
mkdir -p "$TMP/conf/conf.d" "$TMP/conf/hooks" "$TMP/conf/scripts"
printf 'MODULES=list\nBUSYBOX=n\nCOMPRESS=zstd\n' > "$TMP/conf/initramfs.conf"
# modprobe cannot resolve a module that is not ELF (kmod reads modules.dep.bin, which depmod writes
# only for modules it can load), and no real one is installed here: a hook of the confdir copies
# it the way hook-functions' manual_add_modules does (copy_file module), so the image's layout is
# still mkinitramfs' own.
cat > "$TMP/conf/hooks/amdgpu" <<'HOOK'
#!/bin/sh
[ "${1:-}" = prereqs ] && exit 0
. /usr/share/initramfs-tools/hook-functions
copy_file module "${MODULESDIR}/kernel/drivers/gpu/drm/amd/amdgpu/amdgpu.ko.xz"
HOOK
chmod +x "$TMP/conf/hooks/amdgpu"
mkdir -p "$TMP/empty-modprobe.d"
mount --bind "$TMP/empty-modprobe.d" /etc/modprobe.d || skip "cannot bind over /etc/modprobe.d"

WORLD=$TMP/world
cp -a "$WORLDS/rx5700xt" "$WORLD"
IMG=$WORLD/boot/initrd.img-$VER
"$CTL" --root "$WORLD" set amdgpu.noretry=0 >/dev/null || fail "set amdgpu.noretry=0"

json() { /usr/bin/python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

# 1. Built from a modprobe.d without rocmtune's file.
mkinitramfs -d "$TMP/conf" -o "$IMG" "$VER" >"$TMP/mk1.log" 2>&1 || { cat "$TMP/mk1.log"; fail "mkinitramfs (1)"; }
"$CTL" --root "$WORLD" verify --json >"$TMP/v1.json"
rc=$?
[ "$rc" = 6 ] || fail "verify exit $rc, not 6: $(cat "$TMP/v1.json")"
kinds=$(json '" ".join(x["kind"] + ":" + x["subject"] for x in d["differences"])' <"$TMP/v1.json")
case " $kinds " in *" initramfs:$IMG "*) ;; *) fail "no initramfs difference for $IMG: $kinds" ;; esac
case " $kinds " in *":amdgpu.noretry "*) fail "amdgpu.noretry has a row of its own beside the image's: $kinds" ;; esac
msg=$(json '[x["message"] for x in d["differences"] if x["kind"] == "initramfs"][0]' <"$TMP/v1.json")
case "$msg" in *"so amdgpu.noretry does not take effect"*) ;; *) fail "the image's row does not name amdgpu.noretry: $msg" ;; esac
state=$("$CTL" --root "$WORLD" status --json | json 'd["boot_image"]["state"]')
[ "$state" = lacks ] || fail "status boot_image state $state, not lacks"
layout=$("$CTL" --root "$WORLD" status --json | json 'd["boot_image"]["message"]')
echo "mkinitramfs without rocmtune's file: $layout"

# 2. Built from the world's modprobe.d: the image carries rocmtune.conf.
mount --bind "$WORLD/etc/modprobe.d" /etc/modprobe.d || fail "bind the world's modprobe.d"
mkinitramfs -d "$TMP/conf" -o "$IMG" "$VER" >"$TMP/mk2.log" 2>&1 || { cat "$TMP/mk2.log"; fail "mkinitramfs (2)"; }
"$CTL" --root "$WORLD" status --json >"$TMP/s2.json"
state=$(json 'd["boot_image"]["state"]' <"$TMP/s2.json")
[ "$state" = carries ] || fail "status boot_image state $state, not carries: $(json 'd["boot_image"]' <"$TMP/s2.json")"
kinds=$("$CTL" --root "$WORLD" verify --json | json '" ".join(x["kind"] + ":" + x["subject"] for x in d["differences"])')
case " $kinds " in *" initramfs:"*) fail "an initramfs difference for an image that carries the options: $kinds" ;; esac
case " $kinds " in *" pending-reboot:amdgpu.noretry "*) ;; *) fail "amdgpu.noretry is not pending-reboot: $kinds" ;; esac
echo "mkinitramfs with it: $(json 'd["boot_image"]["message"]' <"$TMP/s2.json")"

# 3. unset: the image built in 2 still has the option rocmtune took out (its regeneration was
#    skipped): a stale image, a verify difference and status's Image: line.
"$CTL" --root "$WORLD" unset amdgpu.noretry >/dev/null || fail "unset amdgpu.noretry"
"$CTL" --root "$WORLD" verify --json >"$TMP/v3.json"
rc=$?
[ "$rc" = 6 ] || fail "verify after unset exit $rc, not 6: $(cat "$TMP/v3.json")"
kinds=$(json '" ".join(x["kind"] + ":" + x["subject"] for x in d["differences"])' <"$TMP/v3.json")
case " $kinds " in *" initramfs:$IMG "*) ;; *) fail "no initramfs difference for the stale $IMG: $kinds" ;; esac
state=$("$CTL" --root "$WORLD" status --json | json 'd["boot_image"]["state"]')
[ "$state" = stale ] || fail "status boot_image state $state after unset, not stale"
# Read whole before grep looks: with pipefail, grep -q ending at its first match could SIGPIPE
# the writer and fail the pipeline though the line is there.
status_text=$("$CTL" --root "$WORLD" status)
grep -q "^Image:   $IMG loads amdgpu at the next boot with rocmtune's removed options" <<<"$status_text" ||
  fail "status has no stale Image: line: $(grep '^Image:' <<<"$status_text")"

# 4. Rebuilt from the world's modprobe.d after the unset: nothing of rocmtune's left to report.
mkinitramfs -d "$TMP/conf" -o "$IMG" "$VER" >"$TMP/mk4.log" 2>&1 || { cat "$TMP/mk4.log"; fail "mkinitramfs (4)"; }
kinds=$("$CTL" --root "$WORLD" verify --json | json '" ".join(x["kind"] + ":" + x["subject"] for x in d["differences"])')
case " $kinds " in *" initramfs:"*) fail "an initramfs difference after the image was rebuilt: $kinds" ;; esac
has=$("$CTL" --root "$WORLD" status --json | json '"boot_image" in d')
[ "$has" = False ] || fail "status still has boot_image after the rebuild"
echo "after unset: stale, then rebuilt: none"

[ "$FAILED" = 0 ] && echo "PASS"
exit "$FAILED"
