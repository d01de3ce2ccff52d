package dev.deja.exact;

import java.nio.ByteBuffer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The read-then-write of the key-value operations ({@link KeyValues}): each key's live copy is read, an
 * {@link Update} decides what to write, and every write goes into the newest generation in one WriteBatch. Callers
 * hold the store's read lock and the keys' locks ({@link StoreGuard#write}), so updates of a key are linearizable
 * with each other and with the seen-set's writes.
 */
final class KeyUpdates {

    /** Decides what to write for one key: given its live copy (null if not held) and now, the value or null. */
    interface Update {
        StoredValue apply(StoredValue held, long nowMillis);
    }

    private final GenerationKeys keys;

    KeyUpdates(GenerationKeys keys) {
        this.keys = keys;
    }

    /**
     * Applies {@code updates[p]} to the key at position {@code p} of the caller's list, in order, so a key given
     * twice sees what the first update wrote. An update that throws leaves its key unchanged and puts the exception
     * in {@code refused} at its position; the others still apply.
     *
     * @return for each position of the caller's list, whether a value was written
     */
    boolean[] apply(KeyBatch batch, Update[] updates, RuntimeException[] refused, long nowMillis)
            throws RocksDBException {
        boolean[] written = new boolean[refused.length];
        byte[][] k = batch.keys();
        long[] hashes = batch.hashes();
        GenerationKeys.Hit[] hits = keys.newest(batch, nowMillis);
        Generation newest = keys.newest();
        // What earlier updates of this call wrote, in the order of the keys' first write.
        Map<ByteBuffer, StoredValue> writes = new LinkedHashMap<>();
        for (int j = 0; j < k.length; j++) {
            int p = batch.position(j);
            ByteBuffer kb = ByteBuffer.wrap(k[j]);
            StoredValue current = writes.containsKey(kb) ? writes.get(kb) : hits[j] == null ? null : hits[j].value();
            StoredValue next;
            try {
                next = updates[p].apply(current, nowMillis);
            } catch (RuntimeException e) {
                refused[p] = e;
                continue;
            }
            if (next == null) {
                continue;
            }
            written[p] = true;
            if (hits[j] == null || hits[j].generation() != newest) {
                newest.filter.add(hashes[2 * j], hashes[2 * j + 1]);
            }
            writes.put(kb, next);
        }
        if (!writes.isEmpty()) {
            try (WriteBatch batchWrites = new WriteBatch()) {
                for (Map.Entry<ByteBuffer, StoredValue> w : writes.entrySet()) {
                    @SuppressWarnings("ByteBufferBackingArray") // the key wraps a whole key (ByteBuffer.wrap above)
                    byte[] key = w.getKey().array();
                    keys.put(batchWrites, newest, key, w.getValue());
                }
                keys.write(batchWrites);
            }
        }
        return written;
    }
}
