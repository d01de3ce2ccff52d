#!/usr/bin/env bash
# This checkout's deja against another build's, side by side in one run: both servers up at once, each measured in
# turn in every round (redis-benchmark BF.ADD at pipelining 1 and 64, wrk GET /checkthenadd with 300-byte keys),
# so that a change's cost is read as a ratio on one machine state. Prints a CSV line per round and measure, with
# the ratio this/other, then the median ratio per measure. Needs redis-tools and wrk (Debian).
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
http_rate() { wrk -t2 -c64 -d"${WRK_SECONDS}s" -s "$LUA" "http://127.0.0.1:$1" | sed -n 's/^Requests\/sec: *//p'; }

measure() { # who, measure
  local resp="${1}_RESP" http="${1}_HTTP"
  case "$2" in
    "resp P=1") resp_rate "${!resp}" 1 ;;
    "resp P=64") resp_rate "${!resp}" 64 ;;
    http) http_rate "${!http}" ;;
  esac
}

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); this=$(git -C "$ROOT" rev-parse --short HEAD) other=$(git -C "$OTHER" rev-parse --short HEAD); rounds=$ROUNDS requests=$REQUESTS wrk=${WRK_SECONDS}s measures=${MEASURES:-all}"
# warm-up, not reported: JIT compilation and the first chunks of each default filter
for who in this other; do
  for warm in "${SELECTED[@]}"; do measure "$who" "$warm" >/dev/null; done
done
echo "round,measure,this,other,this/other"
RESULTS="$WORK/results.csv"
for round in $(seq 1 "$ROUNDS"); do
  for measure in "${SELECTED[@]}"; do
    # the two take turns going first, so that neither always runs on the machine the other has just warmed
    if [ $((round % 2)) -eq 1 ]; then a="$(measure this "$measure")"; b="$(measure other "$measure")"
    else b="$(measure other "$measure")"; a="$(measure this "$measure")"; fi
    line="$round,$measure,$a,$b,$(python3 -c "print(f'{$a/$b:.3f}')")"
    echo "$line"; echo "$line" >>"$RESULTS"
  done
done
echo "measure,median this/other"
python3 - "$RESULTS" <<'EOF'
import csv, statistics, sys
ratios = {}
for row in csv.reader(open(sys.argv[1])):
    ratios.setdefault(row[1], []).append(float(row[4]))
for measure, values in ratios.items():
    print(f"{measure},{statistics.median(values):.3f}")
EOF
