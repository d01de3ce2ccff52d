package dev.deja.namespace;

import dev.deja.seen.HashedSeenSet;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;

/**
 * One kind of store a namespace can hold ({@code bloom}, {@code recent}, ...): its parameters, how to build a
 * store from them, and how to write and read its snapshot.
 *
 * <p>Parameters travel as strings (HTTP JSON, RESP arguments, the namespace's properties file), so a kind
 * validates and completes them once, in {@link #parameters}, and every other method receives only the canonical
 * map that method returned.
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

    /** A new, empty store built from canonical parameters. */
    HashedSeenSet create(Map<String, String> parameters);

    /** Writes the store's whole content; the store keeps serving while this runs. */
    void writeSnapshot(HashedSeenSet store, OutputStream out) throws IOException;

    /** Reads a store written by {@link #writeSnapshot} for the same canonical parameters. */
    HashedSeenSet readSnapshot(Map<String, String> parameters, InputStream in) throws IOException;

    /** The number of keys the store is sized for (reported as RedisBloom's {@code Capacity}). */
    long capacity(Map<String, String> parameters);

    /**
     * Adds every key of {@code source} into {@code target}; both were built from equal parameters.
     *
     * @throws UnsupportedOperationException when stores of this kind cannot be merged
     */
    default void merge(HashedSeenSet target, HashedSeenSet source) {
        throw new UnsupportedOperationException("namespaces of kind '" + name() + "' cannot be merged");
    }
}
