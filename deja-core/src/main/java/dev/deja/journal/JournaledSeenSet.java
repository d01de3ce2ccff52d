package dev.deja.journal;

import dev.deja.background.TaskQueue;
import dev.deja.hash.Hash128;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.Require;
import dev.deja.seen.SeenStats;
import dev.deja.seen.StoreClosedException;
import dev.deja.seen.Verdict;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An in-memory {@link HashedSeenSet} made durable by a write-ahead journal and periodic snapshots in one directory.
 *
 * <p>Design (DESIGN.md section 5, seed 001 and its readers' request for an operation log). Every change is
 * applied to the store and appended to the {@link Journal} under one per-store lock, so the journal's order is the
 * order in which changes were applied; the caller then waits, outside the lock, until its record is written (and
 * fsynced under {@link FsyncPolicy#ALWAYS}); under the other policies the caller writes the records itself. Only
 * changes are journaled: an add or check-then-add that found the key new becomes {@code ADD}, a forget that
 * erased it becomes {@code FORGET}; a duplicate or retry changes nothing and is not journaled, though it still
 * waits for the records before it so that it never acknowledges a change that a crash could undo. Checks take no lock and never wait for the disk, so they keep answering while
 * the disk is full or slow (they may see a change whose writer is still waiting for it to become durable).
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
 * snapshot errs only in its declared direction, or write a consistent snapshot itself. Snapshots are written to a
 * temporary file, fsynced, renamed into place and the directory fsynced; the two newest are kept so that a
 * corrupt newest one falls back to the previous, and journal segments are deleted only once wholly before the
 * older of the two.
 *
 * <p>Snapshots are taken every {@link Builder#snapshotInterval} when the store changed, at {@link #close()}, and
 * on {@link #snapshotNow()} (which the server calls on SIGUSR1 and on command), one at a time, on threads shared
 * with other stores ({@link JournalThreads}); the journal writes on threads of its own set.
 *
 * <p>A change is applied before its record is written, so when the write fails (a full disk) the store already
 * holds it, and the journal keeps the record to write once the disk recovers. For a store that promises never to
 * call a new key seen ({@link Guarantee#NEVER_FALSE_DUPLICATE}, {@link Guarantee#EXACT_WITHIN_WINDOW}) that would
 * break the promise: the caller was told the add failed, and its retry would be answered "duplicate", dropping a
 * message nobody processed. Such stores take the keys of a failed add back before the caller hears of the failure
 * ({@link #takeBack}): each is forgotten if it is still held under the caller's owner, and the forget is journaled
 * after the add, so memory, the journal and a later replay agree that the key is absent. If another caller's
 * identical key is erased with it, a duplicate may slip through, which is the error these stores allow. A bloom
 * filter ({@link Guarantee#NEVER_FALSE_NEW}) cannot forget; a failed add stays in it, within its declared error.
 *
 * @param <S> the store kept in memory
 */
public final class JournaledSeenSet<S extends HashedSeenSet> implements HashedSeenSet {

    private static final Logger LOG = LoggerFactory.getLogger(JournaledSeenSet.class);

    private final Path dir;
    private final S store;
    private final SnapshotCodec<S> codec;
    /**
     * {@link #codec}, writing through a stream that gives up once {@link #closeDiscarding()} has begun: a clear
     * would otherwise wait for a snapshot in progress (seconds for a large filter) of content it throws away.
     */
    private final SnapshotCodec<S> abandonedOnDiscard;

    private final Journal journal;
    private final RecoveryReport recovery;
    private final FileChannel lockFile;
    private final ReentrantLock lock = new ReentrantLock();
    /** Runs snapshots and take-backs, one at a time, in order, on the shared snapshot threads. */
    private final TaskQueue snapshotter;

    /** Guarded by {@link #lock}. */
    private boolean closed;

    /** Set by {@link #closeDiscarding()}: snapshots are refused from then on. */
    private volatile boolean discarding;

    /** Whether records may still be appended (false once {@link #close()} closes the journal); guarded by the lock. */
    private boolean journalOpen = true;

    /** Whether a failed add's keys are taken back ({@link #takeBack}); false for stores that cannot forget. */
    private final boolean takesBackFailedAdds;

    /**
     * Where take-backs run: the {@link #snapshotter}, or the caller once it is closed (the journal is closed by then,
     * so a take-back only touches memory).
     */
    private final Executor takeBacks;

    /**
     * Position of the last snapshot written or loaded, -1 when none; used only by the {@link #snapshotter}'s tasks,
     * which run one at a time and each see what the one before did.
     */
    private long snapshotPosition;

    /**
     * Whether the store changed without a journal record ({@link #markChanged}, a merge) since the last snapshot
     * began: the next snapshot is then written even at an unchanged journal position.
     */
    private volatile boolean changedOutsideJournal;

    /** Why {@link #close()} could not write the final snapshot; null when it did or had nothing to write. */
    private volatile Throwable finalSnapshotFailure;

    private JournaledSeenSet(Builder<S> b, FileChannel lockFile, Recovery.Result<S> recovered) throws IOException {
        this.dir = b.dir;
        this.store = recovered.store();
        this.codec = b.codec;
        this.abandonedOnDiscard = new SnapshotCodec<>() {
            @Override
            public void write(S content, OutputStream out) throws IOException {
                codec.write(content, new FilterOutputStream(out) {
                    @Override
                    public void write(byte[] bytes, int offset, int length) throws IOException {
                        abandonIfDiscarding();
                        out.write(bytes, offset, length);
                    }

                    @Override
                    public void write(int b) throws IOException {
                        abandonIfDiscarding();
                        out.write(b);
                    }
                });
            }

            @Override
            public S read(InputStream in) throws IOException {
                return codec.read(in);
            }
        };
        this.recovery = recovered.report();
        this.lockFile = lockFile;
        this.snapshotPosition = recovery.snapshot().isPresent() ? recovery.snapshotPosition() : -1;
        // before the journal, whose background work may ask for a snapshot (snapshotAfterLostSegment)
        this.snapshotter = new TaskQueue("snapshots of " + dir, b.threads.snapshots());
        this.journal = new Journal(b.journalSettings(), recovered.nextSeq(), this::snapshotAfterLostSegment);
        this.takesBackFailedAdds = store.guarantee() != Guarantee.NEVER_FALSE_NEW;
        this.takeBacks = task -> {
            try {
                snapshotter.execute(task);
            } catch (RejectedExecutionException closedAlready) {
                task.run();
            }
        };
        if (!b.snapshotInterval.isZero()) {
            snapshotter.repeat(b.snapshotInterval, this::periodicSnapshot);
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
        try {
            return snapshotter.submit(this::snapshot);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new StoreClosedException("store " + dir + " is closed"));
        }
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
        CompletableFuture<Void> done = new CompletableFuture<>();
        Verdict verdict;
        lockOrThrow();
        try {
            verdict = store.checkThenAddHash(high, low, owner);
            if (verdict == Verdict.NEW) {
                journal.append(Segment.ADD, high, low, owner, done);
            } else {
                journal.sync(done);
            }
        } finally {
            lock.unlock();
        }
        journal.writeNow();
        await(
                verdict == Verdict.NEW && takesBackFailedAdds
                        ? settled(done, new long[] {high, low}, new long[] {owner}, new boolean[] {true})
                        : done);
        return verdict;
    }

    @Override
    public boolean forgetHash(long high, long low, long owner) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean erased;
        lockOrThrow();
        try {
            erased = store.forgetHash(high, low, owner);
            if (erased) {
                journal.append(Segment.FORGET, high, low, owner, done);
            } else {
                journal.sync(done);
            }
        } finally {
            lock.unlock();
        }
        journal.writeNow();
        await(done);
        return erased;
    }

    @Override
    public void addAll(List<byte[]> keys) {
        checkThenAddAll(keys, null);
    }

    /** Locks once and waits for the disk once for the whole batch. */
    @Override
    public Verdict[] checkThenAddAll(List<byte[]> keys, long[] owners) {
        CompletableFuture<Verdict[]> done = checkThenAddAllAsync(keys, owners);
        journal.writeNow(); // not deferred, even inside DeferredWrites.run
        return await(done);
    }

    /** Locks once and waits for the disk once for the whole batch. */
    @Override
    public boolean[] forgetAll(List<byte[]> keys, long[] owners) {
        CompletableFuture<boolean[]> done = forgetAllAsync(keys, owners);
        journal.writeNow(); // not deferred, even inside DeferredWrites.run
        return await(done);
    }

    /**
     * {@link #checkThenAddAll} without waiting for the disk: the verdicts are final when this returns (later calls
     * see the changes), and the future completes with them once the changes are durable as the fsync policy says,
     * or fails with {@link JournalWriteException}. Lets a server answer when durable without parking a thread; the
     * call itself still blocks while the journal's buffer is full, which is how a slow disk slows writers down.
     * Under {@code everysec} and {@code no} the records are written before this returns, or, inside
     * {@link DeferredWrites#collect}, by that collection's {@link DeferredWrites#write}.
     *
     * @throws IllegalArgumentException for a null or empty key or owners of the wrong length
     */
    public CompletableFuture<Verdict[]> checkThenAddAllAsync(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        Verdict[] out = new Verdict[keys.size()];
        boolean[] changed = new boolean[out.length];
        CompletableFuture<Void> done = new CompletableFuture<>();
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        try {
            store.checkThenAddHashes(hashes, owners, out);
            for (int i = 0; i < out.length; i++) {
                changed[i] = out[i] == Verdict.NEW;
            }
            journalChanges(Segment.ADD, hashes, owners, changed, done);
        } finally {
            lock.unlock();
        }
        DeferredWrites.written(journal);
        return settled(done, hashes, owners, changed).thenApply(durable -> out);
    }

    /**
     * {@code done}, or, for a store that takes failed adds back, a future that fails only once the changed keys
     * have been taken back, so that a caller retrying at once finds them absent. The take-back runs among the
     * snapshot tasks: {@code done} fails on a thread that holds the journal's write lock, under which the store's
     * lock must not be taken.
     */
    private CompletableFuture<Void> settled(
            CompletableFuture<Void> done, long[] hashes, long[] owners, boolean[] changed) {
        if (!takesBackFailedAdds || !anyTrue(changed)) {
            return done;
        }
        return done.exceptionallyComposeAsync(failure -> takeBack(hashes, owners, changed, failure), takeBacks);
    }

    /**
     * Forgets the keys a failed add changed, each only if still held under the owner it was added with, journaling
     * each forget after the failed add (both are written once the disk recovers, or neither), and returns the
     * failure for the caller, saying that nothing was recorded. See the class comment.
     */
    private CompletableFuture<Void> takeBack(long[] hashes, long[] owners, boolean[] changed, Throwable failure) {
        Throwable cause = failure instanceof CompletionException wrapped && wrapped.getCause() != null
                ? wrapped.getCause()
                : failure;
        if (!(cause instanceof JournalWriteException writeFailure)) {
            return CompletableFuture.failedFuture(cause);
        }
        lock.lock();
        try {
            for (int i = 0; i < changed.length; i++) {
                long high = hashes[2 * i];
                long low = hashes[2 * i + 1];
                long owner = owner(owners, i);
                if (changed[i] && store.forgetHash(high, low, owner) && journalOpen) {
                    journal.append(Segment.FORGET, high, low, owner, null);
                }
            }
        } finally {
            lock.unlock();
        }
        return CompletableFuture.failedFuture(new JournalWriteException(
                writeFailure.getMessage() + "; nothing this call added is kept, so its retry finds the keys new",
                writeFailure.getCause()));
    }

    private static boolean anyTrue(boolean[] flags) {
        for (boolean flag : flags) {
            if (flag) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@link #forgetAll} without waiting for the disk, as {@link #checkThenAddAllAsync}.
     *
     * @throws IllegalArgumentException for a null or empty key or owners of the wrong length
     */
    public CompletableFuture<boolean[]> forgetAllAsync(List<byte[]> keys, long[] owners) {
        Require.sameLength(keys, owners);
        long[] hashes = Hash128.ofAll(keys);
        boolean[] erased = new boolean[keys.size()];
        CompletableFuture<Void> done = new CompletableFuture<>();
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            return CompletableFuture.failedFuture(refused);
        }
        try {
            store.forgetHashes(hashes, owners, erased); // refuses a bad owner before erasing any key
            journalChanges(Segment.FORGET, hashes, owners, erased, done);
        } finally {
            lock.unlock();
        }
        DeferredWrites.written(journal);
        return done.thenApply(durable -> erased);
    }

    /** Appends the changed entries of a batch, in order, with {@code done} on the last (under the lock). */
    private void journalChanges(
            byte op, long[] hashes, long[] owners, boolean[] changed, CompletableFuture<Void> done) {
        int last = -1;
        for (int i = 0; i < changed.length; i++) {
            last = changed[i] ? i : last;
        }
        if (last < 0) {
            journal.sync(done);
            return;
        }
        for (int i = 0; i <= last; i++) {
            if (changed[i]) {
                journal.append(op, hashes[2 * i], hashes[2 * i + 1], owner(owners, i), i == last ? done : null);
            }
        }
    }

    /**
     * Stops taking writes, writes and fsyncs the journal, writes a final snapshot and closes the store. Failures
     * are logged: the journal already holds every acknowledged change.
     */
    @Override
    public void close() {
        close(true);
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
        List<Snapshots.Snapshot> snapshots = Snapshots.list(dir);
        List<Segment.File> segments = Segment.list(dir);
        long position = 0;
        for (Snapshots.Snapshot snapshot : snapshots) {
            position = Math.max(position, snapshot.position());
        }
        for (Segment.File segment : segments) {
            position = Math.max(position, segment.end());
        }
        Path written = Snapshots.write(dir, position, codec, content);
        for (Snapshots.Snapshot snapshot : snapshots) {
            if (snapshot.position() < position) { // one at the position itself was just replaced by the new one
                Files.deleteIfExists(snapshot.file());
            }
        }
        for (Segment.File segment : segments) {
            Files.deleteIfExists(segment.path()); // every record in it is before the new snapshot's position
        }
        return written;
    }

    /**
     * Closes as {@link #close()} does but writes no final snapshot, and refuses the snapshots asked for meanwhile:
     * for a store whose files are deleted next (a clear, content replaced by a dump), where a snapshot of what is
     * thrown away would cost as much as writing the whole filter, while writers wait for the new store.
     */
    public void closeDiscarding() {
        close(false);
    }

    private void close(boolean finalSnapshot) {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            discarding = !finalSnapshot;
        } finally {
            lock.unlock();
        }
        drainTakeBacks();
        lock.lock();
        try {
            journalOpen = false;
        } finally {
            lock.unlock();
        }
        journal.close();
        Future<Path> written = finalSnapshot ? snapshotter.submit(this::snapshot) : null;
        // Close, not drop: a snapshot asked for meanwhile is queued with a caller waiting on its future, which
        // dropping would leave unanswered; it runs after the final one and finds nothing new. Whatever no shared
        // thread has started yet runs here, and the store they read is closed only after them.
        snapshotter.close();
        try {
            if (written != null) {
                written.get();
            }
        } catch (ExecutionException e) {
            finalSnapshotFailure = e.getCause();
            LOG.error("{}: final snapshot failed; the journal holds every change", dir, e.getCause());
        } catch (InterruptedException e) {
            finalSnapshotFailure = e;
            Thread.currentThread().interrupt();
        } finally {
            store.close();
            try {
                lockFile.close();
            } catch (IOException e) {
                LOG.warn("{}: releasing the directory lock failed", dir, e);
            }
        }
    }

    /**
     * Waits for the take-backs already queued among the snapshot tasks, so that their forgets are appended before the
     * journal closes; one queued while it closes only touches memory, which the final snapshot then records.
     */
    private void drainTakeBacks() {
        try {
            snapshotter.submit(() -> null).get();
        } catch (ExecutionException | RejectedExecutionException e) {
            LOG.warn("{}: waiting for take-backs failed", dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void lockOrThrow() {
        RuntimeException refused = lockForWrite();
        if (refused != null) {
            throw refused;
        }
    }

    /** Takes the lock for a change, or returns why the change is refused (without the lock). */
    private RuntimeException lockForWrite() {
        IOException failure = journal.failure();
        if (failure != null) {
            return new JournalWriteException(
                    "journal in " + dir + " cannot write (" + failure.getMessage()
                            + "); writes are refused until the disk accepts them, reads continue",
                    failure);
        }
        lock.lock();
        if (closed) {
            lock.unlock();
            return new StoreClosedException("store " + dir + " is closed");
        }
        return null;
    }

    private static <T> T await(CompletableFuture<T> done) {
        try {
            return done.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof JournalWriteException failed) {
                throw new JournalWriteException(failed.getMessage(), failed.getCause()); // this thread's stack trace
            }
            throw (RuntimeException) e.getCause(); // a refused call: closed store
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new JournalWriteException(
                    "interrupted while waiting for the journal; the change is applied but " + "may not be durable",
                    new InterruptedIOException());
        }
    }

    private void periodicSnapshot() {
        try {
            snapshot();
        } catch (StoreClosedException e) {
            // closing with its content discarded (closeDiscarding): there is nothing to keep
        } catch (RuntimeException e) {
            LOG.error("{}: periodic snapshot failed; the journal still holds every change", dir, e);
        }
    }

    /**
     * The journal found its segment deleted under it (see {@code Journal}): a snapshot now keeps the changes that
     * only the deleted file held. Runs where the journal writes, under its write lock, so the snapshot is only
     * queued.
     */
    private void snapshotAfterLostSegment() {
        snapshotNow().exceptionally(failure -> {
            LOG.error(
                    "{}: the snapshot after a deleted journal segment failed; the changes that segment held"
                            + " are only in memory until a snapshot succeeds",
                    dir,
                    failure);
            return null;
        });
    }

    /**
     * Records that the store was changed directly, not through this journal (a bulk merge into it): the next
     * snapshot, which makes that change durable, is written even if no journaled write came since the last one, and
     * every older snapshot, which lacks the change, is then deleted ({@link Snapshots#pruneToNewest}).
     */
    public void markChanged() {
        changedOutsideJournal = true;
    }

    private void abandonIfDiscarding() {
        if (discarding) {
            throw new StoreClosedException(
                    "store " + dir + " is closed and its content discarded (cleared or" + " replaced)");
        }
    }

    /** Runs among the {@link #snapshotter}'s tasks only. */
    private Path snapshot() {
        abandonIfDiscarding();
        long position;
        lock.lock();
        try {
            position = journal.nextSeq();
        } finally {
            lock.unlock();
        }
        Path file = dir.resolve(Snapshots.fileName(position));
        if (position == snapshotPosition && !changedOutsideJournal) {
            return file;
        }
        boolean direct = changedOutsideJournal;
        changedOutsideJournal = false; // a change from here on is seen by the next snapshot
        try {
            long start = System.nanoTime();
            Snapshots.write(dir, position, abandonedOnDiscard, store);
            snapshotPosition = position;
            if (direct) {
                Snapshots.pruneToNewest(dir);
            } else {
                OptionalLong keepFrom = Snapshots.prune(dir);
                if (keepFrom.isPresent()) {
                    Segment.deleteBefore(dir, keepFrom.getAsLong());
                }
            }
            LOG.info(
                    "{}: wrote {} ({} bytes) in {} ms",
                    dir,
                    file.getFileName(),
                    Files.size(file),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return file;
        } catch (IOException e) {
            changedOutsideJournal |= direct;
            throw new UncheckedIOException("snapshot of " + dir + " failed: " + e.getMessage(), e);
        }
    }

    private static long owner(long[] owners, int i) {
        return owners == null ? NO_OWNER : owners[i];
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
            FileChannel lockFile =
                    FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                FileLock held;
                try {
                    held = lockFile.tryLock();
                } catch (OverlappingFileLockException e) {
                    held = null;
                }
                if (held == null) {
                    throw new IOException(dir + " is already open (its lock file is held)");
                }
                return new JournaledSeenSet<>(this, lockFile, Recovery.run(dir, codec, empty));
            } catch (IOException | RuntimeException e) {
                lockFile.close();
                throw e;
            }
        }
    }
}
