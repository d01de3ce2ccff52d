package dev.deja.namespace;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The heap the namespaces' stores may take together, and what each has reserved of it.
 *
 * <p>Why: a bloom or recent store allocates its memory as it fills, so a namespace created far larger than the heap
 * works at first and fails later, when a write needs memory the JVM does not have: an {@link OutOfMemoryError}
 * thrown in a network thread stops that thread, and the server stops answering while its process stays up. A
 * namespace therefore reserves, when it is created or loaded, the most memory its store can take when full
 * ({@link StoreKind#memoryBytes}), and one that would exceed the limit is refused with an error that says how much
 * it needs and how much is free. Stores whose memory is bounded elsewhere (exact: RocksDB's native caches) reserve
 * nothing.
 *
 * <p>Not thread-safe: the registry calls it under its own lock.
 */
final class MemoryBudget {

    /** The part of the JVM's maximum heap the namespaces may reserve by default; the rest serves requests. */
    static final double DEFAULT_HEAP_SHARE = 0.75;

    private final long limit;
    private final Map<String, Long> reserved = new HashMap<>();
    private long total;

    /** @param limit bytes the namespaces may reserve together; 0 for the default share of the maximum heap */
    MemoryBudget(long limit) {
        this.limit = limit == 0 ? defaultLimit() : limit;
    }

    /** {@link #DEFAULT_HEAP_SHARE} of the heap the JVM may grow to ({@code -Xmx}). */
    static long defaultLimit() {
        return (long) (Runtime.getRuntime().maxMemory() * DEFAULT_HEAP_SHARE);
    }

    long limit() {
        return limit;
    }

    /** Bytes reserved by every holder together. */
    long reserved() {
        return total;
    }

    /**
     * Reserves {@code bytes} for {@code holder} (a namespace's name, or another label for a temporary copy).
     *
     * @param what how the refusal names the holder, e.g. {@code "namespace 'events'"}
     * @throws NamespaceException with {@link NamespaceException.Problem#NO_MEMORY} when the limit would be
     *                            exceeded; nothing is reserved then
     */
    void reserve(String holder, long bytes, String what) {
        if (reserved.containsKey(holder)) {
            throw new IllegalStateException(holder + " holds a reservation already");
        }
        if (bytes > limit - total) {
            throw NamespaceException.noMemory(what + " needs " + size(bytes) + " of memory when full, but only "
                    + size(Math.max(0, limit - total)) + " of the server's " + size(limit) + " namespace memory limit is"
                    + " free (" + size(total) + " reserved by other namespaces): make it smaller, delete a namespace,"
                    + " or give the server more memory (a larger -Xmx in DEJA_JAVA_OPTS, then --memory-limit)");
        }
        reserved.put(holder, bytes);
        total += bytes;
    }

    /** Gives back what {@code holder} reserved; nothing when it holds nothing. */
    void release(String holder) {
        Long bytes = reserved.remove(holder);
        if (bytes != null) {
            total -= bytes;
        }
    }

    /** Bytes as people read them: {@code 1.0 GiB}, {@code 512.0 MiB}, {@code 900 bytes}. */
    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " bytes";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
