package dev.deja.hash;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

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

    @Test
    void anEmptyRangeIsRefused() {
        assertThatThrownBy(() -> Hash128.of(new byte[8], 3, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("length");
    }
}
