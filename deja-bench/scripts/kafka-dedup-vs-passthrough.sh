#!/usr/bin/env bash
# The Kafka de-dup worker (deja kafka run, exactly-once, 16-byte ids in the record keys), with each store, against the same worker with
# --pass-through (the same Kafka Streams application without the step), one in-process broker, one input topic,
# alternating rounds; prints each round's rate (records/s between 10% and 100% of the input, start-up excluded, and
# over its second half alone), each worker's CPU time per record (in all and per thread name), the medians of the
# per-round ratios and the state on disk per id held (docs/BENCHMARKS.md, section "Kafka worker"). Workers start with
# bin/jvm.options, as ./deja starts them, each once the broker has gone quiet after the previous one, after a
# pass-through run that warms the broker up and is not counted.
# Usage: deja-bench/scripts/kafka-dedup-vs-passthrough.sh [records=1000000] [rounds=5] [partitions=4] [duplicate share=0.05]
# DEJA_BENCH_STORES=exact runs only that store beside the pass-through (for a profile).
# DEJA_BENCH_WORKER_FLAGS="-agentpath:...={app}.collapsed" adds JVM options to each worker (for a profiler; -Xmx512m
# for a small heap), after bin/jvm.options.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
. "$ROOT/bin/find-jdk.sh"
deja_find_jdk
cd "$ROOT"
mvn -q -B -Dstyle.color=never -DskipTests -pl deja-bench -am package dependency:build-classpath \
  -Dmdep.outputFile=target/classpath.txt -Dmdep.includeScope=compile >&2
echo "# $(date -u +%FT%TZ) $(nproc) cores; $(lscpu | sed -n 's/^Model name: *//p'); load $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2086
exec "$JAVA_HOME/bin/java" $DEJA_JVM_FLAGS -Xmx1g -cp "deja-bench/target/classes:$(cat deja-bench/target/classpath.txt)" \
  dev.deja.bench.kafka.DedupVsPassThrough "$@"
