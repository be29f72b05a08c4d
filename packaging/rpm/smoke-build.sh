#!/bin/sh
# Smoke build of packaging/rpm/rocmtune.spec with Debian's rpmbuild (`make rpm`, tests/rpm):
#   packaging/rpm/smoke-build.sh OUTDIR
# makes OUTDIR/SOURCES/rocmtune-VERSION.tar.gz from the working tree (tracked and untracked,
# not ignored files: what `git archive` would pack once committed) and runs
# `rpmbuild -bb --nodeps` with packaging/rpm/macros.debian-smoke. The package lands in
# OUTDIR/RPMS/<arch>/. JOBS (default: nproc) sets the build's parallelism.
# Exit 77 when rpmbuild or git is missing (install-deps.sh installs rpm).
set -eu

[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$1"
out=$(cd "$1" && pwd)
for tool in rpmbuild git tar; do
  command -v "$tool" >/dev/null 2>&1 || { echo "smoke-build: $tool not found (apt-get install rpm)" >&2; exit 77; }
done

version=$(sed -n 's/^project(rocmtune VERSION \([0-9][0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
[ -n "$version" ] || { echo "smoke-build: no project(rocmtune VERSION ...) in $src/CMakeLists.txt" >&2; exit 1; }
spec_version=$(sed -n 's/^Version:[[:space:]]*//p' "$src/packaging/rpm/rocmtune.spec")
if [ "$spec_version" != "$version" ]; then
  echo "smoke-build: rocmtune.spec says Version $spec_version, CMakeLists.txt $version" >&2
  exit 1
fi

rm -rf "$out/BUILD" "$out/BUILDROOT" "$out/RPMS" "$out/SOURCES" "$out/SPECS"
mkdir -p "$out/SOURCES" "$out/SPECS"
cp "$src/packaging/rpm/rocmtune.spec" "$out/SPECS/"
# Source1: the sysusers.d file, beside the tarball as a Fedora dist-git keeps it.
cp "$src/systemd/sysusers.d/rocmtune.conf" "$out/SOURCES/rocmtune.sysusers"

# The files git knows of and does not ignore; a tracked file deleted in the working tree is left out.
tarball="$out/SOURCES/rocmtune-$version.tar.gz"
(cd "$src" && git ls-files -z --cached --others --exclude-standard |
   xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' list |
   tar --null -T - --transform "s,^,rocmtune-$version/," -czf "$tarball")

echo "smoke-build: rpmbuild -bb $out/SPECS/rocmtune.spec"
rpmbuild -bb --nodeps \
  --load "$src/packaging/rpm/macros.debian-smoke" \
  --define "_topdir $out" \
  --define "_smp_mflags -j${JOBS:-$(nproc)}" \
  "$out/SPECS/rocmtune.spec"

rpm_file=$(find "$out/RPMS" -name "rocmtune-$version-*.rpm" | head -n 1)
[ -n "$rpm_file" ] || { echo "smoke-build: rpmbuild left no rocmtune-$version-*.rpm under $out/RPMS" >&2; exit 1; }
echo "smoke-build: $rpm_file"
