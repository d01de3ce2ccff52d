package dev.deja.namespace;

import java.util.Map;

/**
 * The heap and the native memory the namespaces reserve against the server's limits ({@link MemoryBudget}): a
 * namespace reserves both, or neither, when it is created or loaded, and gives both back when it goes.
 */
final class NamespaceMemory {

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
}
