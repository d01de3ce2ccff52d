#!/usr/bin/env bash
# redis-benchmark against one deja server: CF.ADDNX and CF.EXISTS on a cuckoo filter beside BF.ADD and BF.EXISTS on a
# bloom filter of the same capacity, the same key space, at pipelining 1 and 64, alternating CF and BF in every
# round; prints each round's requests/s, then the median of the per-round ratios CF/BF (docs/BENCHMARKS.md, section
# "Cuckoo filters"). CF.ADDNX is the cuckoo filter's add with BF.ADD's meaning (a key held once); CF.ADD, as
# RedisBloom's, adds another copy of a key already held, and a key added more often than its two buckets have slots
# makes the filter grow a sub-filter that every later lookup reads, which would measure the growth rather than the
# filter. The two filters are reserved for every add the run makes (warm-up included) with a quarter to spare, over a
# key space of KEYSPACE. Needs redis-server and redis-tools (Debian).
# Usage: deja-bench/scripts/cuckoo-vs-bloom.sh [requests=500000] [rounds=5] [keyspace=2000000] [clients=50]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
REQUESTS="${1:-500000}"
ROUNDS="${2:-5}"
KEYSPACE="${3:-2000000}"
CLIENTS="${4:-50}"
. "$ROOT/deja-bench/scripts/servers.sh"
start_deja "$ROOT/deja" --fsync everysec
CAPACITY=$(( REQUESTS * (2 + 2 * ROUNDS) * 5 / 4 ))
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); requests=$REQUESTS rounds=$ROUNDS keyspace=$KEYSPACE capacity=$CAPACITY clients=$CLIENTS"
redis-cli -p "$DEJA_PORT" CF.RESERVE cf "$CAPACITY" >/dev/null
redis-cli -p "$DEJA_PORT" BF.RESERVE bf 0.0001 "$CAPACITY" >/dev/null
rate() { # command and arguments: requests per second
  redis-benchmark -p "$DEJA_PORT" -c "$CLIENTS" -n "$REQUESTS" -r "$KEYSPACE" -P "$P" -q --csv "$@" | tail -n 1 \
    | awk -F'"' '{print $4}'
}
# warm-up, not reported: both paths compiled, both filters' first writes done
for P in 1 64; do rate CF.ADDNX cf "key:__rand_int__" >/dev/null; rate BF.ADD bf "key:__rand_int__" >/dev/null; done
echo "round,P,command,cf_rps,bf_rps,ratio"
declare -A RATIOS
declare -A CF_OP=([ADD]=ADDNX [EXISTS]=EXISTS)
for round in $(seq 1 "$ROUNDS"); do
  for P in 1 64; do
    for op in ADD EXISTS; do
      if [ $((round % 2)) -eq 1 ]; then
        cf=$(rate "CF.${CF_OP[$op]}" cf "key:__rand_int__"); bf=$(rate "BF.$op" bf "key:__rand_int__")
      else
        bf=$(rate "BF.$op" bf "key:__rand_int__"); cf=$(rate "CF.${CF_OP[$op]}" cf "key:__rand_int__")
      fi
      ratio=$(python3 -c "print(f'{$cf / $bf:.3f}')")
      RATIOS["$P-$op"]+="$ratio "
      echo "$round,$P,$op,$cf,$bf,$ratio"
    done
  done
done
for key in "${!RATIOS[@]}"; do
  echo "# median CF/BF ratio P=${key%%-*} ${key#*-}: $(python3 -c "import statistics,sys; print(statistics.median(map(float, sys.argv[1:])))" ${RATIOS[$key]})"
done
echo "# deja RSS: $(ps -o rss= -p "$DEJA_PID") KiB"
# more than one means the filters grew: the run outran the capacity reserved for it
echo "# sub-filters at the end: cuckoo $(redis-cli -p "$DEJA_PORT" CF.INFO cf | sed -n '/Number of filters/{n;p}'), bloom $(redis-cli -p "$DEJA_PORT" BF.INFO bf | sed -n '/Number of filters/{n;p}')"
