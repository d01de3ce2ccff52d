#!/usr/bin/env bash
# How long DJ.CLEAR of the default namespace (a 1 GiB bloom filter) takes once it holds 2 million keys, then twice
# more after 500,000 new keys each time. Usage: deja-bench/scripts/clear-time.sh [launcher, default ./deja]
# (pass another build's launcher to compare builds on the same machine).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LAUNCHER="${1:-$ROOT/deja}"
. "$ROOT/deja-bench/scripts/servers.sh"
WORK="$(mktemp -d)"; PORT="$(free_port)"
cleanup() { kill "$DEJA_PID" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$LAUNCHER" serve --data-dir "$WORK/deja" --http-port 0 --resp-port "$PORT" --snapshot-interval 0 \
  >"$WORK/deja.log" 2>&1 &
DEJA_PID=$!
for _ in $(seq 1 600); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done
add() { seq "$1" "$2" | sed 's/^/BF.ADD default k/' | redis-cli -p "$PORT" --pipe >/dev/null; }
add 1 2000000
for round in 1 2 3; do
  start=$(date +%s%N); redis-cli -p "$PORT" DJ.CLEAR default >/dev/null; end=$(date +%s%N)
  echo "clear $round: $(( (end - start) / 1000000 )) ms"
  add 1 500000
done
