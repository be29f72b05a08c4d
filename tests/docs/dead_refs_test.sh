#!/bin/sh
# Shipped files and code comments name nothing a reader of the repository cannot open: no
# tracker issue of the team that wrote them ("issue 26 item 8", "(issue #13)"), no DESIGN.md or
# ../shared/ file (both lived outside the repository). Every tracked file is searched except
# this test itself.
#   tests/docs/dead_refs_test.sh SOURCE_DIR
set -u
src=${1:?usage: $0 SOURCE_DIR}
cd "$src" || exit 1
if command -v git >/dev/null 2>&1 && [ -n "$(git ls-files -- README.md 2>/dev/null)" ]; then
  files=$(git ls-files | grep -v '^tests/docs/dead_refs_test.sh$')
else
  files=$(find . -path ./.git -prune -o -path './build*' -prune -o -type f -print | grep -v 'tests/docs/dead_refs_test.sh$')
fi
pattern='[Ii]ssue #[0-9]+|[Ii]ssue [0-9]+ item|\([Ii]ssue [0-9]+\)|DESIGN\.md|\.\./shared/'
# shellcheck disable=SC2086 # one argument per file name; names have no spaces (git ls-files)
found=$(printf '%s\n' $files | tr '\n' '\0' | xargs -0 grep -nIE "$pattern" 2>/dev/null)
if [ -n "$found" ]; then
  echo "references that lead nowhere (name the file, man page or test instead):"
  echo "$found"
  exit 1
fi
echo "no dead references in $(echo "$files" | wc -l) files"
