package dev.deja.exact;

import dev.deja.background.SerialWork;
import dev.deja.hash.Hash128;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.Require;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.stream.Stream;
import org.rocksdb.Checkpoint;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.TickerType;
import org.rocksdb.WriteBatch;

/**
 * The {@code exact} seen-set: a RocksDB store that keeps every key's bytes and never answers wrongly about a key
 * recorded within its window.
 *
 * <p>Design (seed 002, with its age-out replaced). Segment's de-duplication worker keeps message ids in RocksDB,
 * bounds it by size and ages keys out through a secondary index by sequence number and one delete per key; every
 * key is then written three times (key, index entry, tombstones) and the tombstones are compacted again. Here the
 * store is a list of <em>generations</em> ({@link Generations}), one RocksDB column family per time slice
 * ({@code window / generations} long), and a key is written once, into the newest. Age-out drops the oldest column
 * family as a whole: its files are deleted, nothing is rewritten, no index or tombstone exists. The price is
 * granularity: a key is held for at least the window and, while keys keep arriving, at most one slice longer (after
 * an idle spell, until a key written after it is a window old); the size bound removes a slice at a time.
 *
 * <ul>
 *   <li>Time bound: the generation after which no key was written more than {@code window} ago is dropped. The
 *       newest generation is never dropped, so a key written just before a rollover is always still found.</li>
 *   <li>Size bound: when table files plus memtables exceed {@code maxBytes}, the oldest generations are dropped
 *       (and a generation rolls over early once it holds {@code maxBytes / generations}). The window then shrinks;
 *       when it falls below {@code minWindow} the store logs a warning and {@link ExactMetrics#windowBelowMinimum()}
 *       turns true.</li>
 *   <li>Lookups probe generations newest first, one MultiGet per generation for the keys still unanswered and not
 *       ruled out by that generation's in-memory {@link KeyFilter}: a new key, the common case, usually never
 *       reaches RocksDB.</li>
 *   <li>{@link #checkThenAdd} reads then writes under per-key locks ({@link KeyLocks}); a batch takes its keys'
 *       locks in ascending hash order and commits all its writes in one WriteBatch. Generations are
 *       created and dropped under a read-write lock whose read side every operation holds, so no operation ever
 *       sees a closed column family.</li>
 * </ul>
 *
 * <p>A store created with {@link ExactStoreBuilder#values(boolean) values} also keeps a small value and an optional
 * expiry per key, for the key-value idiom of Redis ({@code SET id value NX EX seconds}): see {@link #putIfAbsent}
 * and {@link KeyValues}. A key whose expiry has passed is not held for any operation; it stays on disk, shadowed or
 * not, until its generation ages out.
 *
 * <p>Values are a few bytes ({@link StoredValue}); the RocksDB settings and why are in {@link Tuning}; a generation
 * that stops growing is compacted once into the last level ({@link Sealer}). Durability
 * is RocksDB's write-ahead log, synced per {@link FsyncPolicy}; {@link #checkpoint(Path)} writes a consistent copy
 * that {@link #restore(Path, Path)} turns into a new data directory.
 */
public final class ExactStore implements SeenSet {

    /**
     * The subdirectory of a closed store's directory where its key filters wait for the next open (docs/FORMAT.md
     * section 6.1); deleting its files makes that open read every key back, as after a crash.
     */
    public static final String KEPT_FILTERS_DIRECTORY = KeyFilterFiles.DIRECTORY;
    /** Calls between two size checks when only the size bound can trigger maintenance. */
    private static final int SIZE_CHECK_EVERY = 64;

    private static final long WAL_SYNC_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Clock clock;
    private final IdFormat idFormat;
    private final boolean refreshOnDuplicate;
    private final boolean countDuplicates;
    private final FsyncPolicy fsync;
    private final long timeUnitMillis;
    /** Whether values use the key-value layout; {@link #keyValues} is null otherwise. */
    private final boolean values;

    private final KeyValues keyValues;
    /** How values encode their time ({@link StoredValue#FORMAT_BYTE_TIME} for stores created since it existed). */
    private final int valueFormat;

    private final Tuning tuning;
    private final RocksDB db;
    private final ColumnFamilyHandle defaultFamily;
    private final KeyLocks locks = new KeyLocks();
    private final ReentrantReadWriteLock generationLock = new ReentrantReadWriteLock();
    /** Syncs the write-ahead log once a second under {@code everysec}, on the shared threads; null otherwise. */
    private final SerialWork walSyncer;

    private final Sealer sealer;
    /** Fills the filters of the generations found on disk that no file restored; null if there are none. */
    private final FilterLoader filterLoader;
    /** Where close keeps the key filters for the next open. */
    private final KeyFilterFiles keyFilterFiles;
    /** Whether it can write and read, and the errors callers get when it cannot. */
    private final StoreHealth health;

    /** Changed under the write side of {@link #generationLock}, read under its read side. */
    private final Generations generations;

    private volatile boolean closed;
    /** Set once {@link #close} has finished with its log synced; see {@link #closedDurably()}. */
    private volatile boolean closedDurably;

    private volatile long nextMaintenanceMillis = Long.MIN_VALUE;
    private final AtomicInteger sizeCheckCountdown = new AtomicInteger(SIZE_CHECK_EVERY);

    ExactStore(
            ExactStoreBuilder b,
            long timeUnitMillis,
            int valueFormat,
            Tuning tuning,
            RocksDB db,
            ColumnFamilyHandle defaultFamily,
            List<Generation> existing,
            String readOnlyBecause) {
        // read-only when the disk refused the writes of a writable open (ExactStoreBuilder#open): it answers
        // reads, refuses writes, never rolls generations over and writes nothing at close
        this.health = new StoreHealth(b.directory, b.clock, readOnlyBecause);
        this.timeUnitMillis = timeUnitMillis;
        this.valueFormat = valueFormat;
        this.clock = b.clock;
        long windowMillis = b.window == null ? 0 : b.window.toMillis();
        this.idFormat = b.idFormat;
        this.refreshOnDuplicate = b.refreshOnDuplicate;
        this.countDuplicates = b.countDuplicates;
        this.fsync = b.fsync;
        this.values = b.values;
        this.keyValues = b.values ? new KeyValues(this, windowMillis, b.maxValueBytes) : null;
        this.tuning = tuning;
        this.db = db;
        this.defaultFamily = defaultFamily;
        this.sealer = new Sealer(db, b.directory.toString());
        this.generations = new Generations(
                db,
                tuning.cfOptions,
                sealer,
                existing,
                windowMillis,
                b.generations,
                b.maxBytes,
                b.minWindow == null ? 0 : b.minWindow.toMillis());
        if (fsync == FsyncPolicy.EVERYSEC && !health.readOnly()) {
            walSyncer = ExactThreads.maintenance("exact store " + b.directory + ": write-ahead log sync", () -> {
                syncWal();
                return WAL_SYNC_NANOS;
            });
            walSyncer.start(WAL_SYNC_NANOS);
        } else {
            walSyncer = null;
        }
        this.keyFilterFiles = new KeyFilterFiles(b.directory);
        this.filterLoader = existing.stream().allMatch(g -> g.filter.complete())
                ? null
                : new FilterLoader(db, existing, b.directory.toString());
    }

    /** A builder for a store kept in the given directory (created if missing, reopened if it holds one). */
    public static ExactStoreBuilder builder(Path directory) {
        return new ExactStoreBuilder(Require.nonNull("directory", directory));
    }

    // ---- single-key operations: batches of one, so every path shares one implementation ----

    @Override
    public boolean check(byte[] key) {
        return checkAll(List.of(Require.key(key)))[0];
    }

    @Override
    public void add(byte[] key, long owner) {
        checkThenAdd(key, owner);
    }

    @Override
    public Verdict checkThenAdd(byte[] key, long owner) {
        return checkThenAddAll(List.of(Require.key(key)), new long[] {owner})[0];
    }

    @Override
    public boolean forget(byte[] key, long owner) {
        return forgetAll(List.of(Require.key(key)), new long[] {owner})[0];
    }

    // ---- batches ----

    @Override
    public boolean[] checkAll(List<byte[]> keys) {
        byte[][] k = encode(keys);
        boolean[] out = new boolean[k.length];
        generationLock.readLock().lock();
        try {
            ensureOpen();
            Hit[] hits = newestHits(k, hashes(k), clock.millis());
            for (int i = 0; i < k.length; i++) {
                out[i] = hits[i] != null;
            }
            return out;
        } finally {
            generationLock.readLock().unlock();
        }
    }

    @Override
    public void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null);
    }

    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        byte[][] k = encode(keys);
        Verdict[] out = new Verdict[k.length];
        if (k.length == 0) {
            return out;
        }
        maybeMaintain();
        generationLock.readLock().lock();
        KeyLocks.Lease held = null;
        try {
            ensureOpen();
            health.refuseIfReadOnly();
            long[] hashes = hashes(k);
            held = locks.lock(hashes);
            long now = clock.millis();
            Generation newest = generations.newest();
            Hit[] hits = newestHits(k, hashes, now);
            // What each key holds after the calls before it in this batch, so repeats see their predecessors.
            Map<ByteBuffer, Hit> state = new HashMap<>(k.length * 2);
            Set<ByteBuffer> dirty = new LinkedHashSet<>();
            // Hashes of the keys the newest generation is about to hold, added to its filter as one batch before
            // the write (every key written goes to the newest generation's filter first; FilterLoader relies on it).
            long[] newestAdds = new long[2 * k.length];
            int adds = 0;
            for (int i = 0; i < k.length; i++) {
                ByteBuffer kb = ByteBuffer.wrap(k[i]);
                Hit hit = state.containsKey(kb) ? state.get(kb) : hits[i];
                long owner = owners == null ? NO_OWNER : owners[i];
                boolean intoNewest; // whether this call copies or writes the key into the newest generation
                if (hit == null) {
                    out[i] = Verdict.NEW;
                    hit = new Hit(newest, new StoredValue(owner, now, 0));
                    intoNewest = true;
                    dirty.add(kb);
                } else {
                    out[i] = owner != NO_OWNER && hit.value.owner() == owner ? Verdict.RETRY : Verdict.DUPLICATE;
                    StoredValue value = hit.value;
                    Generation target = hit.generation;
                    boolean counted = countDuplicates && out[i] == Verdict.DUPLICATE;
                    if (counted) {
                        value = value.plusDuplicate();
                    }
                    if (refreshOnDuplicate) {
                        target = newest;
                    }
                    intoNewest = target != hit.generation; // only refresh-on-duplicate moves a key, to the newest
                    if (counted || intoNewest) {
                        hit = new Hit(target, value);
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
                try (WriteBatch batch = new WriteBatch()) {
                    for (ByteBuffer kb : dirty) {
                        Hit hit = state.get(kb);
                        @SuppressWarnings("ByteBufferBackingArray") // kb wraps a whole key (ByteBuffer.wrap above)
                        byte[] key = kb.array();
                        batch.put(hit.generation.handle, key, encode(hit.value, hit.generation));
                    }
                    db.write(tuning.writeOptions, batch);
                    health.wrote();
                }
            }
            return out;
        } catch (RocksDBException e) {
            throw health.writeFailed("write", e);
        } finally {
            if (held != null) {
                locks.unlock(held);
            }
            generationLock.readLock().unlock();
        }
    }

    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        byte[][] k = encode(keys);
        boolean[] out = new boolean[k.length];
        if (k.length == 0) {
            return out;
        }
        generationLock.readLock().lock();
        KeyLocks.Lease held = null;
        try {
            ensureOpen();
            health.refuseIfReadOnly();
            long[] hashes = hashes(k);
            held = locks.lock(hashes);
            long now = clock.millis();
            // Every generation may hold a copy (refresh-on-duplicate copies keys forward): look in each whose filter
            // does not rule the key out. copies[j][i]: key i in the j-th generation, newest first.
            int g = generations.size();
            List<ColumnFamilyHandle> families = new ArrayList<>();
            List<byte[]> probe = new ArrayList<>();
            List<int[]> at = new ArrayList<>();
            for (int j = 0; j < g; j++) {
                Generation gen = generations.get(g - 1 - j);
                for (int i = 0; i < k.length; i++) {
                    if (gen.filter.mayContain(hashes[2 * i], hashes[2 * i + 1])) {
                        families.add(gen.handle);
                        probe.add(k[i]);
                        at.add(new int[] {j, i});
                    }
                }
            }
            byte[][][] copies = new byte[g][k.length][];
            List<byte[]> values = probe.isEmpty() ? List.of() : multiGet(families, probe);
            for (int p = 0; p < values.size(); p++) {
                copies[at.get(p)[0]][at.get(p)[1]] = values.get(p);
            }
            Set<ByteBuffer> erased = new HashSet<>();
            try (WriteBatch batch = new WriteBatch()) {
                for (int i = 0; i < k.length; i++) {
                    StoredValue newest = null;
                    for (int j = 0; j < g && newest == null; j++) {
                        byte[] v = copies[j][i];
                        if (v != null) {
                            newest = decode(v, generations.get(g - 1 - j));
                        }
                    }
                    long owner = owners == null ? NO_OWNER : owners[i];
                    // An expired newest copy shadows older ones: the key is not held, there is nothing to erase.
                    boolean ours =
                            newest != null && !newest.expiredAt(now) && (owner == NO_OWNER || newest.owner() == owner);
                    out[i] = ours && erased.add(ByteBuffer.wrap(k[i]));
                    if (out[i]) {
                        for (int j = 0; j < g; j++) {
                            if (copies[j][i] != null) {
                                batch.delete(generations.get(g - 1 - j).handle, k[i]);
                            }
                        }
                    }
                }
                if (batch.count() > 0) {
                    db.write(tuning.writeOptions, batch);
                    health.wrote();
                }
            }
            return out;
        } catch (RocksDBException e) {
            throw health.writeFailed("forget", e);
        } finally {
            if (held != null) {
                locks.unlock(held);
            }
            generationLock.readLock().unlock();
        }
    }

    // ---- what the store knows beyond the seen-set contract ----

    /**
     * What the store holds about a key: owner, first-seen time and (when counting) its duplicate count; empty when
     * the key is not held.
     */
    public Optional<KeyInfo> info(byte[] key) {
        byte[][] k = encode(List.of(Require.key(key)));
        generationLock.readLock().lock();
        try {
            ensureOpen();
            Hit hit = newestHits(k, hashes(k), clock.millis())[0];
            if (hit == null) {
                return Optional.empty();
            }
            StoredValue v = hit.value;
            return Optional.of(
                    new KeyInfo(v.owner(), Instant.ofEpochMilli(v.firstSeen()), countDuplicates ? v.duplicates() : -1));
        } finally {
            generationLock.readLock().unlock();
        }
    }

    // ---- key-value operations (a store created with values): Redis's SET NX / XX, GET, PTTL ----

    /**
     * What the store holds for a key that is held and not expired.
     *
     * @param value           the key's value; empty for a key recorded by the seen-set calls
     * @param firstSeen       when the key was first recorded, rounded down to the store's time unit
     * @param expiresAtMillis the key's own expiry, epoch milliseconds, or 0 for none
     */
    @SuppressWarnings("ArrayRecordComponent") // equals and hashCode below use the array's content
    public record Entry(byte[] value, Instant firstSeen, long expiresAtMillis) {

        @Override
        public boolean equals(Object o) {
            return o instanceof Entry e
                    && Arrays.equals(value, e.value)
                    && firstSeen.equals(e.firstSeen)
                    && expiresAtMillis == e.expiresAtMillis;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(value) * 31 + firstSeen.hashCode() * 17 + Long.hashCode(expiresAtMillis);
        }

        @Override
        public String toString() {
            return "Entry[value=" + value.length + " bytes, firstSeen=" + firstSeen + ", expiresAtMillis="
                    + expiresAtMillis + "]";
        }
    }

    /**
     * Sets the key if it is not held (absent, or its expiry has passed), like Redis {@code SET key value NX}.
     *
     * @param expiresAtMillis epoch millisecond at which the key stops being held, 0 for none (held for the window);
     *                        at or before now, the key is set and at once expired; at most
     *                        {@link #maxExpiresAtMillis()}
     * @return whether the key was not held and is now set
     * @throws IllegalArgumentException if the value is longer than the store's limit or the expiry lies beyond the
     *                                  window
     * @throws IllegalStateException    if the store was created without values
     */
    public boolean putIfAbsent(byte[] key, byte[] value, long expiresAtMillis) {
        return keyValues().putIfAbsent(key, value, expiresAtMillis);
    }

    /**
     * {@link #putIfAbsent} for many keys in one call (one MultiGet per generation, one WriteBatch), as a server runs
     * a client's pipelined {@code SET ... NX} commands. The keys apply in order: a key given twice is set by the
     * first and refused by the second.
     *
     * @param refused receives, at a key's index, why that key was refused (the exceptions {@link #putIfAbsent}
     *                throws for it); that key is unchanged and the others still apply
     * @return for each key, whether it was not held and is now set
     * @throws IllegalArgumentException if the lists and arrays differ in length
     * @throws IllegalStateException    if the store was created without values
     */
    public boolean[] putIfAbsentAll(
            List<byte[]> keys, List<byte[]> values, long[] expiresAtMillis, RuntimeException[] refused) {
        return keyValues().putIfAbsentAll(keys, values, expiresAtMillis, refused);
    }

    /**
     * Overwrites the key if it is held, like Redis {@code SET key value XX}; it keeps its first-seen time, owner and
     * duplicate count, and its expiry too when {@code keepExpiry} (Redis {@code KEEPTTL}, then
     * {@code expiresAtMillis} must be 0).
     *
     * @return whether the key was held and is now overwritten
     * @throws IllegalArgumentException as {@link #putIfAbsent}
     * @throws IllegalStateException    if the store was created without values
     */
    public boolean putIfPresent(byte[] key, byte[] value, long expiresAtMillis, boolean keepExpiry) {
        return keyValues().putIfPresent(key, value, expiresAtMillis, keepExpiry);
    }

    /**
     * Sets the key whether or not it is held, like Redis {@code SET key value}: an overwrite as
     * {@link #putIfPresent}, else a new key as {@link #putIfAbsent} (without expiry when {@code keepExpiry}).
     *
     * @throws IllegalArgumentException as {@link #putIfAbsent}
     * @throws IllegalStateException    if the store was created without values
     */
    public void put(byte[] key, byte[] value, long expiresAtMillis, boolean keepExpiry) {
        keyValues().put(key, value, expiresAtMillis, keepExpiry);
    }

    /**
     * What the store holds for the key, empty when it is not held or its expiry has passed.
     *
     * @throws IllegalStateException if the store was created without values
     */
    public Optional<Entry> get(byte[] key) {
        return keyValues().get(key);
    }

    /**
     * Milliseconds until the key may disappear, like Redis {@code PTTL}: until its own expiry if it has one, else
     * until the end of its time window ({@code window} after it was written, at the latest after its first-seen
     * time; 0 once that has passed and the key waits for its generation to age out); -1 when held with neither
     * (a store bounded by size alone); -2 when not held.
     *
     * @throws IllegalStateException if the store was created without values
     */
    public long remainingMillis(byte[] key) {
        return keyValues().remainingMillis(key);
    }

    /**
     * The largest expiry a key may be given now: now plus the window, since no key outlives the window; {@link
     * Long#MAX_VALUE} for a store bounded by size alone.
     *
     * @throws IllegalStateException if the store was created without values
     */
    public long maxExpiresAtMillis() {
        return keyValues().maxExpiresAtMillis();
    }

    /** The clock that dates keys and expiries; callers turn relative expiries into absolute ones with it. */
    public Clock clock() {
        return clock;
    }

    private KeyValues keyValues() {
        if (keyValues == null) {
            throw new IllegalStateException("store was created without values");
        }
        return keyValues;
    }

    /** Decides what to write for one key: given its live copy (null if not held) and now, the value or null. */
    interface Update {
        StoredValue apply(StoredValue held, long nowMillis);
    }

    /**
     * Reads one key and writes what {@code update} returns into the newest generation, in one WriteBatch, under
     * the key's stripe lock, so that updates of a key are linearizable with each other and with
     * {@link #checkThenAddAll}.
     *
     * @return whether a value was written
     */
    boolean update(byte[] key, Update update) {
        RuntimeException[] refused = new RuntimeException[1];
        boolean written = updateAll(List.of(Require.key(key)), new Update[] {update}, refused)[0];
        if (refused[0] != null) {
            throw refused[0];
        }
        return written;
    }

    /**
     * {@link #update} for many keys at once: one MultiGet per generation and one WriteBatch for all of them, under
     * their stripe locks. The updates apply in order, so a key given twice sees what the first update wrote. An
     * update that throws (or a key the id format rejects) leaves its key unchanged and puts the exception in
     * {@code refused} at its index; the others still apply. A failure to read or write fails the whole call and
     * changes nothing.
     *
     * @return for each key, whether a value was written
     */
    boolean[] updateAll(List<byte[]> keys, Update[] updates, RuntimeException[] refused) {
        int n = keys.size();
        boolean[] written = new boolean[n];
        int[] index = new int[n];
        byte[][] k = new byte[n][];
        int valid = 0;
        for (int i = 0; i < n; i++) {
            try {
                k[valid] = idFormat.encode(Require.key(keys.get(i)));
                index[valid++] = i;
            } catch (RuntimeException e) {
                refused[i] = e;
            }
        }
        if (valid == 0) {
            return written;
        }
        k = Arrays.copyOf(k, valid);
        maybeMaintain();
        generationLock.readLock().lock();
        KeyLocks.Lease held = null;
        try {
            ensureOpen();
            health.refuseIfReadOnly();
            long[] hashes = hashes(k);
            held = locks.lock(hashes);
            long now = clock.millis();
            Hit[] hits = newestHits(k, hashes, now);
            Generation newest = generations.newest();
            Map<ByteBuffer, StoredValue> state = new HashMap<>(); // what earlier updates of this call wrote
            Map<ByteBuffer, byte[]> writes = new LinkedHashMap<>();
            for (int j = 0; j < valid; j++) {
                ByteBuffer kb = ByteBuffer.wrap(k[j]);
                StoredValue current = state.containsKey(kb) ? state.get(kb) : hits[j] == null ? null : hits[j].value;
                StoredValue next;
                try {
                    next = updates[index[j]].apply(current, now);
                } catch (RuntimeException e) {
                    refused[index[j]] = e;
                    continue;
                }
                if (next == null) {
                    continue;
                }
                written[index[j]] = true;
                if (hits[j] == null || hits[j].generation != newest) {
                    newest.filter.add(hashes[2 * j], hashes[2 * j + 1]);
                }
                state.put(kb, next);
                writes.put(kb, encode(next, newest));
            }
            if (!writes.isEmpty()) {
                try (WriteBatch batch = new WriteBatch()) {
                    for (Map.Entry<ByteBuffer, byte[]> w : writes.entrySet()) {
                        batch.put(newest.handle, w.getKey().array(), w.getValue());
                    }
                    db.write(tuning.writeOptions, batch);
                    health.wrote();
                }
            }
            return written;
        } catch (RocksDBException e) {
            throw health.writeFailed("write", e);
        } finally {
            if (held != null) {
                locks.unlock(held);
            }
            generationLock.readLock().unlock();
        }
    }

    /** The key's live copy at {@code nowMillis}: held and not expired; null otherwise. */
    Hit held(byte[] key, long nowMillis) {
        byte[][] k = encode(List.of(Require.key(key)));
        generationLock.readLock().lock();
        try {
            ensureOpen();
            return newestHits(k, hashes(k), nowMillis)[0];
        } finally {
            generationLock.readLock().unlock();
        }
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.EXACT_WITHIN_WINDOW;
    }

    /**
     * Live statistics, whose count is the keys the generations hold, estimated: each generation's count of the
     * keys its filter took in ({@link KeyFilter#keys()}), or RocksDB's estimate while that filter is read back. Unlike
     * a counter of insertions it survives a restart, being kept with the filters at close and counted again by the
     * reading back after a crash, and it falls as generations age out. A forgotten key counts until its generation
     * goes, a key refreshed into the newest generation once per copy, and the filters' false positives (under 0.1%)
     * go uncounted.
     */
    @Override
    public SeenStats stats() {
        ExactMetrics m = metrics();
        long keys;
        generationLock.readLock().lock();
        try {
            ensureOpen();
            keys = generations.keys();
        } catch (RocksDBException e) {
            throw StoreHealth.failure("count keys", e);
        } finally {
            generationLock.readLock().unlock();
        }
        return new SeenStats("exact", guarantee(), keys, m.storeBytes(), new ErrorEstimate.Exact(m.effectiveWindow()));
    }

    /** The store's gauges and counters now. */
    public ExactMetrics metrics() {
        generationLock.readLock().lock();
        try {
            ensureOpen();
            long now = clock.millis();
            long window = generations.effectiveWindowMillis(now);
            return new ExactMetrics(
                    Duration.ofMillis(window),
                    generations.belowMinimum(window),
                    generations.windowWarnings(),
                    generations.size(),
                    generations.sumProperty("rocksdb.estimate-num-keys"),
                    generations.sumProperty("rocksdb.live-sst-files-size"),
                    generations.sumProperty("rocksdb.cur-size-all-mem-tables"),
                    tuning.statistics.getTickerCount(TickerType.WAL_FILE_BYTES),
                    tuning.statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES),
                    tuning.statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES),
                    generations.sumProperty("rocksdb.estimate-pending-compaction-bytes"),
                    db.getLongProperty("rocksdb.num-running-compactions"),
                    generations.filterBytes(),
                    generations.filtersLoading());
        } catch (RocksDBException e) {
            throw StoreHealth.failure("read metrics", e);
        } finally {
            generationLock.readLock().unlock();
        }
    }

    // ---- generations: rollover and age-out ----

    /**
     * Rolls over to a new generation and ages out old ones if their time has come. Write calls do this by
     * themselves when due; a server may also call it on a timer so that age-out happens while no one writes.
     */
    public void maintain() {
        if (health.readOnly()) {
            return; // no rollover without writes; writes are refused anyway
        }
        generationLock.writeLock().lock();
        try {
            ensureOpen();
            nextMaintenanceMillis = generations.maintain(clock.millis());
            sizeCheckCountdown.set(SIZE_CHECK_EVERY);
        } catch (RocksDBException e) {
            throw StoreHealth.failure("maintain generations", e);
        } finally {
            generationLock.writeLock().unlock();
        }
    }

    private void maybeMaintain() {
        if (clock.millis() >= nextMaintenanceMillis
                || (generations.sizeBounded() && sizeCheckCountdown.decrementAndGet() <= 0)) {
            maintain();
        }
    }

    // ---- lookups ----

    /** A key's newest copy: the generation holding it and its decoded value. */
    record Hit(Generation generation, StoredValue value) {}

    /**
     * For each key, its copy in the newest generation that holds it, or null, also when that copy's expiry has
     * passed at {@code nowMillis} (older copies are shadowed by it); one MultiGet per generation, for the keys its
     * filter does not rule out. {@code hashes} holds each key's canonical hash as a pair ({@link Hash128#ofAll}).
     */
    private Hit[] newestHits(byte[][] keys, long[] hashes, long nowMillis) {
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
                    StoredValue value = decode(v, gen);
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

    private static long[] hashes(byte[][] keys) {
        return Hash128.ofAll(Arrays.asList(keys));
    }

    private byte[] encode(StoredValue value, Generation g) {
        return value.encode(g.createdMillis, timeUnitMillis, valueFormat, values);
    }

    private StoredValue decode(byte[] value, Generation g) {
        return StoredValue.decode(value, g.createdMillis, timeUnitMillis, valueFormat, values);
    }

    private byte[][] encode(List<byte[]> keys) {
        Require.nonNull("keys", keys);
        byte[][] k = new byte[keys.size()][];
        for (int i = 0; i < k.length; i++) {
            k[i] = idFormat.encode(keys.get(i));
        }
        return k;
    }

    // ---- durability ----

    /** Writes every memtable to table files and waits; the write-ahead log already made them durable. */
    public void flush() {
        generationLock.readLock().lock();
        try (FlushOptions options = new FlushOptions().setWaitForFlush(true)) {
            ensureOpen();
            health.refuseIfReadOnly();
            List<ColumnFamilyHandle> handles = new ArrayList<>();
            for (Generation g : generations) {
                handles.add(g.handle);
            }
            db.flush(options, handles);
        } catch (RocksDBException e) {
            throw StoreHealth.failure("flush", e);
        } finally {
            generationLock.readLock().unlock();
        }
    }

    /**
     * Writes a consistent copy of the store to {@code target}, a directory that must not exist yet, on the same
     * file system for the table files to be hard-linked rather than copied (RocksDB Checkpoint). Writes continue
     * meanwhile; the copy holds every write acknowledged before the call.
     */
    public void checkpoint(Path target) {
        Require.nonNull("target", target);
        if (Files.exists(target)) {
            throw new IllegalArgumentException("checkpoint target must not exist yet (got " + target + ")");
        }
        generationLock.readLock().lock();
        try {
            // before the handle is touched: RocksDB's own error for a closed one says nothing of what happened
            ensureOpen();
            health.refuseIfReadOnly();
            try (Checkpoint checkpoint = Checkpoint.create(db)) {
                checkpoint.createCheckpoint(target.toString());
            }
        } catch (RocksDBException e) {
            throw StoreHealth.failure("checkpoint to " + target, e);
        } finally {
            generationLock.readLock().unlock();
        }
    }

    /**
     * Copies a checkpoint into a new data directory that a store can then be opened on; the checkpoint stays
     * untouched, so it can be restored again.
     *
     * @throws IllegalArgumentException if {@code checkpoint} is not a RocksDB directory or {@code dataDir} exists
     */
    public static void restore(Path checkpoint, Path dataDir) {
        Require.nonNull("checkpoint", checkpoint);
        Require.nonNull("dataDir", dataDir);
        if (!Files.isRegularFile(checkpoint.resolve("CURRENT"))) {
            throw new IllegalArgumentException("checkpoint must be a directory written by checkpoint() (no CURRENT"
                    + " file in " + checkpoint + ")");
        }
        if (Files.exists(dataDir)) {
            throw new IllegalArgumentException("dataDir must not exist yet (got " + dataDir + ")");
        }
        try (Stream<Path> files = Files.list(checkpoint)) {
            Files.createDirectories(dataDir);
            for (Path f : (Iterable<Path>) files::iterator) {
                Files.copy(f, dataDir.resolve(f.getFileName()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not restore " + checkpoint + " into " + dataDir, e);
        }
    }

    /**
     * Syncs the write-ahead log: every write that returned before this call is on disk when it returns, whatever
     * the fsync policy (a server applies writes at once and syncs once for a group of them).
     *
     * @throws UncheckedIOException if the sync fails (a full or failing disk)
     */
    public void sync() {
        generationLock.readLock().lock();
        try {
            ensureOpen();
            health.refuseIfReadOnly();
            db.syncWal();
            health.wrote();
        } catch (RocksDBException e) {
            throw health.writeFailed("sync the write-ahead log", e);
        } finally {
            generationLock.readLock().unlock();
        }
    }

    /** The once-a-second sync under {@code everysec}: {@link #sync}, logging a failure instead of throwing it. */
    private void syncWal() {
        try {
            sync();
        } catch (UncheckedIOException e) {
            // logged once by writeFailed, and again when the store writes again
        }
    }

    /** Syncs the write-ahead log (unless the policy is {@code no}) and frees the store's native memory. */
    @Override
    public void close() {
        if (walSyncer != null) {
            walSyncer.stop(); // waits for a sync in progress; the close syncs what comes after it
        }
        generationLock.writeLock().lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            if (filterLoader != null) {
                filterLoader.close();
            }
            sealer.close();
            // After the last write: the files describe exactly what the next open finds. (A read-only store
            // left the files it was opened with in place, and they still describe the store.)
            if (!health.readOnly()) {
                keyFilterFiles.writeAll(generations);
            }
            RocksDBException syncError = null;
            if (fsync != FsyncPolicy.NO && !health.readOnly()) {
                try {
                    db.syncWal();
                } catch (RocksDBException e) {
                    syncError = e;
                }
            }
            generations.closeHandles();
            defaultFamily.close();
            db.close();
            tuning.close();
            if (syncError != null) {
                throw StoreHealth.failure("sync the write-ahead log at close", syncError);
            }
            closedDurably = true;
        } finally {
            generationLock.writeLock().unlock();
        }
    }

    /**
     * Whether the store's writes are failing: the last write or sync of the write-ahead log failed and none has
     * succeeded since. RocksDB recovers by itself from a full disk met while writing a table file, but not from one
     * met while appending to the write-ahead log: that log's writer then refuses every later write ("Writer has
     * previous error") until the store is closed and opened again, which a server does once the disk has room
     * again. Stays true after {@link #close}.
     */
    public boolean writesFailing() {
        return health.writesFailing();
    }

    /** Whether {@link #close} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Whether {@link #close} completed with every write made before it as durable as the store's fsync policy makes
     * them (its log synced at close): a caller whose sync found the store closed under it can then count its writes
     * as synced.
     */
    public boolean closedDurably() {
        return closedDurably;
    }

    private void ensureOpen() {
        if (closed) {
            throw new StoreClosedException("exact store is closed");
        }
    }
}
