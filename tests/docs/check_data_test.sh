#!/bin/sh
# data/check-data.py (the shipped data files' consistency: gfx targets, GPU table, known issues'
# gfx names, versions and public sources) as a test. Needs Python >= 3.11 (tomllib).
set -u
src=$1
if ! /usr/bin/python3 -c 'import tomllib' 2>/dev/null; then
  echo "SKIP: /usr/bin/python3 with tomllib (Python >= 3.11) not found"
  exit 77
fi
exec /usr/bin/python3 "$src/data/check-data.py"
