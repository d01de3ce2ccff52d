/**
 * The exact store's load driver ({@link dev.deja.bench.exact.ExactLoad}): it drives the exact store, or the
 * sequence-index layout of Segment's de-duplication design that it is measured against
 * ({@link dev.deja.bench.exact.SequenceIndexStore}), with random UUIDs through an insert, a mixed and an optional
 * reopened phase, and reports throughput, CPU, memory and bytes on disk and written (docs/BENCHMARKS.md, section
 * "exact store").
 */
package dev.deja.bench.exact;
