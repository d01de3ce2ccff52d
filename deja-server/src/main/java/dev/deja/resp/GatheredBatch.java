package dev.deja.resp;

import dev.deja.namespace.Namespace;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Commands of one kind on one namespace, gathered ({@link Gathering}) and run as one store call: each command adds
 * its key and gets a reply that completes with its own answer once the call is as durable as {@code --fsync} says.
 */
abstract class GatheredBatch {

    protected final Namespace namespace;
    protected final List<byte[]> keys = new ArrayList<>();
    private final List<CompletableFuture<Boolean>> replies = new ArrayList<>();

    GatheredBatch(Namespace namespace) {
        this.namespace = namespace;
    }

    Namespace namespace() {
        return namespace;
    }

    int size() {
        return keys.size();
    }

    /** Adds a command's key; its reply completes with the command's answer, or fails as the command would. */
    protected CompletableFuture<Boolean> gather(byte[] key) {
        keys.add(key);
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
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
                CompletableFuture<Boolean> reply = replies.get(i);
                Throwable failure = error != null ? error : refused(i);
                if (failure != null) {
                    reply.completeExceptionally(failure);
                } else {
                    reply.complete(answers[i]);
                }
            }
        });
    }
}
