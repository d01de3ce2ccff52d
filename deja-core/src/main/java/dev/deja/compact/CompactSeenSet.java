package dev.deja.compact;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable set of keys small enough for a cookie, which may say "seen" for a key never added (with
 * probability {@link #expectedFpp()}) and never says "not seen" for a key it holds.
 *
 * <p>Typical use keeps a per-user "seen" set in a cookie: {@link #decode} it, {@link #contains} each candidate,
 * {@link #with} what was shown, {@link #encode} it back. 100 keys at 1% take 140 characters, every time, where a Guava
 * Bloom filter serialised to base64 takes 168.
 *
 * <p>Design. Each key is reduced to a fingerprint in [0, range): {@code Hash128.reduce(high, range)}, the high
 * half of the key's XXH3-128 hash. The range is fixed when the set is created, the smallest the format expresses
 * that is at least capacity / fpp, so keys can be added after any number of decodes. A key never added is
 * reported present exactly when its fingerprint is one of the set's, with probability size / range, which stays
 * at most fpp while size <= capacity and grows past it, as {@link #expectedFpp()} reports. Two keys with the same
 * fingerprint collapse into one: adding the second is the false positive, and {@link #size()} counts
 * fingerprints, not calls.
 *
 * <p>The fingerprints are encoded as the rank of their subset among all subsets of their size (the
 * combinatorial number system, {@link SubsetRank}), which takes ceil(log2 C(range, size)) bits: the information
 * limit, and a length fixed by range and size. Sorted gaps coded with Golomb-Rice, the usual choice, take about
 * size * (log2(range / size) + 1.5) bits, varying with the set: 809 on average for 100 of 10000, more than the
 * 808 that 140 characters leave after the header. Layout and limits are in {@code docs/FORMAT.md} section 4.
 *
 * <p>Immutable rather than mutable: a decoded set can be shared and cached across threads, and an add copies at
 * most {@link #MAX_SIZE} longs, less work than the encode that follows it.
 */
public final class CompactSeenSet {

    /**
     * The most fingerprints a set holds: 1024, 1395 characters at 1%. It bounds the work an untrusted input can
     * ask of {@link #decode(String)}, but not tightly: that work grows steeply with the size
     * ({@link #decode(String, int)} says how), so a service decoding strings from clients passes the size its own
     * sets reach.
     */
    public static final int MAX_SIZE = CompactFormat.MAX_SIZE;

    private static final long[] NONE = {};

    private final long range;
    private final long[] fingerprints;

    CompactSeenSet(long range, long[] fingerprints) {
        this.range = range;
        this.fingerprints = fingerprints;
    }

    /**
     * An empty set whose false-positive probability stays at most {@code fpp} until it holds {@code capacity}
     * keys.
     *
     * @param capacity keys the set is sized for, in [1, {@link #MAX_SIZE}]
     * @param fpp      false-positive probability at capacity, in (0, 1); capacity / fpp must not exceed
     *                 15 * 2^31
     */
    public static CompactSeenSet create(int capacity, double fpp) {
        Require.inRange("capacity", capacity, 1, MAX_SIZE);
        Require.probability("fpp", fpp);
        double needed = Math.ceil(capacity / fpp);
        if (needed > CompactFormat.MAX_RANGE) {
            throw new IllegalArgumentException("capacity / fpp must be at most " + CompactFormat.MAX_RANGE
                    + " (got capacity " + capacity + ", fpp " + fpp + ")");
        }
        return new CompactSeenSet(CompactFormat.rangeAtLeast((long) needed), NONE);
    }

    /**
     * The set an {@link #encode()} produced: {@link #decode(String, int)} accepting up to {@link #MAX_SIZE}
     * fingerprints, whose cost that method describes.
     *
     * @throws IllegalArgumentException naming what is wrong when {@code encoded} is null, empty, not unpadded
     *                                  URL-safe base64, of another format version, truncated, extended or corrupted
     */
    public static CompactSeenSet decode(String encoded) {
        return CompactFormat.decode(encoded, MAX_SIZE, CompactSeenSet::new);
    }

    /**
     * The set an {@link #encode()} produced, refused before any arithmetic if it holds more than {@code maxSize}
     * fingerprints.
     *
     * <p>Cost. Turning the rank back into fingerprints takes exact big-integer products whose work grows steeply
     * with the size and, less, with the range, and encoding a set costs about as much as decoding it: a string
     * crafted at the largest size and range costs far more than a set of a hundred keys (docs/BENCHMARKS.md, section
     * "compact seen-set codec vs Guava in base64"). So a service that decodes strings from clients passes the size
     * its own sets reach (their capacity, when it never adds past it), which bounds the work before it starts. No
     * faster exact unranking was found that keeps the code small.
     *
     * @param maxSize the most fingerprints accepted, in [0, {@link #MAX_SIZE}]
     * @throws IllegalArgumentException as {@link #decode(String)}, and when the set holds more than {@code maxSize}
     */
    public static CompactSeenSet decode(String encoded, int maxSize) {
        Require.inRange("maxSize", maxSize, 0, MAX_SIZE);
        return CompactFormat.decode(encoded, maxSize, CompactSeenSet::new);
    }

    /** Whether the key was added, or (with probability {@link #expectedFpp()}) shares a fingerprint with one. */
    public boolean contains(byte[] key) {
        return Arrays.binarySearch(fingerprints, fingerprint(key)) >= 0;
    }

    /** {@link #contains(byte[])} on the UTF-8 bytes of the key. */
    public boolean contains(String key) {
        return contains(utf8(key));
    }

    /**
     * This set with the key added; this very set when {@link #contains(byte[]) it already contains the key}.
     *
     * @throws IllegalStateException when the key is new and the set already holds {@link #MAX_SIZE}
     */
    public CompactSeenSet with(byte[] key) {
        long fingerprint = fingerprint(key);
        int at = Arrays.binarySearch(fingerprints, fingerprint);
        if (at >= 0) {
            return this;
        }
        if (fingerprints.length == MAX_SIZE) {
            throw new IllegalStateException("a compact seen-set holds at most " + MAX_SIZE + " fingerprints");
        }
        int insert = -at - 1;
        long[] grown = new long[fingerprints.length + 1];
        System.arraycopy(fingerprints, 0, grown, 0, insert);
        grown[insert] = fingerprint;
        System.arraycopy(fingerprints, insert, grown, insert + 1, fingerprints.length - insert);
        return new CompactSeenSet(range, grown);
    }

    /** {@link #with(byte[])} on the UTF-8 bytes of the key. */
    public CompactSeenSet with(String key) {
        return with(utf8(key));
    }

    /**
     * The unpadded URL-safe base64 encoding, {@code docs/FORMAT.md} section 4; its length depends only on size and
     * range.
     */
    public String encode() {
        return CompactFormat.encode(range, fingerprints);
    }

    /** The number of distinct fingerprints held: the keys added, less those that collided. */
    public int size() {
        return fingerprints.length;
    }

    /** The number of possible fingerprints, fixed at creation: the smallest encodable value >= capacity / fpp. */
    public long range() {
        return range;
    }

    /** The probability that a key never added is reported present: size / range, exactly, for a uniform hash. */
    public double expectedFpp() {
        return (double) fingerprints.length / range;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CompactSeenSet other
                && range == other.range
                && Arrays.equals(fingerprints, other.fingerprints);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(range) * 31 + Arrays.hashCode(fingerprints);
    }

    @Override
    public String toString() {
        return "CompactSeenSet{size=" + size() + ", range=" + range + ", expectedFpp=" + expectedFpp() + "}";
    }

    private long fingerprint(byte[] key) {
        return Hash128.reduce(Hash128.of(key).high(), range);
    }

    private static byte[] utf8(String key) {
        return Require.nonNull("key", key).getBytes(StandardCharsets.UTF_8);
    }
}
