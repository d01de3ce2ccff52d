package dev.deja.bench;

import dev.deja.recent.RecentFilter;
import dev.deja.seen.Verdict;
import dev.deja.sizing.RecentSizing;

/**
 * Measures, at the same memory for every associativity, how long a {@code recent} filter holds a key: the age
 * (further keys inserted) at which 90% of keys are still held, measured and by the formula.
 *
 * <p>Usage: {@code java -cp deja-bench/target/benchmarks.jar dev.deja.bench.RecentRetention [log2 buckets]}.
 * Inserts {@code N} distinct keys into each filter, then probes all of them: the key inserted at position
 * {@code i} has age {@code N - 1 - i}. Ages are grouped in bands of {@code N / 256}; the reported age is where the
 * held fraction crosses 90%, interpolated between band centres.
 */
public final class RecentRetention {

    private static final int BANDS = 256;

    private RecentRetention() {}

    public static void main(String[] args) {
        int log2 = args.length > 0 ? Integer.parseInt(args[0]) : 22;
        long buckets = 1L << log2;
        int keys = (int) buckets;
        System.out.printf(
                "buckets N = %,d (%,d bytes of fingerprints), %,d keys per run%n%n", buckets, buckets * 8, keys);
        System.out.printf("%4s  %18s  %18s  %9s%n", "ways", "age@90% measured", "age@90% formula", "vs ways=1");
        double base = 0;
        for (int ways = 1; ways <= 16; ways *= 2) {
            RecentFilter filter =
                    RecentFilter.builder().buckets(buckets).ways(ways).build();
            for (int i = 0; i < keys; i++) {
                if (filter.checkThenAdd(key(ways, i)) != Verdict.NEW) {
                    throw new AssertionError("a fresh key was reported seen");
                }
            }
            int[] heldPerBand = new int[BANDS];
            int band = keys / BANDS;
            for (int i = 0; i < keys; i++) {
                if (filter.check(key(ways, i))) {
                    heldPerBand[(keys - 1 - i) / band]++;
                }
            }
            double measured = crossing(heldPerBand, band, 0.9);
            long formula = RecentSizing.keysHeld(buckets, ways, 0.9);
            if (ways == 1) {
                base = measured;
            }
            System.out.printf("%4d  %,18.0f  %,18d  %8.2fx%n", ways, measured, formula, measured / base);
        }
    }

    /** The age where the held fraction first falls below {@code level}, interpolated between band centres. */
    private static double crossing(int[] heldPerBand, int band, double level) {
        double previous = 1.0;
        for (int b = 0; b < heldPerBand.length; b++) {
            double fraction = (double) heldPerBand[b] / band;
            if (fraction < level) {
                double centre = (b + 0.5) * band;
                if (b == 0) {
                    return centre;
                }
                return centre - band * (level - fraction) / (previous - fraction);
            }
            previous = fraction;
        }
        return Double.NaN;
    }

    private static byte[] key(int stream, long i) {
        byte[] key = new byte[12];
        for (int b = 0; b < 4; b++) {
            key[b] = (byte) (stream >>> (8 * b));
        }
        for (int b = 0; b < 8; b++) {
            key[4 + b] = (byte) (i >>> (8 * b));
        }
        return key;
    }
}
