#!/usr/bin/env bash
# Where the CPU goes at pipelining 1: redis-benchmark against deja (BF.ADD) and Redis 7 (SET key 1 NX), alternating,
# recording for each run the throughput, the client's user and system CPU seconds (GNU time) and the server's
# (from /proc/PID/stat, in clock ticks of 1/100 s). On a machine where client and server share the cores, the server
# that needs less CPU per request leaves more to the client, and the client sets the pace.
# Usage: deja-bench/scripts/resp-cpu-per-request.sh [requests] [rounds] [extra deja serve options...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REQUESTS="${1:-1000000}"; ROUNDS="${2:-3}"; shift $(( $# < 2 ? $# : 2 ))
[ -x /usr/bin/time ] || { echo "/usr/bin/time not found: apt-get install -y time" >&2; exit 1; }
. "$ROOT/deja-bench/scripts/servers.sh"
start_deja_and_redis "$@" -- --appendonly no
ticks() { awk '{print $14, $15}' "/proc/$1/stat"; }
bench() { # port, P, command...
  local port="$1" pipeline="$2"; shift 2
  redis-benchmark -p "$port" -c 50 -n "$REQUESTS" -r 100000000 -P "$pipeline" -q --csv "$@" | tail -n 1 | cut -d, -f2
}
# Warm-up as in resp-vs-redis.sh: JIT compilation and the first allocation of the bloom namespace's bit array.
bench "$DEJA_PORT" 1 BF.ADD bench "key:__rand_int__" >/dev/null
bench "$DEJA_PORT" 64 BF.ADD bench "key:__rand_int__" >/dev/null
bench "$REDIS_PORT" 1 SET "key:__rand_int__" 1 NX >/dev/null
echo "# $(date -u +%FT%TZ) $(nproc) cores; requests=$REQUESTS P=1 clients=50"
echo "server,requests/s,client user s,client sys s,wall s,server user s,server sys s"
for _ in $(seq 1 "$ROUNDS"); do
  for server in deja redis; do
    if [ "$server" = deja ]; then pid=$DEJA_PID port=$DEJA_PORT cmd=(BF.ADD bench "key:__rand_int__")
    else pid=$REDIS_PID port=$REDIS_PORT cmd=(SET "key:__rand_int__" 1 NX); fi
    read -r u0 s0 < <(ticks "$pid")
    out="$(/usr/bin/time -f '%U,%S,%e' -o "$WORK/time" redis-benchmark -p "$port" -c 50 -n "$REQUESTS" \
      -r 100000000 -P 1 -q --csv "${cmd[@]}" | tail -n 1 | cut -d, -f2)"
    read -r u1 s1 < <(ticks "$pid")
    echo "$server,${out//\"/},$(cat "$WORK/time"),$(awk -v a="$u0" -v b="$u1" 'BEGIN{printf "%.2f", (b-a)/100}'),$(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.2f", (b-a)/100}')"
  done
done
