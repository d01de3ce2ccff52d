package dev.deja.namespace;

import dev.deja.background.SerialWork;
import dev.deja.exact.threads.ExactThreads;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Group commit for a store whose writes are applied at once and made durable by a separate sync (RocksDB's
 * {@code SyncWAL}): callers ask for the next sync, which runs in the background on the threads exact stores share
 * ({@link ExactThreads}), one at a time, and every caller that asked before it started is answered by it. While
 * one sync runs the requests gather for the next, so one fsync covers as many writes as arrive during the previous
 * one.
 */
final class GroupSync implements AutoCloseable {

    private final Runnable sync;
    private final SerialWork work;
    // Guarded by this.
    private List<CompletableFuture<Void>> waiting = new ArrayList<>();
    private boolean closed;

    /** {@code sync} makes every write applied before it started durable, or throws. */
    GroupSync(String name, Runnable sync) {
        this.sync = sync;
        this.work = ExactThreads.maintenance(name, () -> {
            syncWaiting();
            return SerialWork.IDLE; // an ask during the sync wakes the work again, for the next one
        });
    }

    /** Completes once a sync that started after this call has finished, or fails as that sync did. */
    CompletableFuture<Void> next() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the store is closed"));
            }
            waiting.add(done);
        }
        work.wake();
        return done;
    }

    private void syncWaiting() {
        List<CompletableFuture<Void>> batch;
        synchronized (this) {
            if (waiting.isEmpty()) {
                return;
            }
            batch = waiting;
            waiting = new ArrayList<>();
        }
        try {
            sync.run();
            batch.forEach(done -> done.complete(null));
        } catch (RuntimeException e) {
            batch.forEach(done -> done.completeExceptionally(e));
        }
    }

    /** Runs the syncs already asked for (the last on the calling thread), then takes no more. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        work.stop();
        syncWaiting();
    }
}
