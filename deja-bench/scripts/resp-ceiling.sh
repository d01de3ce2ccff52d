#!/usr/bin/env bash
# What this machine and redis-benchmark allow over RESP at a pipelining depth: Redis answering PING (no key, no
# store, the least work a command can ask) against Redis's SET key 1 NX, and deja's BF.ADD and PING beside them, each
# round on the same processes in turn, under the same redis-benchmark command as resp-vs-redis.sh. When PING on Redis
# is less than a goal's multiple of SET NX, the client and the machine cannot carry that multiple of SET NX's rate to
# any server, whatever it does per request. Needs redis-server and redis-tools (Debian). Prints CSV lines, then the
# medians of the per-round ratios.
# Usage: deja-bench/scripts/resp-ceiling.sh [requests, default 2000000] [pipelining, default 64] [clients, default 50]
#        [rounds, default 5]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REQUESTS="${1:-2000000}"; P="${2:-64}"; CLIENTS="${3:-50}"; ROUNDS="${4:-5}"; KEYSPACE=100000000
. "$ROOT/deja-bench/scripts/servers.sh"
start_deja_and_redis --fsync everysec -- --appendonly no
rate() { # port, command...
  local port="$1"; shift
  redis-benchmark -p "$port" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv "$@" | tail -n 1 \
    | cut -d, -f2 | tr -d '"'
}
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); requests=$REQUESTS P=$P clients=$CLIENTS rounds=$ROUNDS"
# warm-up, not reported: JIT compilation and the first chunks of deja's bloom namespace
rate "$DEJA_PORT" BF.ADD bench "key:__rand_int__" >/dev/null
rate "$DEJA_PORT" PING >/dev/null
rate "$REDIS_PORT" SET "key:__rand_int__" 1 NX >/dev/null
echo "round,redis SET NX,redis PING,deja BF.ADD,deja PING,redis PING/SET NX,deja BF.ADD/redis SET NX"
RESULTS="$WORK/results.csv"
for round in $(seq 1 "$ROUNDS"); do
  set_nx="$(rate "$REDIS_PORT" SET "key:__rand_int__" 1 NX)"
  redis_ping="$(rate "$REDIS_PORT" PING)"
  bf_add="$(rate "$DEJA_PORT" BF.ADD bench "key:__rand_int__")"
  deja_ping="$(rate "$DEJA_PORT" PING)"
  line="$round,$set_nx,$redis_ping,$bf_add,$deja_ping,$(python3 -c "print(f'{$redis_ping/$set_nx:.3f},{$bf_add/$set_nx:.3f}')")"
  echo "$line"; echo "$line" >>"$RESULTS"
done
print_medians "$RESULTS" "redis PING/SET NX:5" "deja BF.ADD/redis SET NX:6"
