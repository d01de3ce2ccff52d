package dev.deja.namespace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

/**
 * One kind of store a namespace can hold ({@code bloom}, {@code recent}, {@code exact}): its parameters and how to
 * open a durable store from them in a namespace's directory.
 *
 * <p>Parameters travel as strings (HTTP JSON, RESP arguments, the namespace's properties file), so a kind
 * validates and completes them once, in {@link #parameters}, and every other method receives only the canonical
 * map that method returned. Kinds held in memory and made durable by a journal and snapshots implement {@link
 * SnapshotKind}; a kind with its own durable storage implements {@link #open} itself.
 */
public interface StoreKind {

    /** The kind's name as clients write it, for example {@code bloom}. */
    String name();

    /**
     * Validates raw parameters and returns the complete canonical set, with defaults filled in, in a stable order.
     *
     * @throws IllegalArgumentException naming the parameter and its valid range when one is unknown or invalid
     */
    Map<String, String> parameters(Map<String, String> raw);

    /**
     * Checks canonical parameters for a namespace about to be created, beyond what {@link #parameters} checks: rules
     * that came after namespaces may have been created without them, which must keep loading. Nothing by default.
     *
     * @throws IllegalArgumentException naming the parameters and the values they need
     */
    default void checkCreate(Map<String, String> parameters) {}

    /**
     * Whether two namespaces of this kind and the same parameters can be merged into one, their union
     * ({@link Namespace#mergeFrom}); false by default.
     */
    default boolean mergeable() {
        return false;
    }

    /**
     * Whether a {@link dev.deja.seen.Verdict#RETRY} from this kind's store means the key was refused, not recorded: a
     * filter that keeps no owners (bloom, cuckoo) answers RETRY only for a key it cannot take. False by default: RETRY
     * means the key is held under the caller's own owner.
     */
    default boolean retryMeansRefused() {
        return false;
    }

    /**
     * The number of keys the store is sized for (reported as RedisBloom's {@code Capacity}); -1 for a store bounded
     * by time or bytes rather than keys.
     */
    long capacity(Map<String, String> parameters);

    /**
     * The most bytes of the JVM's heap the store's data takes when full, reserved against the server's namespace
     * memory limit when the namespace is created or loaded ({@link MemoryBudget}); 0 for a store whose memory is
     * bounded outside the heap.
     */
    long memoryBytes(Map<String, String> parameters);

    /**
     * The most bytes of native memory (outside the heap) the store takes, reserved against the server's native
     * memory limit; 0, the default, for a store held on the heap.
     */
    default long nativeMemoryBytes(Map<String, String> parameters) {
        return 0;
    }

    /**
     * Opens the store kept in {@code dir} (the namespace's directory, which holds nothing else but the namespace's
     * metadata file), recovering what it holds, or creates it empty.
     */
    NamespaceStore open(String namespace, Map<String, String> parameters, Path dir, Durability durability)
            throws IOException;
}
