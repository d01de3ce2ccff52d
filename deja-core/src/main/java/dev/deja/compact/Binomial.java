package dev.deja.compact;

import java.math.BigInteger;

/**
 * An exact binomial coefficient C(n, k), held as a cursor that moves along n and k by small exact steps.
 *
 * <p>Ranking and unranking a subset ({@link SubsetRank}) visit C(c, i) for consecutive sorted fingerprints c:
 * consecutive visits differ by one in k and by a gap of about range/size in n. Moving the previous value there
 * costs one factor per unit of the gap, computing it afresh costs min(k, n - k) factors; {@link #moveTo} takes
 * the cheaper path, so a whole set of 100 costs a few thousand word-sized factors rather than 100 independent
 * products. Factors are gathered in a {@code long} until it would overflow and only then applied to the
 * {@link BigInteger}; every value the cursor passes through is itself a binomial coefficient, so each division
 * is exact.
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
        long distance = Math.abs(target - n);
        if (target < k) {
            value = BigInteger.ZERO;
        } else if (n < k || distance > Math.min(k, target - k)) {
            value = compute(target, k);
        } else {
            Ratio ratio = new Ratio(value);
            if (target > n) {
                // C(j, k) = C(j - 1, k) * j / (j - k)
                for (long j = n + 1; j <= target; j++) {
                    ratio.times(j, j - k);
                }
            } else {
                // C(j - 1, k) = C(j, k) * (j - k) / j
                for (long j = n; j > target; j--) {
                    ratio.times(j - k, j);
                }
            }
            value = ratio.result();
        }
        n = target;
    }

    /** Moves from C(n, k) to C(n, k + 1). */
    void incrementK() {
        value = n <= k ? BigInteger.ZERO : new Ratio(value).times(n - k, k + 1).result();
        k++;
    }

    /** Moves from C(n, k) to C(n, k - 1); k must be positive. */
    void decrementK() {
        value = n < k ? compute(n, k - 1) : new Ratio(value).times(k, n - k + 1).result();
        k--;
    }

    /** C(n, k) as the product of min(k, n - k) ratios (n - m + j) / j, each partial product a binomial. */
    private static BigInteger compute(long n, int k) {
        if (n < k) {
            return BigInteger.ZERO;
        }
        long m = Math.min(k, n - k);
        Ratio ratio = new Ratio(BigInteger.ONE);
        for (long j = 1; j <= m; j++) {
            ratio.times(n - m + j, j);
        }
        return ratio.result();
    }

    /**
     * A BigInteger multiplied by a run of fractions mul/div whose running product is an integer after each whole
     * fraction. Numerators and denominators are multiplied into longs until one would overflow, those into two
     * products, and the value is multiplied and divided once at the end: one long division per run instead of
     * one per batch, which dominated the cost.
     */
    private static final class Ratio {
        private final BigInteger value;
        private BigInteger numerator = BigInteger.ONE;
        private BigInteger denominator = BigInteger.ONE;
        private long num = 1;
        private long den = 1;

        Ratio(BigInteger value) {
            this.value = value;
        }

        /** Multiplies by mul / div; both positive. */
        Ratio times(long mul, long div) {
            if (num > Long.MAX_VALUE / mul) {
                numerator = numerator.multiply(BigInteger.valueOf(num));
                num = 1;
            }
            if (den > Long.MAX_VALUE / div) {
                denominator = denominator.multiply(BigInteger.valueOf(den));
                den = 1;
            }
            num *= mul;
            den *= div;
            return this;
        }

        BigInteger result() {
            BigInteger n = numerator.multiply(BigInteger.valueOf(num));
            BigInteger d = denominator.multiply(BigInteger.valueOf(den));
            return value.multiply(n).divide(d);
        }
    }
}
