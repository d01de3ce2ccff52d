#!/usr/bin/env bash
# What this machine allows over HTTP: the wrk command of http-wrk.sh against deja's GET /checkthenadd and, alternating
# with it, against nginx answering every request with a constant "MISSING\n" (no work at all, a C server tuned for
# exactly this), each round on the same two processes. Prints each round's rates, the share of the machine's CPU
# left idle during each, and the ratio, then the medians. On a machine where the constant answer stays under a goal, no
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
# the machine's CPU time (all cores) as "busy idle" jiffies, from the first line of /proc/stat
cpu_jiffies() { awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
# "rate,idle%": the request rate and the share of the machine's CPU left idle while wrk ran
measured() {
  local before after r
  before="$(cpu_jiffies)"; r="$(rate "$1")"; after="$(cpu_jiffies)"
  echo "$r,$(echo "$before $after" | awk '{b=$3-$1; i=$4-$2; printf "%.1f", 100*i/(b+i)}')"
}
rate "http://127.0.0.1:$PORT" >/dev/null # warm-up of deja (JIT, heap, the default namespace's first chunks)
rate "http://127.0.0.1:$NGINX_PORT" >/dev/null
echo "round,nginx constant reply,idle % (nginx),deja /checkthenadd,idle % (deja),deja/nginx"
RESULTS="$WORK/results.csv"
for round in $(seq 1 "$ROUNDS"); do
  nginx_="$(measured "http://127.0.0.1:$NGINX_PORT")"; deja_="$(measured "http://127.0.0.1:$PORT")"
  line="$round,$nginx_,$deja_,$(python3 -c "print(f'{${deja_%%,*}/${nginx_%%,*}:.3f}')")"
  echo "$line"; echo "$line" >>"$RESULTS"
done
print_medians "$RESULTS" "deja/nginx:5" "idle % nginx:2:1" "idle % deja:4:1"
