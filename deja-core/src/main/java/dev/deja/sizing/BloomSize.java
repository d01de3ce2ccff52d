package dev.deja.sizing;

/**
 * The shape of a blocked Bloom filter and the false-positive probability it gives at a number of keys.
 *
 * @param bits        total bits, a multiple of the 512-bit block
 * @param hashes      bits set per key (k), all inside one block
 * @param keys        the number of keys the probability is computed for
 * @param expectedFpp false-positive probability at {@code keys} keys, by the blocked filter's formula
 */
public record BloomSize(long bits, int hashes, long keys, double expectedFpp) {

    /** Memory of the bit array in bytes. */
    public long bytes() {
        return bits / 8;
    }

    /** Number of 512-bit blocks. */
    public long blocks() {
        return bits / BloomLayout.BLOCK_BITS;
    }

    /** Bits of memory per key. */
    public double bitsPerKey() {
        return (double) bits / keys;
    }
}
