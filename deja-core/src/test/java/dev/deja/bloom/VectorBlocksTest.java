package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.sizing.BloomLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The vector test of a block ({@link VectorBlocks}) answers as the scalar one and as the layout's definition. */
class VectorBlocksTest {

    @Test
    void theVectorTestIsOnWhereTheHardwareRunsIt() {
        // the build starts test JVMs with the module, as ./deja starts the server
        assertThat(ModuleLayer.boot().findModule("jdk.incubator.vector")).isPresent();
        assertThat(SectoredBlocks.VECTOR).isEqualTo(VectorBlocks.inHardware());
    }

    @Test
    void vectorAndScalarTestsAnswerAsTheLayoutDefinesAtEveryFill() {
        SplittableRandom random = new SplittableRandom(2026_11_26);
        long[] chunk = new long[64];
        int[] answered = new int[2];
        // words with each bit set with probability 1 - 2^-ors: from half full to almost full, so both answers occur
        for (int ors = 1; ors <= 7; ors++) {
            for (int round = 0; round < 20_000; round++) {
                for (int w = 0; w < chunk.length; w++) {
                    long word = random.nextLong();
                    for (int j = 1; j < ors; j++) {
                        word |= random.nextLong();
                    }
                    chunk[w] = word;
                }
                int base = random.nextInt(chunk.length - BlockHash.SECTORS + 1);
                long low = random.nextLong();
                boolean eight = allSetByDefinition(chunk, base, low, BlockHash.SECTORS);
                assertThat(VectorBlocks.eightSet(chunk, base, low)).isEqualTo(eight);
                assertThat(SectoredBlocks.scalarEightSet(chunk, base, low)).isEqualTo(eight);
                assertThat(SectoredBlocks.eightSet(chunk, base, low)).isEqualTo(eight);
                answered[eight ? 1 : 0]++;
                for (int k : new int[] {9, 10, 12, 16}) {
                    assertThat(SectoredBlocks.allSet(chunk, base, low, k))
                            .as("k = %d", k)
                            .isEqualTo(allSetByDefinition(chunk, base, low, k));
                }
            }
        }
        assertThat(answered[0]).as("blocks missing a bit").isGreaterThan(10_000);
        assertThat(answered[1]).as("blocks holding all eight bits").isGreaterThan(10_000);
    }

    /** The reference derivation of every bit's place ({@link BlockHash#position}), tested one by one. */
    private static boolean allSetByDefinition(long[] chunk, int base, long low, int k) {
        for (int i = 0; i < k; i++) {
            int position = BlockHash.position(BloomLayout.SECTORED, low, i);
            if ((chunk[base + (position >>> 6)] >>> (position & 63) & 1) == 0) {
                return false;
            }
        }
        return true;
    }
}
