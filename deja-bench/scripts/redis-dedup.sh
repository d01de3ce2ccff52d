#!/usr/bin/env bash
# The Redis seen-set beside plain SET NX EX: starts its own redis-server on a free loopback port (no persistence),
# runs dev.deja.bench.redis.RedisDedupRun against it with the given arguments, then stops it.
# Usage: deja-bench/scripts/redis-dedup.sh [--keys 2000000] [--batch 500000] [--rounds 5] [redis-server options after --]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="${DEJA_BENCH_JAR:-$ROOT/deja-bench/target/benchmarks.jar}"
[ -f "$jar" ] || { echo "build it first: mvn -q -B -pl deja-bench -am package -DskipTests" >&2; exit 1; }
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install -y redis-server)" >&2; exit 1; }
args=(); server=()
while [ $# -gt 0 ]; do
  if [ "$1" = "--" ]; then shift; server=("$@"); break; fi
  args+=("$1"); shift
done
. "$ROOT/bin/find-jdk.sh"
deja_find_jdk
dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize yes \
  --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" "${server[@]}"
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
echo "redis $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') on port $port ${server[*]}"
"$JAVA_HOME/bin/java" $DEJA_JVM_FLAGS -Xmx3g -cp "$jar" dev.deja.bench.redis.RedisDedupRun --port "$port" "${args[@]}"
