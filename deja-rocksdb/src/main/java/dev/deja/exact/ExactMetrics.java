package dev.deja.exact;

import java.time.Duration;

/**
 * A snapshot of the exact store's gauges and counters, for the server's metrics and the benchmarks.
 *
 * @param effectiveWindow        age of the oldest key still held ({@link Duration#ZERO} when empty)
 * @param windowBelowMinimum     whether the size bound has cut the window below the configured minimum (Segment's
 *                               de-duplication design pages its on-call engineer when this happens)
 * @param windowWarnings         how many times the window fell below the minimum since the store was opened
 * @param generations            column families (time slices) currently held
 * @param estimatedKeys          keys held, as RocksDB estimates them (copies made by refresh count twice)
 * @param liveSstBytes           bytes of table files the generations reference
 * @param memtableBytes          bytes of memtables, flushed or not yet
 * @param walBytesWritten        bytes appended to the write-ahead log since open
 * @param flushBytesWritten      bytes of table files written by flushes since open
 * @param compactionBytesWritten bytes of table files written by compactions since open
 * @param pendingCompactionBytes RocksDB's estimate of the bytes compaction still has to rewrite
 * @param runningCompactions     compactions running now
 * @param filterBytes            memory of the in-memory key filters ({@link KeyFilter}), about 2 bytes per key
 * @param filtersLoading         generations whose filter is still being read back after a reopen (their lookups
 *                               ask RocksDB meanwhile: correct, slower)
 */
public record ExactMetrics(
        Duration effectiveWindow,
        boolean windowBelowMinimum,
        long windowWarnings,
        int generations,
        long estimatedKeys,
        long liveSstBytes,
        long memtableBytes,
        long walBytesWritten,
        long flushBytesWritten,
        long compactionBytesWritten,
        long pendingCompactionBytes,
        long runningCompactions,
        long filterBytes,
        int filtersLoading) {

    /** Bytes the store occupies now: table files plus memtables (the write-ahead log is not counted). */
    public long storeBytes() {
        return liveSstBytes + memtableBytes;
    }
}
