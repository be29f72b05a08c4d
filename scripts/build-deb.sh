#!/bin/bash
# `make package`: the Debian package from debian/ with dpkg-buildpackage, checked by lintian.
#
#   scripts/build-deb.sh [BUILD_DIR]      (default: build)
#
# Builds in a copy of the source tree (BUILD_DIR/package/src: dpkg-buildpackage writes beside the
# source directory and fills debian/ with build files) and leaves BUILD_DIR/package/rocmtune_*.deb,
# the .changes file and lintian.log. Fails when the build fails or lintian reports an error or a
# warning (every override in debian/rocmtune.lintian-overrides carries its reason). A package
# built from the same sources (names, sizes, times) is reused (BUILD_DIR/package/source.sha256);
# FORCE=1 rebuilds.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(mkdir -p "${1:-$src/build}" && cd "${1:-$src/build}" && pwd)
out=$build/package

for tool in dpkg-buildpackage dh lintian; do
  command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing (scripts/install-deps.sh installs it)" >&2; exit 1; }
done

# The package's sources: what git tracks plus new files not ignored (a clone, or a tree being
# edited); without git, everything but build directories.
cd "$src"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  list() { git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done; }
else
  list() { find . -path './build*' -prune -o -path ./.git -prune -o -type f -print0 | sed -z 's#^\./##'; }
fi
# Name, type, size and modification time of every source file, as make decides what is stale.
sum=$(list | sort -z | xargs -0 stat -c '%n %F %s %Y' | sha256sum | cut -d' ' -f1)
version=$(dpkg-parsechangelog -l debian/changelog -S Version)
arch=$(dpkg --print-architecture)
deb=$out/rocmtune_${version}_${arch}.deb
if [ "${FORCE:-0}" != 1 ] && [ -f "$deb" ] && [ "$(cat "$out/source.sha256" 2>/dev/null)" = "$sum" ]; then
  echo "build-deb: $deb is up to date (same sources); FORCE=1 rebuilds"
  cat "$out/lintian.log"
  exit 0
fi

rm -rf "$out"
mkdir -p "$out/src"
list | tar -C "$src" --null -T - -cf - | tar -C "$out/src" -xf -
cd "$out/src"
# ccache, where installed, makes the second build of the same sources quick: CMakeLists.txt sets
# it up (ROCMTUNE_CCACHE) so that a copy of the tree anywhere hits the same cache entries.
jobs=$(nproc)
export DEB_BUILD_OPTIONS="nocheck parallel=$jobs ${DEB_BUILD_OPTIONS:-}"
start=$SECONDS
echo "build-deb: dpkg-buildpackage -b -uc -us in $out/src"
if ! dpkg-buildpackage -b -uc -us >"$out/build.log" 2>&1; then
  tail -40 "$out/build.log"
  echo "build-deb: dpkg-buildpackage failed (whole log: $out/build.log)" >&2
  exit 1
fi
echo "build-deb: built $(find "$out" -maxdepth 1 -name '*.*deb' -printf '%f ')in $((SECONDS - start)) s"

changes=$out/rocmtune_${version}_${arch}.changes
echo "build-deb: lintian $changes"
# Info tags shown; a second run lists the overrides with their reasons (--show-overrides makes
# lintian 2.116 exit 2 whatever it finds, so it cannot be the run that decides).
rc=0
lintian --fail-on error,warning --display-info "$changes" >"$out/lintian.log" 2>&1 || rc=$?
lintian --show-overrides "$changes" 2>/dev/null | grep '^O:' >>"$out/lintian.log" || true
cat "$out/lintian.log"
if [ "$rc" != 0 ]; then
  echo "build-deb: lintian found errors or warnings (exit $rc)" >&2
  exit 1
fi
echo "build-deb: lintian: no error, no warning"
echo "$sum" >"$out/source.sha256"
