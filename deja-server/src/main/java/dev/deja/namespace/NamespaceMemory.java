package dev.deja.namespace;

import dev.deja.bloom.ScalingBloomFilter;
import java.util.Map;

/**
 * The heap and the native memory the namespaces reserve against the server's limits ({@link MemoryBudget}): a
 * namespace reserves both, or neither, when it is created or loaded, and gives both back when it goes.
 */
final class NamespaceMemory {

    /** The holder of the heap that scaling bloom filters took as they grew. */
    private static final String GROWTH = "sub-filters of scaling bloom filters";

    private final MemoryBudget heap;
    private final MemoryBudget nativeMemory;

    NamespaceMemory(NamespaceLimits limits) {
        this.heap = MemoryBudget.heap(limits.memoryBytes());
        this.nativeMemory = MemoryBudget.nativeMemory(limits.nativeMemoryBytes());
    }

    /** The heap budget alone, for a second copy of a store while a dump is loaded into it. */
    MemoryBudget heap() {
        return heap;
    }

    MemoryBudget nativeMemory() {
        return nativeMemory;
    }

    /** Reserves the namespace's heap and native memory, both or neither. */
    void reserve(String name, StoreKind kind, Map<String, String> parameters, String what) {
        heap.reserve(name, kind.memoryBytes(parameters), what);
        try {
            nativeMemory.reserve(name, kind.nativeMemoryBytes(parameters), what);
        } catch (RuntimeException e) {
            heap.release(name);
            throw e;
        }
    }

    void release(String name) {
        heap.release(name);
        nativeMemory.release(name);
    }

    /**
     * What admits the heap of a scaling bloom filter's sub-filters after its first (the first is in the namespace's
     * own reservation): added to one reservation shared by every such filter, and given back when a filter closes.
     */
    ScalingBloomFilter.MemoryGate growth() {
        return new ScalingBloomFilter.MemoryGate() {
            @Override
            public void admit(long bytes) {
                heap.grow(GROWTH, bytes, "a scaling bloom filter's next sub-filter");
            }

            @Override
            public void release(long bytes) {
                heap.shrink(GROWTH, bytes);
            }
        };
    }
}
