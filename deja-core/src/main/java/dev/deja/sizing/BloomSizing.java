package dev.deja.sizing;

import dev.deja.checks.Require;

/**
 * Sizing arithmetic for deja's blocked Bloom filter, where every key sets its {@code k} bits inside one
 * 512-bit block (one 64-byte cache line), placed as its {@link BloomLayout} says.
 *
 * <p>Confining a key to one block makes a lookup cost one cache miss instead of {@code k}, but blocks fill
 * unevenly: the number of keys landing in a block is Poisson-distributed with mean {@code lambda = 512 / c}
 * for {@code c} bits per key, and an overfull block answers "present" more often. The classic formula
 * {@code (1 - e^(-k/c))^k} therefore underestimates the false-positive probability. This class uses the
 * blocked filter's own formula (Putze, Sanders and Singler, "Cache-, Hash- and Space-Efficient Bloom
 * Filters", 2007):
 *
 * <pre>
 *   fpp(c, k) = sum over i >= 0 of Poisson(i; 512 / c) * blockFpp(i, k)
 * </pre>
 *
 * where {@code blockFpp(i, k)} is the false-positive probability of one block holding {@code i} keys in the
 * filter's layout ({@link BloomLayout#blockFpp}): {@code (1 - (1 - 1/512)^(k*i))^k} when bits lie anywhere in the
 * block, a product over the block's eight 64-bit words when each bit has its word ({@link BloomLayout#SECTORED},
 * the layout of new filters and of the methods without a layout argument).
 */
public final class BloomSizing {

    /** Bits per block: one 64-byte cache line. */
    public static final int BLOCK_BITS = BloomLayout.BLOCK_BITS;
    /** The most bits per key a filter may set. */
    public static final int MAX_HASHES = 32;
    /** The largest filter: 2^40 bits (128 GiB), far above any machine this runs on, far below index overflow. */
    public static final long MAX_BITS = 1L << 40;
    /** Mean keys per block beyond which a block is saturated for every k (see {@link #blockedFpp}). */
    private static final double SATURATED_LAMBDA = 50_000;

    private BloomSizing() {}

    /**
     * The false-positive probability of a new (sectored) filter of {@code bits} bits and {@code hashes} bits per key
     * holding {@code keys} keys. Zero keys give zero.
     */
    public static double fpp(long bits, int hashes, long keys) {
        return fpp(BloomLayout.SECTORED, bits, hashes, keys);
    }

    /** {@link #fpp(long, int, long)} for a filter of the given layout. */
    public static double fpp(BloomLayout layout, long bits, int hashes, long keys) {
        Require.nonNull("layout", layout);
        checkShape(bits, hashes);
        Require.inRange("keys", keys, 0, Long.MAX_VALUE);
        if (keys == 0) {
            return 0.0;
        }
        double lambda = (double) keys * BLOCK_BITS / bits;
        return blockedFpp(layout, lambda, hashes);
    }

    /** The classic (unblocked) Bloom formula {@code (1 - e^(-k n / m))^k}, shown beside the blocked one. */
    public static double classicFpp(long bits, int hashes, long keys) {
        checkShape(bits, hashes);
        Require.inRange("keys", keys, 0, Long.MAX_VALUE);
        return Math.pow(-Math.expm1(-(double) hashes * keys / bits), hashes);
    }

    /**
     * The smallest new (sectored) filter (and, among equal sizes, the smallest {@code k}) whose false-positive
     * probability at {@code capacity} keys is at most {@code fpp}.
     *
     * @throws IllegalArgumentException if capacity is not positive, fpp is outside (0, 1), or the filter would
     *                                  exceed {@link #MAX_BITS}
     */
    public static BloomSize forCapacity(long capacity, double fpp) {
        return forCapacity(BloomLayout.SECTORED, capacity, fpp);
    }

    /** {@link #forCapacity(long, double)} for a filter of the given layout. */
    public static BloomSize forCapacity(BloomLayout layout, long capacity, double fpp) {
        Require.nonNull("layout", layout);
        Require.positive("capacity", capacity);
        Require.probability("fpp", fpp);
        BloomSize best = null;
        for (int k = 1; k <= MAX_HASHES; k++) {
            long blocks = smallestBlocks(layout, capacity, k, fpp);
            if (blocks < 0) {
                continue;
            }
            long bits = blocks * BLOCK_BITS;
            if (best == null || bits < best.bits()) {
                best = new BloomSize(bits, k, capacity, fpp(layout, bits, k, capacity));
            }
        }
        if (best == null) {
            throw new IllegalArgumentException("capacity " + capacity + " at fpp " + fpp
                    + " needs more than the largest filter (" + MAX_BITS + " bits); lower the capacity or raise fpp");
        }
        return best;
    }

    /**
     * The best {@code k} and resulting false-positive probability for a new (sectored) filter of at most
     * {@code bytes} bytes holding {@code capacity} keys (the memory is rounded down to whole 64-byte blocks).
     */
    public static BloomSize forMemory(long bytes, long capacity) {
        Require.inRange("bytes", bytes, BLOCK_BITS / 8, MAX_BITS / 8);
        Require.positive("capacity", capacity);
        long bits = bytes * 8 / BLOCK_BITS * BLOCK_BITS;
        BloomSize best = null;
        for (int k = 1; k <= MAX_HASHES; k++) {
            double p = fpp(bits, k, capacity);
            if (best == null || p < best.expectedFpp()) {
                best = new BloomSize(bits, k, capacity, p);
            }
        }
        return best;
    }

    /** Checks an explicit filter shape: bits a positive multiple of 512 up to {@link #MAX_BITS}, k in [1, 32]. */
    public static void checkShape(long bits, int hashes) {
        Require.inRange("bits", bits, BLOCK_BITS, MAX_BITS);
        if (bits % BLOCK_BITS != 0) {
            throw new IllegalArgumentException("bits must be a multiple of " + BLOCK_BITS + " (got " + bits + ")");
        }
        Require.inRange("hashes (k)", hashes, 1, MAX_HASHES);
    }

    /** Smallest block count reaching the target, or -1 when even {@link #MAX_BITS} does not. */
    private static long smallestBlocks(BloomLayout layout, long capacity, int k, double target) {
        long lo = 1;
        long hi = MAX_BITS / BLOCK_BITS;
        if (blockedFpp(layout, (double) capacity / hi, k) > target) {
            return -1;
        }
        while (lo < hi) { // fpp falls as blocks grow: find the first block count that meets the target
            long mid = (lo + hi) >>> 1;
            if (blockedFpp(layout, (double) capacity / mid, k) <= target) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo;
    }

    /** The Poisson-weighted sum above, for a mean of {@code lambda} keys per block. */
    static double blockedFpp(BloomLayout layout, double lambda, int k) {
        if (lambda > SATURATED_LAMBDA) {
            // Hundreds of keys per 512-bit block: the Poisson spread no longer matters (every block is nearly
            // full), and summing millions of terms for a candidate size the search will reject anyway is waste.
            return layout.blockFpp((int) Math.min(Integer.MAX_VALUE, (long) lambda), k);
        }
        // Sum the Poisson weights outward from the mode, where they are largest, until they stop mattering;
        // starting at i = 0 would underflow e^(-lambda) for large lambda.
        int mode = (int) Math.floor(lambda);
        double logPmfMode = -lambda + mode * Math.log(lambda) - logFactorial(mode);
        double pmfMode = Math.exp(logPmfMode);
        double sum = pmfMode * layout.blockFpp(mode, k);
        double pmf = pmfMode;
        for (int i = mode + 1; pmf > 1e-300; i++) {
            pmf *= lambda / i;
            sum += pmf * layout.blockFpp(i, k);
            if (pmf < 1e-20 * sum) {
                break;
            }
        }
        pmf = pmfMode;
        for (int i = mode; i > 0; i--) {
            pmf *= i / lambda;
            double term = pmf * layout.blockFpp(i - 1, k);
            sum += term;
            if (pmf < 1e-20 * sum || (term == 0.0 && pmf < 1e-300)) {
                break;
            }
        }
        return Math.min(1.0, sum);
    }

    private static double logFactorial(int n) {
        if (n < 256) {
            double s = 0;
            for (int i = 2; i <= n; i++) {
                s += Math.log(i);
            }
            return s;
        }
        // Stirling's series: its error, below 1/(1260 n^5), is under double precision from here on.
        double x = n;
        return x * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI * x) + 1 / (12 * x) - 1 / (360 * x * x * x);
    }
}
