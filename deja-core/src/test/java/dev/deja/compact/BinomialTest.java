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
                assertThat(Binomial.of(n, k).value()).as("C(%d, %d)", n, k).isEqualTo(naive(n, k));
            }
        }
    }

    @Test
    void computesLargeArgumentsWhereFactorsFillWholeLongs() {
        assertThat(Binomial.of(CompactFormat.MAX_RANGE, 3).value()).isEqualTo(naive(CompactFormat.MAX_RANGE, 3));
        assertThat(Binomial.of(10_240, 100).value()).isEqualTo(naive(10_240, 100));
        assertThat(Binomial.of(3_000_000_000L, 40).value()).isEqualTo(naive(3_000_000_000L, 40));
    }

    @Test
    void movesAlongNAndKToTheSameValuesAsComputingAfresh() {
        SplittableRandom random = new SplittableRandom(7);
        Binomial cursor = Binomial.of(500, 20);
        long n = 500;
        int k = 20;
        for (int step = 0; step < 3_000; step++) {
            switch (random.nextInt(4)) {
                case 0 -> {
                    n = random.nextLong(0, 2_000);
                    cursor.moveTo(n);
                }
                case 1 -> {
                    n = Math.max(0, n + random.nextInt(-3, 4));
                    cursor.moveTo(n);
                }
                case 2 -> {
                    cursor.incrementK();
                    k++;
                }
                default -> {
                    if (k > 0) {
                        cursor.decrementK();
                        k--;
                    }
                }
            }
            assertThat(cursor.n()).isEqualTo(n);
            assertThat(cursor.value()).as("C(%d, %d) after step %d", n, k, step).isEqualTo(naive(n, k));
        }
    }
}
