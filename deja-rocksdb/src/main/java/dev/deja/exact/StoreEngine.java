package dev.deja.exact;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.Verdict;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.FlushOptions;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TickerType;

/**
 * An open exact store: its database, its generations and the parts that work on them, each operation run under
 * the store's locks ({@link StoreGuard}). The public faces, {@link ExactStore} and its key-value view
 * ({@link KeyValues}), state the contracts; this class assembles the parts and closes them in order.
 *
 * <ul>
 *   <li>lookups and writes of keys: {@link GenerationKeys}; the seen-set's batches: {@link SeenWrites}; the
 *       key-value updates: {@link KeyUpdates};
 *   <li>rollover and age-out: {@link Generations}, when due {@link GenerationUpkeep}; the seal of a generation that
 *       stops growing: {@link Sealer};
 *   <li>durability: {@link WalSync}, {@link Checkpoints}; the key filters kept between a close and the next open:
 *       {@link KeyFilterFiles}, or read back after a crash: {@link FilterLoader};
 *   <li>whether it can write and read: {@link StoreHealth}.
 * </ul>
 */
final class StoreEngine {

    private final StoreOptions options;
    private final Clock clock;
    private final StoreDatabase database;
    /** Whether it can write and read, and the errors callers get when it cannot. */
    private final StoreHealth health;

    private final StoreGuard guard;
    /** Changed under the write side of the guard's lock, read under its read side. */
    private final Generations generations;

    private final GenerationKeys keys;
    private final SeenWrites seenWrites;
    private final KeyUpdates keyUpdates;
    private final GenerationUpkeep upkeep;
    private final WalSync walSync;
    private final Sealer sealer;
    /** Fills the filters of the generations found on disk that no file restored; null if there are none. */
    private final FilterLoader filterLoader;
    /** Where close keeps the key filters for the next open. */
    private final KeyFilterFiles keyFilterFiles;

    /** Set once {@link #close} has finished with its log synced; see {@link ExactStore#closedDurably()}. */
    private volatile boolean closedDurably;

    /**
     * Starts the store's background work on the database {@link StoreOpener} opened. A store is read-only when
     * {@code readOnlyBecause} is not null, because the disk refused the writes of a writable open: it answers reads,
     * refuses writes, never rolls generations over and writes nothing at close.
     *
     * @param existing the generations found on disk, oldest first
     */
    StoreEngine(
            StoreOptions options,
            StoreDatabase database,
            ValueLayout layout,
            List<Generation> existing,
            String readOnlyBecause) {
        this.options = options;
        this.clock = options.clock();
        this.database = database;
        this.health = new StoreHealth(options.directory(), clock, readOnlyBecause);
        this.guard = new StoreGuard(health);
        RocksDB db = database.db();
        String store = options.directory().toString();
        this.sealer = new Sealer(db, store);
        this.generations = new Generations(db, database.tuning().cfOptions, sealer, existing, options);
        this.keys = new GenerationKeys(database, generations, layout, health);
        this.seenWrites = new SeenWrites(keys, options);
        this.keyUpdates = new KeyUpdates(keys);
        this.upkeep = new GenerationUpkeep(generations, guard, clock, health);
        // Without a write-ahead log there is no log to sync on a timer or at close.
        this.walSync =
                new WalSync(db, options.writeAheadLog() ? options.fsync() : FsyncPolicy.NO, guard, health, store);
        this.keyFilterFiles = new KeyFilterFiles(options.directory());
        this.filterLoader =
                existing.stream().allMatch(g -> g.filter.complete()) ? null : new FilterLoader(db, existing, store);
    }

    /** The settings the store was opened with. */
    StoreOptions options() {
        return options;
    }

    /** The clock that dates keys and expiries. */
    Clock clock() {
        return clock;
    }

    // ---- the seen-set ----

    /** Whether each key is held. */
    boolean[] checkAll(List<byte[]> keys) {
        KeyBatch batch = KeyBatch.of(options.idFormat(), keys);
        return guard.read("read", () -> {
            GenerationKeys.Hit[] hits = this.keys.newest(batch, clock.millis());
            boolean[] out = new boolean[hits.length];
            for (int i = 0; i < hits.length; i++) {
                out[i] = hits[i] != null;
            }
            return out;
        });
    }

    /** See {@link ExactStore#checkThenAddAll}. */
    Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        KeyBatch batch = KeyBatch.of(options.idFormat(), keys);
        if (batch.size() == 0) {
            return new Verdict[0];
        }
        upkeep.maintainIfDue();
        return guard.write("write", batch.hashes(), () -> seenWrites.checkThenAdd(batch, owners, clock.millis()));
    }

    /** See {@link ExactStore#forgetAll}. */
    boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        KeyBatch batch = KeyBatch.of(options.idFormat(), keys);
        if (batch.size() == 0) {
            return new boolean[0];
        }
        return guard.write("forget", batch.hashes(), () -> seenWrites.forget(batch, owners, clock.millis()));
    }

    /** See {@link ExactStore#addNew}. */
    void addNew(List<byte[]> keys, long[] owners) {
        writeNew("write", keys, owners, seenWrites::addNew);
    }

    /** See {@link ExactStore#ingestNew}. */
    void ingestNew(List<byte[]> keys, long[] owners) {
        writeNew("ingest", keys, owners, seenWrites::ingestNew);
    }

    /** A write of keys the caller found new: {@link SeenWrites#addNew} or {@link SeenWrites#ingestNew}. */
    private interface NewKeys {
        void write(KeyBatch batch, long[] owners, long nowMillis) throws RocksDBException;
    }

    /** Writes new keys under the store's read lock alone: the caller is their only writer. */
    private void writeNew(String what, List<byte[]> keys, long[] owners, NewKeys write) {
        Require.sameLength(keys, owners);
        KeyBatch batch = KeyBatch.of(options.idFormat(), keys);
        if (batch.size() == 0) {
            return;
        }
        upkeep.maintainIfDue();
        guard.write(what, StoreGuard.NO_KEYS, () -> {
            write.write(batch, owners, clock.millis());
            return null;
        });
    }

    /** The key's live copy at {@code nowMillis}: held and not expired; null otherwise. */
    GenerationKeys.Hit held(byte[] key, long nowMillis) {
        byte[] stored = options.idFormat().encode(Require.key(key));
        Hash128 hash = Hash128.of(stored);
        return guard.read("read", () -> keys.newest(stored, hash.high(), hash.low(), nowMillis));
    }

    // ---- key-value updates ----

    /**
     * Applies {@code updates[i]} to {@code keys.get(i)} in order, in one MultiGet per generation and one WriteBatch,
     * under the keys' locks ({@link KeyUpdates#apply}). A key the id format rejects, or whose update throws, is left
     * unchanged and gets the exception in {@code refused} at its index; the others still apply. A failure to read or
     * write fails the whole call and changes nothing.
     *
     * @return for each key, whether a value was written
     */
    boolean[] updateAll(List<byte[]> keys, KeyUpdates.Update[] updates, RuntimeException[] refused) {
        KeyBatch batch = KeyBatch.wellFormed(options.idFormat(), keys, refused);
        if (batch.size() == 0) {
            return new boolean[keys.size()];
        }
        upkeep.maintainIfDue();
        return guard.write("write", batch.hashes(), () -> keyUpdates.apply(batch, updates, refused, clock.millis()));
    }

    // ---- what the store knows of itself ----

    /** The keys the generations hold, estimated as {@link ExactStore#stats()} says. */
    long keyCount() {
        return guard.read("count keys", generations::keys);
    }

    /** The store's gauges and counters now. */
    ExactMetrics metrics() {
        return guard.read("read metrics", () -> {
            long window = generations.effectiveWindowMillis(clock.millis());
            Statistics statistics = database.tuning().statistics;
            return new ExactMetrics(
                    Duration.ofMillis(window),
                    generations.belowMinimum(window),
                    generations.windowWarnings(),
                    generations.size(),
                    generations.sumProperty("rocksdb.estimate-num-keys"),
                    generations.sumProperty("rocksdb.live-sst-files-size"),
                    generations.sumProperty("rocksdb.cur-size-all-mem-tables"),
                    statistics.getTickerCount(TickerType.WAL_FILE_BYTES),
                    statistics.getTickerCount(TickerType.FLUSH_WRITE_BYTES),
                    statistics.getTickerCount(TickerType.COMPACT_WRITE_BYTES),
                    generations.sumProperty("rocksdb.estimate-pending-compaction-bytes"),
                    database.db().getLongProperty("rocksdb.num-running-compactions"),
                    generations.filterBytes(),
                    generations.filtersLoading());
        });
    }

    /** See {@link ExactStore#writesFailing()}. */
    boolean writesFailing() {
        return health.writesFailing();
    }

    // ---- upkeep and durability ----

    /** Rolls over and ages out generations if their time has come. */
    void maintain() {
        upkeep.maintain();
    }

    /** Writes every memtable to table files and waits. */
    void flush() {
        guard.writeFiles("flush", () -> {
            try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
                List<ColumnFamilyHandle> handles = new ArrayList<>();
                for (Generation g : generations) {
                    handles.add(g.handle);
                }
                database.db().flush(flush, handles);
            }
            return null;
        });
    }

    /** See {@link ExactStore#checkpoint}. */
    void checkpoint(Path target) {
        Checkpoints.write(database.db(), guard, target);
    }

    /** Syncs the write-ahead log; without one, flushes the memtables to table files. */
    void sync() {
        if (options.writeAheadLog()) {
            walSync.sync();
        } else {
            flush();
        }
    }

    /**
     * Stops the background work, keeps the key filters for the next open, syncs the write-ahead log (unless the
     * policy is {@code no}) and frees the native memory; does nothing the second time.
     */
    void close() {
        walSync.stop(); // waits for a sync in progress; the close syncs what comes after it
        guard.closeOnce(() -> {
            if (filterLoader != null) {
                filterLoader.close();
            }
            sealer.close();
            // After the last write: the files describe exactly what the next open finds. (A read-only store
            // left the files it was opened with in place, and they still describe the store.)
            if (!health.readOnly()) {
                keyFilterFiles.writeAll(generations);
            }
            RocksDBException syncError = walSync.syncAtClose();
            generations.closeHandles();
            keys.close();
            database.close();
            if (syncError != null) {
                throw StoreHealth.failure("sync the write-ahead log at close", syncError);
            }
            closedDurably = true;
        });
    }

    /** Whether {@link #close} has been called. */
    boolean closed() {
        return guard.closed();
    }

    /** See {@link ExactStore#closedDurably()}. */
    boolean closedDurably() {
        return closedDurably;
    }
}
