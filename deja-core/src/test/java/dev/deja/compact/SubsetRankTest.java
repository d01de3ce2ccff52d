package dev.deja.compact;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SubsetRankTest {

    @Test
    void ranksEverySubsetOfSmallRangesOntoZeroToTheBinomialInColexOrder() {
        for (int range = 1; range <= 10; range++) {
            for (int k = 0; k <= range; k++) {
                List<long[]> subsets = subsetsInColexOrder(range, k);
                BigInteger total = BinomialTest.naive(range, k);
                assertThat(subsets).hasSize(total.intValueExact());
                for (int expected = 0; expected < subsets.size(); expected++) {
                    long[] subset = subsets.get(expected);
                    BigInteger rank = SubsetRank.rank(subset);
                    assertThat(rank).isEqualTo(BigInteger.valueOf(expected));
                    assertThat(SubsetRank.unrank(rank, k, range)).isEqualTo(subset);
                }
            }
        }
    }

    @Test
    void roundTripsRandomSubsetsFromDenseToSparse() {
        SplittableRandom random = new SplittableRandom(11);
        long[] ranges = {8, 20, 208, 10_240, 106_496, 100_663_296, CompactFormat.MAX_RANGE};
        for (long range : ranges) {
            // big ranges make every binomial a product of k word-sized factors: keep k modest there
            int maxK = range > 1_000_000 ? 60 : 300;
            for (int trial = 0; trial < 30; trial++) {
                int k = (int) Math.min(range, random.nextInt(0, maxK + 1));
                long[] subset = randomSubset(random, range, k);
                BigInteger rank = SubsetRank.rank(subset);
                assertThat(rank).isLessThan(Binomial.coefficient(range, k));
                assertThat(SubsetRank.unrank(rank, k, range))
                        .as("range %d, k %d", range, k)
                        .isEqualTo(subset);
            }
        }
    }

    @Test
    void firstAndLastRanksAreThePrefixAndTheSuffix() {
        long range = 10_240;
        int k = 100;
        long[] prefix = new long[k];
        long[] suffix = new long[k];
        for (int i = 0; i < k; i++) {
            prefix[i] = i;
            suffix[i] = range - k + i;
        }
        BigInteger last = BinomialTest.naive(range, k).subtract(BigInteger.ONE);
        assertThat(SubsetRank.rank(prefix)).isZero();
        assertThat(SubsetRank.rank(suffix)).isEqualTo(last);
        assertThat(SubsetRank.unrank(BigInteger.ZERO, k, range)).isEqualTo(prefix);
        assertThat(SubsetRank.unrank(last, k, range)).isEqualTo(suffix);
    }

    static long[] randomSubset(SplittableRandom random, long range, int k) {
        TreeSet<Long> chosen = new TreeSet<>();
        while (chosen.size() < k) {
            chosen.add(random.nextLong(range));
        }
        return chosen.stream().mapToLong(Long::longValue).toArray();
    }

    /** Colex order: compare from the largest element down. */
    private static List<long[]> subsetsInColexOrder(int range, int k) {
        List<long[]> all = new ArrayList<>();
        for (int mask = 0; mask < 1 << range; mask++) {
            if (Integer.bitCount(mask) == k) {
                long[] subset = new long[k];
                int at = 0;
                for (int bit = 0; bit < range; bit++) {
                    if ((mask & 1 << bit) != 0) {
                        subset[at++] = bit;
                    }
                }
                all.add(subset);
            }
        }
        all.sort(Comparator.comparing(SubsetRankTest::reversed, SubsetRankTest::compareLexicographically));
        return all;
    }

    private static long[] reversed(long[] subset) {
        long[] out = new long[subset.length];
        for (int i = 0; i < subset.length; i++) {
            out[i] = subset[subset.length - 1 - i];
        }
        return out;
    }

    private static int compareLexicographically(long[] a, long[] b) {
        return java.util.Arrays.compare(a, b);
    }
}
