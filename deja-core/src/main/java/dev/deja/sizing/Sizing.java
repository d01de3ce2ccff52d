package dev.deja.sizing;

/**
 * One entry point for sizing every store kind: bloom, recent and exact.
 *
 * <p>Each method delegates to the kind's own class ({@link BloomSizing}, {@link RecentSizing},
 * {@link ExactSizing}), whose javadoc states the formula; the {@code deja size} command prints the same answers.
 */
public final class Sizing {

    private Sizing() {}

    /** Bloom: the smallest filter holding {@code capacity} keys at false-positive probability at most {@code fpp}. */
    public static BloomSize bloom(long capacity, double fpp) {
        return BloomSizing.forCapacity(capacity, fpp);
    }

    /** Bloom: the best {@code k} and the false-positive probability for {@code bytes} of memory. */
    public static BloomSize bloomForMemory(long bytes, long capacity) {
        return BloomSizing.forMemory(bytes, capacity);
    }

    /**
     * Recent: the smallest filter still holding a key after {@code keysPerWindow} keys with {@code heldProbability}.
     */
    public static RecentSize recent(long keysPerWindow, double heldProbability, int ways, boolean owners) {
        long buckets = RecentSizing.bucketsFor(keysPerWindow, heldProbability, ways);
        return recentForBuckets(buckets, ways, owners, keysPerWindow);
    }

    /**
     * Recent, in the NSQ design's reading: the smallest filter that has lost a key with at most
     * {@code lostProbability}.
     */
    public static RecentSize recentForLost(long keysPerWindow, double lostProbability, int ways, boolean owners) {
        long buckets = RecentSizing.bucketsForLost(keysPerWindow, lostProbability, ways);
        return recentForBuckets(buckets, ways, owners, keysPerWindow);
    }

    /** Recent: the probability that a filter of {@code buckets} buckets still holds a key after the window. */
    public static RecentSize recentForBuckets(long buckets, int ways, boolean owners, long keysPerWindow) {
        return new RecentSize(
                buckets, ways, owners, keysPerWindow, RecentSizing.heldProbability(buckets, ways, keysPerWindow));
    }

    /**
     * Recent: how many further keys a filter of {@code buckets} buckets holds a key for with {@code heldProbability}.
     */
    public static long recentKeysHeld(long buckets, int ways, double heldProbability) {
        return RecentSizing.keysHeld(buckets, ways, heldProbability);
    }

    /** Exact: a disk estimate for a window of {@code keys} random keys of {@code keyLength} bytes. */
    public static ExactSize exact(long keys, int keyLength, boolean owners) {
        return ExactSizing.forWindow(keys, keyLength, owners);
    }

    /** Exact: the same, for a store whose window is cut into {@code generations} generations. */
    public static ExactSize exact(long keys, int keyLength, boolean owners, int generations) {
        return ExactSizing.forWindow(keys, keyLength, owners, generations);
    }
}
