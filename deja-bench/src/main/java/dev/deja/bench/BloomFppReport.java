package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;

/**
 * Prints the measured false-positive rate of deja's filter and Guava's at the same capacity and fpp: each is filled
 * with {@code capacity} random keys and probed with 4 x 2^20 keys never added.
 */
public final class BloomFppReport {

    private static final long PROBES = 4L * KeyPool.SIZE;

    private BloomFppReport() {
    }

    /** Runs the comparison for the in-cache shape and for 10^7 keys at 0.1%. */
    public static void main(String[] args) {
        report(BloomShape.IN_CACHE.capacity, BloomShape.IN_CACHE.fpp);
        report(10_000_000L, 0.001);
    }

    private static void report(long capacity, double fpp) {
        dev.deja.bloom.BloomFilter deja = dev.deja.bloom.BloomFilter.builder().capacity(capacity).fpp(fpp).build();
        BloomFilter<byte[]> guava = BloomFilter.create(Funnels.byteArrayFunnel(), capacity, fpp);
        KeyPool fill = new KeyPool(11);
        for (long i = 0; i < capacity; i++) {
            byte[] key = distinct(fill, i);
            deja.add(key);
            guava.put(key);
        }
        KeyPool probes = new KeyPool(12);
        long dejaPositives = 0;
        long guavaPositives = 0;
        for (long i = 0; i < PROBES; i++) {
            byte[] key = distinct(probes, i);
            dejaPositives += deja.check(key) ? 1 : 0;
            guavaPositives += guava.mightContain(key) ? 1 : 0;
        }
        System.out.printf("capacity=%d fpp=%.4f: deja %d bits (%.2f bits/key, k=%d) measured fpp %.5f | "
                        + "guava measured fpp %.5f (probes: %d fresh keys)%n",
                capacity, fpp, deja.bits(), (double) deja.bits() / capacity, deja.hashes(),
                (double) dejaPositives / PROBES, (double) guavaPositives / PROBES, PROBES);
    }

    /** The pool's next key, varied by pass so that keys stay distinct beyond the pool size. */
    private static byte[] distinct(KeyPool pool, long i) {
        byte[] key = pool.next().clone();
        key[0] ^= (byte) (i >>> 20);
        key[1] ^= (byte) (i >>> 28);
        return key;
    }
}
