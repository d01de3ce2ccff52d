#!/usr/bin/env bash
# node-redis (the npm package `redis`, version pinned in clients/node-redis/package.json) against a fresh deja
# server: BF.RESERVE/ADD/MADD/EXISTS/MEXISTS/CARD/INFO/INSERT, SCANDUMP and LOADCHUNK, SET NX EX, DJ.* and a
# pipeline, under RESP2 and RESP3 (clients/node-redis/check.mjs asserts every reply). Needs node and npm.
# Usage: deja-bench/scripts/clients/node-redis.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/node-redis" && pwd)"
for tool in node npm redis-cli; do
  command -v "$tool" >/dev/null || { echo "$tool not found (Debian: apt-get install -y nodejs npm redis-tools)" >&2; exit 1; }
done
. "$ROOT/deja-bench/scripts/servers.sh"
WORK="$(mktemp -d)"; PORT="$(free_port)"
cleanup() { kill "$DEJA_PID" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
cp "$HERE/package.json" "$HERE/package-lock.json" "$HERE/check.mjs" "$WORK/"
(cd "$WORK" && npm ci --silent --no-audit --no-fund)
"$ROOT/deja" serve --data-dir "$WORK/deja" --http-port 0 --resp-port "$PORT" >"$WORK/deja.log" 2>&1 &
DEJA_PID=$!
for _ in $(seq 1 600); do redis-cli -p "$PORT" PING >/dev/null 2>&1 && break; sleep 0.1; done
redis-cli -p "$PORT" PING >/dev/null 2>&1 || { cat "$WORK/deja.log" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) node $(node -v), redis (node-redis) $(cd "$WORK" && node -p 'require("redis/package.json").version')"
(cd "$WORK" && node check.mjs "$PORT")
