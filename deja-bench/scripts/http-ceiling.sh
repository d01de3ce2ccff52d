#!/usr/bin/env bash
# What this machine allows over HTTP: the wrk command of http-wrk.sh against deja's GET /checkthenadd and, alternating
# with it, against nginx answering every request with a constant "MISSING\n" (no work at all, a C server tuned for
# exactly this), each round on the same two processes. On a machine where the constant answer stays under a goal, no
# server can be shown to reach it there. Needs wrk and nginx (Debian: apt-get install -y wrk nginx-light).
# Usage: deja-bench/scripts/http-ceiling.sh [seconds] [connections] [threads] [rounds] [nginx workers, default: cores]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SECONDS_="${1:-10}"; CONNS="${2:-64}"; THREADS="${3:-2}"; ROUNDS="${4:-3}"; WORKERS="${5:-$(nproc)}"
for tool in wrk nginx; do
  command -v "$tool" >/dev/null || { echo "$tool not found: apt-get install -y wrk nginx-light" >&2; exit 1; }
done
. "$ROOT/deja-bench/scripts/servers.sh"
WORK="$(mktemp -d)"; PORT="$(free_port)"; NGINX_PORT="$(free_port)"; LUA="$(dirname "${BASH_SOURCE[0]}")/checkthenadd.lua"
cleanup() {
  kill "$DEJA_PID" 2>/dev/null || true
  [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
cat >"$WORK/nginx.conf" <<EOF
worker_processes $WORKERS;
error_log $WORK/nginx-error.log;
pid $WORK/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000000;
  keepalive_timeout 300s;
  client_body_temp_path $WORK/body;
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location /checkthenadd { default_type text/plain; return 200 "MISSING\n"; }
  }
}
EOF
nginx -c "$WORK/nginx.conf"
"$ROOT/deja" serve --data-dir "$WORK/deja" --http-port "$PORT" --resp-port 0 >"$WORK/deja.log" 2>&1 &
DEJA_PID=$!
for _ in $(seq 1 600); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { cat "$WORK/deja.log" >&2; exit 1; }
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); wrk -t$THREADS -c$CONNS -d${SECONDS_}s; nginx $(nginx -v 2>&1 | sed 's/.*\///') with $WORKERS workers"
rate() { wrk -t"$THREADS" -c"$CONNS" -d"${SECONDS_}s" -s "$LUA" "$1" | sed -n 's/^Requests\/sec: *//p'; }
rate "http://127.0.0.1:$PORT" >/dev/null # warm-up of deja (JIT, heap, the default namespace's first chunks)
rate "http://127.0.0.1:$NGINX_PORT" >/dev/null
echo "round,nginx constant reply,deja /checkthenadd"
for round in $(seq 1 "$ROUNDS"); do
  echo "$round,$(rate "http://127.0.0.1:$NGINX_PORT"),$(rate "http://127.0.0.1:$PORT")"
done
