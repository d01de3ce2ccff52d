#!/usr/bin/env bash
# redis-benchmark against deja's RESP port (BF.ADD) and against Redis 7 (SET key 1 NX) on the same key space,
# in the same run, pipelining 1 and 64; then Redis's dedup idiom, SET key 1 NX EX 3600, against both (deja: its
# exact key-value namespace kv, on disk). Needs redis-server and redis-tools (Debian). Prints CSV lines.
# With rounds > 1 every measured pair is repeated, deja and Redis alternating, on the same two processes: on a
# machine whose speed drifts, one pair says little, and the spread of the rounds says how much.
# By default Redis runs without persistence, the stricter anchor; REDIS_PERSISTENCE=aof runs it with an append-only
# file fsynced every second instead, the durability deja's journal gives by default (--fsync everysec).
# DEJA_SERVE_ARGS adds options to deja serve (say --io-threads 1, one event loop as Redis has one), REDIS_SERVER_ARGS
# to redis-server (say --io-threads 2).
# Usage: [REDIS_PERSISTENCE=none|aof] [DEJA_SERVE_ARGS=...] [REDIS_SERVER_ARGS=...] deja-bench/scripts/resp-vs-redis.sh [requests] [keyspace] [clients] [rounds] [warm-up requests]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REQUESTS="${1:-2000000}"
KEYSPACE="${2:-100000000}"
CLIENTS="${3:-50}"
ROUNDS="${4:-1}"
WARMUP="${5:-$(( REQUESTS / 10 > 100000 ? REQUESTS / 10 : 100000 ))}"
case "${REDIS_PERSISTENCE:-none}" in
  none) REDIS_PERSISTENCE_ARGS=(--appendonly no) ;;
  aof) REDIS_PERSISTENCE_ARGS=(--appendonly yes --appendfsync everysec) ;;
  *) echo "REDIS_PERSISTENCE must be none or aof, not '$REDIS_PERSISTENCE'" >&2; exit 1 ;;
esac
. "$ROOT/deja-bench/scripts/servers.sh"
# shellcheck disable=SC2086
start_deja_and_redis --fsync everysec ${DEJA_SERVE_ARGS:-} -- "${REDIS_PERSISTENCE_ARGS[@]}" ${REDIS_SERVER_ARGS:-}

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); requests=$REQUESTS keyspace=$KEYSPACE clients=$CLIENTS rounds=$ROUNDS warm-up=$WARMUP redis-persistence=${REDIS_PERSISTENCE:-none} deja-args='${DEJA_SERVE_ARGS:-}' redis-args='${REDIS_SERVER_ARGS:-}'"
# Warm-up, not reported, the same for both servers before each command measured: WARMUP requests (the fifth
# argument; by default a tenth of the requests, at least 100,000) at pipelining 1 and again at 64. It covers JIT
# compilation of each path, which makes a fresh process's first runs cost more CPU per request than its later ones,
# the first writes into deja's fresh bloom namespace, which allocate its bit array chunk by chunk, and the creation
# of the kv namespace on the first SET (a one-time cost of a namespace, not of a request).
warm_up() { # port, command...
  local port="$1"; shift
  for P in 1 64; do
    redis-benchmark -p "$port" -c "$CLIENTS" -n "$WARMUP" -r "$KEYSPACE" -P "$P" -q --csv "$@" >/dev/null
  done
}
warm_up "$DEJA_PORT" BF.ADD bench "key:__rand_int__"
warm_up "$REDIS_PORT" SET "key:__rand_int__" 1 NX
for _ in $(seq 1 "$ROUNDS"); do for P in 1 64; do
  # Same key space for both: key:__rand_int__ with -r KEYSPACE.
  printf 'deja BF.ADD P=%s,' "$P"
  redis-benchmark -p "$DEJA_PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv BF.ADD bench "key:__rand_int__" | tail -n 1
  printf 'redis SET NX P=%s,' "$P"
  redis-benchmark -p "$REDIS_PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv SET "key:__rand_int__" 1 NX | tail -n 1
done; done
warm_up "$DEJA_PORT" SET "kv:__rand_int__" 1 NX EX 3600
warm_up "$REDIS_PORT" SET "kv:__rand_int__" 1 NX EX 3600
for _ in $(seq 1 "$ROUNDS"); do for P in 1 64; do
  printf 'deja SET NX EX (exact kv) P=%s,' "$P"
  redis-benchmark -p "$DEJA_PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv SET "kv:__rand_int__" 1 NX EX 3600 | tail -n 1
  printf 'redis SET NX EX P=%s,' "$P"
  redis-benchmark -p "$REDIS_PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv SET "kv:__rand_int__" 1 NX EX 3600 | tail -n 1
done; done
echo "# deja RSS: $(ps -o rss= -p "$DEJA_PID") KiB; redis RSS: $(ps -o rss= -p "$REDIS_PID") KiB"
