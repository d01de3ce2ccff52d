package dev.deja.redis;

import dev.deja.seen.Verdict;
import java.util.List;

/**
 * A batch of which only part is known to be recorded: {@link #answered()} holds the verdict of every key whose bucket
 * call succeeded (those keys are recorded in Redis) and {@code null} for the others, whose calls failed on the
 * instances {@link #failedInstances()} names: they may or may not be recorded. Sending the unanswered keys again with
 * the same owners is safe: a key that was recorded then answers {@link Verdict#RETRY}.
 */
public final class BatchFailedException extends RedisStoreException {

    private static final long serialVersionUID = 1L;

    @SuppressWarnings("serial") // never serialised: an exception of a live batch
    private final Verdict[] answered;

    @SuppressWarnings("serial") // an immutable list
    private final List<String> failedInstances;

    BatchFailedException(
            Verdict[] answered, List<String> failedInstances, int unanswered, String why, Throwable cause) {
        super(
                String.join(", ", failedInstances),
                unanswered + " of " + answered.length + " keys unanswered (their bucket calls failed: " + why
                        + "); the other keys are recorded",
                cause);
        this.answered = answered.clone();
        this.failedInstances = List.copyOf(failedInstances);
    }

    /** Each key's verdict when its bucket call succeeded, {@code null} when it failed; in the batch's order. */
    public Verdict[] answered() {
        return answered.clone();
    }

    /** The instances whose calls failed. */
    public List<String> failedInstances() {
        return failedInstances;
    }
}
