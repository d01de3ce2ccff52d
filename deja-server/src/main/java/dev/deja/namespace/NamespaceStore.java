package dev.deja.namespace;

import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The durable store behind a namespace, whatever makes it durable (a journal and snapshots, or RocksDB). Writes are
 * asynchronous: their futures complete once the change is as durable as the server's fsync policy says, so a front
 * end answers then without parking an event-loop thread.
 */
public interface NamespaceStore {

    /** The store for reads; may change after {@link #clear()}, so callers fetch it for each operation or batch. */
    SeenSet reader();

    /** Atomically records each key under the owner at the same index (none when {@code owners} is null). */
    CompletableFuture<Verdict[]> checkThenAdd(List<byte[]> keys, long[] owners);

    /** Erases each key held under the owner at the same index (any owner when {@code owners} is null). */
    CompletableFuture<boolean[]> forget(List<byte[]> keys, long[] owners);

    /** Live statistics. */
    SeenStats stats();

    /**
     * Adds that answered "new" since the store was created (RedisBloom's {@code BF.CARD}), for kinds that count
     * them; otherwise the key count of {@link #stats()}.
     */
    default long addedCount() {
        return stats().insertions();
    }

    /**
     * Whether writes fail now because the store cannot write to its disk (full, or the store was opened read-only
     * for that reason); reads are answered meanwhile, and writes resume by themselves once the disk has room.
     */
    boolean writesFailing();

    /** Writes a point to recover from (a snapshot, a checkpoint) in the background; completes with its path. */
    CompletableFuture<Path> snapshot();

    /** Forgets every key. */
    void clear() throws IOException;

    /** Makes everything durable and releases the store; it must not be used afterwards. */
    void close();

    /**
     * Returns once a swap of the underlying store that is in progress (a clear, a loaded dump, a reopen) has
     * finished, so that a call refused by the store it closed can be made again on its successor. Stores that swap
     * synchronize this with their swaps; the others never close a store they go on with.
     */
    default void awaitSwap() {}

    /** Writes the content as a dump payload, or fails when the kind cannot be dumped. */
    default void writeContent(OutputStream out) throws IOException {
        throw new UnsupportedOperationException("this namespace's kind cannot be dumped");
    }

    /** Replaces the content with a store read from a dump, or fails when the kind cannot be dumped. */
    default void replace(HashedSeenSet loaded) throws IOException {
        throw new UnsupportedOperationException("this namespace's kind cannot be loaded from a dump");
    }

    /**
     * Adds every key of {@code source}, a store of the same kind and parameters (a union). Called only for a
     * {@link StoreKind#mergeable()} kind, which says so to clients by name ({@link Namespace#mergeFrom}).
     */
    default CompletableFuture<Path> mergeFrom(NamespaceStore source) {
        throw new UnsupportedOperationException("stores of this kind cannot be merged");
    }
}
