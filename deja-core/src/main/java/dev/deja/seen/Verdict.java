package dev.deja.seen;

/**
 * What {@link SeenSet#checkThenAdd(byte[], long)} says about a key it has just recorded.
 */
public enum Verdict {
    /** The key was not held: it is now recorded and the message should be processed. */
    NEW,
    /** The key was held under another owner (or none): the message is a duplicate and should be skipped. */
    DUPLICATE,
    /**
     * The key was held under the very same owner the caller passed (in Tapjoy's Redis design: the same partition and
     * offset): the same message is being processed again, for example after a crashed job was re-run, and should be
     * processed, not skipped.
     */
    RETRY;

    /** True for the verdicts on which the caller should process the message ({@link #NEW}, {@link #RETRY}). */
    public boolean shouldProcess() {
        return this != DUPLICATE;
    }
}
