package dev.deja.seen;

/**
 * A snapshot of a store's live statistics.
 *
 * @param kind        the store kind ({@code bloom}, {@code recent}, {@code exact}, ...)
 * @param guarantee   the one error the store may make
 * @param insertions  keys recorded so far (adds that found the key new); approximate under concurrency; for a store
 *                    that ages keys out (exact), the keys it holds, estimated
 * @param memoryBytes bytes of memory (or disk, for {@code exact}) the store occupies now
 * @param estimate    the live estimate of the error the store may currently make
 */
public record SeenStats(String kind, Guarantee guarantee, long insertions, long memoryBytes, ErrorEstimate estimate) {}
