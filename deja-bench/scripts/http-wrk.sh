#!/usr/bin/env bash
# wrk against deja's GET /checkthenadd with 300-byte keys over keep-alive connections.
# Usage: deja-bench/scripts/http-wrk.sh [seconds] [connections] [threads] [pipeline depth, default 1] [warm-up seconds, default 20]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECONDS_="${1:-30}"; CONNS="${2:-64}"; THREADS="${3:-2}"; DEPTH="${4:-1}"; WARMUP_SECONDS="${5:-20}"
command -v wrk >/dev/null || { echo "wrk not found: apt-get install -y wrk" >&2; exit 1; }
. "$ROOT/deja-bench/scripts/servers.sh"
WORK="$(mktemp -d)"; PORT="$(free_port)"; LUA="$(dirname "${BASH_SOURCE[0]}")/checkthenadd.lua"
cleanup() { kill "$DEJA_PID" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
"$ROOT/deja" serve --data-dir "$WORK/deja" --http-port "$PORT" --resp-port 0 >"$WORK/deja.log" 2>&1 &
DEJA_PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { cat "$WORK/deja.log" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); wrk -t$THREADS -c$CONNS -d${SECONDS_}s, pipeline depth $DEPTH, after ${WARMUP_SECONDS}s of warm-up"
# Warm-up, not reported: JIT compilation, the first allocation of the default namespace's bit array, and the heap
# growing to its working size (the kernel zeroes each page the process touches for the first time), all of which a
# fresh process pays in its first seconds and a serving one never again.
wrk -t"$THREADS" -c"$CONNS" -d"${WARMUP_SECONDS}s" -s "$LUA" "http://127.0.0.1:$PORT" -- "$DEPTH" >/dev/null
wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_}s" -s "$LUA" "http://127.0.0.1:$PORT" -- "$DEPTH"
