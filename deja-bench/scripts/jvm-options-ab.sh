#!/usr/bin/env bash
# Two sets of JVM options for deja serve side by side in one run: both servers up at once, redis-benchmark BF.ADD
# at one pipelining depth on each in turn (the first swapped every round), each side's rate and its server's CPU
# time per request (utime + stime from /proc, which moves less than the rate with the machine's other load). Prints a
# line per round, then the medians of the per-round ratios B/A. Needs redis-tools (Debian).
# Usage: deja-bench/scripts/jvm-options-ab.sh "OPTIONS A" "OPTIONS B" [requests, default 3000000] [rounds, default 7]
#        [pipelining, default 64]
# Example: deja-bench/scripts/jvm-options-ab.sh -XX:-UseTransparentHugePages -XX:+UseTransparentHugePages
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OPTS_A="${1?usage: jvm-options-ab.sh \"OPTIONS A\" \"OPTIONS B\" [requests] [rounds] [pipelining]}"
OPTS_B="${2?usage: jvm-options-ab.sh \"OPTIONS A\" \"OPTIONS B\" [requests] [rounds] [pipelining]}"
REQUESTS="${3:-3000000}"; ROUNDS="${4:-7}"; P="${5:-64}"
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not found: apt-get install -y redis-tools" >&2; exit 1; }
. "$ROOT/deja-bench/scripts/servers.sh"
start_sides
start_side a "$ROOT/deja" "$OPTS_A"
start_side b "$ROOT/deja" "$OPTS_B"

measure() { # name: prints "rate cpu-us-per-request"
  local port="${1}_RESP" pid="${1}_PID" before after rate
  before="$(cpu_ticks "${!pid}")"
  rate="$(redis-benchmark -p "${!port}" -c 50 -n "$REQUESTS" -r 100000000 -P "$P" -q --csv BF.ADD bench \
    "key:__rand_int__" | tail -n 1 | cut -d, -f2 | tr -d '"')"
  after="$(cpu_ticks "${!pid}")"
  echo "$rate $(cpu_us_per_request "$before" "$after" "$REQUESTS")"
}

echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); A='$OPTS_A' B='$OPTS_B' requests=$REQUESTS rounds=$ROUNDS P=$P"
# warm-up, not reported: JIT compilation and the first chunks of each default filter
for _ in 1 2; do measure a >/dev/null; measure b >/dev/null; done
echo "round,A requests/s,A cpu us/request,B requests/s,B cpu us/request,B/A rate,B/A cpu"
RESULTS="$WORK/results.csv"
for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then a="$(measure a)"; b="$(measure b)"; else b="$(measure b)"; a="$(measure a)"; fi
  line="$(python3 -c "a, ac, b, bc = map(float, '$a $b'.split()); print(f'$round,{a:.0f},{ac},{b:.0f},{bc},{b/a:.3f},{bc/ac:.3f}')")"
  echo "$line"; echo "$line" >>"$RESULTS"
done
print_medians "$RESULTS" "B/A rate:5" "B/A cpu per request:6"
