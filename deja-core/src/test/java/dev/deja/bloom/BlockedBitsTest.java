package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.sizing.BloomLayout;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The bit array under a filter's locks: what a merge carries and counts. */
class BlockedBitsTest {

    private static final int SLOTS = 1 << ChunkedBits.SLOT_SHIFT;

    @Test
    void aMergeCarriesEveryChunkAndTheLastSlotsAndCountsTheBitsItSets() {
        long words = 8L * (2L * SLOTS + 5); // two full chunks and a last chunk of five blocks
        BlockedBits bits = new BlockedBits(BloomLayout.SECTORED, 64 * words, 8);
        byte[] pattern = new byte[256];
        new SplittableRandom(3).nextBytes(pattern);
        long chunkBytes = 64L * SLOTS; // the logical bytes of one chunk, its last slot included
        // each range crosses a chunk's last slot into the next chunk, or ends the array
        long[] offsets = {0, chunkBytes - 100, 2 * chunkBytes - 100, 8 * words - 64};
        for (long offset : offsets) {
            bits.storeBytes(offset, pattern, 0, (int) Math.min(pattern.length, 8 * words - offset));
        }

        BlockedBits copy = new BlockedBits(BloomLayout.SECTORED, 64 * words, 8);
        copy.orAll(bits);
        assertThat(copy.bitsSet()).isEqualTo(bits.bitsSet()).isPositive();
        for (long offset : offsets) {
            byte[] back = new byte[(int) Math.min(pattern.length, 8 * words - offset)];
            copy.readBytes(offset, back, 0, back.length);
            assertThat(back).isEqualTo(Arrays.copyOf(pattern, back.length));
        }
    }
}
