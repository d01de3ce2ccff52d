package dev.deja.sizing;

/**
 * A disk and memory estimate for the {@code exact} store over one window.
 *
 * @param keys        keys held (rate times window)
 * @param keyLength   bytes per key, e.g. 16 for a binary UUID
 * @param owners      whether each key is stored with its 64-bit owner
 * @param generations generations the window is cut into
 * @param bytesPerKey estimated disk bytes per key, all overheads included
 */
public record ExactSize(long keys, int keyLength, boolean owners, int generations, double bytesPerKey) {

    /** The false-positive rate of the exact store's in-memory key filters (one per generation). */
    public static final double FILTER_FPP = 0.001;
    /** Bits per key those filters take: the blocked Bloom filter's size at {@link #FILTER_FPP}. */
    public static final double FILTER_BITS_PER_KEY =
            (double) BloomSizing.forCapacity(1_000_000, FILTER_FPP).bits() / 1_000_000;

    /**
     * Refuses an estimate whose byte counts a {@code long} cannot hold, rather than report them saturated at
     * {@link Long#MAX_VALUE} as if that were the size.
     *
     * @throws IllegalArgumentException if the peak disk, {@code keys * (1 + 1/generations) * bytesPerKey}, reaches
     *                                  2^63 bytes
     */
    public ExactSize {
        double peak = keys * (1 + 1.0 / generations) * bytesPerKey;
        if (!(peak < 0x1p63)) {
            throw new IllegalArgumentException("the exact store's peak disk for " + keys + " keys of " + keyLength
                    + " bytes would be " + peak + " bytes, beyond 2^63; lower the keys per window");
        }
    }

    /** Estimated disk bytes for the window's {@code keys}, rounded to a whole byte. */
    public long diskBytes() {
        return Math.round(keys * bytesPerKey);
    }

    /** The most disk the store uses: it keeps up to one generation beyond the window until the next boundary. */
    public long peakDiskBytes() {
        return Math.round(peakKeys() * bytesPerKey);
    }

    /**
     * Memory of the store's in-memory key filters at that peak: a Bloom filter at 0.1% per generation (about 2
     * bytes per key); RocksDB's memtables and block cache come on top, a fixed budget.
     */
    public long peakFilterBytes() {
        return Math.round(peakKeys() * FILTER_BITS_PER_KEY / 8);
    }

    /** Keys held at the peak: the window and one generation beyond it. */
    private double peakKeys() {
        return keys * (1 + 1.0 / generations);
    }
}
