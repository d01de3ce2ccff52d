package dev.deja.namespace;

import dev.deja.text.Units;
import java.lang.management.ManagementFactory;
import java.util.HashMap;
import java.util.Map;

/**
 * Memory the namespaces' stores may take together, and what each has reserved of it: one budget for the heap,
 * one for native memory.
 *
 * <p>Why: a bloom or recent store allocates its heap as it fills, and an exact store's RocksDB its block cache and
 * memtables as it works, so a namespace created far larger than the machine can hold works at first and fails
 * later, when a write needs memory the process does not have: an {@link OutOfMemoryError} thrown in a network
 * thread stops that thread, and the server stops answering while its process stays up. A namespace therefore
 * reserves, when it is created or loaded, the most memory its store can take ({@link StoreKind#memoryBytes},
 * {@link StoreKind#nativeMemoryBytes}), and one that would exceed a limit is refused with an error that says how
 * much it needs and how much is free.
 *
 * <p>Reservations are made under this budget's monitor (creations and loads also hold the registry's lock); {@link
 * #limit} and {@link #reserved} may be read from any thread without either (INFO and /metrics run on the network
 * threads, which must not wait for a namespace being created or loaded).
 */
final class MemoryBudget {

    /** The part of the JVM's maximum heap the namespaces may reserve by default; the rest serves requests. */
    static final double DEFAULT_HEAP_SHARE = 0.75;
    /** The part of the machine's memory the namespaces may reserve outside the heap by default. */
    static final double DEFAULT_NATIVE_SHARE = 0.25;

    private final long limit;
    private final String memory;
    private final String limitName;
    private final String advice;
    private final Map<String, Long> reserved = new HashMap<>();
    /** Written under the registry's lock, read without it. */
    private volatile long total;

    private MemoryBudget(long limit, String memory, String limitName, String advice) {
        this.limit = limit;
        this.memory = memory;
        this.limitName = limitName;
        this.advice = advice;
    }

    /** The heap budget: {@code limit} bytes, or {@link #DEFAULT_HEAP_SHARE} of the maximum heap when 0. */
    static MemoryBudget heap(long limit) {
        return new MemoryBudget(
                limit == 0 ? (long) (Runtime.getRuntime().maxMemory() * DEFAULT_HEAP_SHARE) : limit,
                "memory",
                "namespace memory limit",
                "make it smaller, delete a namespace, or give the server more"
                        + " memory (a larger -Xmx in DEJA_JAVA_OPTS, then --memory-limit)");
    }

    /** The native budget: {@code limit} bytes, or {@link #DEFAULT_NATIVE_SHARE} of the machine's memory when 0. */
    static MemoryBudget nativeMemory(long limit) {
        return new MemoryBudget(
                limit == 0 ? defaultNativeLimit() : limit,
                "native memory (RocksDB's block cache and memtables)",
                "native memory limit",
                "give it a smaller blockCache or memtable, delete a namespace, or raise --native-memory-limit");
    }

    private static long defaultNativeLimit() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        return (long) (os.getTotalMemorySize() * DEFAULT_NATIVE_SHARE);
    }

    long limit() {
        return limit;
    }

    /** Bytes reserved by every holder together. */
    long reserved() {
        return total;
    }

    /**
     * Reserves {@code bytes} for {@code holder} (a namespace's name, or another label for a temporary copy);
     * reserving nothing always succeeds.
     *
     * @param what how the refusal names the holder, e.g. {@code "namespace 'events'"}
     * @throws NamespaceException with {@link NamespaceException.Problem#NO_MEMORY} when the limit would be
     *                            exceeded; nothing is reserved then
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // under this budget's monitor; volatile for the readers without it
    synchronized void reserve(String holder, long bytes, String what) {
        if (reserved.containsKey(holder)) {
            throw new IllegalStateException(holder + " holds a reservation already");
        }
        if (bytes > limit - total) {
            throw NamespaceException.noMemory(what + " needs " + Units.binary(bytes, 1) + " of " + memory
                    + " when full, but only " + Units.binary(Math.max(0, limit - total), 1) + " of the server's "
                    + Units.binary(limit, 1) + " " + limitName + " is free (" + Units.binary(total, 1)
                    + " reserved by other namespaces): " + advice);
        }
        reserved.put(holder, bytes);
        total += bytes;
    }

    /** Gives back what {@code holder} reserved; nothing when it holds nothing. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // under this budget's monitor; volatile for the readers without it
    synchronized void release(String holder) {
        Long bytes = reserved.remove(holder);
        if (bytes != null) {
            total -= bytes;
        }
    }

    /**
     * Adds {@code bytes} to what {@code holder} reserves (from nothing when it holds nothing), for a store that grows
     * after it was created: a scaling bloom filter's next sub-filter. Takes only this budget's monitor, so a store
     * may call it while it holds its own locks.
     *
     * @throws NamespaceException with {@link NamespaceException.Problem#NO_MEMORY} when the limit would be exceeded;
     *                            nothing is added then
     */
    @SuppressWarnings("NonAtomicVolatileUpdate") // under this budget's monitor; volatile for the readers without it
    synchronized void grow(String holder, long bytes, String what) {
        if (bytes > limit - total) {
            throw NamespaceException.noMemory(what + " needs " + Units.binary(bytes, 1) + " more " + memory + ", but"
                    + " only " + Units.binary(Math.max(0, limit - total), 1) + " of the server's "
                    + Units.binary(limit, 1) + " " + limitName + " is free: " + advice);
        }
        reserved.merge(holder, bytes, Long::sum);
        total += bytes;
    }

    /** Gives back {@code bytes} of what {@link #grow} added for {@code holder}. */
    @SuppressWarnings("NonAtomicVolatileUpdate") // under this budget's monitor; volatile for the readers without it
    synchronized void shrink(String holder, long bytes) {
        Long held = reserved.get(holder);
        if (held == null) {
            return;
        }
        long given = Math.min(held, bytes);
        if (held == given) {
            reserved.remove(holder);
        } else {
            reserved.put(holder, held - given);
        }
        total -= given;
    }
}
