package dev.deja.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.dynatrace.hash4j.hashing.HashValue128;
import com.dynatrace.hash4j.hashing.Hasher128;
import com.dynatrace.hash4j.hashing.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class Hash128Test {

    @Test
    void aKeyInsideALargerBufferHashesAsTheKeyAlone() {
        SplittableRandom random = new SplittableRandom(7);
        byte[] buffer = new byte[300];
        for (int trial = 0; trial < 1_000; trial++) {
            random.nextBytes(buffer);
            int length = 1 + random.nextInt(200);
            int offset = random.nextInt(buffer.length - length + 1);
            byte[] key = Arrays.copyOfRange(buffer, offset, offset + length);
            assertThat(Hash128.of(buffer, offset, length)).isEqualTo(Hash128.of(key));
        }
        byte[] text = "order-42".getBytes(StandardCharsets.UTF_8);
        assertThat(Hash128.of(text, 0, text.length)).isEqualTo(Hash128.of(text));
    }

    /**
     * Keys of 9 to 128 bytes are hashed by deja's own short-input paths ({@link Xxh3Short}); they must agree with
     * hash4j's XXH3-128 bit for bit at every length, at the edges of each path and across them, for a range of a
     * buffer and for a whole array alike.
     */
    @Test
    void everyLengthHashesExactlyAsHash4jXxh3() {
        Hasher128 reference = Hashing.xxh3_128();
        SplittableRandom random = new SplittableRandom(11);
        byte[] buffer = new byte[400];
        for (int length = 1; length <= 300; length++) {
            for (int trial = 0; trial < 50; trial++) {
                random.nextBytes(buffer);
                int offset = random.nextInt(buffer.length - length + 1);
                HashValue128 expected = reference.hashBytesTo128Bits(buffer, offset, length);
                Hash128 want = new Hash128(expected.getMostSignificantBits(), expected.getLeastSignificantBits());
                assertThat(Hash128.of(buffer, offset, length))
                        .as("length %d, offset %d", length, offset)
                        .isEqualTo(want);
                // a whole array takes its own path for 9 to 16 bytes
                assertThat(Hash128.of(Arrays.copyOfRange(buffer, offset, offset + length)))
                        .as("whole array of length %d", length)
                        .isEqualTo(want);
            }
        }
    }

    @Test
    void anEmptyRangeIsRefused() {
        assertThatThrownBy(() -> Hash128.of(new byte[8], 3, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("length");
    }

    @Test
    void aRangeOutsideTheBufferOrNoBufferIsRefusedByName() {
        assertThatThrownBy(() -> Hash128.of(null, 0, 10))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("buffer must not be null");
        int max = Integer.MAX_VALUE;
        for (int[] range : new int[][] {{0, 10}, {-1, 2}, {3, 2}, {4, 1}, {max, 1}, {1, max}}) {
            assertThatThrownBy(() -> Hash128.of(new byte[4], range[0], range[1]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("offset " + range[0] + " and length " + range[1]
                            + " must lie inside the buffer of 4 bytes");
        }
        byte[] key = {1, 2, 3, 4};
        assertThat(Hash128.of(key, 0, 4)).isEqualTo(Hash128.of(key));
        assertThat(Hash128.of(key, 3, 1)).isEqualTo(Hash128.of(new byte[] {4}));
    }
}
