package dev.deja.journal;

import dev.deja.checks.Require;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory {@link HashedSeenSet} made durable by a write-ahead journal and periodic snapshots in one directory.
 *
 * <p>Design (docs/DESIGN.md section 5; the operation log that readers of the bloom HTTP server whose protocol deja
 * follows, Snawoot/bloom, asked for). Every change is applied to the store and appended to the {@link Journal} under
 * one per-store lock, so the journal's order is the order in which changes were applied; the caller then waits, outside
 * the lock, until its record is written (and fsynced under {@link FsyncPolicy#ALWAYS}); under the other policies the
 * caller writes the records itself. Only changes are journaled: an add or check-then-add that found the key new becomes
 * {@code ADD}, a forget that erased it becomes {@code FORGET}; a duplicate or retry changes nothing and is not
 * journaled, though it still waits for the records before it so that it never acknowledges a change that a crash could
 * undo. Checks take no lock and never wait for the disk, so they keep answering while the disk is full or slow (they
 * may see a change whose writer is still waiting for it to become durable).
 *
 * <p>Snapshots are fuzzy, so they never stop writers: the snapshot reads the journal position P under the lock (every
 * record before P is already in the store) and then streams the live store through the {@link SnapshotCodec}
 * while changes continue, so the file holds everything before P plus some of the changes after it. Recovery loads
 * it and replays every record from P on, in order. This converges to the state the live store had:
 * <ul>
 *   <li>bloom: an {@code ADD} only sets bits; setting a bit twice, or in another order, gives the same bits, so
 *       the snapshot's bits united with the replayed ones are exactly the live bits;
 *   <li>stores with one slot per key (a key is held with an owner, or not): the journaled changes of a key
 *       alternate, each {@code ADD} found it absent and each {@code FORGET} found it held by that owner. The
 *       snapshot shows the key as it was after some prefix of them. Replaying from the start, an {@code ADD} of a
 *       key already held and a {@code FORGET} naming another owner change nothing, so the replayed key keeps the
 *       snapshot's state until the replay reaches a change that set or erased it in the same way the live store
 *       did, and from there it follows the live store exactly.
 * </ul>
 * A store that evicts one key to make room for another (recent) must show that replaying a suffix onto its
 * snapshot errs only in its declared direction, or write a consistent snapshot itself. A store whose records are
 * not idempotent (a cuckoo filter, whose add inserts one more copy) has its codec capture a copy of it under the lock
 * at the snapshot's position ({@link SnapshotCodec#capture}), so its snapshot holds exactly the records before that
 * position and replay applies each later one once. Snapshots are written to a
 * temporary file, fsynced, renamed into place and the directory fsynced; the two newest are kept so that a
 * corrupt newest one falls back to the previous, and journal segments are deleted only once wholly before the
 * older of the two.
 *
 * <p>Snapshots are taken every {@link Builder#snapshotInterval} when the store changed, at {@link #close()}, and
 * on {@link #snapshotNow()} (which the server calls on SIGUSR1 and on command), one at a time, on threads shared
 * with other stores ({@link Snapshotter}, {@link JournalThreads}); the journal writes on threads of its own set.
 *
 * <p>A change is applied before its record is written, so when the write fails (a full disk) the store already
 * holds it, and the journal keeps the record to write once the disk recovers. A store that promises never to call a
 * new key seen takes the keys of a failed add back before the caller hears of the failure, so that the caller's
 * retry finds them new ({@link TakeBacks}); a bloom filter, which cannot forget, keeps them, within its declared
 * error.
 *
 * @param <S> the store kept in memory
 */
public final class JournaledSeenSet<S extends HashedSeenSet> implements HashedSeenSet {

    private static final Logger LOG = LoggerFactory.getLogger(JournaledSeenSet.class);

    private final Path dir;
    private final S store;
    private final Journal journal;
    private final RecoveryReport recovery;
    private final DirectoryLock directoryLock;
    private final Snapshotter<S> snapshotter;
    private final JournaledWrites writes;

    /** Why {@link #close()} could not write the final snapshot; null when it did or had nothing to write. */
    private volatile Throwable finalSnapshotFailure;

    private JournaledSeenSet(Builder<S> b, DirectoryLock directoryLock, Recovery.Result<S> recovered) {
        this.dir = b.dir;
        this.store = recovered.store();
        this.recovery = recovered.report();
        this.directoryLock = directoryLock;
        // before the journal, whose background work may ask for a snapshot (snapshotAfterLostSegment); the journal
        // position is read through this, since the writes it is read from are made after the journal
        this.snapshotter = new Snapshotter<>(dir, b.codec, recovered, this::journalPosition, b.threads.snapshots());
        this.journal = new Journal(b.journalSettings(), recovered.nextSeq(), snapshotter::snapshotAfterLostSegment);
        this.writes = new JournaledWrites(dir, store, journal, snapshotter::runInTurn);
        if (!b.snapshotInterval.isZero()) {
            snapshotter.repeatEvery(b.snapshotInterval);
        }
    }

    /**
     * A builder for the store kept in {@code dir}.
     *
     * @param codec writes and reads the store's snapshots
     * @param empty creates the store when the directory holds no usable snapshot
     */
    public static <S extends HashedSeenSet> Builder<S> builder(Path dir, SnapshotCodec<S> codec, Supplier<S> empty) {
        return new Builder<>(
                Require.nonNull("dir", dir), Require.nonNull("codec", codec), Require.nonNull("empty", empty));
    }

    /** What recovery loaded, cut and set aside when this store was opened. */
    public RecoveryReport recovery() {
        return recovery;
    }

    /**
     * Why {@link #close()} could not write the final snapshot (a full disk), or empty when it wrote it, had nothing
     * new to write, or has not run. Nothing is lost then: a failed snapshot leaves the earlier snapshots and every
     * journal segment in place (they are pruned only after a snapshot is written), and the journal, written out
     * before the snapshot was tried, holds every acknowledged change; the next open replays it.
     */
    public Optional<Throwable> finalSnapshotFailure() {
        return Optional.ofNullable(finalSnapshotFailure);
    }

    /**
     * Whether writes are refused now because the journal cannot write (a full disk), until a retry succeeds; reads
     * are answered meanwhile.
     */
    public boolean writesFailing() {
        return journal.failure() != null;
    }

    /** The directory holding the journal and snapshots. */
    public Path directory() {
        return dir;
    }

    /**
     * Writes a snapshot now, without blocking readers or writers, and completes with its file; completes at once
     * with the current snapshot when nothing changed since. Fails if the store is closed or the disk refuses it.
     */
    public CompletableFuture<Path> snapshotNow() {
        return snapshotter.snapshotNow();
    }

    // ---- reads: no lock, no disk ----

    @Override
    public boolean checkHash(long high, long low) {
        return store.checkHash(high, low);
    }

    @Override
    public boolean[] checkAll(List<byte[]> keys) {
        return store.checkAll(keys);
    }

    @Override
    public Guarantee guarantee() {
        return store.guarantee();
    }

    @Override
    public SeenStats stats() {
        return store.stats();
    }

    // ---- writes: apply and append under the lock, wait for the disk outside it ----

    @Override
    public void addHash(long high, long low, long owner) {
        checkThenAddHash(high, low, owner);
    }

    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        return writes.checkThenAdd(high, low, owner);
    }

    @Override
    public boolean forgetHash(long high, long low, long owner) {
        return writes.forget(high, low, owner);
    }

    @Override
    public void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null);
    }

    /** Locks once and waits for the disk once for the whole batch. */
    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        return writes.checkThenAddAll(keys, owners);
    }

    /** Locks once and waits for the disk once for the whole batch. */
    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        return writes.forgetAll(keys, owners);
    }

    /**
     * {@link #checkThenAddAll} without waiting for the disk: the verdicts are final when this returns (later calls
     * see the changes), and the future completes with them once the changes are durable as the fsync policy says,
     * or fails with {@link JournalWriteException}. Lets a server answer when durable without parking a thread; the
     * call itself still blocks while the journal's buffer is full, which is how a slow disk slows writers down.
     * Under {@code everysec} and {@code no} the records are written before this returns, or, inside
     * {@code DeferredWrites.collect}, by that collection's {@code write} (the server batches its event loops'
     * journal writes so).
     *
     * @throws IllegalArgumentException for a null or empty key or owners of the wrong length
     */
    public CompletableFuture<Verdict[]> checkThenAddAllAsync(List<byte[]> keys, long[] owners) {
        return writes.checkThenAddAllAsync(keys, owners);
    }

    /**
     * {@link #forgetAll} without waiting for the disk, as {@link #checkThenAddAllAsync}.
     *
     * @throws IllegalArgumentException for a null or empty key or owners of the wrong length
     */
    public CompletableFuture<boolean[]> forgetAllAsync(List<byte[]> keys, long[] owners) {
        return writes.forgetAllAsync(keys, owners);
    }

    /**
     * Stops taking writes, writes and fsyncs the journal, writes a final snapshot and closes the store. Failures
     * are logged: the journal already holds every acknowledged change.
     */
    @Override
    public void close() {
        if (writes.close()) {
            shutDown();
        }
    }

    /**
     * Makes {@code content} the whole of what the journal directory {@code dir} holds, for a store that is closed
     * there, so that a crash at any point leaves its old content or the new one, never neither: the content is
     * written as a snapshot past every record and snapshot in the directory and made durable, and only then are the
     * older snapshots and the journal deleted. Open the directory afterwards as usual: recovery loads that snapshot.
     * When this fails, the old content is still there whole, unless the new snapshot was written and only the
     * deletions failed, in which case it is the newest and recovery loads it.
     *
     * @return the snapshot written
     */
    public static <S extends HashedSeenSet> Path replaceContent(Path dir, SnapshotCodec<S> codec, S content)
            throws IOException {
        return Snapshots.replaceContent(dir, codec, content);
    }

    /**
     * Closes as {@link #close()} does but writes no final snapshot, and refuses the snapshots asked for meanwhile:
     * for a store whose files are deleted next (a clear, content replaced by a dump), where a snapshot of what is
     * thrown away would cost as much as writing the whole filter, while writers wait for the new store.
     */
    public void closeDiscarding() {
        if (writes.close()) {
            snapshotter.discard();
            shutDown();
        }
    }

    /** Closes what {@link #close()} and {@link #closeDiscarding()} close, once writes are refused. */
    private void shutDown() {
        // the take-backs already queued append their forgets before the journal closes; one queued while it closes
        // only touches memory, which the final snapshot then records
        snapshotter.awaitQueued();
        writes.stopJournaling();
        journal.close();
        try {
            finalSnapshotFailure = snapshotter.close();
        } finally {
            store.close();
            try {
                directoryLock.close();
            } catch (IOException e) {
                LOG.warn("{}: releasing the directory lock failed", dir, e);
            }
        }
    }

    /**
     * Records that the store was changed directly, not through this journal (a bulk merge into it): the next
     * snapshot, which makes that change durable, is written even if no journaled write came since the last one, and
     * every older snapshot, which lacks the change, is then deleted ({@link Snapshots#pruneToNewest}).
     */
    public void markChanged() {
        snapshotter.markChanged();
    }

    /**
     * The journal position, read under the store's lock: every record before it is in the store, and no later one
     * while {@code underLock} runs.
     */
    private long journalPosition(Runnable underLock) {
        return writes.journalPosition(underLock);
    }

    /** Configures and opens a {@link JournaledSeenSet}; every setting has a default. */
    public static final class Builder<S extends HashedSeenSet> {

        private final Path dir;
        private final SnapshotCodec<S> codec;
        private final Supplier<S> empty;
        private FsyncPolicy fsync = FsyncPolicy.EVERYSEC;
        private Duration snapshotInterval = Duration.ofMinutes(5);
        private long segmentBytes = 64L << 20;
        private int bufferRecords = 1 << 16;
        private int groupRecords = 1 << 12;
        private Duration retryDelay = Duration.ofSeconds(1);
        private ChannelOpener opener = ChannelOpener.FILES;
        private JournalThreads threads = JournalThreads.shared();
        private boolean fromWhatIsReadable;

        private Builder(Path dir, SnapshotCodec<S> codec, Supplier<S> empty) {
            this.dir = dir;
            this.codec = codec;
            this.empty = empty;
        }

        /** When the journal is fsynced; default {@link FsyncPolicy#EVERYSEC}. */
        public Builder<S> fsync(FsyncPolicy policy) {
            this.fsync = Require.nonNull("fsync", policy);
            return this;
        }

        /**
         * Whether a store that no snapshot and no whole journal can rebuild is opened from what its files still hold
         * (empty, plus every journal record still there) instead of being refused; default false. The records lost
         * are named in {@link JournaledSeenSet#recovery()}, and a snapshot is written before {@link #open} returns,
         * so that the next open, without this setting, finds the store whole. For an operator's explicit choice.
         */
        public Builder<S> fromWhatIsReadable(boolean readable) {
            this.fromWhatIsReadable = readable;
            return this;
        }

        /** How often a snapshot is written when the store changed; {@link Duration#ZERO} for never; default 5 min. */
        public Builder<S> snapshotInterval(Duration interval) {
            Require.nonNull("snapshotInterval", interval);
            Require.inRange("snapshotInterval (ms)", interval.toMillis(), 0, Long.MAX_VALUE);
            this.snapshotInterval = interval;
            return this;
        }

        /**
         * The size past which a journal segment is closed and a new one started (a segment may exceed it by one
         * group); recovery reads a segment whole, hence the 1 GiB limit; default 64 MiB.
         */
        public Builder<S> segmentBytes(long bytes) {
            this.segmentBytes = Require.inRange("segmentBytes", bytes, 4096, 1L << 30);
            return this;
        }

        /**
         * How many records may wait for the disk before writers block; bounds the journal's memory (about 100 bytes
         * a record); default 65,536.
         */
        public Builder<S> bufferRecords(int records) {
            this.bufferRecords = (int) Require.inRange("bufferRecords", records, 1, 1 << 24);
            return this;
        }

        /** The most records written with one write and one fsync; default 4,096. */
        Builder<S> groupRecords(int records) {
            this.groupRecords = (int) Require.inRange("groupRecords", records, 1, 1 << 20);
            return this;
        }

        /**
         * The threads that write the journal and the snapshots; default {@link JournalThreads#shared()}, the
         * process's. Closing the store leaves them running.
         */
        public Builder<S> threads(JournalThreads threads) {
            this.threads = Require.nonNull("threads", threads);
            return this;
        }

        /** How long the journal waits before retrying a failed write; default 1 s. */
        Builder<S> retryDelay(Duration delay) {
            this.retryDelay = Require.nonNull("retryDelay", delay);
            return this;
        }

        /** How segment files are opened; tests pass slow or failing channels. */
        Builder<S> channelOpener(ChannelOpener opener) {
            this.opener = Require.nonNull("opener", opener);
            return this;
        }

        private JournalSettings journalSettings() {
            return new JournalSettings(
                    dir, fsync, segmentBytes, bufferRecords, groupRecords, retryDelay, opener, threads.journals());
        }

        /**
         * Takes the directory (creating it if needed), recovers the store from it and starts the journal.
         *
         * @throws IOException if the directory cannot be read or written, or another process holds it
         */
        public JournaledSeenSet<S> open() throws IOException {
            Files.createDirectories(dir);
            DirectoryLock directoryLock = DirectoryLock.take(dir);
            try {
                if (!fromWhatIsReadable) {
                    return new JournaledSeenSet<>(this, directoryLock, Recovery.run(dir, codec, empty));
                }
                JournaledSeenSet<S> set =
                        new JournaledSeenSet<>(this, directoryLock, Recovery.runFromWhatIsReadable(dir, codec, empty));
                if (!set.recovery().clean()) {
                    set.snapshotNow().join();
                }
                return set;
            } catch (IOException | RuntimeException e) {
                directoryLock.close();
                throw e;
            }
        }
    }
}
