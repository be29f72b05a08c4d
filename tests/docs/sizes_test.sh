#!/bin/sh
# The documents a reader starts from stay short: README.md at most 12,000 bytes, BENCHMARKS.md at
# most 15,000 (current figures and how to reproduce them; git keeps the history). BENCHMARKS.md
# has no "stop N" narrative: the stops of the work mean nothing to a reader.
set -eu
src=$1
status=0
check() {
  size=$(wc -c <"$src/$1")
  if [ "$size" -gt "$2" ]; then
    echo "FAIL $1 is $size bytes, more than $2"
    status=1
  else
    echo "ok   $1 is $size bytes (at most $2)"
  fi
}
check README.md 12000
check BENCHMARKS.md 15000
if grep -n -i -E '\bstop [0-9]+|\(stop [0-9]' "$src/BENCHMARKS.md"; then
  echo "FAIL BENCHMARKS.md narrates the work's stops (above)"
  status=1
fi
exit $status
