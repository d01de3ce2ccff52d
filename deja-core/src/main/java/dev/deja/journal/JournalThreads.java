package dev.deja.journal;

import dev.deja.checks.Require;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The threads that write the journals and snapshots of {@link JournaledSeenSet}s, shared by every store that uses
 * them, so that the number of threads does not grow with the number of stores.
 *
 * <p>Two fixed sets of daemon threads:
 * <ul>
 *   <li>journal writers ({@code deja-journal-N}): under {@link FsyncPolicy#ALWAYS} they write and fsync each
 *       store's groups of records, one group at a time per store; under the other policies they run each store's
 *       once-a-second fsync and the retries of failed writes. Each store's journal work runs on one of them at a
 *       time ({@link dev.deja.background.SerialWork}). They mostly wait for the disk, hence twice as many as cores.
 *   <li>snapshot writers ({@code deja-snapshot-N}): periodic and requested snapshots and the take-backs of failed
 *       adds, one at a time per store ({@link dev.deja.background.TaskQueue}). A snapshot streams a whole store
 *       through memory and to disk, so they are half as many as cores, leaving the rest to requests.
 * </ul>
 * They are two sets because a snapshot or take-back takes its store's lock, which a writer under {@code always}
 * holds while it waits for room in the journal's queue, room that only a journal writer makes: sharing one set,
 * tasks waiting for store locks could take every thread and leave none to make that room.
 *
 * <p>Every store uses {@link #shared()} unless its builder is given other threads
 * ({@link JournaledSeenSet.Builder#threads}). Closing a store never stops the threads.
 */
public final class JournalThreads implements AutoCloseable {

    private static final int CORES = Runtime.getRuntime().availableProcessors();

    /** Created on first use, so that a process that opens no store starts no thread. */
    private static final class Shared {
        static final JournalThreads INSTANCE =
                new JournalThreads(Math.max(4, 2 * CORES), Math.max(2, CORES / 2), false);
    }

    private final ScheduledThreadPoolExecutor journals;
    private final ScheduledThreadPoolExecutor snapshots;
    private final boolean closeable;

    private JournalThreads(int journalThreads, int snapshotThreads, boolean closeable) {
        this.journals = executor("deja-journal-", journalThreads);
        this.snapshots = executor("deja-snapshot-", snapshotThreads);
        this.closeable = closeable;
    }

    /**
     * The threads of the process that every store uses by default: {@code max(4, 2 x cores)} journal writers and
     * {@code max(2, cores / 2)} snapshot writers, started as work arrives; never closed.
     */
    public static JournalThreads shared() {
        return Shared.INSTANCE;
    }

    /**
     * Threads of their own, for stores that must not share the process's: close them once every store using them is
     * closed (a store whose threads are closed can no longer write).
     */
    public static JournalThreads create(int journalThreads, int snapshotThreads) {
        return new JournalThreads(
                (int) Require.inRange("journalThreads", journalThreads, 1, 1024),
                (int) Require.inRange("snapshotThreads", snapshotThreads, 1, 1024),
                true);
    }

    /** Where journals write and fsync. */
    ScheduledExecutorService journals() {
        return journals;
    }

    /** Where snapshots and take-backs run. */
    ScheduledExecutorService snapshots() {
        return snapshots;
    }

    /**
     * Stops the threads of {@link #create}d instances, waiting for the work in progress.
     *
     * @throws UnsupportedOperationException for {@link #shared()}, which lives as long as the process
     */
    @Override
    public void close() {
        if (!closeable) {
            throw new UnsupportedOperationException("the shared journal threads live as long as the process");
        }
        journals.shutdown();
        snapshots.shutdown();
        try {
            journals.awaitTermination(1, TimeUnit.MINUTES);
            snapshots.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ScheduledThreadPoolExecutor executor(String namePrefix, int threads) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(
                threads, Thread.ofPlatform().name(namePrefix, 1).daemon().factory());
        // a closed store cancels its next tick; without this the cancelled tick would wait in the queue until due
        executor.setRemoveOnCancelPolicy(true);
        // work still waiting for its time at close belongs to stores that were not closed first
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return executor;
    }
}
