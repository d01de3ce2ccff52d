package dev.deja.namespace;

/**
 * What the namespaces of one server may take together, so that no sequence of requests can exhaust the process.
 *
 * @param memoryBytes       heap the bloom and recent stores may reserve together at their full size ({@link
 *                          MemoryBudget}); 0 for {@value MemoryBudget#DEFAULT_HEAP_SHARE} of the maximum heap
 * @param nativeMemoryBytes native memory the exact stores' RocksDB block caches and memtables may reserve
 *                          together; 0 for {@value MemoryBudget#DEFAULT_NATIVE_SHARE} of the machine's memory
 * @param count             the most namespaces; each holds open files of its own (a lock file and a journal
 *                          segment; an exact one RocksDB's files), so unbounded creation would end in the process
 *                          running out of file descriptors. Their background work runs on threads they all share
 *                          ({@link dev.deja.journal.JournalThreads}, {@link dev.deja.exact.threads.ExactThreads}), so
 *                          the count does not bound threads.
 */
public record NamespaceLimits(long memoryBytes, long nativeMemoryBytes, int count) {

    /** The default of {@link #count}: about two thousand files for journaled namespaces, far below the usual limits. */
    public static final int DEFAULT_COUNT = 1024;

    public NamespaceLimits {
        if (memoryBytes < 0 || nativeMemoryBytes < 0) {
            throw new IllegalArgumentException("memory limits must be positive, or 0 for the default (got "
                    + memoryBytes + " and " + nativeMemoryBytes + ")");
        }
        if (count < 1) {
            throw new IllegalArgumentException("the namespace count limit must be at least 1 (got " + count + ")");
        }
    }

    /** The default memory shares and {@link #DEFAULT_COUNT}. */
    public static NamespaceLimits defaults() {
        return new NamespaceLimits(0, 0, DEFAULT_COUNT);
    }
}
