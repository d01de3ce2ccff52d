package dev.deja.compact;

import java.math.BigInteger;

/**
 * The combinatorial number system: a bijection between the k-element subsets of [0, range) and the integers
 * [0, C(range, k)).
 *
 * <p>A subset c_0 < c_1 < ... < c_{k-1} has rank sum over i of C(c_i, i + 1) (Lehmer's combinatorial number
 * system; Knuth, TAOCP 7.2.1.3; used as a source code by Cover, "Enumerative source encoding", 1973). Writing
 * the rank in ceil(log2 C(range, k)) bits is the shortest possible code for a k-subset, and its length depends
 * on k and range only, never on which subset it is.
 *
 * <p>Both directions work on falling factorials c^(i) = C(c, i) * i!, so each element costs one product of i
 * consecutive integers and no division by i!: ranking sums them in Horner form scaled by k!, and unranking keeps
 * the rest scaled by i!. Unranking is greedy from the largest element: c_{i-1} is the largest c with
 * c^(i) <= rest * i!. A floating-point estimate finds that c (the i factors of c^(i) spread around their mean,
 * corrected to second order), then exact single steps correct it, rarely needed.
 */
final class SubsetRank {

    private static final double LN_2 = Math.log(2);

    private SubsetRank() {}

    /** The rank of sorted, distinct, non-negative values. */
    static BigInteger rank(long[] sorted) {
        // S_i = S_{i-1} * i + c_{i-1}^(i), so S_k = k! * sum over i of C(c_{i-1}, i)
        BigInteger scaled = BigInteger.ZERO;
        for (int i = 1; i <= sorted.length; i++) {
            scaled = scaled.multiply(BigInteger.valueOf(i)).add(Binomial.falling(sorted[i - 1], i));
        }
        return scaled.divide(Binomial.factorial(sorted.length));
    }

    /** The sorted k-subset of [0, range) with the given rank, which must be below C(range, k). */
    static long[] unrank(BigInteger rank, int k, long range) {
        long[] subset = new long[k];
        BigInteger rest = rank.multiply(Binomial.factorial(k)); // the rest times i!
        long bound = range;
        for (int i = k; i >= 1; i--) {
            long c = Math.clamp((long) Math.floor(estimate(rest, i)), i - 1, bound - 1);
            BigInteger falling = Binomial.falling(c, i);
            while (falling.compareTo(rest) > 0) {
                // (c - 1)^(i) = c^(i) * (c - i) / c
                falling = falling.multiply(BigInteger.valueOf(c - i)).divide(BigInteger.valueOf(c));
                c--;
            }
            // (c + 1)^(i) = c^(i) * (c + 1) / (c + 1 - i) exceeds the rest: checked without dividing
            while (c + 1 < bound
                    && (falling.signum() == 0
                            ? Binomial.falling(c + 1, i).compareTo(rest) <= 0
                            : falling.multiply(BigInteger.valueOf(c + 1))
                                            .compareTo(rest.multiply(BigInteger.valueOf(c + 1 - i)))
                                    <= 0)) {
                falling = falling.signum() == 0
                        ? Binomial.falling(c + 1, i)
                        : falling.multiply(BigInteger.valueOf(c + 1)).divide(BigInteger.valueOf(c + 1 - i));
                c++;
            }
            subset[i - 1] = c;
            bound = c;
            // (rest - C(c, i)) * (i - 1)! = (rest * i! - c^(i)) / i, exactly
            rest = rest.subtract(falling).divide(BigInteger.valueOf(i));
        }
        return subset;
    }

    /**
     * An estimate of the real c solving c^(k) = scaledRest: the k factors c, c-1, ..., c-k+1 have mean
     * m = c - (k-1)/2 and their product is m^k * exp(-k(k^2-1) / (24 m^2)) to second order.
     */
    private static double estimate(BigInteger scaledRest, int k) {
        if (scaledRest.signum() == 0) {
            return k - 1;
        }
        double target = ln(scaledRest);
        double spread = k * ((double) k * k - 1) / 24;
        double mean = Math.exp(target / k);
        for (int iteration = 0; iteration < 2; iteration++) {
            mean = Math.exp((target + spread / (mean * mean)) / k);
        }
        return mean + (k - 1) / 2.0;
    }

    private static double ln(BigInteger x) {
        int shift = Math.max(0, x.bitLength() - 62);
        return Math.log(x.shiftRight(shift).doubleValue()) + shift * LN_2;
    }
}
