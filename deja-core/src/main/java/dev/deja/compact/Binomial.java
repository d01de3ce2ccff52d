package dev.deja.compact;

import java.math.BigInteger;

/**
 * An exact binomial coefficient C(n, k), held as a cursor that moves along n and k by small exact steps.
 *
 * <p>Ranking and unranking a subset ({@link SubsetRank}) visit C(c, i) for consecutive sorted fingerprints c:
 * consecutive visits differ by one in k and by a gap of about range/size in n. Moving the previous value there
 * costs one factor per unit of the gap, computing it afresh costs min(k, n - k) factors; {@link #moveTo} takes
 * the cheaper path. Either way the value is multiplied by one product of consecutive integers and divided
 * by another, each built by binary splitting; the quotient is the binomial sought, so the division is exact.
 */
final class Binomial {

    private long n;
    private int k;
    private BigInteger value;

    private Binomial(long n, int k, BigInteger value) {
        this.n = n;
        this.k = k;
        this.value = value;
    }

    /** A cursor at C(n, k), computed afresh; n >= 0, k >= 0. */
    static Binomial of(long n, int k) {
        return new Binomial(n, k, compute(n, k));
    }

    /** The current n. */
    long n() {
        return n;
    }

    /** The current value C(n, k). */
    BigInteger value() {
        return value;
    }

    /** Moves to C(target, k), the same k, along the cheaper of stepping over the gap or computing afresh. */
    void moveTo(long target) {
        if (target < k) {
            value = BigInteger.ZERO;
        } else if (n < k || Math.abs(target - n) > Math.min(k, target - k)) {
            value = compute(target, k);
        } else if (target > n) {
            // C(target, k) = C(n, k) * (n+1)...(target) / (n+1-k)...(target-k)
            value = scale(value, n + 1, target, n + 1 - k, target - k);
        } else {
            // C(target, k) = C(n, k) * (target+1-k)...(n-k) / (target+1)...(n)
            value = scale(value, target + 1 - k, n - k, target + 1, n);
        }
        n = target;
    }

    /** Moves from C(n, k) to C(n, k + 1). */
    void incrementK() {
        value = n <= k ? BigInteger.ZERO : scale(value, n - k, n - k, k + 1, k + 1);
        k++;
    }

    /** Moves from C(n, k) to C(n, k - 1); k must be positive. */
    void decrementK() {
        value = n < k ? compute(n, k - 1) : scale(value, k, k, n - k + 1, n - k + 1);
        k--;
    }

    /** C(n, k) = (n-m+1)...(n) / m! with m = min(k, n - k). */
    private static BigInteger compute(long n, int k) {
        if (n < k) {
            return BigInteger.ZERO;
        }
        long m = Math.min(k, n - k);
        return scale(BigInteger.ONE, n - m + 1, n, 1, m);
    }

    /**
     * value * (from..to) / (divFrom..divTo), products of consecutive integers (empty when from > to); the caller
     * guarantees the quotient is an integer.
     */
    private static BigInteger scale(BigInteger value, long from, long to, long divFrom, long divTo) {
        return value.multiply(product(from, to)).divide(product(divFrom, divTo));
    }

    /**
     * The product of the integers in [from, to], all positive, by binary splitting: the big multiplications are
     * between halves of equal size, so a product of k factors costs about one multiplication of its result
     * rather than k multiplications of a growing one.
     */
    private static BigInteger product(long from, long to) {
        if (to - from < 16) {
            BigInteger result = BigInteger.ONE;
            long run = 1;
            for (long j = from; j <= to; j++) {
                if (run > Long.MAX_VALUE / j) {
                    result = result.multiply(BigInteger.valueOf(run));
                    run = 1;
                }
                run *= j;
            }
            return result.multiply(BigInteger.valueOf(run));
        }
        long middle = (from + to) >>> 1;
        return product(from, middle).multiply(product(middle + 1, to));
    }
}
