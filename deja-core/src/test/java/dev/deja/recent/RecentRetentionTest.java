package dev.deja.recent;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import dev.deja.sizing.RecentSizing;
import org.junit.jupiter.api.Test;

/**
 * Measured retention against {@link RecentSizing}'s formula, at the same memory for every associativity.
 *
 * <p>After {@code M} distinct keys, the key inserted at position {@code i} has age {@code M - 1 - i} (further
 * keys). For a band of ages, the number of its keys still held has mean {@code sum P(held | age)} and, were the
 * keys independent, variance {@code sum p (1 - p)}; keys of one set are negatively correlated (a set holds at most
 * {@code W}), which only narrows the spread, so 6 standard deviations cannot flake.
 */
class RecentRetentionTest {

    private static final long BUCKETS = 1 << 20;
    private static final int KEYS = 1_200_000;
    private static final int BAND = 1 << 14;
    private static final double[] AGES_IN_BUCKETS = {0.02, 0.1, 0.25, 0.5, 0.75, 1.0};

    // The same keys for every associativity, hashed once.
    private static final long[] HIGH = new long[KEYS];
    private static final long[] LOW = new long[KEYS];

    static {
        for (int i = 0; i < KEYS; i++) {
            Hash128 h = Hash128.of(Keys.of(0, i));
            HIGH[i] = h.high();
            LOW[i] = h.low();
        }
    }

    @Test
    void measuredRetentionMatchesTheFormulaForEveryAssociativity() {
        double[] heldAtHalf = new double[17];
        for (int ways = 1; ways <= 16; ways *= 2) {
            boolean[] held = insertAndProbe(ways);
            for (double age : AGES_IN_BUCKETS) {
                long from = (long) (age * BUCKETS);
                int observed = 0;
                double mean = 0;
                double variance = 0;
                for (long a = from; a < from + BAND; a++) {
                    observed += held[(int) (KEYS - 1 - a)] ? 1 : 0;
                    double p = RecentSizing.heldProbability(BUCKETS, ways, a);
                    mean += p;
                    variance += p * (1 - p);
                }
                double tolerance = 6 * Math.sqrt(variance) + 1;
                assertThat((double) observed)
                        .as("ways=%d, ages %d..%d", ways, from, from + BAND)
                        .isBetween(mean - tolerance, mean + tolerance);
                if (age == 0.5) {
                    heldAtHalf[ways] = (double) observed / BAND;
                }
            }
        }
        // The point of associativity, measured: at the same memory, after N/2 further keys, one way keeps
        // e^-0.5 ~ 61% of keys and eight ways ~ 95% (P(Poisson(4) < 8)).
        assertThat(heldAtHalf[1]).isBetween(0.58, 0.64);
        assertThat(heldAtHalf[8]).isGreaterThan(0.93);
    }

    /** Inserts {@code KEYS} distinct keys (all must be NEW), then says which are still held. */
    private static boolean[] insertAndProbe(int ways) {
        RecentFilter filter = RecentFilter.builder().buckets(BUCKETS).ways(ways).build();
        int notNew = 0;
        for (int i = 0; i < KEYS; i++) {
            notNew += filter.checkThenAddHash(HIGH[i], LOW[i], SeenSet.NO_OWNER) == Verdict.NEW ? 0 : 1;
        }
        assertThat(notNew).as("fresh keys not reported NEW").isZero();
        boolean[] held = new boolean[KEYS];
        for (int i = 0; i < KEYS; i++) {
            held[i] = filter.checkHash(HIGH[i], LOW[i]);
        }
        return held;
    }
}
