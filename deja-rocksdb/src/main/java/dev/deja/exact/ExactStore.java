package dev.deja.exact;

import dev.deja.checks.Require;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Guarantee;
import dev.deja.seen.SeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The {@code exact} seen-set: a RocksDB store that keeps every key's bytes and never answers wrongly about a key
 * recorded within its window.
 *
 * <p>Design: Segment's de-duplication design, with its age-out replaced. Segment's worker keeps message ids in
 * RocksDB, bounds it by size and ages keys out through a secondary index by sequence number and one delete per key;
 * every key is then written three times (key, index entry, tombstones) and the tombstones are compacted again. Here
 * the store is a list of <em>generations</em> ({@link Generations}), one RocksDB column family per time slice
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
 *       reaches RocksDB ({@link GenerationKeys}).</li>
 *   <li>{@link #checkThenAdd} reads then writes under per-key locks ({@link KeyLocks}); a batch takes its keys'
 *       locks in ascending hash order and commits all its writes in one WriteBatch ({@link #addNew}, for a single
 *       writer whose keys were just found new, writes its WriteBatch without the lookup or the locks). Generations
 *       are created and dropped under a read-write lock whose read side every operation holds, so no operation ever
 *       sees a closed column family ({@link StoreGuard}).</li>
 * </ul>
 *
 * <p>A store opened with values (its builder's {@code values(true)}) also keeps a small value and an optional
 * expiry per key, for the key-value idiom of Redis ({@code SET id value NX EX seconds}): see {@link #putIfAbsent}
 * and {@link KeyValues}. A key whose expiry has passed is not held for any operation; it stays on disk, shadowed or
 * not, until its generation ages out.
 *
 * <p>Values are a few bytes ({@link StoredValue}); the RocksDB settings and why are in {@link Tuning}; a generation
 * that stops growing is compacted once into the last level ({@link Sealer}). Durability is RocksDB's write-ahead
 * log, synced per {@link FsyncPolicy} (or, for a store built without that log, the table files its memtables are
 * flushed to); {@link #checkpoint(Path)} writes a consistent copy that
 * {@link #restore(Path, Path)} turns into a new data directory. This class states the contract; the work is done by
 * the package-private {@link StoreEngine}.
 */
public final class ExactStore implements SeenSet {

    /**
     * The subdirectory of a closed store's directory where its key filters wait for the next open (docs/FORMAT.md
     * section 6.1); deleting its files makes that open read every key back, as after a crash.
     */
    public static final String KEPT_FILTERS_DIRECTORY = KeyFilterFiles.DIRECTORY;

    private final StoreEngine engine;
    /** The key-value operations; null for a store created without values. */
    private final KeyValues keyValues;

    ExactStore(StoreEngine engine) {
        this.engine = engine;
        this.keyValues = engine.options().values() ? new KeyValues(engine) : null;
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
        return engine.checkAll(keys);
    }

    @Override
    public void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null);
    }

    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        return engine.checkThenAddAll(keys, owners);
    }

    /**
     * Records keys that the caller has just found not held ({@link #info}, {@link #checkAll}), in one WriteBatch into
     * the newest generation, each under {@code owners[i]} ({@code owners} may be null for none) and dated now: the
     * write of {@link #checkThenAddAll} without its lookup and without its key locks, for a store with a single
     * writing thread (a Kafka Streams task's store, say) that keeps its new keys in memory and writes them later.
     *
     * <p>The caller vouches for the keys: none may be held, and none may repeat. A key that is held all the same gets
     * a second copy in the newest generation, with this owner and time, which answers for it from then on; a key given
     * twice is held once, under its last owner. Another thread writing the same keys meanwhile is not excluded, as
     * {@link #checkThenAddAll} excludes it; other writes and age-out are safe to run beside this call.
     *
     * @throws IllegalArgumentException if {@code owners} is not null and differs in length from {@code keys}, or a
     *                                  key is malformed for the store's id format
     */
    public void addNew(List<byte[]> keys, long[] owners) {
        engine.addNew(keys, owners);
    }

    /**
     * Records keys that the caller has just found not held, as {@link #addNew} does (same contract: the caller
     * vouches that none is held; a key given twice is held once, under its last owner), but written as one sorted
     * table file that RocksDB takes in whole instead of one memtable insert per key: for a single writer that gathers
     * tens of thousands of new keys before writing them. Each call adds a file to RocksDB's first level, which
     * compaction merges later, so calls with few keys cost more than {@link #addNew}. The keys are durable when it
     * returns, whatever the fsync policy and with or without the write-ahead log.
     *
     * @throws IllegalArgumentException if {@code owners} is not null and differs in length from {@code keys}, or a
     *                                  key is malformed for the store's id format
     * @throws UncheckedIOException     if the file cannot be written or taken in (a full disk); no key is
     *                                  recorded
     */
    public void ingestNew(List<byte[]> keys, long[] owners) {
        engine.ingestNew(keys, owners);
    }

    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        return engine.forgetAll(keys, owners);
    }

    // ---- what the store knows beyond the seen-set contract ----

    /**
     * What the store holds about a key: owner, first-seen time and (when counting) its duplicate count; empty when
     * the key is not held.
     */
    public Optional<KeyInfo> info(byte[] key) {
        GenerationKeys.Hit hit = engine.held(key, engine.clock().millis());
        if (hit == null) {
            return Optional.empty();
        }
        StoredValue v = hit.value();
        long duplicates = engine.options().countDuplicates() ? v.duplicates() : -1;
        return Optional.of(new KeyInfo(v.owner(), Instant.ofEpochMilli(v.firstSeen()), duplicates));
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
        return keyValues().get(key).map(v -> new Entry(v.data(), Instant.ofEpochMilli(v.firstSeen()), v.expiresAt()));
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
        return engine.clock();
    }

    private KeyValues keyValues() {
        if (keyValues == null) {
            throw new IllegalStateException("store was created without values");
        }
        return keyValues;
    }

    // ---- statistics and metrics ----

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
        long keys = engine.keyCount();
        return new SeenStats("exact", guarantee(), keys, m.storeBytes(), new ErrorEstimate.Exact(m.effectiveWindow()));
    }

    /** The store's gauges and counters now. */
    public ExactMetrics metrics() {
        return engine.metrics();
    }

    // ---- generations: rollover and age-out ----

    /**
     * Rolls over to a new generation and ages out old ones if their time has come. Write calls do this by
     * themselves when due; a server may also call it on a timer so that age-out happens while no one writes.
     */
    public void maintain() {
        engine.maintain();
    }

    // ---- durability ----

    /** Writes every memtable to table files and waits; the write-ahead log already made them durable. */
    public void flush() {
        engine.flush();
    }

    /**
     * Writes a consistent copy of the store to {@code target}, a directory that must not exist yet, on the same
     * file system for the table files to be hard-linked rather than copied (RocksDB Checkpoint). Writes continue
     * meanwhile; the copy holds every write acknowledged before the call.
     */
    public void checkpoint(Path target) {
        engine.checkpoint(target);
    }

    /**
     * Copies a checkpoint into a new data directory that a store can then be opened on; the checkpoint stays
     * untouched, so it can be restored again.
     *
     * @throws IllegalArgumentException if {@code checkpoint} is not a RocksDB directory or {@code dataDir} exists
     */
    public static void restore(Path checkpoint, Path dataDir) {
        Checkpoints.restore(checkpoint, dataDir);
    }

    /**
     * Syncs the write-ahead log: every write that returned before this call is on disk when it returns, whatever
     * the fsync policy (a server applies writes at once and syncs once for a group of them). A store without the log
     * ({@link ExactStoreBuilder#writeAheadLog}) flushes its memtables to table files instead.
     *
     * @throws UncheckedIOException if the sync fails (a full or failing disk)
     */
    public void sync() {
        engine.sync();
    }

    /** Syncs the write-ahead log (unless the policy is {@code no}) and frees the store's native memory. */
    @Override
    public void close() {
        engine.close();
    }

    /**
     * Whether the store's writes are failing: the last write or sync of the write-ahead log failed and none has
     * succeeded since. RocksDB recovers by itself from a full disk met while writing a table file, but not from one
     * met while appending to the write-ahead log: that log's writer then refuses every later write ("Writer has
     * previous error") until the store is closed and opened again, which a server does once the disk has room
     * again. Stays true after {@link #close}.
     */
    public boolean writesFailing() {
        return engine.writesFailing();
    }

    /** Whether {@link #close} has been called. */
    public boolean isClosed() {
        return engine.closed();
    }

    /**
     * Whether {@link #close} completed with every write made before it as durable as the store's fsync policy makes
     * them (its log synced at close): a caller whose sync found the store closed under it can then count its writes
     * as synced.
     */
    public boolean closedDurably() {
        return engine.closedDurably();
    }
}
