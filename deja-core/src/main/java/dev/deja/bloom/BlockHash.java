package dev.deja.bloom;

import dev.deja.hash.Hash128;
import dev.deja.sizing.BloomLayout;

/**
 * The arithmetic that maps a key's 128-bit hash to its block and its bit positions inside the block
 * (docs/FORMAT.md section 2.1), for both layouts ({@link dev.deja.sizing.BloomLayout}).
 *
 * <p>As in the bloom HTTP server whose protocol deja follows (Snawoot/bloom), one wide hash is sliced into {@code k}
 * indexes instead of salting a narrow hash {@code k} times, here the 128-bit key hash. {@code high} picks the block by
 * multiply-high reduction and {@code low} supplies the positions: ten 6-bit offsets (bits 0..59) in the sectored
 * layout, seven 9-bit positions (bits 0..62) in the scattered one. Further positions come from the 64-bit words
 * {@code mix(low + j * GOLDEN)}, {@code j = 1, 2, ...}, where {@code mix} is the SplitMix64 finaliser: a bijection with
 * full avalanche, so the extra words are as uniform as {@code low} itself and cost two multiplications.
 */
final class BlockHash {

    /** Bits per block: one 64-byte cache line. */
    static final int BLOCK_BITS = 512;
    /** Scattered layout: bits of hash consumed per position, log2(512). */
    static final int POSITION_BITS = 9;
    /** Scattered layout: positions taken from one 64-bit word, 7 x 9 = 63 bits; the top bit is unused. */
    static final int POSITIONS_PER_WORD = 7;
    /** Sectored layout: words (sectors) per block; position {@code i} lies in word {@code i % SECTORS}. */
    static final int SECTORS = BloomLayout.SECTORS;
    /** Sectored layout: bits of hash consumed per offset in a word, log2(64). */
    static final int OFFSET_BITS = 6;
    /** Sectored layout: offsets taken from one 64-bit word, 10 x 6 = 60 bits; the top four bits are unused. */
    static final int OFFSETS_PER_WORD = 10;
    /** The 64-bit golden-ratio increment of SplitMix64. */
    static final long GOLDEN = 0x9E3779B97F4A7C15L;

    private BlockHash() {}

    /** The block a key lands in, in [0, blocks). */
    static long block(long high, long blocks) {
        return Hash128.reduce(high, blocks);
    }

    /** The 64-bit hash word number {@code j} that positions are sliced from: {@code low} for {@code j = 0}. */
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
     * Sectored layout: the offset of a key's bit {@code i} inside its word {@code i % 8}, in [0, 64). Computes hash
     * word {@code i / 10} afresh, so a loop over all {@code k} bits mixes up to {@code k - 10} times; the lookup,
     * which runs for every key, takes its first ten offsets from {@code low} directly ({@link SectoredBlocks}).
     */
    static int offset(long low, int i) {
        long word = positionWord(low, i / OFFSETS_PER_WORD);
        return (int) (word >>> (OFFSET_BITS * (i % OFFSETS_PER_WORD))) & 63;
    }

    /**
     * Scattered layout: bit position {@code i} of a key inside its block, in [0, 512). Computes position word
     * {@code i / 7} afresh, so a loop over all {@code k} positions mixes up to {@code k - 7} times; the lookup slices
     * each word once instead ({@link ScatteredBlocks}).
     */
    static int scatteredPosition(long low, int i) {
        long word = positionWord(low, i / POSITIONS_PER_WORD);
        return (int) (word >>> (POSITION_BITS * (i % POSITIONS_PER_WORD))) & (BLOCK_BITS - 1);
    }

    /**
     * Bit position {@code i} of a key inside its block in the given layout, in [0, 512): its word is
     * {@code position >>> 6}, its bit in the word {@code position & 63} (sectored: word {@code i % 8}, bit the offset).
     * The reference derivation, which setting a key's bits uses; the lookups slice the hash words once instead.
     */
    static int position(BloomLayout layout, long low, int i) {
        return layout == BloomLayout.SECTORED ? 64 * (i % SECTORS) + offset(low, i) : scatteredPosition(low, i);
    }

    /** The {@code k} bit positions of a key inside its block in the given layout ({@link #position}). */
    static int[] positions(BloomLayout layout, long low, int k) {
        int[] out = new int[k];
        for (int i = 0; i < k; i++) {
            out[i] = position(layout, low, i);
        }
        return out;
    }
}
