package dev.deja.namespace;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Group commit for a store whose writes are applied at once and made durable by a separate sync (RocksDB's
 * {@code SyncWAL}): callers ask for the next sync, one thread runs it, and every caller that asked before it
 * started is answered by it. While one sync runs the requests gather for the next, so one fsync covers as many
 * writes as arrive during the previous one.
 */
final class GroupSync implements AutoCloseable {

    private final Runnable sync;
    private final ExecutorService thread;
    private List<CompletableFuture<Void>> waiting = new ArrayList<>();
    private boolean scheduled;

    /** {@code sync} makes every write applied before it started durable, or throws. */
    GroupSync(String name, Runnable sync) {
        this.sync = sync;
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
    }

    /** Completes once a sync that started after this call has finished, or fails as that sync did. */
    CompletableFuture<Void> next() {
        CompletableFuture<Void> done = new CompletableFuture<>();
        synchronized (this) {
            waiting.add(done);
            if (!scheduled) {
                scheduled = true;
                try {
                    thread.execute(this::syncWaiting);
                } catch (RejectedExecutionException e) {
                    scheduled = false;
                    waiting.remove(done);
                    return CompletableFuture.failedFuture(new IllegalStateException("the store is closed"));
                }
            }
        }
        return done;
    }

    private void syncWaiting() {
        List<CompletableFuture<Void>> batch;
        synchronized (this) {
            batch = waiting;
            waiting = new ArrayList<>();
            scheduled = false;
        }
        try {
            sync.run();
            batch.forEach(done -> done.complete(null));
        } catch (RuntimeException e) {
            batch.forEach(done -> done.completeExceptionally(e));
        }
    }

    /** Runs the syncs already asked for, then stops. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            thread.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
