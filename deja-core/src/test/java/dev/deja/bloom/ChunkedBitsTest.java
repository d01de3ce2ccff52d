package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The storage under the logical bit array: chunk sizes, where each block lives, and what the heap pays. */
class ChunkedBitsTest {

    private static final int SLOTS = 1 << ChunkedBits.SLOT_SHIFT;
    /** Words of a full chunk's array: the lead and every slot but the last. */
    private static final int FULL_CHUNK = ChunkedBits.LEAD_WORDS + 8 * (SLOTS - 1);

    @Test
    void aFullChunkIsExactlyOneChunkObjectOfOneRegion() {
        assertThat(ChunkedBits.ARRAY_HEADER_BYTES + 8L * FULL_CHUNK).isEqualTo(ChunkedBits.CHUNK_BYTES);
        assertThat(ChunkedBits.chunkBytes(0))
                .as("collector unknown: an ordinary 1 MiB object")
                .isEqualTo(1 << 20);
        assertThat(ChunkedBits.chunkBytes(4L << 20)).isEqualTo(4 << 20);
        assertThat(ChunkedBits.chunkBytes(512L << 20))
                .as("at most 32 MiB: then half a region or less")
                .isEqualTo(32 << 20);
        if (ChunkedBits.REGION_BYTES >= (1 << 20) && ChunkedBits.REGION_BYTES <= (32 << 20)) {
            // the test JVM runs G1 with small regions: a full chunk fills its region and takes no more
            assertThat(ChunkedBits.CHUNK_BYTES).isEqualTo(ChunkedBits.REGION_BYTES);
            assertThat(ChunkedBits.heapBytes(FULL_CHUNK)).isEqualTo(ChunkedBits.CHUNK_BYTES);
        }
    }

    @Test
    void blocksLiveInTheirChunkAfterTheLeadExceptEachChunksLastSlot() {
        ChunkedBits bits = new ChunkedBits(8L * (3L * SLOTS)); // three full chunks
        assertThat(bits.arrayOrNull(0)).as("not written yet").isNull();
        long[] first = bits.arrayForWrite(0);
        assertThat(first).hasSize(FULL_CHUNK);
        assertThat(ChunkedBits.firstWord(0)).isEqualTo(ChunkedBits.LEAD_WORDS);
        assertThat(bits.arrayOrNull(SLOTS - 2)).isSameAs(first);
        assertThat(ChunkedBits.firstWord(SLOTS - 2)).isEqualTo(FULL_CHUNK - 8);
        // the last slot of every chunk is in the shared array, at 8 words per chunk
        long[] last = bits.arrayOrNull(SLOTS - 1);
        assertThat(last).isNotSameAs(first).hasSize(3 * 8).isSameAs(bits.arrayOrNull(3 * SLOTS - 1));
        assertThat(ChunkedBits.firstWord(SLOTS - 1)).isZero();
        assertThat(ChunkedBits.firstWord(3 * SLOTS - 1)).isEqualTo(16);
        assertThat(bits.arrayOrNull(SLOTS))
                .as("the second chunk, not written yet")
                .isNull();
        assertThat(bits.arrayForWrite(2 * SLOTS + 5)).isNotSameAs(first).hasSize(FULL_CHUNK);
        assertThat(ChunkedBits.firstWord(2 * SLOTS + 5)).isEqualTo(ChunkedBits.LEAD_WORDS + 40);
        assertThat(bits.allocatedChunks()).isEqualTo(2);
    }

    @Test
    void aShortLastChunkHoldsAllItsBlocks() {
        ChunkedBits bits = new ChunkedBits(8L * (SLOTS + 5)); // a full chunk and one of five blocks
        long[] tail = bits.arrayForWrite(SLOTS + 4);
        assertThat(tail).hasSize(ChunkedBits.LEAD_WORDS + 8 * 5);
        assertThat(ChunkedBits.firstWord(SLOTS + 4)).isEqualTo(ChunkedBits.LEAD_WORDS + 32);
    }

    @Test
    void bytesWrittenAcrossChunksAndLastSlotsReadBackAtTheirLogicalOffsets() {
        long words = 8L * (2L * SLOTS + 5); // two full chunks and a last chunk of five blocks
        ChunkedBits bits = new ChunkedBits(words);
        byte[] pattern = new byte[256];
        new SplittableRandom(3).nextBytes(pattern);
        long chunkBytes = 64L * SLOTS; // the logical bytes of one chunk, its last slot included
        // each range crosses a chunk's last slot into the next chunk, or ends the array
        long[] offsets = {0, chunkBytes - 100, 2 * chunkBytes - 100, 8 * words - 64};
        long ones = 0;
        for (long offset : offsets) {
            ones += bits.storeBytes(offset, pattern, 0, (int) Math.min(pattern.length, 8 * words - offset));
        }
        assertThat(bits.bitCount()).isEqualTo(ones);
        for (long offset : offsets) {
            byte[] back = new byte[(int) Math.min(pattern.length, 8 * words - offset)];
            bits.loadBytes(offset, back, 0, back.length);
            assertThat(back).isEqualTo(Arrays.copyOf(pattern, back.length));
        }
        // word w is bytes 8w..8w+7, little-endian, wherever it is stored
        for (long w : new long[] {8L * (SLOTS - 1), 8L * SLOTS, 8L * (2 * SLOTS - 1) + 7}) {
            byte[] eight = new byte[8];
            bits.loadBytes(8 * w, eight, 0, 8);
            long expected = 0;
            for (int i = 7; i >= 0; i--) {
                expected = (expected << 8) | (eight[i] & 0xFF);
            }
            assertThat(bits.word(w)).isEqualTo(expected);
        }
        assertThat(bits.allocatedChunks()).isEqualTo(3);
        assertThat(bits.allocatedBytes())
                .isEqualTo(2 * ChunkedBits.heapBytes(FULL_CHUNK)
                        + ChunkedBits.heapBytes(ChunkedBits.LEAD_WORDS + 8 * 5)
                        + ChunkedBits.heapBytes(3 * 8));
        assertThat(ChunkedBits.heapBytesWhenFull(words)).isEqualTo(bits.allocatedBytes());
    }

    /**
     * Stores of any offset and length, mostly zeros, some data, over chunks, their last slots and a short last chunk,
     * against a plain byte array: the bytes, the change in set bits each store reports, and which chunks exist (those
     * that were ever given a non-zero byte, and no other: one chunk is only ever given zeros).
     */
    @Test
    void storedBytesMatchAPlainArrayAndOnlyNonZeroBytesAllocate() {
        long words = 8L * (3L * SLOTS + 5);
        int length = (int) (8 * words);
        ChunkedBits bits = new ChunkedBits(words);
        byte[] model = new byte[length];
        boolean[] given = new boolean[4];
        SplittableRandom random = new SplittableRandom(11);
        long ones = 0;
        for (int round = 0; round < 3000; round++) {
            // the first store fills the end of the short last chunk, unaligned
            int size = round == 0 ? 97 : random.nextInt(4) == 0 ? random.nextInt(5000) : random.nextInt(130);
            int offset = round == 0 ? length - 101 : random.nextInt(length - size + 1);
            byte[] src = new byte[size + 3];
            int kind = round == 0 ? 2 : random.nextInt(3); // all zero, a few bytes, or random
            for (int i = 0; kind > 0 && i < size; i++) {
                if (kind == 2 || random.nextInt(64) == 0) {
                    src[3 + i] = (byte) random.nextInt();
                }
            }
            // chunk 1 is only ever given zeros (its last slot aside): it must never be allocated
            for (int i = 0; i < size; i++) {
                if (offset + i >= 64 * SLOTS && offset + i < 64 * (2 * SLOTS - 1)) {
                    src[3 + i] = 0;
                }
            }
            long before = bitCount(model, offset, size);
            System.arraycopy(src, 3, model, offset, size);
            for (int i = 0; i < size; i++) {
                int block = (offset + i) / 64;
                if (src[3 + i] != 0 && (block & ChunkedBits.SLOT_MASK) != ChunkedBits.SLOT_MASK) {
                    given[block >>> ChunkedBits.SLOT_SHIFT] = true;
                }
            }
            long delta = bits.storeBytes(offset, src, 3, size);
            assertThat(delta)
                    .as("round %d: change in set bits", round)
                    .isEqualTo(bitCount(model, offset, size) - before);
            ones += delta;
        }
        byte[] back = new byte[length];
        bits.loadBytes(0, back, 0, length);
        assertThat(back).isEqualTo(model);
        assertThat(bits.bitCount()).isEqualTo(ones);
        int expectedChunks = 0;
        for (int c = 0; c < given.length; c++) {
            expectedChunks += given[c] ? 1 : 0;
            assertThat(bits.chunkOrNull(c) != null).as("chunk %d allocated", c).isEqualTo(given[c]);
        }
        assertThat(bits.allocatedChunks()).isEqualTo(expectedChunks);
        assertThat(given).containsExactly(true, false, true, true);
    }

    /**
     * Loads of any offset and length against a plain byte array, into a destination full of garbage: a chunk never
     * written to (whose last slot holds data) reads as zeros, and runs of words crossing chunks, last slots and the
     * short last chunk come back in order. Each load is also checked against the word-by-word reading of
     * {@link ChunkedBits#word}.
     */
    @Test
    void loadedBytesMatchAPlainArrayWhateverTheRangeAndAbsentChunksReadAsZeros() {
        long words = 8L * (3L * SLOTS + 5);
        int length = (int) (8 * words);
        ChunkedBits bits = new ChunkedBits(words);
        byte[] model = new byte[length];
        SplittableRandom random = new SplittableRandom(17);
        // chunk 0 full of data, chunk 1 absent but for its last slot, chunk 2 sparse, the short last chunk full
        for (int i = 0; i < length; i++) {
            int block = i / 64;
            int chunk = block >>> ChunkedBits.SLOT_SHIFT;
            boolean last = (block & ChunkedBits.SLOT_MASK) == ChunkedBits.SLOT_MASK;
            if (chunk == 0 || chunk == 3 || (chunk == 1 && last) || (chunk == 2 && random.nextInt(1000) == 0)) {
                model[i] = (byte) random.nextInt();
            }
        }
        bits.storeBytes(0, model, 0, length);
        assertThat(bits.chunkOrNull(1)).isNull();
        byte[] whole = new byte[length];
        Arrays.fill(whole, (byte) 0x5A);
        bits.loadBytes(0, whole, 0, length);
        assertThat(whole).isEqualTo(model);
        for (int round = 0; round < 2000; round++) {
            int size = random.nextInt(4) == 0 ? random.nextInt(3 * 64 * SLOTS) : random.nextInt(200);
            int offset = random.nextInt(length - size + 1);
            byte[] dst = new byte[size + 5];
            Arrays.fill(dst, (byte) 0x5A);
            bits.loadBytes(offset, dst, 3, size);
            assertThat(Arrays.equals(dst, 3, 3 + size, model, offset, offset + size))
                    .as("round %d: %d bytes at %d", round, size, offset)
                    .isTrue();
            assertThat(new byte[] {dst[0], dst[1], dst[2], dst[size + 3], dst[size + 4]})
                    .as("round %d: bytes around the range untouched", round)
                    .containsOnly((byte) 0x5A);
        }
        for (long w = 0; w < words; w += 1 + random.nextInt(64)) {
            long expected = 0;
            for (int i = 7; i >= 0; i--) {
                expected = (expected << 8) | (model[(int) (8 * w) + i] & 0xFF);
            }
            assertThat(bits.word(w)).isEqualTo(expected);
        }
    }

    private static long bitCount(byte[] b, int from, int length) {
        long n = 0;
        for (int i = from; i < from + length; i++) {
            n += Integer.bitCount(b[i] & 0xFF);
        }
        return n;
    }

    @Test
    void anArrayThatG1WouldGiveRegionsOfItsOwnIsChargedTheWholeRegions() {
        long region = ChunkedBits.REGION_BYTES;
        if (region <= 0) {
            assertThat(ChunkedBits.heapBytes(1000)).isEqualTo(ChunkedBits.ARRAY_HEADER_BYTES + 8000);
            return;
        }
        int half = (int) (region / 2 / 8) - 2; // exactly half a region: an ordinary object
        assertThat(ChunkedBits.heapBytes(half)).isEqualTo(region / 2);
        assertThat(ChunkedBits.heapBytes(half + 1))
                .as("humongous: a region of its own")
                .isEqualTo(region);
        assertThat(ChunkedBits.heapBytes((int) (region / 8)))
                .as("a region and 16 bytes: two regions")
                .isEqualTo(2 * region);
    }
}
