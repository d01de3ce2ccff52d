package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.seen.SeenSet;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class StoredValueTest {

    @Property(seed = "20261122")
    void everyValueReadsBackAsWritten(@ForAll long owner,
            @ForAll @LongRange(min = -1_000_000_000L, max = 1_000_000_000L) long delta,
            @ForAll @LongRange(min = 0, max = StoredValue.MAX_DUPLICATES) long duplicates) {
        long base = 1_790_000_012_345L;
        long unit = 60_000;
        // Times are whole units since the epoch; the generation's start need not be.
        StoredValue v = new StoredValue(owner, (Math.floorDiv(base, unit) + delta) * unit, duplicates);
        assertThat(StoredValue.decode(v.encode(base, unit), base, unit)).isEqualTo(v);
    }

    @Test
    void aKeyWithoutOwnerCostsOneOrTwoBytesWithinItsSlice() {
        long base = 1_790_000_000_000L;
        long unit = 1_000;
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 63_999, 0).encode(base, unit)).hasSize(1);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 255 * unit, 0).encode(base, unit)).hasSize(2);
        assertThat(new StoredValue(42, base, 0).encode(base, unit)).hasSize(9);
        assertThat(new StoredValue(42, base, 1).encode(base, unit)).hasSize(10);
    }

    @Test
    void timeReadsBackRoundedDownToTheUnitAndSurvivesCopies() {
        long base = 1_790_000_000_500L;
        StoredValue v = new StoredValue(7, base + 2_999, 0);
        StoredValue read = StoredValue.decode(v.encode(base, 1_000), base, 1_000);
        assertThat(read.firstSeen()).isEqualTo(base + 2_500);
        // Copied into a later generation (refresh), again and again, it keeps its time.
        long later = base + 10_250;
        assertThat(StoredValue.decode(read.encode(later, 1_000), later, 1_000)).isEqualTo(read);
    }

    @Test
    void duplicatesSaturateInsteadOfOverflowingIntoTheOwnerField() {
        StoredValue v = new StoredValue(SeenSet.NO_OWNER, 0, StoredValue.MAX_DUPLICATES).plusDuplicate();
        assertThat(v.duplicates()).isEqualTo(StoredValue.MAX_DUPLICATES);
        assertThat(StoredValue.decode(v.encode(0, 1_000), 0, 1_000)).isEqualTo(v);
    }
}
