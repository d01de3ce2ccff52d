package dev.deja.bloom;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The sectored layout's test of a key's first eight bits ({@link SectoredBlocks#eightSet}) in two 256-bit vectors:
 * the block's eight words in two loads, each shifted right by its bit's offset in one instruction per four words.
 *
 * <p>Why. A single lookup of a filter much larger than the cache waits for one cache miss, and single lookups are
 * fast only while the processor works on several of them at once; how many it holds in flight is bounded by its
 * integer registers and reorder buffer, which the scalar test's 31 instructions (eight loads, eight shifts, seven
 * ANDs, seven rotations) fill. Here the same test is about a dozen instructions, on the vector registers, which the
 * rest of the lookup does not use (docs/BENCHMARKS.md, section "Vector lookups", measures it beside the scalar
 * test).
 *
 * <p>The Vector API is an incubator module: this class is loaded only when the JVM was started with
 * {@code --add-modules jdk.incubator.vector} (as {@code ./deja} and the benchmarks do) and the processor has 256-bit
 * vectors; otherwise {@link SectoredBlocks} keeps its scalar test, which answers the same.
 */
final class VectorBlocks {

    private static final VectorSpecies<Long> FOUR_WORDS = LongVector.SPECIES_256;
    /** Bit {@code i}'s offset is bits {@code 6i .. 6i+5} of {@code low} (docs/FORMAT.md 2.1), for words 0 to 3 ... */
    private static final LongVector OFFSETS_LOW = LongVector.fromArray(
            FOUR_WORDS, new long[] {0, BlockHash.OFFSET_BITS, 2 * BlockHash.OFFSET_BITS, 3 * BlockHash.OFFSET_BITS}, 0);
    /** ... and for words 4 to 7. */
    private static final LongVector OFFSETS_HIGH = LongVector.fromArray(
            FOUR_WORDS,
            new long[] {
                4 * BlockHash.OFFSET_BITS,
                5 * BlockHash.OFFSET_BITS,
                6 * BlockHash.OFFSET_BITS,
                7 * BlockHash.OFFSET_BITS
            },
            0);

    private static final LongVector ONES = LongVector.broadcast(FOUR_WORDS, 1L);

    private VectorBlocks() {}

    /**
     * Whether this JVM runs the Vector API's 256-bit operations in hardware. Where it does not, the API falls back
     * to plain Java code many times slower than the scalar test.
     */
    static boolean inHardware() {
        return LongVector.SPECIES_PREFERRED.vectorBitSize() >= FOUR_WORDS.vectorBitSize();
    }

    /** Whether the key's first eight bits, one per word of the block at {@code base}, are all set. */
    static boolean eightSet(long[] chunk, int base, long low) {
        LongVector hash = LongVector.broadcast(FOUR_WORDS, low);
        // A shift by a lane of a vector uses the lane's low six bits (Java's shift rule), so offsets need no mask.
        LongVector firstFour = LongVector.fromArray(FOUR_WORDS, chunk, base)
                .lanewise(VectorOperators.LSHR, hash.lanewise(VectorOperators.LSHR, OFFSETS_LOW));
        LongVector lastFour = LongVector.fromArray(FOUR_WORDS, chunk, base + 4)
                .lanewise(VectorOperators.LSHR, hash.lanewise(VectorOperators.LSHR, OFFSETS_HIGH));
        return firstFour.and(lastFour).and(ONES).eq(ONES).allTrue();
    }
}
