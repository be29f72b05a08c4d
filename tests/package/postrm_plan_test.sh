#!/bin/bash
# debian/rocmtune.postrm's purge plan reader against plans no rocmtune writes: one line the helper
# would not accept (a path outside its allow-list, a command in another form than the reset's, a
# file content that is more than rocmtune's tokens taken off) refuses the whole plan and nothing
# changes; words are never evaluated or globbed; files changed since the plan are left. Runs the
# script as dpkg would on purge, on a scratch root (DPKG_ROOT), without root.
# usage: postrm_plan_test.sh POSTRM
set -u
POSTRM=$(realpath "$1")
fail() { echo "FAIL: $*"; exit 1; }
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-postrm-XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
P=$R/var/lib/rocmtune/purge

setup() {
  rm -rf "$R"
  mkdir -p "$P" "$R/etc/modprobe.d" "$R/etc/default/grub.d" "$R/etc/environment.d" "$R/etc/kernel" "$R/boot/loader/entries"
  echo "options amdgpu runpm=0" >"$R/etc/modprobe.d/rocmtune.conf"
  echo 'GRUB_CMDLINE_LINUX="quiet iommu=pt"' >"$R/etc/default/grub"
  chmod 0640 "$R/etc/default/grub"
  echo "HSA_ENABLE_SDMA=0" >"$R/etc/environment.d/90-rocmtune.conf"
  echo "secret" >"$R/etc/shadow-like"
  mkdir -p "$R/var/lib/rocmtune/journal"
  # What rocmtune added to the command lines it edits in place (boot/cmdline_owned.h).
  printf '# rocmtune\niommu=pt\n' >"$R/var/lib/rocmtune/cmdline-tokens"
}
files() { (cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
expect_file() { cp "$2" "$P/$1.expect"; }
run_purge() { DPKG_ROOT=$R sh "$POSTRM" purge >"$WORK/out" 2>&1; echo $? >"$WORK/rc"; }

# 1. A good plan: a write with the owner's mode kept, a remove, a run (not run under DPKG_ROOT),
#    an rmdir of a directory left non-empty and of an empty one.
setup
expect_file 1 "$R/etc/default/grub"; echo 'GRUB_CMDLINE_LINUX="quiet"' >"$P/1.new"
expect_file 2 "$R/etc/modprobe.d/rocmtune.conf"
expect_file 3 "$R/etc/environment.d/90-rocmtune.conf"
printf 'rocmtune-purge-plan 1\nwrite 1 etc/default/grub\nremove 2 etc/modprobe.d/rocmtune.conf\nremove 3 etc/environment.d/90-rocmtune.conf\nrun update-grub\nrmdir etc/environment.d\nrmdir etc/kernel\n' >"$P/plan"
run_purge
[ "$(cat "$WORK/rc")" = 0 ] || { cat "$WORK/out"; fail "good plan: postrm exited $(cat "$WORK/rc")"; }
[ "$(cat "$R/etc/default/grub")" = 'GRUB_CMDLINE_LINUX="quiet"' ] || fail "good plan: /etc/default/grub not put back"
[ "$(stat -c %a "$R/etc/default/grub")" = 640 ] || fail "good plan: /etc/default/grub lost its mode 0640"
[ -e "$R/etc/modprobe.d/rocmtune.conf" ] && fail "good plan: modprobe.d file not removed"
[ -d "$R/etc/environment.d" ] && fail "good plan: the emptied etc/environment.d not removed"
[ -d "$R/etc/kernel" ] && fail "good plan: the empty etc/kernel not removed"
[ -d "$R/etc/modprobe.d" ] || fail "good plan: removed etc/modprobe.d, which the plan did not name"
[ -e "$R/var/lib/rocmtune" ] && fail "good plan: /var/lib/rocmtune is still there"
grep -q "not run in DPKG_ROOT" "$WORK/out" || { cat "$WORK/out"; fail "good plan: the regenerator was not reported"; }
ls "$R"/etc/default/*.rocmtune-purge 2>/dev/null && fail "good plan: a temporary file was left"
echo "ok: a good plan is carried out (mode kept, files removed, empty directories removed, state gone)"

# 2. Hostile and broken lines: each is refused, and so is the plan: nothing changes.
setup
before=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
expect_file 1 "$R/etc/modprobe.d/rocmtune.conf"
expect_file 2 "$R/etc/shadow-like"
: >"$P/2.new"
expect_file 3 "$R/etc/modprobe.d/rocmtune.conf"
expect_file 4 "$R/etc/environment.d/90-rocmtune.conf"
echo changed >"$P/4.expect"
cat >"$P/plan" <<'PLAN'
rocmtune-purge-plan 1
remove 2 etc/shadow-like
remove 1 etc/modprobe.d/../shadow-like
remove 1 /etc/modprobe.d/rocmtune.conf
remove 1 etc/modprobe.d/*
remove 1 etc/modprobe.d/$(touch${IFS}pwned).conf
remove 1 etc/modprobe.d/`touch pwned`.conf
remove x1 etc/modprobe.d/rocmtune.conf
write 3 etc/modprobe.d/rocmtune.conf
remove 1 boot/loader/entries/../../etc/shadow-like
remove 1 boot/loader/entries/sub/x.conf
rmdir etc
rmdir /etc/modprobe.d
run sh -c touch${IFS}pwned
run /bin/sh
run update-grub;touch pwned
remove 4 etc/environment.d/90-rocmtune.conf
unknown 1 etc/modprobe.d/rocmtune.conf
remove 1 etc/modprobe.d/rocmtune.conf extra
PLAN
# From inside the root: a glob would match its files there.
(cd "$R" && run_purge)
[ "$(cat "$WORK/rc")" = 0 ] || { cat "$WORK/out"; fail "hostile plan: postrm exited $(cat "$WORK/rc")"; }
find "$WORK" "$R" -name pwned | grep -q . && fail "hostile plan: a word was evaluated"
after=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$after" = "$before" ] || { diff <(echo "$before") <(echo "$after"); cat "$WORK/out"; fail "hostile plan: files changed"; }
[ -d "$R/etc" ] || fail "hostile plan: rmdir etc"
refused=$(grep -c "refused plan line" "$WORK/out")
[ "$refused" -ge 16 ] || { cat "$WORK/out"; fail "hostile plan: $refused refusals reported, want 16 or more"; }
grep -q "the purge plan is refused" "$WORK/out" || { cat "$WORK/out"; fail "hostile plan: the plan's refusal not reported"; }
echo "ok: $refused hostile or broken lines refused, nothing evaluated, nothing changed"

# 3. A plan that is not a plan: a wrong header, a symlinked plan file.
setup
printf 'rocmtune-purge-plan 2\nremove 1 etc/modprobe.d/rocmtune.conf\n' >"$P/plan"
expect_file 1 "$R/etc/modprobe.d/rocmtune.conf"
run_purge
[ -e "$R/etc/modprobe.d/rocmtune.conf" ] || fail "a plan of another version was carried out"
grep -q "not a purge plan" "$WORK/out" || fail "a plan of another version was not reported"
setup
printf 'rocmtune-purge-plan 1\nremove 1 etc/modprobe.d/rocmtune.conf\n' >"$WORK/elsewhere"
ln -s "$WORK/elsewhere" "$P/plan"
expect_file 1 "$R/etc/modprobe.d/rocmtune.conf"
run_purge
[ -e "$R/etc/modprobe.d/rocmtune.conf" ] || fail "a symlinked plan was carried out"
echo "ok: a plan of another version or behind a symlink changes nothing"

# 4. A symlink where a file was: never followed, left.
setup
ln -sf /etc/shadow-like "$R/etc/environment.d/90-rocmtune.conf"
expect_file 1 "$R/etc/shadow-like"
printf 'rocmtune-purge-plan 1\nremove 1 etc/environment.d/90-rocmtune.conf\n' >"$P/plan"
run_purge
[ -L "$R/etc/environment.d/90-rocmtune.conf" ] || fail "a symlink in place of rocmtune's file was removed"
echo "ok: a symlink in place of rocmtune's file is left"

# 5. A prerm cut short: the step files are written, the plan (written last) is not; or a plan cut
#    mid-line whose path became another allowed path. Nothing changes but /var/lib/rocmtune.
setup
expect_file 1 "$R/etc/modprobe.d/rocmtune.conf"
expect_file 2 "$R/etc/default/grub"; echo 'GRUB_CMDLINE_LINUX=""' >"$P/2.new"
before=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
run_purge
[ "$(cat "$WORK/rc")" = 0 ] || fail "no plan: postrm exited $(cat "$WORK/rc")"
grep -q "no purge plan was recorded" "$WORK/out" || { cat "$WORK/out"; fail "no plan: not reported"; }
after=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$before" = "$after" ] || fail "no plan: files changed"
[ -e "$R/var/lib/rocmtune" ] && fail "no plan: /var/lib/rocmtune is still there"
setup
mkdir -p "$R/etc/default/grub.d"
echo 'GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt"' >"$R/etc/default/grub.d/zz-rocmtune.cfg"
expect_file 1 "$R/etc/default/grub.d/zz-rocmtune.cfg"
: >"$P/1.new"
# "write 1 etc/default/grub.d/zz-rocmtune.cfg" cut after "grub": the path is etc/default/grub.
printf 'rocmtune-purge-plan 1\nwrite 1 etc/default/grub' >"$P/plan"
before=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
run_purge
after=$(cd "$R" && find . -path ./var -prune -o -type f -print0 | sort -z | xargs -0 sha256sum)
[ "$before" = "$after" ] || fail "a plan cut mid-line changed a file"
grep -q "is cut short" "$WORK/out" || { cat "$WORK/out"; fail "cut plan: not reported"; }
echo "ok: a prerm cut short (no plan, or a plan cut mid-line) changes nothing"

# 6. One line the helper would not accept, beside a good one: the whole plan is refused, nothing
#    changes (the good line's modprobe.d file stays). Commands: only the reset's exact argv.
#    Contents: /etc/default/grub (and /etc/kernel/cmdline) only with rocmtune's recorded tokens
#    taken off, every other line and the line's frame byte for byte.
GRUB='GRUB_DEFAULT=0
GRUB_TIMEOUT=5
GRUB_CMDLINE_LINUX_DEFAULT="quiet iommu=pt"
GRUB_CMDLINE_LINUX=""'
# refused_alone WHAT LINE [N.new content]: LINE (a write names step 2, etc/default/grub) beside
# `remove 1 etc/modprobe.d/rocmtune.conf`.
refused_alone() {
  local what=$1 line=$2
  setup
  echo "$GRUB" >"$R/etc/default/grub"
  echo "quiet iommu=pt" >"$R/etc/kernel/cmdline"
  expect_file 1 "$R/etc/modprobe.d/rocmtune.conf"
  case "$line" in
    *etc/kernel/cmdline) expect_file 2 "$R/etc/kernel/cmdline" ;;
    *) expect_file 2 "$R/etc/default/grub" ;;
  esac
  [ $# -ge 3 ] && printf '%s\n' "$3" >"$P/2.new"
  printf 'rocmtune-purge-plan 1\nremove 1 etc/modprobe.d/rocmtune.conf\n%s\n' "$line" >"$P/plan"
  local before after
  before=$(files)
  run_purge
  after=$(files)
  [ "$(cat "$WORK/rc")" = 0 ] || { cat "$WORK/out"; fail "$what: postrm exited $(cat "$WORK/rc")"; }
  [ "$before" = "$after" ] || { cat "$WORK/out"; diff <(echo "$before") <(echo "$after"); fail "$what: files changed"; }
  grep -q "refused plan line" "$WORK/out" && grep -q "the purge plan is refused" "$WORK/out" ||
    { cat "$WORK/out"; fail "$what: the refusal is not reported"; }
  find "$WORK" -name pwned | grep -q . && fail "$what: a word was evaluated"
  echo "ok: refused, nothing changed: $what ($(grep -m1 "refused plan line" "$WORK/out"))"
}
refused_alone "grub-mkconfig writing another file" "run grub-mkconfig -o /etc/shadow"
refused_alone "grub-mkconfig with an extra argument" "run grub-mkconfig -o /boot/grub/grub.cfg --debug"
refused_alone "update-initramfs with another argument" "run update-initramfs -c -k all"
refused_alone "update-grub with an argument" "run update-grub --output=/etc/shadow"
refused_alone "update-grub followed by a command" "run update-grub; touch pwned"
refused_alone "grubby removing the admin's root=" "run grubby --update-kernel=ALL --remove-args=root"
refused_alone "grubby adding a token" "run grubby --update-kernel=ALL --args=init=/bin/sh"
refused_alone "a regenerator rocmtune does not run" "run grub2-mkconfig -o /boot/grub2/grub.cfg"
refused_alone "a shared file removed" "remove 2 etc/default/grub"
refused_alone "rocmtune's drop-in written, not removed" "write 2 etc/modprobe.d/rocmtune.conf" \
  "install amdgpu /bin/sh -c 'touch /pwned'"
refused_alone "a command substitution added" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet $(touch pwned)"/')"
refused_alone "a new variable" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet"/'; echo 'GRUB_INIT_TUNE="480 440 1"')"
refused_alone "the admin's line dropped" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet"/; /GRUB_TIMEOUT/d')"
refused_alone "another line changed" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet"/; s/GRUB_TIMEOUT=5/GRUB_TIMEOUT=0/')"
refused_alone "the admin's token taken off" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"iommu=pt"/')"
refused_alone "a token rocmtune never replaced put in" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet init=\/bin\/sh"/')"
refused_alone "a command after the value" "write 2 etc/default/grub" \
  "$(echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet"; touch pwned/')"
refused_alone "a token added to /etc/kernel/cmdline" "write 2 etc/kernel/cmdline" "quiet init=/bin/sh"

# 7. The same kinds of lines as the reset writes them are carried out: rocmtune's token taken
#    off and the admin's it replaced put back, the exact commands (reported, not run, in DPKG_ROOT).
setup
echo "$GRUB" >"$R/etc/default/grub"
echo "quiet iommu=pt amdgpu.runpm=0" >"$R/etc/kernel/cmdline"
printf 'iommu=pt replaced iommu=soft\namdgpu.runpm=0\n' >"$R/var/lib/rocmtune/cmdline-tokens"
expect_file 1 "$R/etc/default/grub"
echo "$GRUB" | sed 's/"quiet iommu=pt"/"quiet iommu=soft"/' >"$P/1.new"
expect_file 2 "$R/etc/kernel/cmdline"
echo "quiet iommu=soft" >"$P/2.new"
cat >"$P/plan" <<'PLAN'
rocmtune-purge-plan 1
write 1 etc/default/grub
write 2 etc/kernel/cmdline
run grub-mkconfig -o /boot/grub/grub.cfg
run grubby --update-kernel=ALL --remove-args=amdgpu.runpm
run update-initramfs -u -k all
run kernel-install add-all
PLAN
run_purge
grep -q '^GRUB_CMDLINE_LINUX_DEFAULT="quiet iommu=soft"$' "$R/etc/default/grub" ||
  { cat "$WORK/out"; fail "good edits: /etc/default/grub not put back"; }
[ "$(cat "$R/etc/kernel/cmdline")" = "quiet iommu=soft" ] || { cat "$WORK/out"; fail "good edits: /etc/kernel/cmdline not put back"; }
[ "$(grep -c "not run in DPKG_ROOT" "$WORK/out")" = 4 ] || { cat "$WORK/out"; fail "good edits: the 4 commands not reported"; }
echo "ok: the reset's own edits and commands are carried out"
echo "PASS: the purge plan reader"
