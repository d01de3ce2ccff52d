package dev.deja.exact;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * Reads and writes keys in the generations' column families: a lookup asks each generation's in-memory
 * {@link KeyFilter} first and RocksDB only for the keys it does not rule out, and a read that fails is an error,
 * never an absent key. Callers hold the store's locks ({@link StoreGuard}).
 */
final class GenerationKeys {

    /** A key's newest copy: the generation holding it and its decoded value. */
    record Hit(Generation generation, StoredValue value) {}

    private final RocksDB db;
    private final Tuning tuning;
    private final Generations generations;
    private final ValueLayout layout;
    private final StoreHealth health;
    /** Made at the first ingestion: most stores never ingest. */
    private TableIngest ingest;

    GenerationKeys(StoreDatabase database, Generations generations, ValueLayout layout, StoreHealth health) {
        this.db = database.db();
        this.tuning = database.tuning();
        this.generations = generations;
        this.layout = layout;
        this.health = health;
    }

    /** The newest generation, the one new keys go to. */
    Generation newest() {
        return generations.newest();
    }

    /**
     * For each key, its copy in the newest generation that holds it, or null, also when that copy's expiry has
     * passed at {@code nowMillis} (older copies are shadowed by it); one MultiGet per generation, for the keys its
     * filter does not rule out.
     */
    Hit[] newest(KeyBatch batch, long nowMillis) {
        byte[][] keys = batch.keys();
        long[] hashes = batch.hashes();
        Hit[] hits = new Hit[keys.length];
        int[] pending = new int[keys.length];
        for (int i = 0; i < pending.length; i++) {
            pending[i] = i;
        }
        int remaining = keys.length;
        int[] probed = new int[keys.length];
        for (int g = generations.size() - 1; g >= 0 && remaining > 0; g--) {
            Generation gen = generations.get(g);
            long[] pendingHashes = new long[2 * remaining];
            for (int j = 0; j < remaining; j++) {
                pendingHashes[2 * j] = hashes[2 * pending[j]];
                pendingHashes[2 * j + 1] = hashes[2 * pending[j] + 1];
            }
            boolean[] maybe = gen.filter.mayContainAll(pendingHashes);
            List<byte[]> probe = new ArrayList<>();
            for (int j = 0; j < remaining; j++) {
                if (maybe[j]) {
                    probed[probe.size()] = j;
                    probe.add(keys[pending[j]]);
                }
            }
            if (probe.isEmpty()) {
                continue;
            }
            List<byte[]> values = multiGet(Collections.nCopies(probe.size(), gen.handle), probe);
            for (int p = 0; p < values.size(); p++) {
                byte[] v = values.get(p);
                if (v != null) {
                    int j = probed[p];
                    StoredValue value = layout.decode(v, gen);
                    hits[pending[j]] = value.expiredAt(nowMillis) ? null : new Hit(gen, value);
                    pending[j] = -1; // answered: a newer copy shadows older ones
                }
            }
            int stillMissing = 0;
            for (int j = 0; j < remaining; j++) {
                if (pending[j] >= 0) {
                    pending[stillMissing++] = pending[j];
                }
            }
            remaining = stillMissing;
        }
        return hits;
    }

    /**
     * {@link #newest(KeyBatch, long)} for one key, given as its stored bytes and its canonical hash: one get in each
     * generation, newest first, whose filter does not rule it out, until one holds it.
     */
    Hit newest(byte[] key, long high, long low, long nowMillis) {
        for (int g = generations.size() - 1; g >= 0; g--) {
            Generation gen = generations.get(g);
            if (gen.filter.mayContain(high, low)) {
                byte[] v = get(gen.handle, key);
                if (v != null) {
                    StoredValue value = layout.decode(v, gen);
                    return value.expiredAt(nowMillis) ? null : new Hit(gen, value); // a newer copy shadows older ones
                }
            }
        }
        return null;
    }

    /**
     * Every generation's copy of each key, raw: {@code copies[j][i]} is key {@code i} in the {@code j}-th generation,
     * newest first, or null. Every generation may hold a copy (refresh-on-duplicate copies keys forward), so each
     * whose filter does not rule the key out is asked.
     */
    byte[][][] everyCopy(KeyBatch batch) {
        byte[][] keys = batch.keys();
        long[] hashes = batch.hashes();
        int g = generations.size();
        List<ColumnFamilyHandle> families = new ArrayList<>();
        List<byte[]> probe = new ArrayList<>();
        List<int[]> at = new ArrayList<>();
        for (int j = 0; j < g; j++) {
            Generation gen = generations.get(g - 1 - j);
            for (int i = 0; i < keys.length; i++) {
                if (gen.filter.mayContain(hashes[2 * i], hashes[2 * i + 1])) {
                    families.add(gen.handle);
                    probe.add(keys[i]);
                    at.add(new int[] {j, i});
                }
            }
        }
        byte[][][] copies = new byte[g][keys.length][];
        List<byte[]> values = probe.isEmpty() ? List.of() : multiGet(families, probe);
        for (int p = 0; p < values.size(); p++) {
            copies[at.get(p)[0]][at.get(p)[1]] = values.get(p);
        }
        return copies;
    }

    /** The value whose bytes {@link #everyCopy} found in the {@code j}-th generation, newest first. */
    StoredValue decodeCopy(byte[] copy, int j) {
        return layout.decode(copy, generations.get(generations.size() - 1 - j));
    }

    /** Adds to {@code batch} the write of {@code value} for {@code key} into generation {@code g}. */
    void put(WriteBatch batch, Generation g, byte[] key, StoredValue value) throws RocksDBException {
        batch.put(g.handle, key, layout.encode(value, g));
    }

    /** Adds to {@code batch} the delete of {@code key}'s copy in the {@code j}-th generation, newest first. */
    void deleteCopy(WriteBatch batch, int j, byte[] key) throws RocksDBException {
        batch.delete(generations.get(generations.size() - 1 - j).handle, key);
    }

    /** The bytes generation {@code g} holds for {@code value}. */
    byte[] encode(Generation g, StoredValue value) {
        return layout.encode(value, g);
    }

    /**
     * Writes {@code values[i]} for {@code keys[i]} into generation {@code g} as one table file ({@link TableIngest}),
     * durable when it returns, and notes that writes work.
     */
    void ingest(Generation g, byte[][] keys, byte[][] values) throws RocksDBException {
        if (ingest == null) {
            ingest = new TableIngest(db, tuning);
        }
        ingest.ingest(g, keys, values);
        health.wrote();
    }

    /** Frees what {@link #ingest} holds; before the database closes. */
    void close() {
        if (ingest != null) {
            ingest.close();
            ingest = null;
        }
    }

    /** Writes the batch, durable per the store's fsync policy, and notes that writes work. */
    void write(WriteBatch batch) throws RocksDBException {
        db.write(tuning.writeOptions, batch);
        health.wrote();
    }

    /** One key's value in a column family, or null; a read that fails throws rather than answering null. */
    private byte[] get(ColumnFamilyHandle family, byte[] key) {
        try {
            return db.get(family, tuning.readOptions, key);
        } catch (RocksDBException e) {
            throw health.readFailed(e);
        }
    }

    /**
     * One MultiGet: each key's value in its column family, null where it holds none. MultiGet answers null as well
     * for a key whose read failed (a table block whose checksum does not match, an I/O error), which would make an
     * acknowledged key read as new; so each null is asked again with a get, which tells the two apart by throwing
     * for a failed read. Nulls reach this far only for the keys the store's filters do not rule out, so the second
     * look is rare outside the loading of filters after a crash.
     */
    private List<byte[]> multiGet(List<ColumnFamilyHandle> families, List<byte[]> keys) {
        try {
            List<byte[]> values = new ArrayList<>(db.multiGetAsList(tuning.readOptions, families, keys));
            for (int i = 0; i < values.size(); i++) {
                if (values.get(i) == null) {
                    values.set(i, db.get(families.get(i), tuning.readOptions, keys.get(i)));
                }
            }
            return values;
        } catch (RocksDBException e) {
            throw health.readFailed(e);
        }
    }
}
