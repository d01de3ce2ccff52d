package dev.deja.sizing;

import dev.deja.checks.Require;

/**
 * A disk estimate for the {@code exact} store (RocksDB, after Segment's de-duplication design) per key and per
 * window, for random ids such as UUIDs, calibrated on the store's measured size (docs/BENCHMARKS.md, section "exact
 * store").
 *
 * <pre>
 *   bytes per key = max(L - log2(x / G) / 8, 0) + V + O
 * </pre>
 *
 * where {@code L} is the key length, {@code x} the keys per window and {@code G} the generations: each generation is
 * its own sorted table set, and among {@code x / G} sorted random keys neighbours share about {@code log2(x / G)}
 * leading bits, which prefix encoding and compression do not store again. {@code V} is the 8-byte owner (random, so
 * incompressible) or nothing. {@code O} ({@link #OVERHEAD_BYTES}) is the rest, calibrated on the measured size: the
 * one-byte first-seen time, the entry headers and block and index overhead left after ZSTD, and the newest generation,
 * whose flushes stay in level 0 with their table filters until it is sealed. Non-random keys (counters, ids with long
 * common text) compress further; the estimate is then an upper bound. The store keeps up to one generation beyond the
 * window until the next generation boundary, so the peak is {@code (1 + 1/G)} times the window's disk.
 */
public final class ExactSizing {

    /**
     * Bytes per key beyond the key's unshared part and the owner (see the class comment), calibrated on the exact
     * store's measured size in docs/BENCHMARKS.md, section "exact store".
     */
    public static final double OVERHEAD_BYTES = 4.25;
    /**
     * The exact store's measured bytes per key that {@link #OVERHEAD_BYTES} is calibrated on: 100 million UUIDs in the
     * default generations (docs/BENCHMARKS.md, section "exact store").
     */
    public static final double CALIBRATION_BYTES_PER_KEY = 17.30;
    /** The store's default number of generations per window. */
    public static final int DEFAULT_GENERATIONS = 8;
    /** The longest key deja accepts for sizing. */
    public static final int MAX_KEY_LENGTH = 1 << 16;

    private ExactSizing() {}

    /**
     * Estimated disk bytes per key for a window of {@code keys} keys of {@code keyLength} random bytes kept in
     * {@code generations} generations, with or without an 8-byte owner.
     */
    public static double bytesPerKey(long keys, int keyLength, boolean owners, int generations) {
        Require.positive("keys", keys);
        Require.inRange("keyLength", keyLength, 1, MAX_KEY_LENGTH);
        Require.inRange("generations", generations, 2, 1024);
        double perGeneration = Math.max(1.0, (double) keys / generations);
        double sharedPrefix = Math.log(perGeneration) / Math.log(2) / 8;
        int value = owners ? RecentSizing.OWNER_BYTES : 0;
        return Math.max(keyLength - sharedPrefix, 0) + value + OVERHEAD_BYTES;
    }

    /** The estimate for a window holding {@code keys} keys in the default number of generations. */
    public static ExactSize forWindow(long keys, int keyLength, boolean owners) {
        return forWindow(keys, keyLength, owners, DEFAULT_GENERATIONS);
    }

    /** The estimate for a window holding {@code keys} keys in {@code generations} generations. */
    public static ExactSize forWindow(long keys, int keyLength, boolean owners, int generations) {
        return new ExactSize(keys, keyLength, owners, generations, bytesPerKey(keys, keyLength, owners, generations));
    }
}
