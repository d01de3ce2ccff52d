package dev.deja.sizing;

/**
 * A rough disk estimate for the {@code exact} store over one window.
 *
 * @param keys        keys held (rate times window)
 * @param keyLength   bytes per key, e.g. 16 for a binary UUID
 * @param owners      whether each key is stored with its 64-bit owner
 * @param bytesPerKey estimated disk bytes per key, all overheads included
 */
public record ExactSize(long keys, int keyLength, boolean owners, double bytesPerKey) {

    /** Estimated disk bytes for all {@code keys}, rounded to a whole byte. */
    public long diskBytes() {
        return Math.round(keys * bytesPerKey);
    }
}
