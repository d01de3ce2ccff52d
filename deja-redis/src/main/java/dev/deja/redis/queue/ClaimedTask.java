package dev.deja.redis.queue;

import java.util.List;

/**
 * A task a worker holds: it must {@link RetryQueue#complete} or {@link RetryQueue#fail} it within the queue's
 * visibility timeout, after which the task is due again and this claim no longer counts.
 *
 * @param task     the task
 * @param failures its earlier failed attempts, oldest first
 * @param claim    the token of this claim
 */
public record ClaimedTask(Task task, List<Failure> failures, String claim) {

    public ClaimedTask {
        failures = List.copyOf(failures);
    }

    /** How many attempts failed before this one. */
    public int attempts() {
        return failures.size();
    }
}
