package dev.deja.bench;

/**
 * The two filter sizes every bloom benchmark runs at, given as (capacity, fpp) so deja and Guava size themselves
 * from the same numbers.
 */
public enum BloomShape {
    /** About 1 MiB of bits: stays in the L2 cache. */
    IN_CACHE(800_000L, 0.01),
    /**
     * The load of the 1 GiB default filter of the bloom HTTP server whose protocol deja follows (Snawoot/bloom): 5e8
     * keys at 0.1%, about 1 GiB of bits, far beyond every cache.
     */
    OUT_OF_CACHE(500_000_000L, 0.001);

    final long capacity;
    final double fpp;

    BloomShape(long capacity, double fpp) {
        this.capacity = capacity;
        this.fpp = fpp;
    }
}
