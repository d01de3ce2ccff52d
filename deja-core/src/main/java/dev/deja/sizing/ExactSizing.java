package dev.deja.sizing;

import dev.deja.seen.Require;

/**
 * A rough estimate of the disk the {@code exact} store (RocksDB, seed 002) needs per key and per window.
 *
 * <p>This is an estimate, not a measurement: it adds what a RocksDB table stores for each entry and ignores what
 * compression and prefix encoding may save (little, for random ids such as UUIDs):
 *
 * <pre>
 *   bytes per key = (L + V + 8 + 3 + 1.25) * 1.1
 * </pre>
 *
 * where {@code L} is the key length, {@code V} the value (the 8-byte owner, or nothing), 8 the internal-key
 * trailer (sequence number and type), 3 the varint lengths and amortised block restart points and index entries,
 * 1.25 the table's bloom filter at 10 bits per key, and 1.1 the space amplification of levelled compaction.
 */
public final class ExactSizing {

    /** RocksDB's internal-key trailer: 56-bit sequence number and 8-bit type. */
    static final int INTERNAL_KEY_TRAILER_BYTES = 8;
    /** Varint key and value lengths plus amortised restart points and index entries, per entry. */
    static final int ENTRY_OVERHEAD_BYTES = 3;
    /** The per-table bloom filter at 10 bits per key. */
    static final double FILTER_BYTES = 1.25;
    /** Extra space levelled compaction keeps while older versions await merging. */
    static final double SPACE_AMPLIFICATION = 1.1;
    /** The longest key deja accepts for sizing. */
    public static final int MAX_KEY_LENGTH = 1 << 16;

    private ExactSizing() {
    }

    /** Estimated disk bytes per key for keys of {@code keyLength} bytes, with or without an 8-byte owner. */
    public static double bytesPerKey(int keyLength, boolean owners) {
        Require.inRange("keyLength", keyLength, 1, MAX_KEY_LENGTH);
        int value = owners ? RecentSizing.OWNER_BYTES : 0;
        return (keyLength + value + INTERNAL_KEY_TRAILER_BYTES + ENTRY_OVERHEAD_BYTES + FILTER_BYTES)
                * SPACE_AMPLIFICATION;
    }

    /** The estimate for a window holding {@code keys} keys. */
    public static ExactSize forWindow(long keys, int keyLength, boolean owners) {
        Require.positive("keys", keys);
        return new ExactSize(keys, keyLength, owners, bytesPerKey(keyLength, owners));
    }
}
