/**
 * The Redis seen-set's benchmark ({@link dev.deja.bench.redis.RedisDedupRun}): de-duplication of random UUIDs in
 * batches and Redis memory per id, beside plain {@code SET id owner NX EX} through the same client
 * (docs/BENCHMARKS.md, section "Redis seen-set").
 */
package dev.deja.bench.redis;
