package dev.deja.resp;

import dev.deja.namespace.Namespace;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * The writes one event loop gathers in one turn, from every connection it serves, to run each kind as one store
 * call: {@code SET ... NX} on the key-value namespace ({@link KvBatch}: a MultiGet per generation, one WriteBatch,
 * one write of RocksDB's log) and {@code BF.ADD} on one namespace ({@link AddBatch}: one lock, one journal append,
 * overlapped cache misses). With many clients, what bounds the commands served is that fixed cost of each store
 * call, not the network, so one call serves a turn's many.
 *
 * <p>Order: a connection's next command that is not gathered runs everything gathered first ({@link #runNow}),
 * and a write of one kind runs what is gathered of the other kind first, so a connection's commands take effect in
 * the order it sent them; a connection is answered only once its gathered writes have run, so it cannot send the
 * next ones before. Commands of different connections in one turn are concurrent, as they are in Redis.
 */
final class Gathering {

    /** A turn's batch is run early once it holds this many commands, to bound its memory and its latency. */
    static final int MAX_BATCH = 4096;

    private static final FastThreadLocal<Gathering> CURRENT = new FastThreadLocal<>() {
        @Override
        protected Gathering initialValue() {
            return new Gathering();
        }
    };

    /** The size a new batch is made for: that of the loop's last batch of its kind, at least this. */
    private static final int MIN_EXPECTED = 16;

    private KvBatch sets;
    private AddBatch adds;
    private boolean scheduled;
    /** The sizes of the last batches run: a loop's turns tend to gather alike, so a new batch starts at that size. */
    private int lastSets = MIN_EXPECTED;

    private int lastAdds = MIN_EXPECTED;

    /** The calling event loop's. */
    static Gathering current() {
        return CURRENT.get();
    }

    /**
     * Whether the command is one an event loop gathers instead of running it at once: {@code SET ... NX},
     * {@code SETNX} or {@code BF.ADD}; every other command first runs what was gathered.
     */
    static boolean gathers(RespArgs args) {
        return setIfAbsent(args) || (args.size() == 3 && args.is(0, "BF.ADD"));
    }

    private static boolean setIfAbsent(RespArgs args) {
        if (args.size() == 3 && args.is(0, "SETNX")) {
            return true;
        }
        if (args.size() < 4 || !args.is(0, "SET")) {
            return false;
        }
        for (int i = 3; i < args.size(); i++) {
            if (args.is(i, "NX")) {
                return true;
            }
        }
        return false;
    }

    /** Gathers one {@code SET key value NX} on {@code kv}: completes with {@code ifSet} or {@code ifNotSet}. */
    CompletableFuture<Object> setIfAbsent(
            Namespace kv, byte[] key, byte[] value, long expiresAtMillis, Object ifSet, Object ifNotSet) {
        runAdds();
        if (sets != null && (sets.namespace() != kv || sets.size() >= MAX_BATCH)) {
            runSets(); // the namespace was replaced meanwhile, or the batch is full
        }
        if (sets == null) {
            sets = new KvBatch(kv, lastSets);
        }
        return sets.add(key, value, expiresAtMillis, ifSet, ifNotSet);
    }

    /**
     * Gathers one {@code BF.ADD} of {@code key} to {@code namespace}: completes with {@code ifNew} or {@code ifHeld}.
     */
    CompletableFuture<Object> checkThenAdd(Namespace namespace, byte[] key, Object ifNew, Object ifHeld) {
        runSets();
        if (adds != null && (adds.namespace() != namespace || adds.size() >= MAX_BATCH)) {
            runAdds();
        }
        if (adds == null) {
            adds = new AddBatch(namespace, lastAdds);
        }
        return adds.add(key, ifNew, ifHeld);
    }

    /** Runs what was gathered; called before any command that is not gathered. */
    void runNow() {
        runSets();
        runAdds();
    }

    private void runSets() {
        KvBatch b = sets;
        if (b != null) {
            sets = null;
            lastSets = Math.max(MIN_EXPECTED, b.size());
            b.run();
        }
    }

    private void runAdds() {
        AddBatch b = adds;
        if (b != null) {
            adds = null;
            lastAdds = Math.max(MIN_EXPECTED, b.size());
            b.run();
        }
    }

    /** Makes sure what was gathered runs once {@code loop} has handled this turn's reads. */
    void runAtEndOfTurn(Executor loop) {
        if ((sets == null && adds == null) || scheduled) {
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
