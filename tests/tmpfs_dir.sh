#!/bin/bash
# Prints a new directory for a test run's temporary trees on /dev/shm, mode 1777 like /tmp (the
# unprivileged test user creates its own trees there too):
#   tests/tmpfs_dir.sh NAME
# Fails, with the reason on stderr, when /dev/shm is not a tmpfs, not writable, or mounted noexec
# (tests run scripts from their trees).
set -u
name=${1:?usage: tmpfs_dir.sh NAME}
base=/dev/shm
fstype=$(stat -f -c %T "$base" 2>/dev/null) || { echo "tmpfs_dir.sh: no $base" >&2; exit 1; }
[ "$fstype" = tmpfs ] || { echo "tmpfs_dir.sh: $base is $fstype, not tmpfs" >&2; exit 1; }
dir=$(mktemp -d "$base/rocmtune-$name.XXXXXX" 2>/dev/null) || { echo "tmpfs_dir.sh: $base is not writable" >&2; exit 1; }
printf '#!/bin/sh\nexit 0\n' >"$dir/exec-probe" && chmod 0755 "$dir/exec-probe"
if ! "$dir/exec-probe" 2>/dev/null; then
  rm -rf "$dir"
  echo "tmpfs_dir.sh: $base is mounted noexec" >&2
  exit 1
fi
rm -f "$dir/exec-probe"
chmod 1777 "$dir"
echo "$dir"
