package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.SeenSet;
import java.util.HexFormat;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class StoredValueTest {

    private static final int V1 = StoredValue.FORMAT_VARINT_TIME;
    private static final int V2 = StoredValue.FORMAT_BYTE_TIME;

    @Property(seed = "20261122")
    void everyValueReadsBackAsWritten(
            @ForAll long owner,
            @ForAll @LongRange(min = -1_000_000_000L, max = 1_000_000_000L) long delta,
            @ForAll @LongRange(min = 0, max = StoredValue.MAX_DUPLICATES) long duplicates,
            @ForAll @IntRange(min = 1, max = 2) int format) {
        long base = 1_790_000_012_345L;
        long unit = 60_000;
        // Times are whole units since the epoch; the generation's start need not be.
        StoredValue v = new StoredValue(owner, (Math.floorDiv(base, unit) + delta) * unit, duplicates);
        assertThat(StoredValue.decode(v.encode(base, unit, format), base, unit, format))
                .isEqualTo(v);
    }

    @Property(seed = "20261123")
    void everyTimeAroundTheOneByteRangeReadsBack(
            @ForAll @LongRange(min = -300, max = 600) long delta,
            @ForAll boolean owned,
            @ForAll @IntRange(min = 1, max = 2) int format) {
        long base = 1_790_000_000_000L;
        StoredValue v = new StoredValue(owned ? 0xFF : SeenSet.NO_OWNER, base + delta * 1_000, owned ? 0 : 0xFF);
        assertThat(StoredValue.decode(v.encode(base, 1_000, format), base, 1_000, format))
                .isEqualTo(v);
    }

    @Test
    void aKeyWithoutOwnerCostsOneByteWithinItsSlice() {
        long base = 1_790_000_000_000L;
        long unit = 1_000;
        assertThat(new StoredValue(SeenSet.NO_OWNER, base, 0).encode(base, unit, V2))
                .containsExactly(0);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 254 * unit + 999, 0).encode(base, unit, V2))
                .containsExactly(254);
        // Beyond: an escape byte, then the varint of the zigzag encoding (510 and -1 as 1).
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 255 * unit, 0).encode(base, unit, V2))
                .containsExactly(0xFF, 0xFE, 0x03);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base - 1, 0).encode(base, unit, V2))
                .containsExactly(0xFF, 0x01);
        assertThat(new StoredValue(42, base, 0).encode(base, unit, V2)).hasSize(9);
        assertThat(new StoredValue(42, base, 1).encode(base, unit, V2)).hasSize(10);
    }

    @Test
    void theFirstFormatCostsOneOrTwoBytesWithinASlice() {
        long base = 1_790_000_000_000L;
        long unit = 1_000;
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 63_999, 0).encode(base, unit, V1))
                .hasSize(1);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 255 * unit, 0).encode(base, unit, V1))
                .containsExactly(0xFE, 0x03);
        assertThat(new StoredValue(42, base, 0).encode(base, unit, V1)).hasSize(9);
        assertThat(new StoredValue(42, base, 1).encode(base, unit, V1)).hasSize(10);
    }

    @Test
    void aTruncatedValueIsRejected() {
        assertThatThrownBy(() -> StoredValue.decode(new byte[0], 0, 1_000, V2))
                .isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> StoredValue.decode(new byte[] {(byte) 0xFF}, 0, 1_000, V2))
                .isInstanceOf(IllegalStateException.class);
    }

    @Test
    void timeReadsBackRoundedDownToTheUnitAndSurvivesCopies() {
        long base = 1_790_000_000_500L;
        StoredValue v = new StoredValue(7, base + 2_999, 0);
        StoredValue read = StoredValue.decode(v.encode(base, 1_000, V2), base, 1_000, V2);
        assertThat(read.firstSeen()).isEqualTo(base + 2_500);
        // Copied into a later generation (refresh), again and again, it keeps its time.
        long later = base + 10_250;
        assertThat(StoredValue.decode(read.encode(later, 1_000, V2), later, 1_000, V2))
                .isEqualTo(read);
    }

    @Test
    void duplicatesSaturateInsteadOfOverflowingIntoTheOwnerField() {
        StoredValue v = new StoredValue(SeenSet.NO_OWNER, 0, StoredValue.MAX_DUPLICATES).plusDuplicate();
        assertThat(v.duplicates()).isEqualTo(StoredValue.MAX_DUPLICATES);
        assertThat(StoredValue.decode(v.encode(0, 1_000, V2), 0, 1_000, V2)).isEqualTo(v);
    }

    @Property(seed = "20261122")
    void everyKeyValueReadsBackAsWritten(
            @ForAll long owner,
            @ForAll @LongRange(min = -1_000_000L, max = 1_000_000L) long delta,
            @ForAll @LongRange(min = 0, max = StoredValue.MAX_DUPLICATES) long duplicates,
            @ForAll @LongRange(min = 0, max = Long.MAX_VALUE) long expiresAt,
            @ForAll @Size(max = 300) byte[] data) {
        long base = 1_790_000_012_345L;
        long unit = 15_000;
        StoredValue v = new StoredValue(owner, (Math.floorDiv(base, unit) + delta) * unit, duplicates, expiresAt, data);
        assertThat(StoredValue.decode(v.encode(base, unit, V2, true), base, unit, V2, true))
                .isEqualTo(v);
    }

    @Test
    void bothLayoutsMatchTheFormatDocument() {
        long base = 1_790_000_000_000L;
        long unit = 1_000;
        HexFormat hex = HexFormat.of();
        // The seen-set layout, unchanged by the key-value one: time (one byte in value-format 2), then owner and
        // count by the bytes left.
        assertThat(hex.formatHex(new StoredValue(SeenSet.NO_OWNER, base + 3_000, 0).encode(base, unit, V2, false)))
                .isEqualTo("03");
        assertThat(hex.formatHex(new StoredValue(42, base + 3_000, 3).encode(base, unit, V2)))
                .isEqualTo("03" + "2a00000000000000" + "03");
        // The key-value layout: time, expiry (zigzag of 60000 ms, plus 1, is 120001), length and bytes of "hi",
        // then owner and count as before.
        StoredValue kv = new StoredValue(42, base + 3_000, 3, base + 60_000, new byte[] {'h', 'i'});
        assertThat(hex.formatHex(kv.encode(base, unit, V2, true)))
                .isEqualTo("03" + "c1a907" + "02" + "6869" + "2a00000000000000" + "03");
        assertThat(hex.formatHex(new StoredValue(SeenSet.NO_OWNER, base, 0).encode(base, unit, V2, true)))
                .isEqualTo("00" + "00" + "00");
        // An expiry before the generation was created is a negative difference.
        assertThat(StoredValue.decode(hex.parseHex("00" + "02" + "00"), base, unit, V2, true)
                        .expiresAt())
                .isEqualTo(base - 1);
    }

    @Test
    void aCorruptValueLengthIsReportedNotMisread() {
        assertThatThrownBy(() -> StoredValue.decode(HexFormat.of().parseHex("000005ab"), 0, 1_000, V2, true))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("value length 5");
    }
}
