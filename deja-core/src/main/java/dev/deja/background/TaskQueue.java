package dev.deja.background;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner's tasks, run in the order given and one at a time on a shared {@link ScheduledExecutorService} (through a
 * {@link SerialWork}), plus optionally one task repeated at a fixed delay: what a single-thread scheduled executor of
 * the owner's own gave, without the thread. A task sees everything the tasks before it did.
 *
 * <p>Each run takes one task, so the owners sharing the executor take turns. {@link #close} takes no more tasks and
 * runs those still queued on the closing thread, so it never waits for the executor's threads to become free.
 */
public final class TaskQueue implements Executor {

    private static final Logger LOG = LoggerFactory.getLogger(TaskQueue.class);

    private final String name;
    private final ScheduledExecutorService threads;
    private final SerialWork work;

    // Guarded by this.
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean closed;
    /** Queues {@link #repeated}; null until {@link #repeat} is called. */
    private SerialWork timer;
    /** The repeated task as queued; null until {@link #repeat} is called. */
    private Runnable repeated;
    /** Whether {@link #repeated} is queued and has not started: the timer then queues no second copy. */
    private boolean repeatedQueued;

    /**
     * An empty queue whose tasks run on {@code threads}.
     *
     * @param name what the tasks belong to, for the log ("snapshots of /data/orders")
     */
    public TaskQueue(String name, ScheduledExecutorService threads) {
        this.name = name;
        this.threads = threads;
        this.work = new SerialWork(name, threads, this::runNext);
    }

    /**
     * Queues the task.
     *
     * @throws RejectedExecutionException once the queue is closed
     */
    @Override
    public void execute(Runnable task) {
        synchronized (this) {
            if (closed) {
                throw new RejectedExecutionException(name + ": closed, takes no more tasks");
            }
            tasks.add(task);
        }
        work.wake();
    }

    /**
     * Queues the task and returns its result, or its failure, to come.
     *
     * @throws RejectedExecutionException once the queue is closed
     */
    public <T> CompletableFuture<T> submit(Supplier<T> task) {
        return CompletableFuture.supplyAsync(task, this);
    }

    /**
     * Queues {@code task} every {@code interval}, the first time one interval from now, until {@link #close}; a copy
     * is not queued while the previous one still waits for its turn, so a task slower than its interval does not
     * pile up. Call it once.
     */
    public synchronized void repeat(Duration interval, Runnable task) {
        if (timer != null) {
            throw new IllegalStateException(name + ": a task already repeats");
        }
        long nanos = interval.toNanos();
        repeated = () -> {
            synchronized (this) {
                repeatedQueued = false;
            }
            task.run();
        };
        timer = new SerialWork(name + " (timer)", threads, () -> {
            synchronized (this) {
                if (repeatedQueued || closed) {
                    return nanos;
                }
                repeatedQueued = true;
                tasks.add(repeated);
            }
            work.wake();
            return nanos;
        });
        timer.start(nanos);
    }

    /**
     * Takes no more tasks, stops the repetition (a repeated task still waiting for its turn is dropped), waits for
     * the task in progress and runs those still queued on the calling thread, in order; once this returns no task of
     * this queue runs anywhere.
     */
    public void close() {
        SerialWork repeating;
        synchronized (this) {
            closed = true;
            repeating = timer;
            if (repeatedQueued) {
                tasks.remove(repeated);
            }
        }
        if (repeating != null) {
            repeating.stop();
        }
        work.stop();
        for (Runnable task = poll(); task != null; task = poll()) {
            runLogged(task);
        }
    }

    private long runNext() {
        Runnable task = poll();
        if (task != null) {
            runLogged(task);
        }
        synchronized (this) {
            return tasks.isEmpty() ? SerialWork.IDLE : 0;
        }
    }

    private synchronized Runnable poll() {
        return tasks.poll();
    }

    /** Runs a task; one that throws is logged, so the tasks after it still run. */
    private void runLogged(Runnable task) {
        try {
            task.run();
        } catch (RuntimeException e) {
            LOG.error("{}: a task failed", name, e);
        }
    }
}
