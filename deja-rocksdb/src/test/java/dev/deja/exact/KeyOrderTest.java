package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** {@link KeyOrder}: RocksDB's bytewise order, also for keys whose first bytes tie, of any length. */
class KeyOrderTest {

    @Test
    void ordersRandomKeysAsAnUnsignedByteComparisonDoes() {
        Random random = new Random(1);
        byte[][] keys = new byte[20_000][];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = new byte[16];
            random.nextBytes(keys[i]);
        }
        assertOrdered(keys);
    }

    @Test
    void ordersKeysThatTieOnTheirFirstBytesOrDifferInLength() {
        Random random = new Random(2);
        byte[][] keys = new byte[3_000][];
        for (int i = 0; i < keys.length; i++) {
            // few distinct first bytes (0x00, 0x7f, 0x80, 0xff), lengths 0 to 12: ties, prefixes and sign bits
            keys[i] = new byte[random.nextInt(13)];
            for (int b = 0; b < keys[i].length; b++) {
                keys[i][b] = (byte) new int[] {0x00, 0x7f, 0x80, 0xff}[random.nextInt(4)];
            }
        }
        assertOrdered(keys);
    }

    @Test
    void keepsEqualKeysInTheOrderGiven() {
        byte[][] keys = {{5}, {1}, {5}, {1}, {5}};
        assertThat(new KeyOrder().of(keys)).containsExactly(1, 3, 0, 2, 4);
        assertThat(new KeyOrder().of(new byte[][] {{9}})).containsExactly(0);
    }

    @Test
    void oneInstanceOrdersEachBatchAloneAfterALargerOne() {
        KeyOrder order = new KeyOrder();
        Random random = new Random(3);
        for (int n : new int[] {5_000, 7, 1, 4_999, 300}) {
            byte[][] keys = new byte[n][];
            for (int i = 0; i < n; i++) {
                keys[i] = new byte[16];
                random.nextBytes(keys[i]);
            }
            assertOrdered(order, keys);
        }
    }

    private static void assertOrdered(byte[][] keys) {
        assertOrdered(new KeyOrder(), keys);
    }

    private static void assertOrdered(KeyOrder keyOrder, byte[][] keys) {
        int[] order = keyOrder.of(keys);
        Integer[] expected = IntStream.range(0, keys.length).boxed().toArray(Integer[]::new);
        Arrays.sort(expected, Comparator.comparing((Integer i) -> keys[i], Arrays::compareUnsigned));
        assertThat(order)
                .containsExactly(
                        Arrays.stream(expected).mapToInt(Integer::intValue).toArray());
    }
}
