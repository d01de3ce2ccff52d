package dev.deja.sizing;

/**
 * The shape of a {@code recent} filter and the probability that it still holds a key after a window of keys.
 *
 * @param buckets         total buckets (fingerprint slots), a multiple of {@code ways}
 * @param ways            buckets per set (associativity)
 * @param owners          whether each bucket also keeps the key's 64-bit owner
 * @param keysPerWindow   further new keys the probability is computed for (rate times window)
 * @param heldProbability probability that a key is still held after {@code keysPerWindow} further new keys
 */
public record RecentSize(long buckets, int ways, boolean owners, long keysPerWindow, double heldProbability) {

    /** Number of sets. */
    public long sets() {
        return buckets / ways;
    }

    /** Memory of the bucket arrays in bytes. */
    public long bytes() {
        return buckets * RecentSizing.bytesPerBucket(owners);
    }

    /** Probability that the key has been overwritten by the end of the window (the NSQ design's reading). */
    public double lostProbability() {
        return 1.0 - heldProbability;
    }
}
