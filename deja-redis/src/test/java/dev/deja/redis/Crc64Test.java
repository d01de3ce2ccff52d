package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The CRC Redis checks a {@code DUMP} payload with. */
class Crc64Test {

    @Test
    void matchesRedisCheckValue() {
        // The check value in Redis's crc64.c: CRC-64/Jones of "123456789".
        byte[] digits = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(Crc64.of(digits, 0, digits.length)).isEqualTo(0xe9c6d914c4b8d9caL);
        assertThat(Crc64.of(digits, 0, 0)).isZero();
    }

    @Test
    void eightBytesAStepAgreesWithBitByBit() {
        Random random = new Random(11);
        for (int round = 0; round < 500; round++) {
            byte[] data = new byte[random.nextInt(80)];
            random.nextBytes(data);
            int from = data.length == 0 ? 0 : random.nextInt(data.length);
            int length = data.length - from;
            assertThat(Crc64.of(data, from, length))
                    .as("%d bytes from %d", length, from)
                    .isEqualTo(bitByBit(data, from, length));
        }
    }

    private static long bitByBit(byte[] data, int from, int length) {
        long poly = Long.reverse(0xad93d23594c935a9L);
        long crc = 0;
        for (int i = from; i < from + length; i++) {
            crc ^= data[i] & 0xff;
            for (int bit = 0; bit < 8; bit++) {
                crc = (crc & 1) != 0 ? (crc >>> 1) ^ poly : crc >>> 1;
            }
        }
        return crc;
    }
}
