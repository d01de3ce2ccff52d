package dev.deja.resp;

import dev.deja.namespace.Namespace;
import dev.deja.seen.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * {@code BF.ADD} commands on one namespace, gathered ({@link Gathering}) and run as one
 * {@link Namespace#checkThenAdd} call: one lock and one journal append for all of them, and a bloom filter looks
 * their blocks up with the cache misses overlapped.
 */
final class AddBatch {

    private final Namespace namespace;
    private final List<byte[]> keys = new ArrayList<>();
    private final List<CompletableFuture<Boolean>> replies = new ArrayList<>();

    AddBatch(Namespace namespace) {
        this.namespace = namespace;
    }

    Namespace namespace() {
        return namespace;
    }

    int size() {
        return keys.size();
    }

    /** Adds one key: completes with whether it was new, or fails as that command would. */
    CompletableFuture<Boolean> add(byte[] key) {
        keys.add(key);
        CompletableFuture<Boolean> reply = new CompletableFuture<>();
        replies.add(reply);
        return reply;
    }

    /** Runs the gathered commands; each reply completes once the change is as durable as {@code --fsync} says. */
    void run() {
        CompletableFuture<Verdict[]> done;
        try {
            done = namespace.checkThenAdd(keys, null);
        } catch (RuntimeException e) {
            done = CompletableFuture.failedFuture(e);
        }
        done.whenComplete((verdicts, error) -> {
            for (int i = 0; i < replies.size(); i++) {
                if (error != null) {
                    replies.get(i).completeExceptionally(error);
                } else {
                    replies.get(i).complete(verdicts[i] == Verdict.NEW);
                }
            }
        });
    }
}
