package dev.deja.sizing;

import dev.deja.checks.Require;

/**
 * Retention arithmetic for deja's {@code recent} filter: how many buckets keep a key with a given probability
 * after a given number of later keys, and the reverse.
 *
 * <p>The filter has {@code S} sets of {@code W} ways ({@code N = S * W} buckets); a new key goes to a uniformly
 * chosen set, at the front, and pushes the set's oldest entry out. A key is therefore still held after {@code x}
 * further new keys exactly when fewer than {@code W} of them chose its set:
 *
 * <pre>
 *   P(held after x) = P(Binomial(x, 1/S) &lt; W) = sum over j &lt; W of C(x, j) (1/S)^j (1 - 1/S)^(x - j)
 * </pre>
 *
 * which for {@code W = 1} is the {@code (1 - 1/N)^x} of the NSQ de-duplication design (the "opposite of a Bloom
 * filter"). The sum is evaluated exactly, term by term in log space (at most 16 terms), rather than by its Poisson
 * approximation, so that {@code W = 1} reproduces that design's figure to the bucket. Both solvers use the fact that
 * the probability rises with {@code S} and falls with {@code x}, and search by bisection.
 *
 * <p>The NSQ design asks for "90%" and solves {@code 0.9 = 1 - (1 - 1/N)^x}, i.e. it sets the probability of having
 * <em>lost</em> the key to 0.9 (N = 1,563,461 for 1,000 msg/s over one hour); this class speaks of the probability that
 * the key is still <em>held</em>, and {@link #bucketsForLost} gives the NSQ design's reading.
 */
public final class RecentSizing {

    /** The associativities the filter supports: powers of two up to 16 (two cache lines of fingerprints). */
    public static final int MAX_WAYS = 16;
    /** The largest filter: 2^36 buckets (512 GiB of fingerprints), beyond any machine this runs on. */
    public static final long MAX_BUCKETS = 1L << 36;
    /** Bytes per bucket: one 64-bit fingerprint. */
    public static final int FINGERPRINT_BYTES = 8;
    /** Extra bytes per bucket when owners are kept: one 64-bit owner. */
    public static final int OWNER_BYTES = 8;

    /** The smallest lost probability whose complement is still below 1 in double precision: 2^-53. */
    private static final double MIN_LOST_PROBABILITY = 0x1p-53;

    private RecentSizing() {}

    /**
     * The probability that a key is still held after {@code keysAfter} further new keys in a filter of
     * {@code buckets} buckets of {@code ways} ways.
     */
    public static double heldProbability(long buckets, int ways, long keysAfter) {
        checkShape(buckets, ways);
        Require.inRange("keysAfter", keysAfter, 0, Long.MAX_VALUE);
        return held(buckets / ways, ways, keysAfter);
    }

    /**
     * The smallest number of buckets (a multiple of {@code ways}) that still holds a key after {@code keysAfter}
     * further new keys with probability at least {@code heldProbability}.
     *
     * @throws IllegalArgumentException on a bad argument, or when the answer exceeds {@link #MAX_BUCKETS}
     */
    public static long bucketsFor(long keysAfter, double heldProbability, int ways) {
        Require.positive("keysAfter", keysAfter);
        Require.probability("heldProbability", heldProbability);
        checkWays(ways);
        long maxSets = MAX_BUCKETS / ways;
        if (held(maxSets, ways, keysAfter) < heldProbability) {
            throw new IllegalArgumentException("holding a key after " + keysAfter + " keys with probability "
                    + heldProbability + " needs more than the largest filter (" + MAX_BUCKETS
                    + " buckets); lower the probability or the window");
        }
        long lo = 1;
        long hi = maxSets;
        while (lo < hi) { // the first set count that meets the target
            long mid = (lo + hi) >>> 1;
            if (held(mid, ways, keysAfter) >= heldProbability) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo * ways;
    }

    /**
     * The NSQ design's reading: the smallest number of buckets for which a key has been overwritten after
     * {@code keysAfter} further keys with probability at most {@code lostProbability}, i.e.
     * {@code bucketsFor(keysAfter, 1 - lostProbability, ways)}.
     *
     * @throws IllegalArgumentException also when {@code lostProbability} is below 2^-53, where {@code 1 -
     *                                  lostProbability} rounds to 1 and the target cannot be told from certainty
     */
    public static long bucketsForLost(long keysAfter, double lostProbability, int ways) {
        Require.probability("lostProbability", lostProbability);
        if (lostProbability < MIN_LOST_PROBABILITY) {
            throw new IllegalArgumentException("lostProbability must be in [" + MIN_LOST_PROBABILITY + ", 1) (got "
                    + lostProbability + "): below 2^-53, 1 - lostProbability rounds to 1 in double precision");
        }
        return bucketsFor(keysAfter, 1.0 - lostProbability, ways);
    }

    /**
     * The largest number of further new keys after which a key is still held with probability at least
     * {@code heldProbability} (0 when even the next key may push it out with higher probability).
     */
    public static long keysHeld(long buckets, int ways, double heldProbability) {
        checkShape(buckets, ways);
        Require.probability("heldProbability", heldProbability);
        long sets = buckets / ways;
        if (held(sets, ways, 1) < heldProbability) {
            return 0;
        }
        long lo = 1;
        long hi = 2;
        while (held(sets, ways, hi) >= heldProbability) { // grow until the target is missed
            lo = hi;
            hi *= 2;
        }
        while (hi - lo > 1) { // invariant: held(lo) meets the target, held(hi) does not
            long mid = (lo + hi) >>> 1;
            if (held(sets, ways, mid) >= heldProbability) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** Bytes of memory per bucket: the fingerprint, plus the owner when owners are kept. */
    public static int bytesPerBucket(boolean owners) {
        return owners ? FINGERPRINT_BYTES + OWNER_BYTES : FINGERPRINT_BYTES;
    }

    /** The most buckets (a multiple of {@code ways}) that fit in {@code bytes} of memory. */
    public static long bucketsForMemory(long bytes, int ways, boolean owners) {
        checkWays(ways);
        long perSet = (long) ways * bytesPerBucket(owners);
        Require.inRange("bytes", bytes, perSet, MAX_BUCKETS * bytesPerBucket(owners));
        return bytes / perSet * ways;
    }

    /** Checks a filter shape: ways a power of two in [1, 16], buckets a positive multiple of ways, at most 2^36. */
    public static void checkShape(long buckets, int ways) {
        checkWays(ways);
        Require.inRange("buckets", buckets, ways, MAX_BUCKETS);
        if (buckets % ways != 0) {
            throw new IllegalArgumentException("buckets must be a multiple of ways (" + ways + "); got " + buckets);
        }
    }

    /** Checks an associativity: 1, 2, 4, 8 or 16. */
    public static void checkWays(int ways) {
        if (ways < 1 || ways > MAX_WAYS || Integer.bitCount(ways) != 1) {
            throw new IllegalArgumentException("ways must be one of 1, 2, 4, 8, 16 (got " + ways + ")");
        }
    }

    /** P(Binomial(x, 1/sets) &lt; ways), summed exactly in log space. */
    private static double held(long sets, int ways, long x) {
        if (sets == 1) {
            return x < ways ? 1.0 : 0.0;
        }
        double logMiss = Math.log1p(-1.0 / sets); // log(1 - 1/S), accurate for large S
        double logHit = -Math.log((double) sets);
        double sum = 0;
        double logChoose = 0; // log C(x, j), built up one factor at a time
        for (int j = 0; j < ways && j <= x; j++) {
            if (j > 0) {
                logChoose += Math.log((double) (x - j + 1)) - Math.log(j);
            }
            sum += Math.exp(logChoose + j * logHit + (x - j) * logMiss);
        }
        return Math.min(1.0, sum);
    }
}
