package dev.deja.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

class BloomSizingTest {

    @Test
    void blockedFormulaIsWorseThanClassicAtTheSameShape() {
        long bits = 1L << 20;
        long keys = 100_000;
        assertThat(BloomSizing.fpp(bits, 7, keys)).isGreaterThan(BloomSizing.classicFpp(bits, 7, keys));
    }

    @Test
    void theClassicFormulaRefusesANegativeKeyCount() {
        assertThatThrownBy(() -> BloomSizing.classicFpp(512, 8, -5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("keys must be in [0, 9223372036854775807] (got -5)");
        assertThat(BloomSizing.classicFpp(512, 8, 0)).isZero();
    }

    @Test
    void scatteredFormulaMatchesDirectPoissonSumForSmallFilter() {
        // 8 keys per block on average, k = 3.
        double expected = poissonSum(8, i -> Math.pow(1 - Math.pow(1 - 1.0 / 512, 3.0 * i), 3));
        assertThat(BloomSizing.fpp(BloomLayout.SCATTERED, 512 * 1000, 3, 8000)).isCloseTo(expected, within(1e-12));
    }

    @Test
    void sectoredFormulaMatchesDirectPoissonSumForSmallFilter() {
        // 30 keys per block on average, k = 10: words 0 and 1 take two bits of each key, words 2..7 one.
        double expected = poissonSum(30, i -> {
            double one = 1 - Math.pow(1 - 1.0 / 64, i);
            double two = 1 - Math.pow(1 - 1.0 / 64, 2.0 * i);
            return Math.pow(two, 2 * 2) * Math.pow(one, 6);
        });
        assertThat(BloomSizing.fpp(512 * 1000, 10, 30_000)).isCloseTo(expected, within(1e-12));
        assertThat(BloomSizing.fpp(BloomLayout.SECTORED, 512 * 1000, 10, 30_000))
                .isEqualTo(BloomSizing.fpp(512 * 1000, 10, 30_000));
    }

    @Test
    void sectoredBitsCostAtMostTwoPercentMoreMemoryAtOneAndAPointOnePercent() {
        for (double fpp : new double[] {0.01, 0.001}) {
            BloomSize sectored = BloomSizing.forCapacity(10_000_000, fpp);
            BloomSize scattered = BloomSizing.forCapacity(BloomLayout.SCATTERED, 10_000_000, fpp);
            assertThat((double) sectored.bits() / scattered.bits())
                    .as("fpp %f", fpp)
                    .isBetween(1.0, 1.025);
            assertThat(sectored.hashes()).isEqualTo(8);
        }
    }

    @Test
    void sizedFilterMeetsItsTargetAndIsMinimal() {
        BloomSize s = BloomSizing.forCapacity(1_000_000, 0.01);
        assertThat(s.expectedFpp()).isLessThanOrEqualTo(0.01);
        assertThat(BloomSizing.fpp(s.bits() - BloomSizing.BLOCK_BITS, s.hashes(), 1_000_000))
                .isGreaterThan(0.01);
        assertThat(s.bits() % BloomSizing.BLOCK_BITS).isZero();
        // A blocked filter needs a little more than the classic 9.59 bits per key at 1%.
        assertThat(s.bitsPerKey()).isBetween(9.6, 11.5);
    }

    @Test
    void theSnawootServersDefaultShapeMeetsPointOnePercent() {
        // 1 GiB, k = 10, 5e8 keys: the Snawoot/bloom server's default must keep fpp <= 0.1% under the blocked formula
        // too.
        assertThat(BloomSizing.fpp(8L << 30, 10, 500_000_000L)).isLessThan(0.001);
    }

    @Test
    void forMemoryPicksTheBestK() {
        BloomSize s = BloomSizing.forMemory(1 << 20, 1_000_000);
        for (int k = 1; k <= BloomSizing.MAX_HASHES; k++) {
            assertThat(BloomSizing.fpp(s.bits(), k, 1_000_000)).isGreaterThanOrEqualTo(s.expectedFpp());
        }
    }

    @Test
    void rejectsBadArgumentsNamingThem() {
        assertThatThrownBy(() -> BloomSizing.forCapacity(0, 0.01)).hasMessageContaining("capacity");
        assertThatThrownBy(() -> BloomSizing.forCapacity(10, 1.0))
                .hasMessageContaining("fpp")
                .hasMessageContaining("(0, 1)");
        assertThatThrownBy(() -> BloomSizing.fpp(1000, 3, 10)).hasMessageContaining("multiple of 512");
        assertThatThrownBy(() -> BloomSizing.fpp(512, 0, 10)).hasMessageContaining("hashes");
        assertThatThrownBy(() -> BloomSizing.forCapacity(Long.MAX_VALUE / 2, 1e-9))
                .hasMessageContaining("largest filter");
    }

    /** The series sum over i of Poisson(i; lambda) * blockFpp(i), term by term from i = 0, as the formula reads. */
    private static double poissonSum(double lambda, IntToDoubleFunction blockFpp) {
        double sum = 0;
        double pmf = Math.exp(-lambda);
        for (int i = 0; i < 20 * lambda + 100; i++) {
            if (i > 0) {
                pmf *= lambda / i;
            }
            sum += pmf * blockFpp.applyAsDouble(i);
        }
        return sum;
    }
}
