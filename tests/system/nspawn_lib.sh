# shellcheck shell=bash
# Sourced by nspawn_system_test.sh (inner part, in its own mount namespace): installing rocmtune's
# Debian package into the container's root, booting it with systemd-nspawn and running commands in it.
# Needs: BUILD, SRC, WORK, R (the container's root on the host), W (the world's path inside).
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
NSPAWN="" INIT=""

# The Debian package (make package: scripts/build-deb.sh, reused when the sources are the same),
# installed with dpkg in the container's root, plus one drop-in per unit pointing it at the world.
install_rocmtune() {
  "$SRC/scripts/build-deb.sh" "$BUILD" >"$WORK/package.log" 2>&1 ||
    { tail -30 "$WORK/package.log"; fail "make package (scripts/build-deb.sh)"; }
  local deb f
  deb=$(find "$BUILD/package" -maxdepth 1 -name 'rocmtune_*.deb' | head -1)
  [ -f "$deb" ] || fail "no rocmtune_*.deb in $BUILD/package"
  cp "$deb" "$R/tmp/rocmtune.deb"
  chroot "$R" dpkg -i /tmp/rocmtune.deb >"$WORK/install.log" 2>&1 || { cat "$WORK/install.log"; fail "dpkg -i $deb"; }
  rm -f "$R/tmp/rocmtune.deb"
  echo "installed $(basename "$deb") with dpkg"
  for f in /usr/bin/rocmtunectl /usr/libexec/rocmtune/rocmtuned /usr/libexec/rocmtune/rocmtune-helper \
      /usr/lib/systemd/system/rocmtuned.service /usr/lib/systemd/system/rocmtune-helper.socket \
      /usr/lib/systemd/system/rocmtune-helper@.service /usr/share/dbus-1/system.d/org.rocmtune1.conf \
      /usr/share/dbus-1/system-services/org.rocmtune1.service /usr/share/polkit-1/actions/org.rocmtune1.policy; do
    [ -e "$R$f" ] || fail "the package did not install $f"
  done
  # The package's postinst enables the helper socket (deb-systemd-helper, no systemd needed).
  [ -L "$R/etc/systemd/system/sockets.target.wants/rocmtune-helper.socket" ] ||
    fail "the package's postinst did not enable rocmtune-helper.socket"
  # The world is not the live root: its reads need openat2, which RestrictSUIDSGID's filter
  # refuses (the shipped unit relies on the live root's openat fallback; checked at the end).
  world_dropin rocmtuned.service "RestrictSUIDSGID=no"
  world_dropin rocmtune-helper@.service
}

# world_dropin UNIT [LINE...]: the unit's own ExecStart with `--root W` (in place of `--root /`
# if it has one, else after the program), and LINEs, in /etc/systemd/system/UNIT.d/.
world_dropin() {
  local unit=$1; shift
  local exec prog
  exec=$(grep -m1 '^ExecStart=' "$R/usr/lib/systemd/system/$unit" | cut -d= -f2-)
  [ -n "$exec" ] || fail "$unit has no ExecStart"
  if [[ "$exec" == *" --root / "* ]]; then exec=${exec/ --root \/ / --root $W }
  else prog=${exec%% *}; exec="$prog --root $W${exec#"$prog"}"; fi
  mkdir -p "$R/etc/systemd/system/$unit.d"
  { echo "# rocmtune's whole-system test: the unit as installed, on a world instead of the container's /."
    echo "[Service]"; echo "ExecStart="; echo "ExecStart=$exec"; printf '%s\n' "$@"
  } >"$R/etc/systemd/system/$unit.d/50-test-world.conf"
  echo "drop-in $unit: ExecStart=$exec $*"
}

# An unprivileged user, and one in a group a polkit rule grants org.rocmtune1.set.
make_users() {
  chroot "$R" groupadd rocmtune-test || fail "groupadd"
  chroot "$R" useradd -m -U rtuser || fail "useradd rtuser"
  chroot "$R" useradd -m -U -G rocmtune-test rtadmin || fail "useradd rtadmin"
  cat >"$R/etc/polkit-1/rules.d/50-rocmtune-test.rules" <<'JS'
polkit.addRule(function(action, subject) {
  if (action.id == "org.rocmtune1.set" && subject.isInGroup("rocmtune-test")) return polkit.Result.YES;
});
JS
  chmod 644 "$R/etc/polkit-1/rules.d/50-rocmtune-test.rules"
}

# boot_container N: boots the root (the workarounds for a host without systemd as PID 1:
# no registration with machined, no unit of its own) and waits until it is up.
boot_container() {  # boot_container N [INIT ARGS...]
  local start=$SECONDS
  # Arguments after the number go to the container's init: systemd reads its own command line as
  # the kernel's in a container (ConditionKernelCommandLine=, e.g. rocmtune.reset=1).
  systemd-nspawn --register=no --keep-unit --console=pipe -q -D "$R" -b "${@:2}" </dev/null >"$WORK/boot$1.log" 2>&1 &
  NSPAWN=$!
  echo "$NSPAWN" >"$WORK/nspawn.pid"
  INIT=""
  for _ in $(seq 200); do
    INIT=$(pgrep -P "$NSPAWN" -x systemd | head -1)
    [ -n "$INIT" ] && [ -S "/proc/$INIT/root/run/systemd/private" ] && break
    kill -0 "$NSPAWN" 2>/dev/null || break
    sleep 0.1
  done
  if [ -z "$INIT" ] || [ ! -S "/proc/$INIT/root/run/systemd/private" ]; then
    cat "$WORK/boot$1.log"
    [ "$1" = 1 ] && skip "systemd-nspawn cannot boot the container here"
    fail "the container did not boot again"
  fi
  local state
  state=$(timeout 90 nsenter -t "$INIT" -a -r -w systemctl is-system-running --wait 2>&1)
  echo "boot $1: $state after $((SECONDS - start)) s"
  case "$state" in
    running) ;;
    degraded) ct systemctl --failed --no-pager --no-legend ;;
    *) [ "$1" = 1 ] && skip "the container did not come up: $state"; fail "boot $1: $state" ;;
  esac
}

# stop_container poweroff|kill: a clean poweroff from inside, or SIGTERM to systemd-nspawn
# (which halts the container), then SIGKILL if it is still there.
stop_container() {
  [ -n "$NSPAWN" ] && kill -0 "$NSPAWN" 2>/dev/null || { NSPAWN=""; return 0; }
  if [ "$1" = poweroff ]; then ct systemctl poweroff --no-block 2>/dev/null; else kill -TERM "$NSPAWN"; fi
  for _ in $(seq 300); do kill -0 "$NSPAWN" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$NSPAWN" 2>/dev/null; then
    kill -KILL "$NSPAWN"
    [ "$1" = poweroff ] && fail "the container did not power off within 30 s"
  fi
  wait "$NSPAWN" 2>/dev/null
  NSPAWN="" INIT=""
  rm -f "$WORK/nspawn.pid"
}

# ct CMD...: runs CMD as root in the container (all its namespaces, its root, a clean environment).
ct() { nsenter -t "$INIT" -a -r -w env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 "$@"; }
# as USER CMD...: as USER with USER's groups.
as() { local u=$1; shift; ct setpriv --reuid="$u" --regid="$u" --init-groups "$@"; }
# ct_bg LOG CMD...: in the background until the container stops.
ct_bg() { local log=$1; shift; ct "$@" >"$log" 2>&1 & }

# tree DIR [all]: a hash per file; without "all", rocmtune's journal and state (ids, times) left out.
tree() {
  if [ "${2:-}" = all ]; then (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  else (cd "$1" && find . -path ./var/lib/rocmtune -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); fi
}

# same_world WHAT: the container's world is the copy rocmtunectl --root changed the same way.
same_world() {
  [ "$(tree "$R$W")" = "$(tree "$WORK/expected")" ] && return 0
  diff <(tree "$WORK/expected") <(tree "$R$W")
  fail "$1: the world differs from the copy rocmtunectl --root changed"
}

# changed FILE: busctl's JSON reply holds a rocmtune.result.v1 document with changed: true.
changed() {
  /usr/bin/python3 -c 'import json,sys; r=json.loads(json.load(open(sys.argv[1]))["data"][0]); sys.exit(0 if r["changed"] else 1)' "$1"
}

# ctl_over_bus USER ARGS...: `rocmtunectl ARGS` run by USER in the container, without --root:
# it goes through rocmtuned (the container's own / has no GPU, the daemon's world has one), and
# a change by a user polkit does not allow is refused with exit 4 and the hint.
CTL_OVER_BUS_STRICT=${CTL_OVER_BUS_STRICT:-1}
ctl_over_bus() {
  local user=$1; shift
  local out rc before
  before=$(tree "$R$W" all)
  out=$(as "$user" rocmtunectl "$@" 2>&1); rc=$?
  echo "ctl_over_bus: rocmtunectl $* as $user: exit $rc: $(echo "$out" | head -c 200 | tr '\n' ' ')"
  case "$1" in
    status)
      if echo "$out" | grep -q gfx1032; then echo "ctl_over_bus: status sees the world (over the bus)"
      elif [ "$CTL_OVER_BUS_STRICT" = 1 ]; then fail "rocmtunectl status as $user does not show the world's GPU"
      else echo "ctl_over_bus: NOTE status does not go through the daemon yet (tolerated)"; fi ;;
    *)
      # Never tolerated: a user polkit does not allow changes nothing.
      [ "$rc" != 0 ] || fail "rocmtunectl $* as $user succeeded"
      [ "$CTL_OVER_BUS_STRICT" = 1 ] && [ "$rc" != 4 ] && fail "rocmtunectl $* as $user exited $rc, want 4: $out"
      [ "$(tree "$R$W" all)" = "$before" ] || fail "rocmtunectl $* as $user changed the world"
      if [ "$CTL_OVER_BUS_STRICT" = 1 ] && ! echo "$out" | grep -qi "not authorized\|authoriz\|polkit"; then
        fail "rocmtunectl $* as $user: not refused by polkit: $out"
      fi ;;
  esac
}

# want_apply_unit UNIT_FILE CARD: the boot starts rocmtune-apply@CARD.service (udev's coldplug
# would; it cannot see a fake card), on the world (a drop-in; the world is under /var/lib, which
# the unit's ProtectSystem=strict leaves read-only).
want_apply_unit() {
  local target=$R/usr/lib/systemd/system/rocmtune-apply@.service
  [ "$1" = "$target" ] || cp "$1" "$target"
  world_dropin rocmtune-apply@.service "ReadWritePaths=$W"
  mkdir -p "$R/etc/systemd/system/multi-user.target.wants"
  ln -sf /usr/lib/systemd/system/rocmtune-apply@.service \
    "$R/etc/systemd/system/multi-user.target.wants/rocmtune-apply@$2.service"
}

# wait_unit_done UNIT: a oneshot that has run (or failed).
wait_unit_done() {
  for _ in $(seq 300); do
    [ "$(ct systemctl show -P ExecMainExitTimestampMonotonic "$1")" != 0 ] && return 0
    [ "$(ct systemctl is-failed "$1")" = failed ] && return 0
    sleep 0.1
  done
  ct systemctl status --no-pager "$1"
  fail "$1 did not run"
}

# boot_unit UNIT: UNIT enabled for sysinit.target (as `systemctl enable` does) and pointed at the
# world: a drop-in with its ExecStart on --root W and its "nothing to do here" condition on the
# world's journal.
boot_unit() {
  local unit=$1
  world_dropin "$unit"
  if grep -q '^ConditionPathIsDirectory=/var/lib/rocmtune/journal' "$R/usr/lib/systemd/system/$unit"; then
    printf '[Unit]\nConditionPathIsDirectory=\nConditionPathIsDirectory=%s/var/lib/rocmtune/journal\n' "$W" \
      >"$R/etc/systemd/system/$unit.d/51-test-world-condition.conf"
  fi
  mkdir -p "$R/etc/systemd/system/sysinit.target.wants"
  ln -sf "/usr/lib/systemd/system/$unit" "$R/etc/systemd/system/sysinit.target.wants/$unit"
}
