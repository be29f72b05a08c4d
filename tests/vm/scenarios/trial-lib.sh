# shellcheck shell=bash disable=SC2034 # NEEDS_TRIAL, TOKEN are read by run-scenario.sh
# Plan pieces and checks shared by the product scenarios (scenarios/{grub,sdboot}-trial-*.sh): rocmtune's
# own trial, `rocmtunectl set amdgpu.noretry=1 --trial`, on the guest's live system.
#
# The guest has no AMD GPU. What rocmtune sees there (rocmtunectl on a root without one):
#   - `set amdgpu.noretry=1` plans /etc/modprobe.d/rocmtune.conf and an initramfs update, and warns
#     that it cannot check the option while amdgpu is not loaded; so the plan loads amdgpu in every
#     boot (/etc/modules-load.d): the module loads without the hardware, and
#     /sys/module/amdgpu/parameters/noretry shows the value in effect (-1, the driver's "auto",
#     unless something set it);
#   - check-compute says safe=false, "no AMD GPU driven by amdgpu was found", before and in the
#     trial: not worse; no GPU was bound before, none is missing after; KFD lists none.
# So a trial's check passes here unless the admin command of /etc/rocmtune/trial.toml fails
# (scenario grub-trial-checkfail writes one that fails on purpose).
NEEDS_TRIAL=1
TOKEN='rocmtune\.trial=[^ ]+'

# trial_plan LAST [SETUP]: the plan of a trial scenario. Boot 1: update-grub on GRUB (a Debian
# system's generated grub.cfg, with the package's /etc/grub.d script), amdgpu loaded from now on,
# SETUP (guest shell code), then the trial, then a reboot. Every boot reports amdgpu's noretry and
# rocmtune's modprobe.d file; boots before LAST reboot, LAST powers off.
trial_plan() {
  cat <<PLAN
say "amdgpu noretry=\$(cat /sys/module/amdgpu/parameters/noretry 2>&1)"
lines modprobe.d cat /etc/modprobe.d/rocmtune.conf
if [ \$BOOT = 1 ]; then
  [ -d /sys/firmware/efi ] || lines update-grub update-grub
  echo amdgpu >/etc/modules-load.d/vmtest-amdgpu.conf
  lines modprobe modprobe amdgpu
  say "amdgpu noretry=\$(cat /sys/module/amdgpu/parameters/noretry 2>&1)"
  ${2:-:}
  lines trial-set rocmtunectl set amdgpu.noretry=1 --trial
  loader_state
  json rocmtune-trial rocmtunectl trial --json
  reboot_now
fi
[ \$BOOT -lt $1 ] && reboot_now
PLAN
}

# checkfail_plan: trial_plan 3 with an admin check (/etc/rocmtune/trial.toml: "an optional admin
# command passes", an argv and a time limit) that fails on purpose, so the trial boot's check fails.
checkfail_plan() {
  local toml='check = ["/bin/sh", "-c", "echo vmtest: this check fails on purpose; exit 1"]
timeout = 60'
  trial_plan 3 "mkdir -p /etc/rocmtune; printf '%s\n' '$toml' >/etc/rocmtune/trial.toml"
}

# noretry_is N VALUE: boot N reported amdgpu's noretry = VALUE (the module loaded from modules-load.d)
noretry_is() { probe_has "$1" "amdgpu noretry=$2\$"; }
state_is() {  # state_is N REGEX: boot N's trial state (rocmtunectl trial --json) matches REGEX
  local s
  s=$(trial_state "$1")
  echo "  boot $1: trial state $s"
  [[ $s =~ ^($2)$ ]]
}
has_trial_tokens() {  # has_trial_tokens N: boot N's command line has the change and panic=N (any N)
  local c
  c=$(cmdline_of "$1")
  [[ " $c " == *" amdgpu.noretry=1 "* ]] && [[ " $c " =~ \ panic=[1-9][0-9]*\  ]]
}
# trial_field N FIELD: a top-level field of boot N's trial document (lists joined by spaces)
trial_field() {
  trial_json "$1" | /usr/bin/python3 -c '
import json, sys
try: v = json.load(sys.stdin).get(sys.argv[1], "")
except Exception: v = ""
print(" ".join(v) if isinstance(v, list) else v)' "$2"
}
tokens_on_cmdline() {  # tokens_on_cmdline N M: every token of boot N's trial is on boot M's command line
  local t tokens c
  tokens=$(trial_field "$1" tokens)
  c=" $(cmdline_of "$2") "
  echo "  trial tokens: $tokens"
  [ -n "$tokens" ] || return 1
  for t in $tokens; do [[ $c == *" $t "* ]] || return 1; done
}
# committed_in_history N: boot N's trial names the transaction that committed it, and boot N's
# history lists that transaction
committed_in_history() {
  local txn
  txn=$(trial_field "$1" transaction)
  echo "  committed as transaction '$txn'"
  [ -n "$txn" ] && say_line "$1" 'rocmtune-history rc=0 ' | grep -q -F "\"$txn\""
}
# no_change_kept N: boot N's modprobe.d has no noretry (each trial step is a transaction of its
# own, so the history grows either way; what must not be there is the change)
no_change_kept() { ! probe_has "$1" 'modprobe.d: options amdgpu .*noretry='; }
