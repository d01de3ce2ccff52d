package dev.deja.redis.queue;

/** What {@link RetryQueue#fail} did with a task. */
public enum FailOutcome {
    /** The task is due again after its back-off. */
    RETRY_SCHEDULED,
    /** It had used its last attempt: it is in the dead-letter list. */
    DEAD_LETTERED,
    /** The claim had expired (the visibility timeout passed): the task is someone else's now, nothing changed. */
    CLAIM_LOST
}
