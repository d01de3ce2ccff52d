package dev.deja.bloom;

/**
 * The bit test of the scattered layout (format version 1, {@link dev.deja.sizing.BloomLayout#SCATTERED}):
 * a key's {@code k} bits at 9-bit positions anywhere in its 512-bit block. Filters written in that format are read
 * and served with it; new filters are sectored ({@link SectoredBlocks}).
 */
final class ScatteredBlocks {

    private ScatteredBlocks() {}

    /**
     * Whether all the key's bits are set in the block starting at word {@code base} of the chunk: the positions of
     * {@link BlockHash#scatteredPosition}, each word shifted right by its bit's position and the results ANDed, so
     * bit 0 of the accumulator survives only if every bit was set. No early exit: a branch on each loaded word would
     * be mispredicted about half the time on a mix of present and absent keys, and each misprediction waits for the
     * cache miss. The {@code >>> pos} uses the position's low 6 bits, its bit in the word, and {@code (pos >>> 6) & 7}
     * its word.
     */
    static boolean allSet(long[] chunk, int base, long low, int k) {
        long all = 1;
        long h = low;
        int shift = 0;
        int round = 0;
        for (int i = 0; i < k; i++) {
            if (shift == BlockHash.POSITION_BITS * BlockHash.POSITIONS_PER_WORD) {
                h = BlockHash.positionWord(low, ++round);
                shift = 0;
            }
            int pos = (int) (h >>> shift);
            shift += BlockHash.POSITION_BITS;
            all &= ChunkedBits.read(chunk, base + ((pos >>> 6) & 7)) >>> pos;
        }
        return (all & 1) != 0;
    }
}
