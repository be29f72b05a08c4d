#!/bin/sh
# Runs shellcheck over every shell script of the repository: *.sh, and every other tracked file whose
# first line is a sh/bash shebang (.ci/run, debian's maintainer scripts, hooks, the worlds' stub
# tools). Files sourced by others and without a shebang say their shell with a
# `# shellcheck shell=bash` directive.
#   scripts/shellcheck.sh          check them all; exit 1 on any finding
#   scripts/shellcheck.sh --list   print the files it checks
#   scripts/shellcheck.sh FILE...  only these files
# Severity: warning (shellcheck's warnings and errors; its info and style notes are not
# failures). A `# shellcheck disable=SCnnnn` needs a comment that says why.
set -eu
cd "$(dirname "$0")/.."

SHELLCHECK=${SHELLCHECK:-shellcheck}

list_files() {
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files
  else  # an unpacked tarball: the files on disk
    find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | sed 's|^\./||'
  fi | while IFS= read -r f; do
    [ -f "$f" ] || continue
    case "$f" in
      *.sh) echo "$f" ;;
      *.py | *.cc | *.h | *.md | *.txt | *.json | *.toml) ;;
      *) head -n 1 "$f" 2>/dev/null | grep -qE '^#! */(usr/)?bin/(env +)?(ba|da)?sh( |$)' && echo "$f" || true ;;
    esac
  done
}

if [ "${1:-}" = --list ]; then list_files; exit 0; fi
if ! command -v "$SHELLCHECK" >/dev/null 2>&1; then
  echo "shellcheck.sh: $SHELLCHECK not found (Debian: apt-get install shellcheck, or scripts/install-deps.sh --lint)" >&2
  exit 2
fi
if [ $# -gt 0 ]; then
  files=$(printf '%s\n' "$@")
else
  files=$(list_files)
fi
# -x follows `. FILE` where a `# shellcheck source=` directive names it; -P SCRIPTDIR finds the
# others next to the script. Names are one a line (no tracked script has a newline in its name).
echo "$files" | tr '\n' '\0' | xargs -0 "$SHELLCHECK" -S warning -x -P SCRIPTDIR -f gcc
