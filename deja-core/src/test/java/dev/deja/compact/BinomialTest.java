package dev.deja.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BinomialTest {

    /** C(n, k) by the textbook product, the oracle. */
    static BigInteger naive(long n, int k) {
        if (k < 0 || n < k) {
            return BigInteger.ZERO;
        }
        BigInteger value = BigInteger.ONE;
        for (int j = 1; j <= k; j++) {
            value = value.multiply(BigInteger.valueOf(n - k + j)).divide(BigInteger.valueOf(j));
        }
        return value;
    }

    @Test
    void computesEveryCoefficientOfSmallArguments() {
        for (long n = 0; n <= 60; n++) {
            for (int k = 0; k <= 62; k++) {
                assertThat(Binomial.coefficient(n, k)).as("C(%d, %d)", n, k).isEqualTo(naive(n, k));
            }
        }
    }

    @Test
    void computesLargeArgumentsWhereFactorsFillWholeLongs() {
        assertThat(Binomial.coefficient(CompactFormat.MAX_RANGE, 3)).isEqualTo(naive(CompactFormat.MAX_RANGE, 3));
        assertThat(Binomial.coefficient(10_240, 100)).isEqualTo(naive(10_240, 100));
        assertThat(Binomial.coefficient(10_240, 10_200)).isEqualTo(naive(10_240, 40));
        assertThat(Binomial.coefficient(3_000_000_000L, 40)).isEqualTo(naive(3_000_000_000L, 40));
    }

    @Test
    void fallingFactorialsAreTheCoefficientTimesTheFactorial() {
        SplittableRandom random = new SplittableRandom(7);
        for (int trial = 0; trial < 500; trial++) {
            int k = random.nextInt(0, 300);
            long n = random.nextLong(Math.max(0, k - 1), 5_000_000_000L);
            BigInteger factorial = BigInteger.ONE;
            for (int j = 2; j <= k; j++) {
                factorial = factorial.multiply(BigInteger.valueOf(j));
            }
            assertThat(Binomial.factorial(k)).isEqualTo(factorial);
            assertThat(Binomial.falling(n, k))
                    .as("%d falling %d", n, k)
                    .isEqualTo(naive(n, k).multiply(factorial));
        }
        assertThat(Binomial.falling(4, 5)).isZero();
        assertThat(Binomial.falling(4, 0)).isEqualTo(BigInteger.ONE);
    }
}
