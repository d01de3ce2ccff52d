package dev.deja.resp;

import dev.deja.namespace.Namespace;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Commands of one kind on one namespace, gathered ({@link Gathering}) and run as one store call: each command adds
 * its key and gets a reply that completes with its own answer once the call is as durable as {@code --fsync} says.
 */
abstract class GatheredBatch {

    protected final Namespace namespace;
    protected final List<byte[]> keys;
    private final List<CompletableFuture<Object>> replies;
    /** Per command {@code i}, its reply for a true answer at {@code 2i} and for a false one at {@code 2i + 1}. */
    private Object[] outcomes;

    /** A batch sized for {@code expected} commands (it grows past them): the size of the loop's last batch. */
    GatheredBatch(Namespace namespace, int expected) {
        this.namespace = namespace;
        this.keys = new ArrayList<>(expected);
        this.replies = new ArrayList<>(expected);
        this.outcomes = new Object[2 * expected];
    }

    Namespace namespace() {
        return namespace;
    }

    int size() {
        return keys.size();
    }

    /**
     * Adds a command's key; its reply completes with {@code ifTrue} or {@code ifFalse}, by the command's answer, or
     * fails as the command would. The two replies are the command's own (they differ between RESP2 and RESP3), given
     * ready-made so that an answer costs no callback and no second future.
     */
    protected CompletableFuture<Object> gather(byte[] key, Object ifTrue, Object ifFalse) {
        int i = keys.size();
        if (2 * i + 1 >= outcomes.length) {
            outcomes = Arrays.copyOf(outcomes, Math.max(2, 2 * outcomes.length));
        }
        outcomes[2 * i] = ifTrue;
        outcomes[2 * i + 1] = ifFalse;
        keys.add(key);
        CompletableFuture<Object> reply = new CompletableFuture<>();
        replies.add(reply);
        return reply;
    }

    /** The one store call: an answer per key, in order. */
    protected abstract CompletableFuture<boolean[]> call();

    /** Why the command at this index was refused while the others applied, or null. */
    protected RuntimeException refused(int index) {
        return null;
    }

    /** Runs the gathered commands and answers each. */
    final void run() {
        CompletableFuture<boolean[]> done;
        try {
            done = call();
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        // the callback answers every reply, with done's failure too; what whenComplete returns only repeats it
        CompletableFuture<boolean[]> unused = done.whenComplete((answers, error) -> {
            for (int i = 0; i < replies.size(); i++) {
                CompletableFuture<Object> reply = replies.get(i);
                Throwable failure = error != null ? error : refused(i);
                if (failure != null) {
                    reply.completeExceptionally(failure);
                } else {
                    reply.complete(outcomes[answers[i] ? 2 * i : 2 * i + 1]);
                }
            }
        });
    }
}
