package dev.deja.bloom;

import dev.deja.hash.Hash128;

/**
 * The arithmetic that maps a key's 128-bit hash to its block and its bit positions inside the block
 * (docs/FORMAT.md section 2.1).
 *
 * <p>Seed 001 slices one wide hash into {@code k} indexes instead of salting a narrow hash {@code k} times; we do
 * the same with the 128-bit key hash. {@code high} picks the block by multiply-high reduction, {@code low} supplies
 * seven 9-bit positions (bits 0..62), and when {@code k > 7} each further seven positions come from a 64-bit word
 * {@code mix(low + j * GOLDEN)}, {@code j = 1, 2, ...}, where {@code mix} is the SplitMix64 finaliser: a bijection
 * with full avalanche, so the extra words are as uniform as {@code low} itself and cost two multiplications.
 */
final class BlockHash {

    /** Bits per block: one 64-byte cache line. */
    static final int BLOCK_BITS = 512;
    /** Bits of hash consumed per position: log2(512). */
    static final int POSITION_BITS = 9;
    /** Positions taken from one 64-bit word: 7 x 9 = 63 bits, the top bit is unused. */
    static final int POSITIONS_PER_WORD = 7;
    /** The 64-bit golden-ratio increment of SplitMix64. */
    static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private BlockHash() {
    }

    /** The block a key lands in, in [0, blocks). */
    static long block(long high, long blocks) {
        return Hash128.reduce(high, blocks);
    }

    /** The 64-bit word positions {@code 7j .. 7j+6} are sliced from: {@code low} for {@code j = 0}. */
    static long positionWord(long low, int j) {
        return j == 0 ? low : mix(low + j * GOLDEN);
    }

    /** The SplitMix64 finaliser (Steele, Lea and Flood, 2014). */
    static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Bit position {@code i} of a key inside its block, in [0, 512). Computes position word {@code i / 7} afresh,
     * so a loop over all {@code k} positions mixes up to {@code k - 7} times; the lookup, which runs for every key,
     * slices each word once instead ({@code BloomFilter.allSet}).
     */
    static int position(long low, int i) {
        long word = positionWord(low, i / POSITIONS_PER_WORD);
        return (int) (word >>> (POSITION_BITS * (i % POSITIONS_PER_WORD))) & (BLOCK_BITS - 1);
    }

    /** The {@code k} bit positions of a key inside its block, each in [0, 512); a reference for tests and docs. */
    static int[] positions(long low, int k) {
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = position(low, i);
        }
        return out;
    }
}
