#!/bin/sh
# rpm.smoke_build: packaging/rpm/smoke-build.sh (what `make rpm` runs) into this build folder, then
# `rpm -qlp` of the package against the paths spec_files_test.py --list derives from this build's
# install tree and the spec. Exit 77 without rpmbuild.
#   smoke_build_test.sh SOURCE_DIR BUILD_DIR PROJECT_VERSION
set -eu
src=$1 build=$2 version=$3
for tool in rpmbuild rpm; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool not found (apt-get install rpm)"; exit 77; }
done
out="$build/tests/rpm/smoke"
# A repeated build reuses ccache's objects across build folders (the paths rpmbuild compiles in
# differ only above the source tree) unless the caller set these.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$out}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
JOBS="${JOBS:-2}" "$src/packaging/rpm/smoke-build.sh" "$out" > "$out.log" 2>&1 || {
  rc=$?; tail -n 40 "$out.log"; echo "FAIL: smoke-build.sh exited $rc (log: $out.log)"; exit 1; }

rpm_file=$(find "$out/RPMS" -name "rocmtune-$version-*.rpm" | head -n 1)
[ -n "$rpm_file" ] || { echo "FAIL: no rocmtune-$version-*.rpm under $out/RPMS"; exit 1; }
[ "$(rpm -qp --qf '%{VERSION}' "$rpm_file")" = "$version" ] || { echo "FAIL: $rpm_file is not version $version"; exit 1; }

# rpm -qlp lists files and owned directories; brp-compress gzips the man pages, and rpm adds the
# binaries' /usr/lib/.build-id links itself (not from %files).
rpm -qlp "$rpm_file" | grep -v '^/usr/lib/\.build-id\(/\|$\)' | sed 's/\.gz$//' | sort > "$out/rpm-qlp.txt"
/usr/bin/python3 "$src/tests/rpm/spec_files_test.py" --list "$src/packaging/rpm/rocmtune.spec" \
  "$src/packaging/rpm/macros.debian-smoke" "$src" "$build" "$version" | sed 's/\.gz$//' | sort > "$out/expected.txt"
if ! diff -u "$out/expected.txt" "$out/rpm-qlp.txt"; then
  echo "FAIL: rpm -qlp $rpm_file differs from the spec's %files over this build's install tree (- expected, + rpm)"
  exit 1
fi
# The scriptlets name the units (macros.debian-smoke turns the systemd macros into `:` commands).
scripts=$(rpm -qp --scripts "$rpm_file")
for want in "systemd_post rocmtuned.service rocmtune-helper.socket" "systemd_postun_with_restart rocmtuned.service" \
            "systemd_preun rocmtuned.service" "udev_rules_update"; do
  case $scripts in *"$want"*) ;; *) echo "FAIL: rpm -qp --scripts lacks '$want':"; echo "$scripts"; exit 1 ;; esac
done
echo "rpm.smoke_build: $rpm_file lists $(wc -l < "$out/rpm-qlp.txt") paths, as the spec says"
