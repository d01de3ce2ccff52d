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

    private final List<byte[]> values;
    private long[] expiries;
    private RuntimeException[] refused;

    KvBatch(Namespace namespace, int expected) {
        super(namespace, expected);
        values = new ArrayList<>(expected);
        expiries = new long[Math.max(1, expected)];
    }

    /** Adds one {@code SET key value NX}: completes with {@code ifSet} or {@code ifNotSet}. */
    CompletableFuture<Object> add(byte[] key, byte[] value, long expiresAtMillis, Object ifSet, Object ifNotSet) {
        int i = size();
        if (i == expiries.length) {
            expiries = Arrays.copyOf(expiries, 2 * i);
        }
        values.add(value);
        expiries[i] = expiresAtMillis;
        return gather(key, ifSet, ifNotSet);
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
