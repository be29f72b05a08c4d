#!/bin/sh
# Formats rocmtune's C++ with clang-format 14 and the repository's .clang-format.
#   scripts/format.sh                 reformat every tracked .cc/.h in place
#   scripts/format.sh --check         change nothing; list each file that is not formatted, exit 1 if any
#   scripts/format.sh [--check] FILE  only these files
# Tracked files are `git ls-files '*.cc' '*.h'` minus data: the fuzz corpora, world captures and data/.
# The version is pinned because clang-format's output changes between releases; CLANG_FORMAT overrides.
set -eu
cd "$(dirname "$0")/.."

check=0
if [ "${1:-}" = --check ]; then check=1; shift; fi

CLANG_FORMAT=${CLANG_FORMAT:-clang-format-14}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "format.sh: $CLANG_FORMAT not found (Debian: apt-get install clang-format-14, or scripts/install-deps.sh)" >&2
  exit 2
fi

list_files() {
  if [ $# -gt 0 ]; then
    printf '%s\n' "$@"
  elif git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -- '*.cc' '*.h' ':(exclude)tests/fuzz/corpus/*' ':(exclude)tests/worlds/*' ':(exclude)data/*'
  else  # an unpacked tarball: the same folders, found on disk
    find core helper client daemon tests -path tests/fuzz/corpus -prune -o -path tests/worlds -prune -o \
      \( -name '*.cc' -o -name '*.h' \) -type f -print 2>/dev/null | sort
  fi
}

if [ $check = 0 ]; then
  list_files "$@" | xargs -r "$CLANG_FORMAT" -i --style=file
  exit 0
fi

bad=$(mktemp)
trap 'rm -f "$bad"' EXIT
list_files "$@" | while IFS= read -r f; do
  # --dry-run -Werror: one diagnostic per place that would change, non-zero exit if any.
  if ! out=$("$CLANG_FORMAT" --dry-run -Werror --ferror-limit=1 --style=file "$f" 2>&1); then
    out=$(echo "$out" | head -1)  # "FILE:LINE:COL: error: code should be clang-formatted", or why it failed
    case $out in "$f":*) echo "$out" ;; *) echo "$f: $out" ;; esac >>"$bad"
  fi
done
if [ -s "$bad" ]; then
  n=$(wc -l <"$bad")
  echo "format.sh: $n file(s) not formatted with $CLANG_FORMAT (fix: scripts/format.sh, or make format):" >&2
  sed 's/^/  /' "$bad" >&2
  echo "(first place per file; all of them: $CLANG_FORMAT --dry-run FILE)" >&2
  exit 1
fi
echo "format.sh: all files formatted"
