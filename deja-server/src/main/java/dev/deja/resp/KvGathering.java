package dev.deja.resp;

import dev.deja.namespace.Namespace;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The {@code SET ... NX} commands one event loop executes in one turn, from every connection it serves, gathered
 * into one {@link KvBatch}: one store call (a MultiGet per generation, one WriteBatch, one write of RocksDB's log)
 * instead of one per command. With many clients sending one command at a time, that call, not the network, was
 * the cost of each command.
 *
 * <p>Order: a connection's next command that is not gathered runs the batch first ({@link #runNow}), so its own
 * commands take effect in the order it sent them; a connection is answered only once its batch has run, so it
 * cannot send the next one before. Commands of different connections in one turn are concurrent, as they are in
 * Redis.
 */
final class KvGathering {

    /** A turn's batch is run early once it holds this many commands, to bound its memory and its latency. */
    static final int MAX_BATCH = 4096;

    private static final FastThreadLocal<KvGathering> CURRENT = new FastThreadLocal<>() {
        @Override
        protected KvGathering initialValue() {
            return new KvGathering();
        }
    };

    private KvBatch batch;
    private boolean scheduled;

    /** The calling event loop's. */
    static KvGathering current() {
        return CURRENT.get();
    }

    /** Gathers one {@code SET key value NX} on {@code kv}: completes with whether it set the key. */
    CompletableFuture<Boolean> setIfAbsent(Namespace kv, byte[] key, byte[] value, long expiresAtMillis) {
        if (batch != null && (batch.namespace() != kv || batch.size() >= MAX_BATCH)) {
            runNow(); // the namespace was replaced meanwhile, or the batch is full
        }
        if (batch == null) {
            batch = new KvBatch(kv);
        }
        return batch.add(key, value, expiresAtMillis);
    }

    /** Runs what was gathered; called before any command that is not gathered. */
    void runNow() {
        KvBatch b = batch;
        if (b != null) {
            batch = null;
            b.run();
        }
    }

    /** Makes sure what was gathered runs once {@code loop} has handled this turn's reads. */
    void runAtEndOfTurn(Executor loop) {
        if (batch == null || scheduled) {
            return;
        }
        scheduled = true;
        try {
            loop.execute(() -> {
                scheduled = false;
                runNow();
            });
        } catch (RejectedExecutionException e) {
            scheduled = false;
            runNow(); // the loop is shutting down
        }
    }
}
