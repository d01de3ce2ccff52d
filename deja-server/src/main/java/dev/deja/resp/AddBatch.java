package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.seen.Verdict;
import java.util.concurrent.CompletableFuture;

/**
 * {@code BF.ADD} commands on one namespace run as one {@link Namespace#checkThenAdd} call: one lock and one journal
 * append for all of them, and a bloom filter looks their blocks up with the cache misses overlapped.
 */
final class AddBatch extends GatheredBatch {

    /** The answers of the call, once made: a key the filter could not record is refused ({@link #refused}). */
    private Verdict[] verdicts;

    AddBatch(Namespace namespace, int expected) {
        super(namespace, expected);
    }

    /** Adds one key: completes with {@code ifNew} or {@code ifHeld}. */
    CompletableFuture<Object> add(byte[] key, Object ifNew, Object ifHeld) {
        return gather(key, ifNew, ifHeld);
    }

    @Override
    protected CompletableFuture<boolean[]> call() {
        return namespace.checkThenAdd(keys, null).thenApply(verdicts -> {
            this.verdicts = verdicts;
            boolean[] added = new boolean[verdicts.length];
            for (int i = 0; i < verdicts.length; i++) {
                added[i] = verdicts[i] == Verdict.NEW;
            }
            return added;
        });
    }

    /** A key a filter that cannot grow did not record ({@link Verdict#RETRY}) gets RedisBloom's error. */
    @Override
    protected RuntimeException refused(int index) {
        return verdicts != null && verdicts[index] == Verdict.RETRY
                ? new RespError(BloomCommands.refusal(namespace))
                : null;
    }
}
