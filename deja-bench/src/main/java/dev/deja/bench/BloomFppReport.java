package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;

/**
 * Prints the measured false-positive rate of deja's filter and Guava's at the same capacity and fpp: each is filled
 * with {@code capacity} random keys and probed with the same keys never added, 4 x 2^20 of them unless the first
 * argument gives another multiple of 2^20. Each rate is printed with its standard error, and their difference in
 * standard errors of the difference, so that a gap can be told from the noise of the probes.
 *
 * <p>Usage: {@code java -Xmx3g -cp benchmarks.jar dev.deja.bench.BloomFppReport [probes / 2^20]}.
 */
public final class BloomFppReport {

    private BloomFppReport() {}

    /** Runs the comparison for the in-cache shape and for 10^7 keys at 0.1%. */
    public static void main(String[] args) {
        long probes = (args.length > 0 ? Long.parseLong(args[0]) : 4) * KeyPool.SIZE;
        report(BloomShape.IN_CACHE.capacity, BloomShape.IN_CACHE.fpp, probes);
        report(10_000_000L, 0.001, probes);
    }

    private static void report(long capacity, double fpp, long probes) {
        dev.deja.bloom.BloomFilter deja =
                dev.deja.bloom.BloomFilter.builder().capacity(capacity).fpp(fpp).build();
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), capacity, fpp);
        KeyPool fill = new KeyPool(11);
        for (long i = 0; i < capacity; i++) {
            byte[] key = distinct(fill, i);
            deja.add(key);
            guava.put(key);
        }
        KeyPool fresh = new KeyPool(12);
        long dejaPositives = 0;
        long guavaPositives = 0;
        for (long i = 0; i < probes; i++) {
            byte[] key = distinct(fresh, i);
            dejaPositives += deja.check(key) ? 1 : 0;
            guavaPositives += guava.mightContain(key) ? 1 : 0;
        }
        double dejaRate = (double) dejaPositives / probes;
        double guavaRate = (double) guavaPositives / probes;
        double dejaError = Math.sqrt(dejaRate * (1 - dejaRate) / probes);
        double guavaError = Math.sqrt(guavaRate * (1 - guavaRate) / probes);
        System.out.printf(
                "capacity=%d fpp=%.4f: deja %d bits (%.2f bits/key, k=%d) measured fpp %.6f (+- %.6f) | "
                        + "guava measured fpp %.6f (+- %.6f) | deja - guava = %.2f standard errors (probes: %d fresh "
                        + "keys)%n",
                capacity,
                fpp,
                deja.bits(),
                (double) deja.bits() / capacity,
                deja.hashes(),
                dejaRate,
                dejaError,
                guavaRate,
                guavaError,
                (dejaRate - guavaRate) / Math.hypot(dejaError, guavaError),
                probes);
    }

    /** The pool's next key, varied by pass so that keys stay distinct beyond the pool size. */
    private static byte[] distinct(KeyPool pool, long i) {
        byte[] key = pool.next().clone();
        key[0] ^= (byte) (i >>> 20);
        key[1] ^= (byte) (i >>> 28);
        return key;
    }
}
