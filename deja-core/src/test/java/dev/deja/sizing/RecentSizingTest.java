package dev.deja.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class RecentSizingTest {

    private static final long NSQ_KEYS = 1000L * 3600; // the NSQ design's 1,000 msg/s for one hour

    @Test
    void theNsqExampleUnderItsOwnReadingGivesItsFigure() {
        // The NSQ design solves 0.9 = 1 - (1 - 1/N)^3,600,000: the probability of having LOST the key is 0.9.
        // The real root is N = 1,563,460.63; the smallest whole N meeting it (ceiling) is the design's 1,563,461.
        assertThat(RecentSizing.bucketsForLost(NSQ_KEYS, 0.9, 1)).isEqualTo(1_563_461L);
        assertThat(Sizing.recentForLost(NSQ_KEYS, 0.9, 1, false).buckets()).isEqualTo(1_563_461L);
        assertThat(RecentSizing.heldProbability(1_563_461L, 1, NSQ_KEYS)).isCloseTo(0.1, within(1e-6));
    }

    @Test
    void theNsqExampleUnderTheHeldReadingNeedsAboutTwentyTimesMore() {
        // Held with probability 0.9: N = 1 / (1 - 0.9^(1/x)) = 34,168,398.19..., rounded up.
        long buckets = RecentSizing.bucketsFor(NSQ_KEYS, 0.9, 1);
        assertThat(buckets).isEqualTo(34_168_399L);
        double closedForm = 1 / -Math.expm1(Math.log(0.9) / NSQ_KEYS);
        assertThat(buckets).isEqualTo((long) Math.ceil(closedForm));
        assertThat(Math.pow(1 - 1.0 / buckets, NSQ_KEYS)).isGreaterThanOrEqualTo(0.9);
        assertThat(Math.pow(1 - 1.0 / (buckets - 1), NSQ_KEYS)).isLessThan(0.9);
    }

    @Test
    void oneWayIsTheNsqFormula() {
        for (long x : new long[] {0, 1, 1000, 123_456, 10_000_000}) {
            double expected = Math.pow(1 - 1.0 / 1_000_003, (double) x);
            // Math.pow on the rounded 1 - 1/N is itself off by ~x * 1e-16 relative: compare relatively.
            assertThat(RecentSizing.heldProbability(1_000_003, 1, x)).isCloseTo(expected, within(1e-9 * expected));
        }
    }

    @Test
    void manyWaysMatchesADirectBinomialSum() {
        // 1,000 sets of 4 ways, 3,000 later keys: sum C(x, j) p^j (1-p)^(x-j) for j < 4 with BigDecimal-free
        // recurrence from j = 0, an independent way of computing the same sum.
        long x = 3000;
        double p = 1.0 / 1000;
        double term = Math.pow(1 - p, (double) x);
        double sum = 0;
        for (int j = 0; j < 4; j++) {
            sum += term;
            term *= (double) (x - j) / (j + 1) * p / (1 - p);
        }
        assertThat(RecentSizing.heldProbability(4000, 4, x)).isCloseTo(sum, within(1e-12));
    }

    @Test
    void moreWaysHoldLongerAtTheSameMemory() {
        long buckets = 1 << 20;
        long previous = 0;
        for (int ways = 1; ways <= 16; ways *= 2) {
            long held = RecentSizing.keysHeld(buckets, ways, 0.9);
            assertThat(held).isGreaterThan(previous);
            previous = held;
        }
        // ways = 1: x = ln(0.9) / ln(1 - 1/N) ~ 0.105 N; ways = 8: P(Poisson(8x/N) < 8) = 0.9 at x ~ 0.582 N.
        assertThat(RecentSizing.keysHeld(buckets, 1, 0.9))
                .isEqualTo((long) Math.floor(Math.log(0.9) / Math.log1p(-1.0 / buckets)));
        assertThat((double) RecentSizing.keysHeld(buckets, 8, 0.9) / buckets).isBetween(0.57, 0.59);
    }

    @Test
    void solversRoundTrip() {
        for (int ways = 1; ways <= 16; ways *= 2) {
            for (double p : new double[] {0.1, 0.5, 0.9, 0.999}) {
                long buckets = RecentSizing.bucketsFor(NSQ_KEYS, p, ways);
                assertThat(buckets % ways).isZero();
                assertThat(RecentSizing.heldProbability(buckets, ways, NSQ_KEYS))
                        .isGreaterThanOrEqualTo(p);
                if (buckets > ways) {
                    assertThat(RecentSizing.heldProbability(buckets - ways, ways, NSQ_KEYS))
                            .isLessThan(p);
                }
                // The reverse: at those buckets, the key survives at least the window, and not one key more
                // than keysHeld says.
                long keys = RecentSizing.keysHeld(buckets, ways, p);
                assertThat(keys).isGreaterThanOrEqualTo(NSQ_KEYS);
                assertThat(RecentSizing.heldProbability(buckets, ways, keys)).isGreaterThanOrEqualTo(p);
                assertThat(RecentSizing.heldProbability(buckets, ways, keys + 1))
                        .isLessThan(p);
            }
        }
    }

    @Test
    void memoryRoundTrip() {
        RecentSize size = Sizing.recent(NSQ_KEYS, 0.9, 8, true);
        assertThat(size.bytes()).isEqualTo(size.buckets() * 16);
        assertThat(RecentSizing.bucketsForMemory(size.bytes(), 8, true)).isEqualTo(size.buckets());
        assertThat(RecentSizing.bucketsForMemory(size.bytes() + 127, 8, true)).isEqualTo(size.buckets());
        assertThat(RecentSizing.bucketsForMemory(1 << 30, 8, false)).isEqualTo(1 << 27);
    }

    @Test
    void tinyFilterHoldsNothingForLong() {
        assertThat(RecentSizing.keysHeld(1, 1, 0.9)).isZero();
        assertThat(RecentSizing.heldProbability(16, 16, 15)).isEqualTo(1.0);
        assertThat(RecentSizing.heldProbability(16, 16, 16)).isEqualTo(0.0);
    }

    @Test
    void rejectsBadArgumentsNamingThem() {
        assertThatThrownBy(() -> RecentSizing.bucketsFor(0, 0.9, 1)).hasMessageContaining("keysAfter");
        assertThatThrownBy(() -> RecentSizing.bucketsFor(10, 1.0, 1))
                .hasMessageContaining("heldProbability")
                .hasMessageContaining("(0, 1)");
        assertThatThrownBy(() -> RecentSizing.bucketsForLost(10, 0, 1)).hasMessageContaining("lostProbability");
        // in (0, 1), but 1 - p rounds to 1: the message named heldProbability, got 1.0, which the caller never passed
        assertThatThrownBy(() -> RecentSizing.bucketsForLost(10, 1e-17, 8))
                .hasMessageContaining("lostProbability")
                .hasMessageContaining("1.0E-17")
                .hasMessageNotContaining("heldProbability");
        assertThat(RecentSizing.bucketsForLost(10, 0x1p-53, 8)).isPositive();
        assertThatThrownBy(() -> RecentSizing.bucketsFor(10, 0.9, 3))
                .hasMessageContaining("ways must be one of 1, 2, 4, 8, 16");
        assertThatThrownBy(() -> RecentSizing.heldProbability(12, 8, 1)).hasMessageContaining("multiple of ways");
        assertThatThrownBy(() -> RecentSizing.bucketsFor(Long.MAX_VALUE / 4, 0.999999, 1))
                .hasMessageContaining("largest filter");
        assertThatThrownBy(() -> RecentSizing.bucketsForMemory(8, 8, false)).hasMessageContaining("bytes");
    }
}
