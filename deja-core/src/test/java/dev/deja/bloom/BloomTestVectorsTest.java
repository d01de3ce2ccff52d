package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The test-vector tables of docs/FORMAT.md section 2.1, asserted against the hash, the derivation and the filter, for
 * both layouts: sectored (format 2, every new filter) and scattered (format 1, filters read from that format).
 */
class BloomTestVectorsTest {

    /** One row: a key, its XXH3-128 halves, and its block and positions in a 2^20-bit (2048-block) filter. */
    @SuppressWarnings("ArrayRecordComponent") // never compared: the tests read its fields
    record Row(String key, long high, long low, long block, int[] positions) {}

    /** Sectored, k = 12: position i is 64 * (i % 8) plus the offset; positions 10 and 11 come from word(1). */
    static final List<Row> SECTORED = List.of(
            new Row("a", 0xA96FAF705AF16834L, 0xE6C632B61E964E1FL, 1355, new int[] {
                31, 120, 164, 229, 286, 344, 427, 460, 6, 91, 128, 205
            }),
            new Row("deja", 0x1A8F15BFA31801D1L, 0xC21D9EB709C18411L, 212, new int[] {
                17, 80, 152, 240, 265, 348, 427, 487, 29, 72, 158, 195
            }),
            new Row("message-42", 0x244CBC6AE0001343L, 0x0D5D15A2AB527172L, 290, new int[] {
                50, 69, 167, 212, 299, 330, 410, 453, 29, 117, 172, 229
            }),
            new Row("hello world", 0xDF8D09E93F874900L, 0xA99B8775CC15B6C7L, 1788, new int[] {
                7, 91, 155, 197, 268, 343, 439, 481, 27, 102, 132, 215
            }),
            new Row("0123456789abcdef", 0xCCBA8085A0434E9EL, 0x0BEFB4873DBE58F8L, 1637, new int[] {
                56, 99, 165, 239, 317, 348, 392, 493, 47, 111, 168, 211
            }));

    /** Scattered, k = 10: positions 7..9 come from word(1). */
    static final List<Row> SCATTERED = List.of(
            new Row("a", 0xA96FAF705AF16834L, 0xE6C632B61E964E1FL, 1355, new int[] {
                31, 295, 421, 195, 299, 49, 411, 320, 129, 467
            }),
            new Row("deja", 0x1A8F15BFA31801D1L, 0xC21D9EB709C18411L, 212, new int[] {
                17, 194, 112, 225, 491, 236, 264, 222, 216, 164
            }),
            new Row("message-42", 0x244CBC6AE0001343L, 0x0D5D15A2AB527172L, 290, new int[] {
                370, 312, 212, 85, 346, 232, 53, 364, 220, 445
            }),
            new Row("hello world", 0xDF8D09E93F874900L, 0xA99B8775CC15B6C7L, 1788, new int[] {
                199, 219, 261, 185, 119, 220, 166, 452, 178, 173
            }),
            new Row("0123456789abcdef", 0xCCBA8085A0434E9EL, 0x0BEFB4873DBE58F8L, 1637, new int[] {
                248, 300, 367, 231, 328, 381, 47, 232, 354, 368
            }));

    static Stream<Arguments> tables() {
        return Stream.of(Arguments.of(BloomLayout.SECTORED, SECTORED), Arguments.of(BloomLayout.SCATTERED, SCATTERED));
    }

    /** An empty 2^20-bit filter of the layout with the table's k. */
    private static BloomFilter filter(BloomLayout layout, Row row) {
        int k = row.positions().length;
        return layout == BloomLayout.SECTORED
                ? BloomFilter.builder().bits(1 << 20).hashes(k).build()
                : FormatOne.empty(1 << 20, k, 1000);
    }

    @ParameterizedTest
    @MethodSource("tables")
    void hashBlockAndPositionsMatchTheTable(BloomLayout layout, List<Row> table) {
        for (Row row : table) {
            Hash128 h = Hash128.of(row.key().getBytes(StandardCharsets.UTF_8));
            assertThat(h.high()).as(row.key()).isEqualTo(row.high());
            assertThat(h.low()).as(row.key()).isEqualTo(row.low());
            assertThat(BlockHash.block(h.high(), 2048)).as(row.key()).isEqualTo(row.block());
            assertThat(BlockHash.positions(layout, h.low(), row.positions().length))
                    .as(row.key())
                    .containsExactly(row.positions());
        }
    }

    @ParameterizedTest
    @MethodSource("tables")
    void theFilterSetsExactlyTheTabulatedBits(BloomLayout layout, List<Row> table) {
        for (Row row : table) {
            BloomFilter filter = filter(layout, row);
            assertThat(filter.layout()).isEqualTo(layout);
            filter.add(row.key());
            byte[] all = new byte[(int) filter.sizeInBytes()];
            filter.readBits(0, all, 0, all.length);
            BitSet expected = new BitSet();
            for (int pos : row.positions()) {
                expected.set((int) (row.block() * 512 + pos));
            }
            assertThat(BitSet.valueOf(all)).as(row.key()).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @MethodSource("tables")
    void checkAnswersPresentExactlyWhenEveryTabulatedBitIsSet(BloomLayout layout, List<Row> table) {
        for (Row row : table) {
            BloomFilter filter = filter(layout, row);
            byte[] line = new byte[64];
            for (int pos : row.positions()) {
                line[pos >>> 3] |= (byte) (1 << (pos & 7));
            }
            filter.loadBits(row.block() * 64, line, 0, line.length);
            assertThat(filter.check(row.key())).as(row.key()).isTrue();
            for (int pos : row.positions()) {
                byte[] missingOne = line.clone();
                missingOne[pos >>> 3] &= (byte) ~(1 << (pos & 7));
                filter.loadBits(row.block() * 64, missingOne, 0, missingOne.length);
                assertThat(filter.check(row.key()))
                        .as(row.key() + " without bit " + pos)
                        .isFalse();
                assertThat(filter.checkThenAdd(row.key()))
                        .as(row.key() + " without bit " + pos)
                        .isEqualTo(Verdict.NEW);
                assertThat(filter.check(row.key()))
                        .as(row.key() + " after adding it again")
                        .isTrue();
            }
            // Every other bit of the block set, the key's own clear: still absent.
            byte[] complement = new byte[64];
            for (int i = 0; i < 64; i++) {
                complement[i] = (byte) ~line[i];
            }
            filter.loadBits(row.block() * 64, complement, 0, complement.length);
            assertThat(filter.check(row.key()))
                    .as(row.key() + " in the complement")
                    .isFalse();
        }
    }

    @Test
    void mixIsSplitMix64() {
        // SplitMix64 seeded with 0 returns mix(GOLDEN) first: 0xE220A8397B1DCDAF is its published first output.
        assertThat(BlockHash.mix(BlockHash.GOLDEN)).isEqualTo(0xE220A8397B1DCDAFL);
    }
}
