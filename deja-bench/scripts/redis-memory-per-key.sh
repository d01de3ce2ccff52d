#!/usr/bin/env bash
# Memory per key of Redis holding de-duplication ids the plain way: SET <uuid> 1 NX EX 86400, one key per id.
# Starts its own redis-server on a free loopback port (no persistence), loads N random UUIDs through
# redis-cli --pipe (streamed, so 100 million keys need no temporary file), prints used_memory before and after (INFO memory) and the difference per key, then stops it.
# Usage: deja-bench/scripts/redis-memory-per-key.sh [N=1000000]
set -euo pipefail
n="${1:-1000000}"
command -v redis-server >/dev/null || { echo "redis-server is not installed (apt-get install -y redis-server)" >&2; exit 1; }
dir="$(mktemp -d)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --dir "$dir" --daemonize yes \
  --pidfile "$dir/redis.pid" --logfile "$dir/redis.log"
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
for _ in $(seq 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
used() { redis-cli -p "$port" info memory | sed -n 's/^used_memory:\([0-9]*\).*/\1/p'; }
before="$(used)"
python3 -c '
import sys, uuid
out = sys.stdout
for _ in range(int(sys.argv[1])):
    u = str(uuid.uuid4())
    out.write("*6\r\n$3\r\nSET\r\n$36\r\n%s\r\n$1\r\n1\r\n$2\r\nNX\r\n$2\r\nEX\r\n$5\r\n86400\r\n" % u)
' "$n" | redis-cli -p "$port" --pipe
after="$(used)"
keys="$(redis-cli -p "$port" dbsize)"
echo "redis $(redis-server --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p'): keys=$keys used_memory before=$before after=$after"
python3 -c "print('bytes per key: %.1f' % (($after - $before) / $keys))"
