#!/bin/bash
# catalog/rocmtune.catalog as journalctl reads it: `journalctl --update-catalog` compiles it into
# a scratch root's database without an error, and `--list-catalog` shows one entry per
# MESSAGE_ID of core/api/events.cc, no more, each with rocmtune's name and a subject
# (ApiEventsTest.TheCatalogExplainsEveryKindTheCodeLogs reads the same ids with its own parser).
# usage: catalog_test.sh SOURCE_DIR
set -u
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
SRC=$1
command -v journalctl >/dev/null || skip "journalctl is not installed (package systemd)"
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rocmtune-catalog-XXXXXX")
trap 'rm -rf "$WORK"' EXIT

mkdir -p "$WORK/usr/lib/systemd/catalog"
cp "$SRC/catalog/rocmtune.catalog" "$WORK/usr/lib/systemd/catalog/"
journalctl --root="$WORK" --update-catalog 2>"$WORK/update.err" || fail "--update-catalog: $(cat "$WORK/update.err")"
# journalctl logs what it cannot parse and goes on: any message is a fault in the file.
[ -s "$WORK/update.err" ] && fail "--update-catalog complained: $(cat "$WORK/update.err")"
[ -s "$WORK/var/lib/systemd/catalog/database" ] || fail "--update-catalog wrote no database"
journalctl --root="$WORK" --list-catalog >"$WORK/list" || fail "--list-catalog failed"
cat "$WORK/list"

code=$(grep -oE '\{EventKind::k[A-Za-z]+, "[a-z-]+", "[0-9a-f]{32}"' "$SRC/core/api/events.cc" | grep -oE '[0-9a-f]{32}' | sort)
[ "$(echo "$code" | grep -c .)" = 13 ] || fail "did not find the 13 MESSAGE_IDs in core/api/events.cc: $code"
listed=$(awk '{print $1}' "$WORK/list" | sort)
[ "$code" = "$listed" ] || fail "the catalog's ids differ from the code's:$(diff <(echo "$code") <(echo "$listed"))"
while read -r id rest; do
  case "$rest" in
    "rocmtune: "?*) ;;
    *) fail "entry $id is not listed as rocmtune's with a subject: $rest" ;;
  esac
done <"$WORK/list"
echo "PASS: $(echo "$listed" | wc -l) entries, the ids of core/api/events.cc"
