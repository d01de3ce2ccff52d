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
 * <p>Unranking is greedy from the largest element: c_{k-1} is the largest c with C(c, k) <= rank, and so on down.
 * A floating-point estimate finds each c (the k factors of C(c, k) spread around their mean, corrected to
 * second order), then exact binomials move it the last step, if any, so the cost stays near that of ranking.
 */
final class SubsetRank {

    private static final double LN_2 = Math.log(2);

    private SubsetRank() {
    }

    /** The rank of sorted, distinct, non-negative values. */
    static BigInteger rank(long[] sorted) {
        BigInteger rank = BigInteger.ZERO;
        Binomial binomial = null;
        for (int i = 0; i < sorted.length; i++) {
            if (binomial == null) {
                binomial = Binomial.of(sorted[0], 1);
            } else {
                binomial.incrementK();
                binomial.moveTo(sorted[i]);
            }
            rank = rank.add(binomial.value());
        }
        return rank;
    }

    /**
     * The sorted k-subset of [0, range) with the given rank.
     *
     * @param total a cursor at C(range, k), which the caller already needed to check that rank is below it;
     *              consumed
     */
    static long[] unrank(BigInteger rank, int k, Binomial total) {
        long[] subset = new long[k];
        BigInteger rest = rank;
        Binomial binomial = total;
        double lnFactorial = lnFactorial(k);
        for (int i = k; i >= 1; i--) {
            // binomial is C(bound, i) where every remaining element is below bound
            long bound = binomial.n();
            long c = Math.clamp((long) Math.floor(estimate(rest, i, lnFactorial)), i - 1, bound - 1);
            binomial.moveTo(c);
            while (binomial.value().compareTo(rest) > 0) {
                binomial.moveTo(--c);
            }
            rest = rest.subtract(binomial.value());
            // C(c + 1, i) = C(c, i) + C(c, i - 1), so c is the largest while the rest is below C(c, i - 1): the very
            // binomial the next element starts from, so the check costs nothing when the estimate was right
            binomial.decrementK();
            while (c + 1 < bound && rest.compareTo(binomial.value()) >= 0) {
                rest = rest.subtract(binomial.value());
                binomial.moveTo(++c);
            }
            subset[i - 1] = c;
            lnFactorial -= Math.log(i);
        }
        return subset;
    }

    /**
     * An estimate of the real c solving C(c, k) = rest: the k factors c, c-1, ..., c-k+1 have mean m = c - (k-1)/2
     * and their product is m^k * exp(-k(k^2-1) / (24 m^2)) to second order, so m^k * exp(...) = rest * k!.
     */
    private static double estimate(BigInteger rest, int k, double lnFactorial) {
        if (rest.signum() == 0) {
            return k - 1;
        }
        double target = ln(rest) + lnFactorial;
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

    private static double lnFactorial(int k) {
        double sum = 0;
        for (int j = 2; j <= k; j++) {
            sum += Math.log(j);
        }
        return sum;
    }
}
