package dev.deja.resp;

import dev.deja.namespace.Namespace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code SET ... NX} commands gathered ({@link Gathering}) and run against the key-value namespace as one store
 * call: one MultiGet per generation and one WriteBatch instead of one of each per command.
 */
final class KvBatch {

    private final Namespace namespace;
    private final List<byte[]> keys = new ArrayList<>();
    private final List<byte[]> values = new ArrayList<>();
    private long[] expiries = new long[16];
    private final List<CompletableFuture<Boolean>> replies = new ArrayList<>();

    KvBatch(Namespace namespace) {
        this.namespace = namespace;
    }

    Namespace namespace() {
        return namespace;
    }

    int size() {
        return keys.size();
    }

    /** Adds one {@code SET key value NX}: completes with whether it set the key, or fails as that command would. */
    CompletableFuture<Boolean> add(byte[] key, byte[] value, long expiresAtMillis) {
        int i = keys.size();
        if (i == expiries.length) {
            expiries = Arrays.copyOf(expiries, 2 * i);
        }
        keys.add(key);
        values.add(value);
        expiries[i] = expiresAtMillis;
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
        replies.add(reply);
        return reply;
    }

    /** Runs the gathered commands; each reply completes once the write is as durable as {@code --fsync} says. */
    void run() {
        int n = keys.size();
        long[] expiresAt = Arrays.copyOf(expiries, n);
        RuntimeException[] refused = new RuntimeException[n];
        CompletableFuture<boolean[]> done;
        try {
            done = namespace.writeExact(store -> store.putIfAbsentAll(keys, values, expiresAt, refused));
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        done.whenComplete((set, error) -> {
            for (int i = 0; i < n; i++) {
                CompletableFuture<Boolean> reply = replies.get(i);
                if (error != null) {
                    reply.completeExceptionally(error);
                } else if (refused[i] != null) {
                    reply.completeExceptionally(refused[i]);
                } else {
                    reply.complete(set[i]);
                }
            }
        });
    }
}
