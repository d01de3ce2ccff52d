package dev.deja.background;

import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One owner's recurring background work on a shared {@link ScheduledExecutorService}, never two runs at once: the
 * guarantees of a thread of the owner's own, without the thread.
 *
 * <p>Each run returns when the next one is due: in so many nanoseconds, or {@link #IDLE}, not until {@link #wake}.
 * At most one run is queued or running at any time, so a run sees everything the runs before it did (each starts
 * after the previous one ended and was handed to the executor), and the work of many owners shares the executor's
 * threads in turn. {@link #stop} waits for a run in progress and lets no other start, so that the owner can then
 * take over the state the runs touch on its own thread.
 *
 * <p>A run that throws is logged; the work then runs again only when woken.
 */
public final class SerialWork {

    /** What a run returns when no other run is due until {@link #wake}. */
    public static final long IDLE = -1;

    private static final Logger LOG = LoggerFactory.getLogger(SerialWork.class);
    private static final long STOP_WARNING_MILLIS = TimeUnit.MINUTES.toMillis(1);

    private final String name;
    private final ScheduledExecutorService threads;
    private final LongSupplier run;

    // Guarded by this.
    /** The next run, from when it is queued until it starts; null when none is queued. */
    private Future<?> queued;

    private boolean running;
    /** Whether {@link #wake} was called while a run was in progress: another run is then due right after it. */
    private boolean wokenWhileRunning;

    private boolean stopped;

    /**
     * Work that runs {@code run} on {@code threads} once started or woken.
     *
     * @param name what the work is, for the log ("journal /data/orders")
     * @param run  does one run's work and returns the nanoseconds until the next run is due, or {@link #IDLE}
     */
    public SerialWork(String name, ScheduledExecutorService threads, LongSupplier run) {
        this.name = name;
        this.threads = threads;
        this.run = run;
    }

    /** Queues a run due in {@code delayNanos}, unless a run is queued or running (or the work is stopped). */
    public synchronized void start(long delayNanos) {
        if (!stopped && !running && queued == null) {
            queue(delayNanos);
        }
    }

    /**
     * Makes a run start soon: now, or right after the run in progress. A run already queued keeps its time, so a
     * retry that waits out a delay still waits it out.
     */
    public synchronized void wake() {
        if (stopped || queued != null) {
            return;
        }
        if (running) {
            wokenWhileRunning = true;
        } else {
            queue(0);
        }
    }

    /**
     * Lets no run start from now on and waits, uninterruptibly, for the one in progress: once this returns, none of
     * the work runs on the executor's threads.
     */
    public void stop() {
        boolean interrupted = false;
        synchronized (this) {
            stopped = true;
            if (queued != null) {
                queued.cancel(false); // a run that has just begun sees stopped and does nothing
                queued = null;
            }
            while (running) {
                try {
                    wait(STOP_WARNING_MILLIS);
                    if (running) {
                        LOG.warn("{}: still waiting for its background work to finish", name);
                    }
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void runOnce() {
        synchronized (this) {
            if (stopped) {
                return;
            }
            queued = null;
            running = true;
            wokenWhileRunning = false;
        }
        long next = IDLE;
        try {
            next = run.getAsLong();
        } catch (RuntimeException | Error e) {
            // the executor would keep the exception in a future nobody reads
            LOG.error("{}: background work failed; it runs again when woken", name, e);
        } finally {
            synchronized (this) {
                running = false;
                if (stopped) {
                    notifyAll();
                } else if (next != IDLE) {
                    queue(next);
                } else if (wokenWhileRunning) {
                    queue(0);
                }
            }
        }
    }

    /** Under the lock. */
    private void queue(long delayNanos) {
        queued = threads.schedule(this::runOnce, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    }
}
