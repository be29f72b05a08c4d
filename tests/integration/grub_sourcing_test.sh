#!/usr/bin/env sh
# usage: grub_sourcing_test.sh GRUB_EVAL WORLDS_DIR
#
# rocmtune computes GRUB_CMDLINE_LINUX / GRUB_CMDLINE_LINUX_DEFAULT without running a shell
# (core/boot/grub_config.cc). This test computes them the way grub-mkconfig does -- /bin/sh
# sourcing /etc/default/grub and then /etc/default/grub.d/*.cfg with the loop copied from the
# installed /usr/sbin/grub-mkconfig (grub-common), or from shared/recipes/grub-effective.sh when
# grub-common is not installed -- in a clean environment (env -i), and compares, for every world
# that has etc/default/grub and for fixtures written here (quoting, $VAR appends, line
# continuations, Ubuntu cloud drop-ins, rocmtune's own drop-in, glob order).
#
# When grub_eval says "unknown" (exit 3) the case passes only if the fixture is marked unknown
# (for worlds: always allowed, but never a silent disagreement); a known value must equal sh's.
#
# grub-mkconfig runs the loop under `set -e`; here it does not: command substitutions in the
# files (lsb_release, sed /etc/system-release) run against THIS host, may fail here, and never
# change GRUB_CMDLINE_*.
#
# Exit: 0 all agree, 1 a disagreement or error, 77 skipped (/bin/sh missing).
set -u

tool=${1:?usage: grub_sourcing_test.sh GRUB_EVAL WORLDS_DIR}
worlds=${2:?usage: grub_sourcing_test.sh GRUB_EVAL WORLDS_DIR}

if [ ! -x /bin/sh ]; then
  echo "SKIP: /bin/sh (the interpreter of grub-mkconfig) is missing"
  exit 77
fi

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# --- the sourcing loop ---------------------------------------------------------------------------
recipe_loop='if test -f ${sysconfdir}/default/grub ; then
  . ${sysconfdir}/default/grub
fi
for x in ${sysconfdir}/default/grub.d/*.cfg ; do
  if [ -e "${x}" ]; then
    . "${x}"
  fi
done'
loop=
for mk in /usr/sbin/grub-mkconfig /sbin/grub-mkconfig; do
  [ -r "$mk" ] || continue
  loop=$(sed -n '/^if test -f \${sysconfdir}\/default\/grub ; then$/,/^done$/p' "$mk")
  case $loop in
    *'for x in ${sysconfdir}/default/grub.d/*.cfg'*'. "${x}"'*) echo "sourcing loop: $mk"; break ;;
    *) loop= ;;
  esac
done
if [ -z "$loop" ]; then
  echo "sourcing loop: shared/recipes/grub-effective.sh (grub-mkconfig with the grub.d loop not installed)"
  loop=$recipe_loop
fi
printf '%s\n' 'sysconfdir="$1/etc"' "$loop" 'eval "value=\${$2-}"' "printf '%s' \"\$value\"" >"$tmp/source.sh"

# The value /bin/sh gives VAR after sourcing ROOT's files (trailing newlines kept).
sh_value() {
  v=$(cd / && env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin /bin/sh "$tmp/source.sh" "$1" "$2" 2>/dev/null; echo x)
  printf '%s' "${v%x}"
}

fails=0
unknowns=0
passes=0

show() { printf '%s' "$1" | od -An -c | tr -s ' ' | tr -d '\n' | sed 's/^ //'; }

# check NAME ROOT EXPECT [SH_ROOT]: EXPECT is "known" (rocmtune must compute sh's value),
# "unknown" (rocmtune must say unknown) or "any" (worlds: unknown is allowed, a different value is
# not). SH_ROOT (default ROOT) is where sh sources from: only the negative control differs.
check() {
  name=$1 root=$2 expect=$3 shroot=${4:-$2}
  case $root$shroot in
    *[!A-Za-z0-9/._+-]*) # the loop does not quote ${sysconfdir}: copy to a plain path first
      mkdir -p "$tmp/plain/$name/etc" && cp -a "$root/etc/default" "$tmp/plain/$name/etc/" && root=$tmp/plain/$name
      shroot=$root ;;
  esac
  for var in GRUB_CMDLINE_LINUX GRUB_CMDLINE_LINUX_DEFAULT; do
    case $var in GRUB_CMDLINE_LINUX) what=linux ;; *) what=linux_default ;; esac
    want=$(sh_value "$shroot" "$var"; echo x)
    want=${want%x}
    got=$("$tool" "$what" "$root" 2>"$tmp/err"; echo "x$?")
    rc=${got##*x}
    got=${got%x*}
    if [ "$rc" = 3 ]; then
      if [ "$expect" = known ]; then
        echo "FAIL $name $var: rocmtune says unknown, sh gives '$want'"; sed 's/^/     /' "$tmp/err"; fails=$((fails + 1))
      elif [ ! -s "$tmp/err" ]; then
        echo "FAIL $name $var: unknown without a reason"; fails=$((fails + 1))
      else
        why=$(grep -m1 -F -- " $var (" "$tmp/err" || sed -n 2p "$tmp/err")
        echo "UNKNOWN $name $var (sh gives '$want'; rocmtune: $(printf '%s' "$why" | sed 's/^ *//'))"
        unknowns=$((unknowns + 1))
      fi
    elif [ "$rc" != 0 ]; then
      echo "FAIL $name $var: grub_eval exit $rc"; sed 's/^/     /' "$tmp/err"; fails=$((fails + 1))
    elif [ "$expect" = unknown ]; then
      echo "FAIL $name $var: expected rocmtune to say unknown, got '$got' (sh: '$want')"; fails=$((fails + 1))
    elif [ "$got" = "$want" ]; then
      echo "PASS $name $var '$got'"; passes=$((passes + 1))
    else
      echo "FAIL $name $var: sh '$want' [$(show "$want")] != rocmtune '$got' [$(show "$got")]"; fails=$((fails + 1))
    fi
  done
}

# --- fixtures -------------------------------------------------------------------------------------
fx() { mkdir -p "$tmp/fx/$1/etc/default/grub.d"; printf '%s' "$tmp/fx/$1"; }
put() { mkdir -p "$(dirname "$1")"; cat >"$1"; }

# Quoting.
r=$(fx quoting)
put "$r/etc/default/grub" <<'EOF'
GRUB_CMDLINE_LINUX='a "b" $c \d'
GRUB_CMDLINE_LINUX_DEFAULT="x 'y' \$z \" \\ \q"
GRUB_CMDLINE_LINUX_DEFAULT=a\ b"c d"'e f'$GRUB_CMDLINE_LINUX_DEFAULT
EOF
check quoting "$r" known

# Appends across files, ${NAME}, several assignments per command, ';', export, comments, tabs.
r=$(fx appends)
put "$r/etc/default/grub" <<'EOF'
# don't: an apostrophe in a comment
GRUB_DEFAULT=0
GRUB_TIMEOUT=5;	GRUB_CMDLINE_LINUX_DEFAULT="quiet"   # comment after a value
GRUB_DISTRIBUTOR=`lsb_release -i -s 2> /dev/null || echo Debian`
GRUB_CMDLINE_LINUX=""
EOF
put "$r/etc/default/grub.d/10-a.cfg" <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT iommu=pt"
A=amdgpu.noretry=0 B="${A} ${GRUB_UNSET_ANYWHERE}x"
export GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX}$B" GRUB_TIMEOUT
EOF
put "$r/etc/default/grub.d/20-b.cfg" <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT=quiet#not-a-comment\ $GRUB_CMDLINE_LINUX_DEFAULT
GRUB_CMDLINE_LINUX=if
GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX *"
EOF
check appends "$r" known

# Line continuations and a value spanning lines; CRLF line ends.
r=$(fx continuation)
printf '%s\n' 'GRUB_CMDLINE_LINUX_DEFAULT="quiet \' 'splash"' 'GRUB_CMDLINE_LINUX=a\' 'b \' \
  '  # a comment after a continuation' 'GRUB_TIMEOUT=5' >"$r/etc/default/grub"
printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX\n2nd-line"\r\nGRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT crlf"\r\n' \
  >"$r/etc/default/grub.d/crlf.cfg"
check continuation "$r" known

# Ubuntu cloud image (livecd-rootfs 999-cpc-fixes.chroot and live-build/functions
# force_boot_without_initramfs) plus rocmtune's drop-in: the token must survive.
cloud() {
  put "$1/etc/default/grub" <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT_STYLE=hidden
GRUB_TIMEOUT=0
GRUB_DISTRIBUTOR=`( . /etc/os-release; echo ${NAME:-Ubuntu} ) 2>/dev/null || echo Ubuntu`
GRUB_CMDLINE_LINUX_DEFAULT="quiet splash"
GRUB_CMDLINE_LINUX=""
EOF
  put "$1/etc/default/grub.d/40-force-partuuid.cfg" <<'EOF'
# Force boot without an initramfs by setting GRUB_FORCE_PARTUUID
# Remove this line to enable boot with an initramfs
GRUB_FORCE_PARTUUID=5c1cf6a1-8f1c-4d5e-9a0b-1f2e3d4c5b6a
EOF
  put "$1/etc/default/grub.d/50-cloudimg-settings.cfg" <<'EOF'
# Cloud Image specific Grub settings for Generic Cloud Images
# CLOUD_IMG: This file was created/modified by the Cloud Image build process

# Set the recordfail timeout
GRUB_RECORDFAIL_TIMEOUT=0

# Do not wait on grub prompt
GRUB_TIMEOUT=0

# Set the default commandline
GRUB_CMDLINE_LINUX_DEFAULT="console=tty1 console=ttyS0"

# Set the grub console type
GRUB_TERMINAL=console
EOF
  "$tool" dropin GRUB_CMDLINE_LINUX_DEFAULT iommu=pt amdgpu.noretry=0 >"$1/etc/default/grub.d/zz-rocmtune.cfg" || exit 1
}
r=$(fx cloud-dropin); cloud "$r"
check cloud-dropin "$r" known
case $(sh_value "$r" GRUB_CMDLINE_LINUX_DEFAULT) in
  'console=tty1 console=ttyS0 iommu=pt amdgpu.noretry=0') echo "PASS cloud-dropin: sh keeps rocmtune's tokens" ;;
  *) echo "FAIL cloud-dropin: sh lost rocmtune's tokens"; fails=$((fails + 1)) ;;
esac
# A drop-in sorting after ours that assigns the variable clobbers it: both must show that.
r=$(fx cloud-clobbered); cloud "$r"
echo 'GRUB_CMDLINE_LINUX_DEFAULT="quiet"' >"$r/etc/default/grub.d/zzz.cfg"
check cloud-clobbered "$r" known
# Our drop-in alone (the variable was never set): a leading space both agree on.
r=$(fx dropin-alone)
"$tool" dropin GRUB_CMDLINE_LINUX iommu=pt >"$r/etc/default/grub.d/zz-rocmtune.cfg" || exit 1
check dropin-alone "$r" known

# Glob: byte order, hidden files, other suffixes, dangling and relative symlinks.
r=$(fx glob)
echo 'GRUB_CMDLINE_LINUX=start' >"$r/etc/default/grub"
for n in a.cfg Z.cfg 9-x.cfg 10-x.cfg b.cfg.bak .hidden.cfg '~x.cfg' _u.cfg; do
  printf 'GRUB_CMDLINE_LINUX="$GRUB_CMDLINE_LINUX %s"\n' "$n" >"$r/etc/default/grub.d/$n"
done
ln -s nowhere.cfg "$r/etc/default/grub.d/dangling.cfg"
ln -s a.cfg "$r/etc/default/grub.d/link.cfg"
check glob "$r" known

# Constructs rocmtune does not model: it must say unknown (sh's value is shown, not compared).
r=$(fx unsupported)
put "$r/etc/default/grub" <<'EOF'
GRUB_CMDLINE_LINUX_DEFAULT="quiet"
if [ -d /nonexistent ]; then
  GRUB_CMDLINE_LINUX_DEFAULT="$GRUB_CMDLINE_LINUX_DEFAULT x"
fi
GRUB_CMDLINE_LINUX="${GRUB_CMDLINE_LINUX:-fallback}"
EOF
check unsupported "$r" unknown
r=$(fx opaque)
put "$r/etc/default/grub" <<'EOF'
GRUB_CMDLINE_LINUX="$(echo from-a-command)"
GRUB_CMDLINE_LINUX_DEFAULT="root=$GRUB_DEVICE"
EOF
check opaque "$r" unknown

# --- the worlds -----------------------------------------------------------------------------------
nworlds=0
for w in "$worlds"/*/; do
  w=${w%/}
  [ -f "$w/etc/default/grub" ] || continue
  nworlds=$((nworlds + 1))
  check "world/${w##*/}" "$w" any
done
[ "$nworlds" -gt 0 ] || { echo "FAIL: no world with etc/default/grub under $worlds"; fails=$((fails + 1)); }

# --- negative control: the comparison must notice a difference -----------------------------------
# rocmtune reads cloud-clobbered while sh reads cloud-dropin: GRUB_CMDLINE_LINUX_DEFAULT differs.
out=$(check control "$tmp/fx/cloud-clobbered" known "$tmp/fx/cloud-dropin")
printf '%s\n' "$out" | sed 's/^/     /'
case $out in
  *"FAIL control GRUB_CMDLINE_LINUX_DEFAULT"*) echo "PASS control: the disagreement above is detected" ;;
  *) echo "FAIL control: a known disagreement was not reported"; fails=$((fails + 1)) ;;
esac

echo "grub_sourcing: $passes agree, $unknowns unknown, $fails failed ($nworlds worlds)"
[ "$fails" -eq 0 ]
