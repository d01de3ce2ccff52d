package dev.deja.redis.node;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import java.util.concurrent.CompletableFuture;

/**
 * One Redis target the client talks to: a standalone instance or a whole Redis Cluster, named by its address so that
 * every error can say where it happened.
 */
public interface Node extends AutoCloseable {

    /** The instance's address ({@code redis://127.0.0.1:6379}, or the cluster's seed addresses). */
    String name();

    /**
     * The connection's commands (scripts, and {@code dispatch} of commands built by hand), the type a standalone and a
     * cluster connection share; opens the connection again first if it was lost.
     */
    RedisClusterAsyncCommands<byte[], byte[]> commands();

    /** Bytes of memory Redis uses ({@code used_memory} of {@code INFO memory}), summed over a cluster's masters. */
    CompletableFuture<Long> usedMemory();

    /** Closes the connection. */
    @Override
    void close();

    /** {@code used_memory} read from the text of {@code INFO memory}. */
    static long usedMemory(String info) {
        for (String line : (Iterable<String>) info.lines()::iterator) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        throw new IllegalStateException("INFO memory has no used_memory line");
    }
}
