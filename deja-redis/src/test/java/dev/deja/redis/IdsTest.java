package dev.deja.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which keys are read as textual UUIDs, and the bytes they become. */
class IdsTest {

    @Test
    void aUuidInEitherCaseBecomesItsSixteenBytes() {
        Random random = new Random(21);
        for (int i = 0; i < 1000; i++) {
            UUID uuid = new UUID(random.nextLong(), random.nextLong());
            byte[] expected = ByteBuffer.allocate(16)
                    .putLong(uuid.getMostSignificantBits())
                    .putLong(uuid.getLeastSignificantBits())
                    .array();
            assertThat(Ids.uuid(ascii(uuid.toString()))).isEqualTo(expected);
            assertThat(Ids.uuid(ascii(uuid.toString().toUpperCase(Locale.ROOT))))
                    .isEqualTo(expected);
        }
    }

    @Test
    void anyOtherKeyIsNotAUuid() {
        String uuid = "123e4567-e89b-12d3-a456-426614174000";
        assertThat(Ids.uuid(ascii(uuid))).isNotNull();
        for (int at = 0; at < 36; at++) {
            for (char c : new char[] {'g', 'G', '/', ':', '@', '`', ' ', '-', '0'}) {
                char[] text = uuid.toCharArray();
                boolean dash = at == 8 || at == 13 || at == 18 || at == 23;
                if (text[at] == c || (c == '0' && !dash)) {
                    continue; // the same text, or still a UUID
                }
                text[at] = c;
                assertThat(Ids.uuid(ascii(new String(text))))
                        .as("%s", new String(text))
                        .isNull();
            }
            byte[] high = ascii(uuid);
            high[at] = (byte) 0xb1; // a byte outside ASCII
            assertThat(Ids.uuid(high)).as("byte 0xb1 at %d", at).isNull();
        }
        assertThat(Ids.uuid(ascii(uuid + "0"))).isNull();
        assertThat(Ids.uuid(ascii(uuid.substring(1)))).isNull();
        assertThat(Ids.uuid(ascii(uuid.replace("-", "") + "0000")))
                .as("36 hex digits")
                .isNull();
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
