package dev.deja.seen;

/**
 * The only error a store may make; part of every store's public contract.
 *
 * <p>A pipeline that must never drop a message uses a store whose guarantee is {@link #EXACT_WITHIN_WINDOW}
 * or {@link #NEVER_FALSE_DUPLICATE}; {@link #NEVER_FALSE_NEW} (bloom) suits "seen" caches, counting and
 * pre-filtering, where a new key wrongly reported as seen costs less than memory.
 */
public enum Guarantee {
    /** {@code exact}: no wrong answer for keys inside the window; keys older than the window are forgotten. */
    EXACT_WITHIN_WINDOW(
            "nothing inside its window (a key older than the window is reported new)",
            "anything wrong about a key inside its window"),
    /**
     * {@code recent}: may answer "new" for a key it has seen (an old key was overwritten, so a duplicate slips
     * through); never answers "seen" for a new key, except on a 64-bit fingerprint collision (probability at most
     * {@code (ways + 1) / 2^64} per call, see docs/FORMAT.md), so no message is dropped.
     */
    NEVER_FALSE_DUPLICATE(
            "\"new\" for a key it saw long ago (a duplicate slips through)",
            "\"seen\" for a new key (no message is dropped)"),
    /**
     * {@code bloom}: may answer "seen" for a new key, with probability at most the configured false-positive
     * probability; never answers "new" for a key it holds.
     */
    NEVER_FALSE_NEW(
            "\"seen\" for a new key, with probability at most the configured fpp", "\"new\" for a key it holds");

    private final String mayWronglySay;
    private final String neverSays;

    Guarantee(String mayWronglySay, String neverSays) {
        this.mayWronglySay = mayWronglySay;
        this.neverSays = neverSays;
    }

    /** The one wrong answer this kind of store may give, in plain words. */
    public String mayWronglySay() {
        return mayWronglySay;
    }

    /** The answer this kind of store never gets wrong, in plain words. */
    public String neverSays() {
        return neverSays;
    }
}
