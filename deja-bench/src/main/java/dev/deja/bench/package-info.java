/**
 * Benchmarks of deja's stores beside an anchor, never on the test path: JMH benchmarks of the bloom filter against
 * Guava's ({@link dev.deja.bench.BloomBenchmark} and its siblings), of the recent filter's associativity and of the
 * compact codec, harnesses that alternate the contenders in one JVM so that a drifting machine moves both halves of
 * a ratio ({@link dev.deja.bench.BloomPairedRun}, {@link dev.deja.bench.BloomStreamPairedRun}), and what they share:
 * the key pools, the filters' shapes and their design fill. docs/BENCHMARKS.md holds the results and how they were
 * run.
 */
package dev.deja.bench;
