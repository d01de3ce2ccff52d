#!/usr/bin/env bash
# How long DJ.CLEAR of the default namespace (a 1 GiB bloom filter) takes once it holds 2 million keys, then twice
# more after 500,000 new keys each time. Usage: deja-bench/scripts/clear-time.sh [launcher, default ./deja]
# (pass another build's launcher to compare builds on the same machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LAUNCHER="${1:-$ROOT/deja}"
. "$ROOT/deja-bench/scripts/servers.sh"
start_deja "$LAUNCHER" --snapshot-interval 0
PORT="$DEJA_PORT"
add() { seq "$1" "$2" | sed 's/^/BF.ADD default k/' | redis-cli -p "$PORT" --pipe >/dev/null; }
add 1 2000000
for round in 1 2 3; do
  start=$(date +%s%N); redis-cli -p "$PORT" DJ.CLEAR default >/dev/null; end=$(date +%s%N)
  echo "clear $round: $(( (end - start) / 1000000 )) ms"
  add 1 500000
done
