#!/usr/bin/env bash
# Whether a DJ.CLEAR of the default namespace (a 1 GiB bloom filter, 200,000 keys) holds up the other clients of its
# network thread: with one network thread (--io-threads 1), a second connection sends PING every 5 ms while the
# clear runs; prints the clear's time, the PINGs answered during it and the slowest. Three clears.
# Usage: deja-bench/scripts/clear-stall.sh [launcher, default ./deja] (pass another build's launcher to compare).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
LAUNCHER="${1:-$ROOT/deja}"
. "$ROOT/deja-bench/scripts/servers.sh"
start_deja "$LAUNCHER" --io-threads 1 --snapshot-interval 0
PORT="$DEJA_PORT"
seq 1 200000 | sed 's/^/BF.ADD default k/' | redis-cli -p "$PORT" --pipe >/dev/null
for _ in 1 2 3; do
  python3 - "$PORT" <<'PY'
import socket, sys, threading, time
port = int(sys.argv[1])
admin = socket.create_connection(("127.0.0.1", port))
other = socket.create_connection(("127.0.0.1", port))
done = threading.Event()
start = time.time()
admin.sendall(b"DJ.CLEAR default\r\n")
threading.Thread(target=lambda: (admin.recv(100), done.set())).start()
pings = []
while not done.is_set():
    sent = time.time()
    other.sendall(b"PING\r\n")
    other.recv(100)
    pings.append(time.time() - sent)
    time.sleep(0.005)
print(f"clear {(time.time() - start) * 1000:.0f} ms, PINGs answered during it {len(pings)},"
      f" slowest {max(pings) * 1000:.1f} ms")
PY
done
