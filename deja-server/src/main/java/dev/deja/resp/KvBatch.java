package dev.deja.resp;

import dev.deja.namespace.Namespace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code SET ... NX} commands run against the key-value namespace as one store call: one MultiGet per generation
 * and one WriteBatch instead of one of each per command. A command the store refuses (a bad expiry) fails alone.
 */
final class KvBatch extends GatheredBatch {

    private final List<byte[]> values = new ArrayList<>();
    private long[] expiries = new long[16];
    private RuntimeException[] refused;

    KvBatch(Namespace namespace) {
        super(namespace);
    }

    /** Adds one {@code SET key value NX}: completes with whether it set the key. */
    CompletableFuture<Boolean> add(byte[] key, byte[] value, long expiresAtMillis) {
        int i = size();
        if (i == expiries.length) {
            expiries = Arrays.copyOf(expiries, 2 * i);
        }
        values.add(value);
        expiries[i] = expiresAtMillis;
        return gather(key);
    }

    @Override
    protected CompletableFuture<boolean[]> call() {
        long[] expiresAt = Arrays.copyOf(expiries, size());
        refused = new RuntimeException[size()];
        return namespace.writeExact(store -> store.putIfAbsentAll(keys, values, expiresAt, refused));
    }

    @Override
    protected RuntimeException refused(int index) {
        return refused[index];
    }
}
