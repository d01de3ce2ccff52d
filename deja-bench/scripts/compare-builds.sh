#!/usr/bin/env bash
# This checkout's deja against another build's, side by side in one run: both servers up at once, each measured in
# turn in every round (redis-benchmark BF.ADD at pipelining 1 and 64, wrk GET /checkthenadd with 300-byte keys),
# so that a change's cost is read as a ratio on one machine state. Prints a CSV line per round and measure, with
# the ratios this/other of the rates and of each server's CPU time per request (utime + stime from /proc, which moves
# less than the rate with the machine's other load), then the median ratios per measure. Needs redis-tools and wrk
# (Debian).
# Usage: deja-bench/scripts/compare-builds.sh OTHER_CHECKOUT [rounds, default 5] [requests, default 500000]
#        [wrk seconds, default 10]
# OTHER_CHECKOUT is a checkout of another commit (git worktree add /tmp/deja-old <commit>); its ./deja builds it.
# MEASURES picks some of the measures, comma-separated (default "resp P=1,resp P=64,http"): a pipelined measure
# wants more requests than a P=1 one in the same time.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OTHER="$(cd "${1:?usage: compare-builds.sh OTHER_CHECKOUT [rounds] [requests] [wrk seconds]}" && pwd)"
ROUNDS="${2:-5}"; REQUESTS="${3:-500000}"; WRK_SECONDS="${4:-10}"
IFS=, read -r -a SELECTED <<<"${MEASURES:-resp P=1,resp P=64,http}"
for measure in "${SELECTED[@]}"; do
  case "$measure" in "resp P=1" | "resp P=64" | http) ;; *) echo "unknown measure '$measure' in MEASURES" >&2; exit 1 ;; esac
done
for tool in redis-benchmark redis-cli wrk; do
  command -v "$tool" >/dev/null || { echo "$tool not found: apt-get install -y redis-tools wrk" >&2; exit 1; }
done
. "$ROOT/deja-bench/scripts/servers.sh"
LUA="$ROOT/deja-bench/scripts/checkthenadd.lua"
start_sides
start_side this "$ROOT/deja"
start_side other "$OTHER/deja"

resp_rate() { # port, pipelining
  redis-benchmark -p "$1" -c 50 -n "$REQUESTS" -r 100000000 -P "$2" -q --csv BF.ADD bench "key:__rand_int__" \
    | tail -n 1 | cut -d, -f2 | tr -d '"'
}
http_rate() { # port: prints the rate and the number of requests
  wrk -t2 -c64 -d"${WRK_SECONDS}s" -s "$LUA" "http://127.0.0.1:$1" \
    | awk '/requests in/ {n = $1} /^Requests\/sec:/ {r = $2} END {print r, n}'
}

measure() { # who, measure: prints the rate and the server's CPU microseconds per request
  local resp="${1}_RESP" http="${1}_HTTP" pid="${1}_PID" before after rate requests="$REQUESTS"
  before="$(cpu_ticks "${!pid}")"
  case "$2" in
    "resp P=1") rate="$(resp_rate "${!resp}" 1)" ;;
    "resp P=64") rate="$(resp_rate "${!resp}" 64)" ;;
    http) read -r rate requests < <(http_rate "${!http}") ;;
  esac
  after="$(cpu_ticks "${!pid}")"
  echo "$rate $(cpu_us_per_request "$before" "$after" "$requests")"
}

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); this=$(git -C "$ROOT" rev-parse --short HEAD) other=$(git -C "$OTHER" rev-parse --short HEAD); rounds=$ROUNDS requests=$REQUESTS wrk=${WRK_SECONDS}s measures=${MEASURES:-all}"
# warm-up, not reported: JIT compilation and the first chunks of each default filter
for who in this other; do
  for warm in "${SELECTED[@]}"; do measure "$who" "$warm" >/dev/null; done
done
echo "round,measure,this requests/s,other requests/s,this/other rate,this cpu us/request,other cpu us/request,this/other cpu"
RESULTS="$WORK/results.csv"
for round in $(seq 1 "$ROUNDS"); do
  for measure in "${SELECTED[@]}"; do
    # the two take turns going first, so that neither always runs on the machine the other has just warmed
    if [ $((round % 2)) -eq 1 ]; then a="$(measure this "$measure")"; b="$(measure other "$measure")"
    else b="$(measure other "$measure")"; a="$(measure this "$measure")"; fi
    line="$round,$measure,$(python3 -c "a, ac, b, bc = map(float, '$a $b'.split()); print(f'{a:.0f},{b:.0f},{a/b:.3f},{ac},{bc},{ac/bc:.3f}')")"
    echo "$line"; echo "$line" >>"$RESULTS"
  done
done
echo "measure,median this/other rate,median this/other cpu per request"
python3 - "$RESULTS" <<'EOF'
import csv, statistics, sys
ratios = {}
for row in csv.reader(open(sys.argv[1])):
    ratios.setdefault(row[1], []).append((float(row[4]), float(row[7])))
for measure, values in ratios.items():
    print(f"{measure},{statistics.median(v[0] for v in values):.3f},{statistics.median(v[1] for v in values):.3f}")
EOF
