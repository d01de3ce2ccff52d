package dev.deja.exact;

import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * The write batches of the seen-set: {@code checkThenAdd} and {@code forget} of many keys, each one lookup and one
 * WriteBatch, under the store's read lock and the keys' locks ({@link StoreGuard#write}); and {@code addNew}, one
 * WriteBatch of keys its single caller found new, under the read lock alone.
 */
final class SeenWrites {

    private final GenerationKeys keys;
    /** Whether duplicates are counted and refreshed into the newest generation. */
    private final StoreOptions policy;

    SeenWrites(GenerationKeys keys, StoreOptions policy) {
        this.keys = keys;
        this.policy = policy;
    }

    /**
     * Answers each key and records the new ones (and, as the options say, counts duplicates and refreshes them into
     * the newest generation); {@code owners} may be null for none.
     */
    Verdict[] checkThenAdd(KeyBatch batch, long[] owners, long nowMillis) throws RocksDBException {
        byte[][] k = batch.keys();
        long[] hashes = batch.hashes();
        Verdict[] out = new Verdict[k.length];
        Generation newest = keys.newest();
        GenerationKeys.Hit[] hits = keys.newest(batch, nowMillis);
        // What each key holds after the calls before it in this batch, so repeats see their predecessors.
        Map<ByteBuffer, GenerationKeys.Hit> state = new HashMap<>(k.length * 2);
        Set<ByteBuffer> dirty = new LinkedHashSet<>();
        // Hashes of the keys the newest generation is about to hold, added to its filter as one batch before
        // the write (every key written goes to the newest generation's filter first; FilterLoader relies on it).
        long[] newestAdds = new long[2 * k.length];
        int adds = 0;
        for (int i = 0; i < k.length; i++) {
            ByteBuffer kb = ByteBuffer.wrap(k[i]);
            GenerationKeys.Hit hit = state.containsKey(kb) ? state.get(kb) : hits[i];
            long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
            boolean intoNewest; // whether this call copies or writes the key into the newest generation
            if (hit == null) {
                out[i] = Verdict.NEW;
                hit = new GenerationKeys.Hit(newest, new StoredValue(owner, nowMillis, 0));
                intoNewest = true;
                dirty.add(kb);
            } else {
                out[i] = owner != SeenSet.NO_OWNER && hit.value().owner() == owner ? Verdict.RETRY : Verdict.DUPLICATE;
                StoredValue value = hit.value();
                Generation target = hit.generation();
                boolean counted = policy.countDuplicates() && out[i] == Verdict.DUPLICATE;
                if (counted) {
                    value = value.plusDuplicate();
                }
                if (policy.refreshOnDuplicate()) {
                    target = newest;
                }
                intoNewest = target != hit.generation(); // only refresh-on-duplicate moves a key, to the newest
                if (counted || intoNewest) {
                    hit = new GenerationKeys.Hit(target, value);
                    dirty.add(kb);
                }
            }
            if (intoNewest) {
                newestAdds[2 * adds] = hashes[2 * i];
                newestAdds[2 * adds++ + 1] = hashes[2 * i + 1];
            }
            state.put(kb, hit);
        }
        newest.filter.addAll(Arrays.copyOf(newestAdds, 2 * adds));
        if (!dirty.isEmpty()) {
            try (WriteBatch writes = new WriteBatch()) {
                for (ByteBuffer kb : dirty) {
                    GenerationKeys.Hit hit = state.get(kb);
                    @SuppressWarnings("ByteBufferBackingArray") // kb wraps a whole key (ByteBuffer.wrap above)
                    byte[] key = kb.array();
                    keys.put(writes, hit.generation(), key, hit.value());
                }
                keys.write(writes);
            }
        }
        return out;
    }

    /**
     * Records keys the caller found not held, into the newest generation, with no lookup: their hashes go into that
     * generation's filter, then every key into one WriteBatch. {@code owners} may be null for none.
     */
    void addNew(KeyBatch batch, long[] owners, long nowMillis) throws RocksDBException {
        byte[][] k = batch.keys();
        Generation newest = keys.newest();
        batch.addTo(newest.filter);
        try (WriteBatch writes = new WriteBatch()) {
            for (int i = 0; i < k.length; i++) {
                long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
                keys.put(writes, newest, k[i], new StoredValue(owner, nowMillis, 0));
            }
            keys.write(writes);
        }
    }

    /**
     * Records keys the caller found not held, into the newest generation, as {@link #addNew} does, but as one table
     * file RocksDB takes in whole ({@link GenerationKeys#ingest}) instead of memtable inserts.
     */
    void ingestNew(KeyBatch batch, long[] owners, long nowMillis) throws RocksDBException {
        byte[][] k = batch.keys();
        Generation newest = keys.newest();
        batch.addTo(newest.filter);
        byte[][] values = new byte[k.length][];
        for (int i = 0; i < k.length; i++) {
            long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
            values[i] = keys.encode(newest, new StoredValue(owner, nowMillis, 0));
        }
        keys.ingest(newest, k, values);
    }

    /**
     * Erases each key that is held under {@code owners[i]} (any owner where {@code owners} is null or the owner is
     * {@link SeenSet#NO_OWNER}), every copy of it; answers whether it did.
     */
    boolean[] forget(KeyBatch batch, long[] owners, long nowMillis) throws RocksDBException {
        byte[][] k = batch.keys();
        boolean[] out = new boolean[k.length];
        byte[][][] copies = keys.everyCopy(batch);
        int g = copies.length;
        Set<ByteBuffer> erased = new HashSet<>();
        try (WriteBatch deletes = new WriteBatch()) {
            for (int i = 0; i < k.length; i++) {
                StoredValue newest = null;
                for (int j = 0; j < g && newest == null; j++) {
                    byte[] v = copies[j][i];
                    if (v != null) {
                        newest = keys.decodeCopy(v, j);
                    }
                }
                long owner = owners == null ? SeenSet.NO_OWNER : owners[i];
                // An expired newest copy shadows older ones: the key is not held, there is nothing to erase.
                boolean ours = newest != null
                        && !newest.expiredAt(nowMillis)
                        && (owner == SeenSet.NO_OWNER || newest.owner() == owner);
                out[i] = ours && erased.add(ByteBuffer.wrap(k[i]));
                if (out[i]) {
                    for (int j = 0; j < g; j++) {
                        if (copies[j][i] != null) {
                            keys.deleteCopy(deletes, j, k[i]);
                        }
                    }
                }
            }
            if (deletes.count() > 0) {
                keys.write(deletes);
            }
        }
        return out;
    }
}
