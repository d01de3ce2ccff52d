package dev.deja.kafka;

import dev.deja.exact.ExactStore;
import dev.deja.exact.ExactStoreBuilder;
import dev.deja.exact.KeyInfo;
import dev.deja.hash.Hash128;
import dev.deja.journal.FsyncPolicy;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.BatchingStateRestoreCallback;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * deja's {@link ExactStore} as a Kafka Streams state store ({@link StoreKind#EXACT}): one per task, in the task's
 * state directory, the ids as their 16-byte XXH3-128 hashes with their owners, dated by a {@link TaskClock}.
 *
 * <p>New ids are held in memory and written in batches: to the changelog in one record ({@link ChangelogBatch}) when
 * {@value ChangelogBatch#MAX_ENTRIES} have gathered and whenever Kafka Streams commits, so they commit with the output
 * and the input offsets; and to the store as one sorted table file that RocksDB takes in whole
 * ({@link ExactStore#ingestNew}: no lookup again, since the task's thread is the store's only writer, and no memtable
 * insert per id), when as many as the step holds in memory have gathered
 * ({@link Dedup.Builder#idsInMemoryPerPartition}), before the clock passes them by the lateness, and before Kafka
 * Streams checkpoints the store (under exactly-once only as a task is suspended or closed cleanly). Until then memory
 * answers for them: copies that come within that span never reach RocksDB. A lookup asks the ids in memory first,
 * then the store (whose in-memory key filters answer most new ids without reading disk). The store writes its own
 * changelog, as Kafka Streams' built-in stores do: Kafka Streams has no public way for a custom store to do it, and
 * {@link InternalProcessorContext#logChange} is the call those stores make. Restoring reads every batch back.
 */
final class ExactStateStore implements StateStore, CachedStateStore<byte[], byte[]>, SeenIds {

    /** Hours the changelog keeps a batch beyond the window, as Kafka Streams keeps window-store changelogs a day. */
    static final long CHANGELOG_EXTRA_RETENTION_HOURS = 24;
    /** The shortest window the store holds: its generations are slices of at least a few milliseconds. */
    static final Duration MIN_WINDOW = ExactStoreBuilder.MIN_WINDOW;

    /** The fraction of the window by which an id may be dated late, as the divisor of the window. */
    static final long LATENESS_PER_WINDOW = 64;

    /** RocksDB block cache per task: lookups of new ids are answered by the key filters, not by table blocks. */
    private static final long BLOCK_CACHE_BYTES = 16L << 20;
    /**
     * Table-file block size: a copy of an id the block cache does not hold reads and decompresses one block, and with a
     * window far larger than the cache that is most copies; 4 KiB blocks make that read a quarter of the store's
     * default and cost about a byte per id on disk.
     */
    private static final int BLOCK_BYTES = 4 << 10;
    /** RocksDB memtable per task: new ids are ingested as table files, so only a restore's writes pass through it. */
    private static final long MEMTABLE_BYTES = 8L << 20;
    /** How often, in wall-clock time, the oldest generation's time is read from the store's metrics. */
    private static final long WINDOW_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final String name;
    private final Duration window;
    private final boolean logged;
    /** How late, at most, an id is dated and aged out: {@value #LATENESS_PER_WINDOW}th of the window. */
    private final long latenessMs;

    private final TaskClock clock = new TaskClock();
    /** New ids not yet written to the store, in the order they came, with their owners and times. */
    private final NewIds unwritten;
    /** The new ids not yet in the changelog, as the record that will carry them. */
    private final ChangelogBatch batch = new ChangelogBatch();

    private Path directory;
    /** Null until {@link #store()} opens it. */
    private ExactStore store;

    private InternalProcessorContext<?, ?> changelog;
    private volatile boolean open;
    /** The time of the oldest generation held, as last read from the store's metrics. */
    private long oldestHeld;

    private long unwrittenSince;
    private long nextMaintenance = Long.MIN_VALUE;
    private long oldestReadAt;

    /** A store of ids held for {@code window}, holding up to {@code idsInMemory} new ones in memory at a time. */
    ExactStateStore(String name, Duration window, int idsInMemory, boolean logged) {
        this.name = name;
        this.window = window;
        this.unwritten = new NewIds(idsInMemory);
        this.logged = logged;
        this.latenessMs = Math.max(1, window.toMillis() / LATENESS_PER_WINDOW);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        if (logged) {
            if (!(context instanceof InternalProcessorContext<?, ?> internal)) {
                throw new IllegalStateException("the store " + name + " writes its changelog through Kafka Streams'"
                        + " own processor context; build it with withLoggingDisabled() to run it elsewhere");
            }
            changelog = internal;
        }
        directory = context.stateDir().toPath().resolve(name);
        context.register(root, (BatchingStateRestoreCallback) this::restore);
        open = true;
    }

    /**
     * The exact store, opened when the first id or changelog record arrives, so that its first generation is dated
     * by the task's time rather than by an unset clock.
     */
    private ExactStore store() {
        if (store == null) {
            store = ExactStoreBuilder.at(directory)
                    .window(window)
                    .clock(clock)
                    .fsync(FsyncPolicy.NO)
                    // The changelog is the log: after a crash Kafka Streams restores from it what no checkpoint covers.
                    .writeAheadLog(/* writeAheadLog= */ false)
                    .blockCacheBytes(BLOCK_CACHE_BYTES)
                    .blockBytes(BLOCK_BYTES)
                    .memtableBytes(MEMTABLE_BYTES)
                    .open();
            readOldest(/* now= */ true);
        }
        return store;
    }

    @Override
    public Seen checkThenAdd(byte[] id, long owner, long time) {
        if (store == null) {
            clock.advanceTo(time);
        }
        advanceTo(time);
        Hash128 hash = Hash128.of(id);
        long high = hash.high();
        long low = hash.low();
        int at = unwritten.find(high, low);
        long firstOwner;
        long firstTime;
        if (at >= 0) {
            firstOwner = unwritten.owner(at);
            firstTime = unwritten.time(at);
        } else {
            KeyInfo held = store().info(key(high, low)).orElse(null);
            if (held == null) {
                if (unwritten.isEmpty()) {
                    unwrittenSince = clock.millis();
                }
                unwritten.add(high, low, owner, clock.millis());
                batch.add(high, low, owner, clock.millis());
                if (batch.isFull()) {
                    logNew();
                }
                if (unwritten.isFull()) {
                    writeUnwritten();
                }
                return new Seen(Verdict.NEW, owner, time);
            }
            firstOwner = held.owner();
            firstTime = held.firstSeen().toEpochMilli();
        }
        Verdict verdict = owner != SeenSet.NO_OWNER && owner == firstOwner ? Verdict.RETRY : Verdict.DUPLICATE;
        return new Seen(verdict, firstOwner, firstTime);
    }

    /**
     * Moves the clock to {@code time}. Ids still in memory are written first when the clock would pass them by the
     * lateness, so the store dates each id at most that late; the store's generations are rolled over and aged out
     * whenever the clock has moved by the lateness, since a store with no writes would not do it.
     */
    private void advanceTo(long time) {
        if (time <= clock.millis()) {
            return;
        }
        if (!unwritten.isEmpty() && time - unwrittenSince >= latenessMs) {
            writeUnwritten();
        }
        clock.advanceTo(time);
        if (time >= nextMaintenance) {
            store().maintain();
            readOldest(/* now= */ true); // generations may have gone
            nextMaintenance = time + latenessMs;
        }
    }

    @Override
    public long effectiveWindowMs(long now) {
        if (store == null) {
            return 0;
        }
        return Math.max(0, Math.min(window.toMillis(), now - oldestHeld));
    }

    /**
     * Reads the time of the oldest generation held from the store's metrics, at most once a second of wall-clock
     * time. It is called where generations may be made or dropped (the store opened, maintained or written), so the
     * per-record {@link #effectiveWindowMs} is arithmetic.
     */
    private void readOldest(boolean now) {
        long at = System.nanoTime();
        if (now || at - oldestReadAt >= WINDOW_REFRESH_NANOS) {
            oldestReadAt = at;
            oldestHeld = clock.millis() - store.metrics().effectiveWindow().toMillis();
        }
    }

    @Override
    public long idsHeld() {
        return -1;
    }

    /**
     * Sends the ids added since the last changelog record to the changelog: Kafka Streams calls this as it prepares a
     * commit, before the producer's transaction (exactly-once) or the input offsets (at-least-once) commit. They are
     * written to the store later ({@link #commit}): until then the changelog holds them, and memory answers for them.
     */
    @Override
    public void flushCache() {
        logNew();
    }

    /** Drops the ids held in memory, unwritten (Kafka Streams calls this when it recycles a task). */
    @Override
    public void clearCache() {
        dropUnwritten();
    }

    /** Forwards nothing on a flush: the store is no cache in front of a downstream processor. */
    @Override
    public boolean setFlushListener(CacheFlushListener<byte[], byte[]> listener, boolean sendOldValues) {
        return false;
    }

    /**
     * Writes any ids still in memory and flushes the store's memtables to table files (it has no write-ahead log; the
     * memtables hold only what a restore wrote), so that the changelog offsets Kafka Streams checkpoints after this
     * call are held on disk. Kafka Streams calls it before each checkpoint it writes: under at-least-once after each
     * commit, under exactly-once only as a task is suspended or closed cleanly (after a crash there is no checkpoint,
     * and Kafka Streams wipes the task's state and restores it from the changelog).
     */
    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        if (store != null) {
            writeUnwritten();
            store.sync();
        }
    }

    /**
     * Closes the store. Ids still in memory are dropped, not written: a clean close has written them as the checkpoint
     * before it was prepared ({@link #commit}), and after a dirty one Kafka Streams restores from the changelog what
     * no checkpoint covers and processes again the records that brought the rest (the store object lives on, and is
     * opened again, when Kafka Streams revives the task).
     */
    @Override
    public void close() {
        open = false;
        dropUnwritten();
        if (store != null) {
            // the store has no write-ahead log: what the memtables hold goes to table files before it closes
            store.flush();
            store.close();
            store = null;
        }
    }

    @Override
    public boolean persistent() {
        return true;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public Position getPosition() {
        return Position.emptyPosition();
    }

    private void restore(Collection<KeyValue<byte[], byte[]>> records) {
        List<byte[]> keys = new ArrayList<>();
        for (KeyValue<byte[], byte[]> record : records) {
            keys.clear();
            long[] owners = new long[ChangelogBatch.MAX_ENTRIES];
            ChangelogBatch.read(record.value, (high, low, owner, time) -> {
                clock.advanceTo(time);
                owners[keys.size()] = owner;
                keys.add(key(high, low));
            });
            store().checkThenAddAll(keys, Arrays.copyOf(owners, keys.size()));
        }
    }

    private void dropUnwritten() {
        unwritten.clear();
        batch.drain();
    }

    /** Sends the ids added since the last changelog record as one record. */
    private void logNew() {
        if (batch.isEmpty()) {
            return;
        }
        long timestamp = batch.latestTime();
        byte[] value = batch.drain();
        if (changelog != null) {
            Bytes key = Bytes.wrap(
                    ByteBuffer.allocate(Long.BYTES).putLong(timestamp).array());
            changelog.logChange(name, key, value, timestamp, new RecordHeaders(), Position.emptyPosition());
        }
    }

    /**
     * Writes the new ids held in memory to the store, as one table file, once the changelog has them: the store never
     * holds an id that the changelog would not restore.
     */
    private void writeUnwritten() {
        logNew();
        if (unwritten.isEmpty()) {
            return;
        }
        int n = unwritten.size();
        List<byte[]> keys = new ArrayList<>(n);
        long[] owners = new long[n];
        for (int i = 0; i < n; i++) {
            keys.add(key(unwritten.high(i), unwritten.low(i)));
            owners[i] = unwritten.owner(i);
        }
        // Every id held in memory was looked up when it came and found in neither the store nor memory, and this task's
        // thread is the store's only writer: the store takes them without looking them up again.
        store().ingestNew(keys, owners);
        readOldest(/* now= */ false);
        unwritten.clear();
    }

    private static byte[] key(long high, long low) {
        return ByteBuffer.allocate(16).putLong(high).putLong(low).array();
    }
}
