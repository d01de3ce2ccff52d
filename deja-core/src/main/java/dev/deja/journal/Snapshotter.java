package dev.deja.journal;

import dev.deja.background.TaskQueue;
import dev.deja.seen.StoreClosedException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the snapshots of a journaled store, one at a time and in order, on the shared snapshot threads
 * ({@link JournalThreads}): every interval when the store changed, on request, and the final one at close. The same
 * queue runs the store's take-backs of failed adds ({@link #runInTurn}), so that they too run one at a time.
 *
 * <p>A snapshot is fuzzy (see {@link JournaledSeenSet}): it reads the journal position under the store's lock, then
 * streams the live store; or, for a codec that captures a copy ({@link SnapshotCodec#capture}), streams the copy
 * taken under that lock, which holds exactly the records before the position. Once written, it makes the older
 * snapshots and the journal segments before the older of the two kept ones prunable; after a change the journal does
 * not hold ({@link #markChanged}), only the new snapshot is kept ({@link Snapshots#pruneToNewest}).
 *
 * @param <S> the store
 */
final class Snapshotter<S> {

    private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);

    private final Path dir;
    private final S store;
    /** The store's codec, abandoning a snapshot in progress once the content is discarded ({@link #discard}). */
    private final SnapshotCodec<S> codec;
    /**
     * The journal position, read under the store's lock, running the given task under that lock: every record before
     * the position is in the store, and no later one while the task runs.
     */
    private final ToLongFunction<Runnable> journalPosition;
    /** Runs snapshots and take-backs, one at a time, in order, on the shared snapshot threads. */
    private final TaskQueue tasks;

    /**
     * Position of the last snapshot written or loaded, -1 when none; used only by the {@link #tasks}, which run one
     * at a time and each see what the one before did.
     */
    private long snapshotPosition;

    /**
     * Whether the store changed without a journal record ({@link #markChanged}, a merge) since the last snapshot
     * began: the next snapshot is then written even at an unchanged journal position.
     */
    private volatile boolean changedOutsideJournal;

    /** Set by {@link #discard}: snapshots are refused from then on. */
    private volatile boolean discarding;

    /**
     * @param dir             the store's directory
     * @param codec           writes the store's snapshots
     * @param recovered       the store as recovery loaded it, and the snapshot it came from
     * @param journalPosition the journal position, read under the store's lock, which runs the given task under it
     * @param threads         where the snapshots run, shared with other stores
     */
    Snapshotter(
            Path dir,
            SnapshotCodec<S> codec,
            Recovery.Result<S> recovered,
            ToLongFunction<Runnable> journalPosition,
            ScheduledExecutorService threads) {
        this.dir = dir;
        this.store = recovered.store();
        this.codec = new AbandonableCodec<>(codec, this::abandonIfDiscarding);
        this.journalPosition = journalPosition;
        RecoveryReport report = recovered.report();
        this.snapshotPosition = report.snapshot().isPresent() ? report.snapshotPosition() : -1;
        this.tasks = new TaskQueue("snapshots of " + dir, threads);
    }

    /** Writes a snapshot every {@code interval} from now on when the store changed. */
    void repeatEvery(Duration interval) {
        tasks.repeat(interval, this::periodicSnapshot);
    }

    /**
     * Writes a snapshot now, without blocking readers or writers, and completes with its file; completes at once
     * with the current snapshot when nothing changed since. Fails if the store is closed or the disk refuses it.
     */
    CompletableFuture<Path> snapshotNow() {
        try {
            return tasks.submit(this::snapshot);
        } catch (RejectedExecutionException e) {
            return CompletableFuture.failedFuture(new StoreClosedException("store " + dir + " is closed"));
        }
    }

    /**
     * The journal found its segment deleted under it (see {@code Journal}): a snapshot now keeps the changes that
     * only the deleted file held. Runs where the journal writes, under its write lock, so the snapshot is only
     * queued.
     */
    void snapshotAfterLostSegment() {
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
     * Records that the store was changed directly, not through its journal: the next snapshot is written even if the
     * journal did not move, and every older snapshot, which lacks the change, is then deleted.
     */
    void markChanged() {
        changedOutsideJournal = true;
    }

    /** Runs the task after those queued, on the snapshot threads; on the calling thread once this is closed. */
    void runInTurn(Runnable task) {
        try {
            tasks.execute(task);
        } catch (RejectedExecutionException closedAlready) {
            task.run();
        }
    }

    /** Waits for the tasks already queued (the take-backs among them) to run. */
    void awaitQueued() {
        try {
            tasks.submit(() -> null).get();
        } catch (ExecutionException | RejectedExecutionException e) {
            LOG.warn("{}: waiting for take-backs failed", dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Refuses every snapshot from now on, and abandons the one being written: the content is thrown away. */
    void discard() {
        discarding = true;
    }

    /**
     * Writes the final snapshot unless the content is discarded ({@link #discard}), runs whatever is still queued,
     * and takes no more tasks; the store may be closed once this returns.
     *
     * @return why the final snapshot could not be written, or null when it was, had nothing new, or was discarded
     */
    Throwable close() {
        Future<Path> written = discarding ? null : tasks.submit(this::snapshot);
        // Close, not drop: a snapshot asked for meanwhile is queued with a caller waiting on its future, which
        // dropping would leave unanswered; it runs after the final one and finds nothing new. Whatever no shared
        // thread has started yet runs here, and the store they read is closed only after them.
        tasks.close();
        try {
            if (written != null) {
                written.get();
            }
            return null;
        } catch (ExecutionException e) {
            LOG.error("{}: final snapshot failed; the journal holds every change", dir, e.getCause());
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return e;
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

    private void abandonIfDiscarding() {
        if (discarding) {
            throw new StoreClosedException(
                    "store " + dir + " is closed and its content discarded (cleared or" + " replaced)");
        }
    }

    /** Runs among the {@link #tasks} only. */
    private Path snapshot() {
        abandonIfDiscarding();
        long unchanged = journalPosition.applyAsLong(() -> {});
        if (unchanged == snapshotPosition && !changedOutsideJournal) {
            return dir.resolve(Snapshots.fileName(unchanged));
        }
        List<S> captured = new ArrayList<>(1);
        long position = journalPosition.applyAsLong(() -> captured.add(codec.capture(store)));
        Path file = dir.resolve(Snapshots.fileName(position));
        boolean direct = changedOutsideJournal;
        changedOutsideJournal = false; // a change from here on is seen by the next snapshot
        try {
            long start = System.nanoTime();
            Snapshots.write(dir, position, codec, captured.get(0));
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
}
