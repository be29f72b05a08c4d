# shellcheck shell=bash
# rsmi_world.sh -- sourced by the rocm-smi-lib tests: prepare a COPY of a world so that
# rocm-smi-lib 5.2.x accepts it, and place a copy over the real /sys paths (inside a private mount
# namespace; the caller unshares). Functions only, and TMPDIR kept off /dev/shm (below).
#
# rsmi_prepare_copy W   adds to the copy W the few files real sysfs always has but captures may
#                       lack, printing each ("ADDED for rocm-smi-lib: ..."); sets ADDED to their count.
# rsmi_place_world TMP  binds TMP/world/sys's class/{drm,kfd,hwmon}, module/* and devices/*/* dirs at
#                       /sys, TMP/world/proc/cmdline at /proc/cmdline and an empty tmpfs at /dev/shm
#                       (rocm-smi-lib keeps its per-card mutexes there: one left locked by an aborted
#                       run must not reach the host or the next test); returns 77 if a mount is refused.
# rsmi_require_namespace  skips (the caller's `skip`) unless this is root with a private mount namespace.
# rsmi_copy_world WORLD NAME  skips a world without DRM and KFD, copies it to TMP/world (TMP a new
#                       directory named after NAME, removed on exit) and sets TMP and W.
# rsmi_run_inside ARG...  runs "$SELF --inside TMP ARG..." in a private mount namespace; fails (the
#                       caller's `fail`) if a mount leaked out, skips on 77, fails on another error.

# rsmi_place_world mounts a tmpfs on /dev/shm, and so does rocmtune's probe child: a work directory
# under /dev/shm, where make check's TMPDIR may be (tests/run_ctest.sh --tmpfs), would vanish from
# their view. These tests keep theirs on /tmp.
case ${TMPDIR:-} in /dev/shm | /dev/shm/*) export TMPDIR=/tmp ;; esac

rsmi_require_namespace() {
  local err
  [ "$(id -u)" = 0 ] || skip "needs root (mount namespace and bind mounts over /sys)"
  command -v unshare >/dev/null || skip "unshare(1) not installed (util-linux)"
  err=$(unshare -m --propagation private true 2>&1) || skip "unshare cannot create a private mount namespace: $err"
}

rsmi_copy_world() {
  local world=$1 name=$2 d
  for d in class/drm class/kfd; do
    [ -e "$world/sys/$d" ] || skip "world $(basename "$world") has no sys/$d (rocm-smi-lib needs DRM and KFD)"
  done
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || fail "mktemp failed"
  # shellcheck disable=SC2064  # TMP is fixed now
  trap "rm -rf '$TMP'" EXIT
  cp -a "$world" "$TMP/world" || fail "cannot copy the world"
  W=$TMP/world
  echo "world: $world (working on the copy $W)"
}

rsmi_run_inside() {
  local before after rc
  before=$(awk '{print $5}' /proc/self/mountinfo | sort)
  unshare -m --propagation private -- "$SELF" --inside "$TMP" "$@"
  rc=$?
  after=$(awk '{print $5}' /proc/self/mountinfo | sort)
  if grep -qF "$TMP" /proc/self/mountinfo || [ "$before" != "$after" ]; then
    fail "a mount leaked out of the namespace: $(diff <(echo "$before") <(echo "$after") | tr '\n' ' ')"
  fi
  echo "mounts: none leaked out of the namespace"
  [ "$rc" = 77 ] && skip "could not place the world over /sys (overlay/bind mount refused; see above)"
  [ "$rc" = 0 ] || fail "namespace helper failed (exit $rc)"
}

esc() { printf '%s' "$1" | sed 's/[\\:,]/\\&/g'; }  # escape a path for overlay's lowerdir= list

# ensure_path REL: make /sys/REL exist, overlaying world parents over host parents as needed.
ensure_path() {
  local rel=$1 parent
  [ -e "/sys/$rel" ] && return 0
  parent=${rel%/*}
  [ "$parent" = "$rel" ] && { echo "inner: /sys/$rel missing and has no parent to overlay" >&2; return 1; }
  ensure_path "$parent" || return 1
  mount -t overlay overlay -o "ro,lowerdir=$(esc "$WSYS/$parent"):$(esc "/sys/$parent")" "/sys/$parent" || return 1
  echo "mount: overlay (ro) $WSYS/$parent over host /sys/$parent"
  [ -e "/sys/$rel" ]
}

# place REL: bind the world's sys/REL at /sys/REL.
place() {
  local rel=$1
  ensure_path "$rel" || return 1
  mount --bind "$WSYS/$rel" "/sys/$rel" || return 1
  echo "mount: bind $WSYS/$rel -> /sys/$rel"
}

rsmi_place_world() {
  local tmp=$1 d rel
  WSYS=$tmp/world/sys
  # Most specific last: the class/module/device dirs themselves are bind mounts of the copy.
  for d in "$WSYS"/class/drm "$WSYS"/class/kfd "$WSYS"/class/hwmon "$WSYS"/module/* "$WSYS"/devices/*/*; do
    [ -d "$d" ] && [ ! -L "$d" ] || continue
    rel=${d#"$WSYS"/}
    case $rel in devices/*/power | devices/*/firmware_node | devices/system/*) continue ;; esac
    place "$rel" || return 77
  done
  mount -t tmpfs -o mode=1777 tmpfs /dev/shm || return 77
  echo "mount: tmpfs -> /dev/shm"
  if [ -f "$tmp/world/proc/cmdline" ]; then
    mount --bind "$tmp/world/proc/cmdline" /proc/cmdline || return 77
    echo "mount: bind $tmp/world/proc/cmdline -> /proc/cmdline"
  fi
  return 0
}

rsmi_prepare_copy() {
  local W=$1 link name dev pci_id h max n k card conn target node cards
  ADDED=0
  add() {  # add FILE CONTENT WHY
    mkdir -p "$(dirname "$1")"
    printf '%s\n' "$2" >"$1"
    echo "ADDED for rocm-smi-lib: ${1#"$W"/} = '$2' -- $3"
    ADDED=$((ADDED + 1))
  }
  declare -A CARD_INDEX=()
  cards=0
  for link in "$W"/sys/class/drm/card*; do
    [ -e "$link" ] || [ -L "$link" ] || continue
    cards=$((cards + 1))
    name=${link##*/}
    [[ $name =~ ^card([0-9]+)$ ]] || continue
    CARD_INDEX[$name]=${BASH_REMATCH[1]}
    dev=$(readlink -f "$link/device")
    [ -d "$dev" ] || continue
    pci_id=$(tr -d '\0' <"$dev/uevent" 2>/dev/null | sed -n 's/^PCI_ID=//p' | tr 'A-F' 'a-f')
    if [ ! -e "$dev/vendor" ] && [ -n "$pci_id" ]; then
      add "$dev/vendor" "0x${pci_id%%:*}" "rsmi checks device/vendor == 0x1002 to count the card; value from the world's uevent PCI_ID"
    fi
    if [ ! -e "$dev/device" ] && [ -n "$pci_id" ]; then
      add "$dev/device" "0x${pci_id##*:}" "rsmi_dev_id_get reads device/device (NOT_SUPPORTED without it); value from the world's uevent PCI_ID"
    fi
    if [ ! -e "$dev/vbios_version" ]; then
      add "$dev/vbios_version" "unknown" "rsmi skips a card without device/vbios_version"
    fi
    for h in "$dev"/hwmon/hwmon*; do
      [ -d "$h" ] || continue
      [ -e "$h/in0_input" ] && [ ! -e "$h/in0_label" ] && add "$h/in0_label" "vddgfx" "rsmi_init fails (status 8) on an amdgpu hwmon without in0_label"
      [ -e "$h/temp1_input" ] && [ ! -e "$h/temp1_label" ] && add "$h/temp1_label" "edge" "rsmi_init fails on an amdgpu hwmon without temp1_label"
    done
  done
  # rsmi 5.2.x probes /sys/class/drm/card0 .. card<K-1>, K = number of entries named card*; a real system
  # has connector entries (card1-eDP-1 ...) that the captures lack, so card1 alone is never probed.
  max=-1
  for n in "${CARD_INDEX[@]}"; do [ "$n" -gt "$max" ] && max=$n; done
  k=1
  while [ "$cards" -le "$max" ]; do
    card=card$max
    conn=$card-DP-$k
    target=$(readlink "$W/sys/class/drm/$card")
    if [ ! -e "$W/sys/class/drm/$conn" ]; then
      mkdir -p "$W/sys/class/drm/$target/$conn"
      printf 'disconnected\n' >"$W/sys/class/drm/$target/$conn/status"
      ln -s "$target/$conn" "$W/sys/class/drm/$conn"
      echo "ADDED for rocm-smi-lib: sys/class/drm/$conn -> $target/$conn (placeholder connector, status=disconnected)" \
        "-- rsmi only probes card0..card<number of card* entries - 1>; a lone $card needs $((max + 1)) card* entries"
      ADDED=$((ADDED + 1))
      cards=$((cards + 1))
    fi
    k=$((k + 1))
  done
  for node in "$W"/sys/class/kfd/kfd/topology/nodes/*; do
    [ -d "$node" ] || continue
    if [ ! -d "$node/io_links" ]; then
      mkdir -p "$node/io_links"
      echo "ADDED for rocm-smi-lib: ${node#"$W"/}/io_links/ (empty dir) -- rsmi asserts every KFD node has io_links/"
      ADDED=$((ADDED + 1))
    fi
  done
  [ "$ADDED" = 0 ] && echo "ADDED for rocm-smi-lib: nothing (the world has everything rsmi needs)"
}
