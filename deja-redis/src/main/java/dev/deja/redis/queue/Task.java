package dev.deja.redis.queue;

import dev.deja.checks.Require;
import dev.deja.seen.SeenSet;

/**
 * A unit of work in a {@link RetryQueue}: its id (one task per id is waiting or claimed at a time), its payload, and
 * optionally the key and owner under which its message was recorded in a seen-set, forgotten there when the task
 * fails so that the message delivered again is not dropped as a duplicate.
 *
 * @param id       the task's id
 * @param payload  what the worker needs, as text (JSON, say)
 * @param seenKey  the message's key in a seen-set, or null
 * @param owner    the owner it was recorded under ({@link SeenSet#NO_OWNER} for none)
 */
public record Task(String id, String payload, String seenKey, long owner) {

    public Task {
        Require.nonNull("id", id);
        Require.nonNull("payload", payload);
        if (id.isEmpty()) {
            throw new IllegalArgumentException("a task id must not be empty");
        }
    }

    /** A task with no seen-set key. */
    public static Task of(String id, String payload) {
        return new Task(id, payload, null, SeenSet.NO_OWNER);
    }

    /** This task, whose message is recorded in a seen-set under {@code key} and {@code owner}. */
    public Task withSeenKey(String key, long owner) {
        return new Task(id, payload, Require.nonNull("key", key), owner);
    }
}
