package dev.deja.compact;

import java.math.BigInteger;

/**
 * Exact binomial coefficients and the products they are made of: falling factorials and factorials.
 *
 * <p>Every product of consecutive integers is built by binary splitting, with the leaves multiplied in a
 * {@code long} until it would overflow: the big multiplications are then between halves of equal size, so a
 * product of k factors costs about one multiplication of its result rather than k multiplications of a growing
 * number, which made ranking large sets cubic in their size.
 */
final class Binomial {

    private Binomial() {}

    /** C(n, k); zero when n < k. */
    static BigInteger coefficient(long n, int k) {
        if (n < k) {
            return BigInteger.ZERO;
        }
        int m = (int) Math.min(k, n - k);
        return falling(n, m).divide(factorial(m));
    }

    /** n (n - 1) ... (n - k + 1), k factors; zero when one of them is; n >= k - 1. */
    static BigInteger falling(long n, int k) {
        return product(n - k + 1, n);
    }

    /** k!. */
    static BigInteger factorial(int k) {
        return product(1, k);
    }

    /** The product of the integers in [from, to], all non-negative; one when the interval is empty. */
    private static BigInteger product(long from, long to) {
        if (from == 0 && to >= 0) {
            return BigInteger.ZERO;
        }
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
