package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class IdFormatTest {

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void uuidTextBecomesItsSixteenBytesVersionAndVariantBytesFirstInEitherCase() {
        UUID uuid = UUID.fromString("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf");
        byte[] big = ByteBuffer.allocate(16)
                .putLong(uuid.getMostSignificantBits())
                .putLong(uuid.getLeastSignificantBits())
                .array();
        byte[] expected = {
            big[6], big[8], big[0], big[1], big[2], big[3], big[4], big[5], big[7], big[9], big[10], big[11], big[12],
            big[13], big[14], big[15]
        };
        assertThat(expected[0]).isEqualTo((byte) 0x4f);
        assertThat(expected[1]).isEqualTo((byte) 0xbc);
        assertThat(IdFormat.UUID.encode(utf8("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bf")))
                .isEqualTo(expected);
        assertThat(IdFormat.UUID.encode(utf8("CE059644-18A0-4F27-BC2B-C2A2D4D4E7BF")))
                .isEqualTo(expected);
    }

    @Test
    void malformedUuidsAreRejectedWithTheExpectedForm() {
        assertThatThrownBy(() -> IdFormat.UUID.encode(utf8("ce059644-18a0-4f27-bc2b-c2a2d4d4e7b")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8-4-4-4-12");
        assertThatThrownBy(() -> IdFormat.UUID.encode(utf8("ce059644118a0-4f27-bc2b-c2a2d4d4e7bf")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("8-4-4-4-12");
        assertThatThrownBy(() -> IdFormat.UUID.encode(utf8("ce059644-18a0-4f27-bc2b-c2a2d4d4e7bg")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a hex digit");
        assertThatThrownBy(() -> IdFormat.UUID.encode(new byte[0]))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("non-empty");
    }

    @Test
    void aUuidWithDashesOutsideTheirPlacesIsRefusedNotReadAsAnotherUuid() {
        // Skipping dashes in hex places would read this text as 01234500-0000-... with a trailing zero byte: a key
        // never added would answer DUPLICATE for that other id.
        String misplaced = "012345---0000-0000-0000-000000000000";
        assertThat(misplaced).hasSize(36);
        assertThatThrownBy(() -> IdFormat.UUID.encode(utf8(misplaced)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a hex digit");
        assertThatThrownBy(() -> IdFormat.UUID.encode(utf8("-0123456-0000-0000-0000-000000000000")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void hexTextBecomesTheBytesItSpells() {
        assertThat(IdFormat.HEX.encode(utf8("00ff7A"))).containsExactly(0x00, 0xff, 0x7a);
        assertThatThrownBy(() -> IdFormat.HEX.encode(utf8("abc")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("even length");
        assertThatThrownBy(() -> IdFormat.HEX.encode(utf8("zz")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a hex digit");
    }

    @Test
    void rawKeepsTheBytes() {
        byte[] key = {1, 2, 3};
        assertThat(IdFormat.RAW.encode(key)).isEqualTo(key);
    }
}
