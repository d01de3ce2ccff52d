package dev.deja.checks;

import dev.deja.seen.Verdict;
import java.util.List;

/**
 * Argument checks whose messages name the argument and its valid range, shared by every store and codec.
 */
public final class Require {

    private Require() {}

    /** The value, or an exception naming it when it is null. */
    public static <T> T nonNull(String name, T value) {
        if (value == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return value;
    }

    /** The key, or an exception when it is null or empty. */
    public static byte[] key(byte[] key) {
        if (key == null || key.length == 0) {
            throw new IllegalArgumentException(
                    "key must be a non-empty byte array (got " + (key == null ? "null" : "an empty array") + ")");
        }
        return key;
    }

    /** The value, or an exception when it is not strictly positive. */
    public static long positive(String name, long value) {
        if (value <= 0) {
            throw new IllegalArgumentException(name + " must be > 0 (got " + value + ")");
        }
        return value;
    }

    /** The value, or an exception when it lies outside [min, max]. */
    public static long inRange(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be in [" + min + ", " + max + "] (got " + value + ")");
        }
        return value;
    }

    /** The probability, or an exception when it is not strictly between 0 and 1. */
    public static double probability(String name, double p) {
        if (!(p > 0.0 && p < 1.0)) {
            throw new IllegalArgumentException(name + " must be in the open interval (0, 1) (got " + p + ")");
        }
        return p;
    }

    /** Checks that a parallel owners array, when given, has one entry per key. */
    public static void sameLength(List<byte[]> keys, long[] owners) {
        ownersFor(nonNull("keys", keys).size(), owners);
    }

    private static void ownersFor(int keys, long[] owners) {
        if (owners != null && owners.length != keys) {
            throw new IllegalArgumentException(
                    "owners must have one entry per key (got " + owners.length + " owners for " + keys + " keys)");
        }
    }

    /**
     * Checks a hashed batch ({@link HashedSeenSet#checkThenAddHashes}): a {@code high, low} pair per answer slot, and a
     * parallel owners array, when given, with one entry per key. Checked before the first key is recorded, so a
     * malformed batch changes nothing.
     */
    public static void hashBatch(long[] hashes, long[] owners, Verdict[] out) {
        hashBatch(hashes, owners, nonNull("out", out).length);
    }

    /**
     * {@link #hashBatch(long[], long[], Verdict[])} for a batch answered yes or no
     * ({@link HashedSeenSet#forgetHashes}).
     */
    public static void hashBatch(long[] hashes, long[] owners, boolean[] out) {
        hashBatch(hashes, owners, nonNull("out", out).length);
    }

    private static void hashBatch(long[] hashes, long[] owners, int answers) {
        nonNull("hashes", hashes);
        if (hashes.length != 2L * answers) {
            throw new IllegalArgumentException("hashes must hold a (high, low) pair per key (got " + hashes.length
                    + " longs for " + answers + " answers)");
        }
        ownersFor(answers, owners);
    }
}
