/**
 * The Kafka worker's benchmark ({@link dev.deja.bench.kafka.DedupVsPassThrough}): {@code deja kafka run} against
 * the same application without the de-dup step, on one broker, in alternating rounds
 * (deja-bench/scripts/kafka-dedup-vs-passthrough.sh; docs/BENCHMARKS.md, section "Kafka worker").
 */
package dev.deja.bench.kafka;
