package dev.deja.bloom;

/**
 * The bit test of the sectored layout (format version 2, {@link dev.deja.sizing.BloomLayout#SECTORED},
 * the layout of every new filter): a key's bit {@code i} lies in word {@code i % 8} of its 512-bit block, at offset
 * {@link BlockHash#offset}.
 *
 * <p>Why this layout. A lookup that misses the cache costs one miss, and single lookups are fast only while the
 * processor overlaps the misses of consecutive lookups, which it does only while few instructions and loads lie
 * between them. With every bit at a fixed word, the test loads the block's eight words at constant offsets from one
 * base and needs a shift and an AND per bit (and a rotation to bring the next offset down), with no word index
 * computed and no load at a computed index: about half the work of the scattered test, so more lookups of a filter
 * larger than the cache are in flight at once.
 */
final class SectoredBlocks {

    /**
     * Whether the eight-bit test runs on {@link VectorBlocks}: when the JVM has the Vector API (started with
     * {@code --add-modules jdk.incubator.vector}) in hardware, unless {@code -Ddeja.bloom.vector=false}. A constant,
     * so the compiler keeps only one of the two tests.
     */
    static final boolean VECTOR = vectorInHardware();

    private SectoredBlocks() {}

    private static boolean vectorInHardware() {
        if (!Boolean.parseBoolean(System.getProperty("deja.bloom.vector", "true"))
                || ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) {
            return false; // VectorBlocks is then never loaded: it could not link
        }
        return VectorBlocks.inHardware();
    }

    /**
     * Whether all the key's bits are set in the block starting at word {@code base} of the chunk, for any {@code k}.
     * For {@code k >= 8} the first eight bits are {@link #eightBits}'s test, bits 8 and 9 come from {@code low} too,
     * further ones from the mixed hash words.
     */
    @SuppressWarnings("ShortCircuitBoolean") // no branch on the loaded words, as in eightBits: both tests always run
    static boolean allSet(long[] chunk, int base, long low, int k) {
        if (k < BlockHash.SECTORS) {
            return fewSet(chunk, base, low, k);
        }
        if (k == BlockHash.SECTORS) {
            return eightSet(chunk, base, low);
        }
        if (VECTOR) {
            return VectorBlocks.eightSet(chunk, base, low) & (beyondEight(chunk, base, low, k) & 1) != 0;
        }
        return (eightBits(chunk, base, low) & beyondEight(chunk, base, low, k) & 1) != 0;
    }

    /**
     * Whether the key's first eight bits, one per word, are set: the whole test for {@code k = 8}, the optimum at
     * both 1% and 0.1% and so the shape of most filters, which {@link BloomFilter} calls without the tests of
     * {@code k} in {@link #allSet}.
     */
    static boolean eightSet(long[] chunk, int base, long low) {
        return VECTOR ? VectorBlocks.eightSet(chunk, base, low) : scalarEightSet(chunk, base, low);
    }

    /** {@link #eightSet} without vectors, whatever {@link #VECTOR} says. */
    static boolean scalarEightSet(long[] chunk, int base, long low) {
        return (eightBits(chunk, base, low) & 1) != 0;
    }

    /**
     * The eight words of the block, each loaded once and shifted right by the offset of the key's bit in it, ANDed:
     * bit 0 of the result is set only if all eight bits are. No branch on the loaded words (a misprediction would
     * wait for the cache miss).
     */
    private static long eightBits(long[] chunk, int base, long low) {
        // A shift uses its count's low six bits, so the offsets need no masking: words 0 to 4 take theirs from the low
        // 32 bits of low, rotated down six bits after each word, and words 5 to 7 from bits 30 and up. A rotation is
        // one instruction; an offset computed afresh from the long takes three (copy, shift, zero-extend), and the
        // compiler folds a chain of plain shifts back into that.
        int offsets = (int) low;
        long all = chunk[base] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 1] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 2] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 3] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 4] >>> offsets;
        offsets = (int) (low >>> (5 * BlockHash.OFFSET_BITS));
        all &= chunk[base + 5] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 6] >>> offsets;
        offsets = Integer.rotateRight(offsets, BlockHash.OFFSET_BITS);
        all &= chunk[base + 7] >>> offsets;
        return all;
    }

    /**
     * Sets the bits of a key with {@code 8 <= k <= 10}, all of whose offsets lie in {@code low} (bit {@code i} in word
     * {@code i % 8} at offset {@code low >>> 6i}, where {@link BlockHash#position} puts it), and counts the bits it
     * set; under the block's lock ({@link BlockLocks}). Straight-line, one mask and one write per word, with no branch
     * on the words' bits: the loop over {@link BlockHash#position} derives every bit afresh, and a branch per bit on a
     * word just loaded is mispredicted about half the time at a filter's design load.
     */
    static int setFromLow(long[] chunk, int base, long low, int k) {
        long bit8 = k > BlockHash.SECTORS ? 1L << (low >>> (BlockHash.OFFSET_BITS * 8)) : 0L;
        long bit9 = k > BlockHash.SECTORS + 1 ? 1L << (low >>> (BlockHash.OFFSET_BITS * 9)) : 0L;
        return set(chunk, base, 1L << low | bit8)
                + set(chunk, base + 1, 1L << (low >>> BlockHash.OFFSET_BITS) | bit9)
                + set(chunk, base + 2, 1L << (low >>> (2 * BlockHash.OFFSET_BITS)))
                + set(chunk, base + 3, 1L << (low >>> (3 * BlockHash.OFFSET_BITS)))
                + set(chunk, base + 4, 1L << (low >>> (4 * BlockHash.OFFSET_BITS)))
                + set(chunk, base + 5, 1L << (low >>> (5 * BlockHash.OFFSET_BITS)))
                + set(chunk, base + 6, 1L << (low >>> (6 * BlockHash.OFFSET_BITS)))
                + set(chunk, base + 7, 1L << (low >>> (7 * BlockHash.OFFSET_BITS)));
    }

    /** ORs {@code mask} into word {@code i} (under the block's lock); the bits it set. */
    private static int set(long[] chunk, int i, long mask) {
        long old = ChunkedBits.read(chunk, i);
        ChunkedBits.write(chunk, i, old | mask);
        return Long.bitCount(mask & ~old);
    }

    /** The test for {@code k < 8}: word {@code i} for bit {@code i}, the other words unused. */
    private static boolean fewSet(long[] chunk, int base, long low, int k) {
        long all = 1;
        for (int i = 0; i < k; i++) {
            all &= ChunkedBits.read(chunk, base + i) >>> (low >>> (BlockHash.OFFSET_BITS * i));
        }
        return (all & 1) != 0;
    }

    /**
     * The key's bits 8 .. k-1 (a second round over the words), each shifted to bit 0 and ANDed. Bits 8 and 9, the
     * last of the ten offsets in {@code low}, are written out: k = 10 is the default filter of the bloom HTTP server
     * whose protocol deja follows (Snawoot/bloom), the one {@code deja serve} answers for requests without a
     * namespace.
     */
    private static long beyondEight(long[] chunk, int base, long low, int k) {
        long all = chunk[base] >>> (low >>> (BlockHash.OFFSET_BITS * 8));
        if (k == BlockHash.SECTORS + 1) {
            return all;
        }
        all &= chunk[base + 1] >>> (low >>> (BlockHash.OFFSET_BITS * 9));
        long word = low;
        for (int i = BlockHash.OFFSETS_PER_WORD; i < k; i++) {
            int slot = i % BlockHash.OFFSETS_PER_WORD;
            if (slot == 0) {
                word = BlockHash.positionWord(low, i / BlockHash.OFFSETS_PER_WORD);
            }
            long offset = word >>> (BlockHash.OFFSET_BITS * slot);
            all &= ChunkedBits.read(chunk, base + (i & (BlockHash.SECTORS - 1))) >>> offset;
        }
        return all;
    }
}
