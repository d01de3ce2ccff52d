# Sourced by the benchmark scripts: free loopback ports, a deja server alone or beside a Redis server, each on its own
# free port, stopped and cleaned up when the script exits. Expects ROOT (the repository) to be set.

# CPU time a process has used, user plus system, in clock ticks (getconf CLK_TCK per second), from /proc.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
# Usage: cpu_us_per_request TICKS_BEFORE TICKS_AFTER REQUESTS: a server's CPU microseconds per request between two
# cpu_ticks readings.
cpu_us_per_request() { python3 -c "print(f'{($2 - $1) * 1e6 / $(getconf CLK_TCK) / $3:.3f}')"; }
# Usage: print_medians CSV_FILE "LABEL:COLUMN[:DECIMALS]"...: one line, "median LABEL X" per pair joined by "; ", X the
# median of that (0-based) column over the file's rows, with DECIMALS (default 3) decimals.
print_medians() {
  python3 - "$@" <<'PY'
import csv, statistics, sys
rows = list(csv.reader(open(sys.argv[1])))
parts = []
for spec in sys.argv[2:]:
    label, column, *digits = spec.rsplit(":", 2) if spec.count(":") >= 2 else spec.rsplit(":", 1)
    value = statistics.median(float(r[int(column)]) for r in rows)
    parts.append(f"median {label} {value:.{int(digits[0]) if digits else 3}f}")
print("; ".join(parts))
PY
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# Usage: start_deja_and_redis [deja serve options...] -- [redis-server options...]
# Sets WORK, DEJA_PORT, DEJA_PID, REDIS_PORT and REDIS_PID; returns once both answer PING. deja's PID is the JVM's,
# since the launcher execs java.
start_deja_and_redis() {
  local deja_args=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do deja_args+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for tool in redis-benchmark redis-cli redis-server; do
    command -v "$tool" >/dev/null || { echo "$tool not found: apt-get install -y redis-server redis-tools" >&2; exit 1; }
  done
  WORK="$(mktemp -d)"; DEJA_PORT="$(free_port)"; REDIS_PORT="$(free_port)"
  trap stop_deja_and_redis EXIT
  "$ROOT/deja" serve --data-dir "$WORK/deja" --http-port 0 --resp-port "$DEJA_PORT" "${deja_args[@]}" \
    >"$WORK/deja.log" 2>&1 &
  DEJA_PID=$!
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save "" --dir "$WORK" "$@" >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 1 600); do
    redis-cli -p "$DEJA_PORT" PING >/dev/null 2>&1 && redis-cli -p "$REDIS_PORT" PING >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  redis-cli -p "$DEJA_PORT" PING >/dev/null 2>&1 || { cat "$WORK/deja.log" >&2; exit 1; }
  cat "$WORK/redis.log" >&2; exit 1
}

stop_deja_and_redis() {
  kill "$DEJA_PID" "$REDIS_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}

# Usage: start_deja LAUNCHER [deja serve options...]
# A deja server alone, RESP only, from LAUNCHER (another build's ./deja to compare builds). Sets WORK, DEJA_PORT and
# DEJA_PID; returns once it answers PING; stopped and cleaned up when the script exits.
start_deja() {
  local launcher="$1"; shift
  WORK="$(mktemp -d)"; DEJA_PORT="$(free_port)"
  trap stop_deja EXIT
  "$launcher" serve --data-dir "$WORK/deja" --http-port 0 --resp-port "$DEJA_PORT" "$@" >"$WORK/deja.log" 2>&1 &
  DEJA_PID=$!
  for _ in $(seq 1 600); do redis-cli -p "$DEJA_PORT" PING >/dev/null 2>&1 && return 0; sleep 0.1; done
  cat "$WORK/deja.log" >&2; exit 1
}

stop_deja() {
  kill "$DEJA_PID" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}

# Usage: start_sides (once), then start_side NAME LAUNCHER [JVM options] for each server of a side-by-side run.
# Each server gets its own data directory under WORK and free HTTP and RESP ports, and its JVM options through
# DEJA_JAVA_OPTS; start_side sets <NAME>_RESP, <NAME>_HTTP and <NAME>_PID and returns once it answers PING. Every
# server is stopped and WORK removed when the script exits.
start_sides() {
  WORK="$(mktemp -d)"; SIDE_PIDS=()
  trap stop_sides EXIT
}

start_side() {
  local name="$1" launcher="$2" options="${3:-}" resp http
  resp="$(free_port)"; http="$(free_port)"
  DEJA_JAVA_OPTS="$options" "$launcher" serve --data-dir "$WORK/$name" --http-port "$http" --resp-port "$resp" \
    >"$WORK/$name.log" 2>&1 &
  SIDE_PIDS+=($!)
  printf -v "${name}_PID" '%s' "$!"
  for _ in $(seq 1 1200); do redis-cli -p "$resp" PING >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$resp" PING >/dev/null 2>&1 || { cat "$WORK/$name.log" >&2; exit 1; }
  printf -v "${name}_RESP" '%s' "$resp"; printf -v "${name}_HTTP" '%s' "$http"
}

stop_sides() {
  kill "${SIDE_PIDS[@]}" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
