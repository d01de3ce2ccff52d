package dev.deja.exact.threads;

import dev.deja.background.SerialWork;
import dev.deja.background.TaskQueue;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.function.LongSupplier;

/**
 * The threads every exact store of the process shares for its background work, so that the number of threads does
 * not grow with the number of stores; each store's work runs on them one task at a time ({@link SerialWork},
 * {@link TaskQueue}). RocksDB's own flush and compaction threads are shared already, by its default environment.
 *
 * <p>Two fixed sets of daemon threads, started as work arrives:
 * <ul>
 *   <li>maintenance ({@code deja-exact-maintenance-N}, {@code max(2, cores)}): short work on a timer or on demand:
 *       the once-a-second sync of the write-ahead log, a server's group syncs under {@code fsync always}, rollover
 *       and age-out, checkpoints.
 *   <li>generations ({@code deja-exact-generation-N}, {@code max(2, cores / 2)}): work on a whole generation, which
 *       may take minutes: its seal (a compaction, {@link Sealer}) and the loading of its key filter after a reopen
 *       ({@link FilterLoader}). Kept apart so that it never holds up the syncs.
 * </ul>
 *
 * <p>Not part of deja-rocksdb's API: the package is exported only to deja-server, whose exact namespaces run their
 * background work on the same threads.
 */
public final class ExactThreads {

    private static final int CORES = Runtime.getRuntime().availableProcessors();

    /** Created on first use, so that a process that opens no exact store starts no thread. */
    private static final class Shared {
        static final ScheduledThreadPoolExecutor MAINTENANCE = executor("deja-exact-maintenance-", Math.max(2, CORES));
        static final ScheduledThreadPoolExecutor GENERATIONS =
                executor("deja-exact-generation-", Math.max(2, CORES / 2));
    }

    private ExactThreads() {}

    /**
     * Short background work of an exact store or of a server's exact namespace on the shared maintenance threads.
     *
     * @param name what the work is, for the log
     * @param run  one run; returns the nanoseconds until the next, or {@link SerialWork#IDLE}
     */
    public static SerialWork maintenance(String name, LongSupplier run) {
        return new SerialWork(name, Shared.MAINTENANCE, run);
    }

    /** Tasks of an exact store or of a server's exact namespace, run in order on the shared maintenance threads. */
    public static TaskQueue maintenanceTasks(String name) {
        return new TaskQueue(name, Shared.MAINTENANCE);
    }

    /** Work on whole generations (seals, filter loads) on the shared generation threads. */
    public static SerialWork generations(String name, LongSupplier run) {
        return new SerialWork(name, Shared.GENERATIONS, run);
    }

    private static ScheduledThreadPoolExecutor executor(String namePrefix, int threads) {
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(
                threads, Thread.ofPlatform().name(namePrefix, 1).daemon().factory());
        // a closed store cancels its next timed run; without this the cancelled run would wait in the queue until due
        executor.setRemoveOnCancelPolicy(true);
        return executor;
    }
}
