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
        long base = 1_790_000_000L;
        StoredValue v = new StoredValue(owner, base + delta, duplicates);
        assertThat(StoredValue.decode(v.encode(base), base)).isEqualTo(v);
    }

    @Test
    void aKeyWithoutOwnerCostsOneToThreeBytes() {
        long base = 1_790_000_000L;
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 63, 0).encode(base)).hasSize(1);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 3_600, 0).encode(base)).hasSize(2);
        assertThat(new StoredValue(SeenSet.NO_OWNER, base + 86_400, 0).encode(base)).hasSize(3);
        assertThat(new StoredValue(42, base, 0).encode(base)).hasSize(9);
        assertThat(new StoredValue(42, base, 1).encode(base)).hasSize(10);
    }

    @Test
    void duplicatesSaturateInsteadOfOverflowingIntoTheOwnerField() {
        StoredValue v = new StoredValue(SeenSet.NO_OWNER, 0, StoredValue.MAX_DUPLICATES).plusDuplicate();
        assertThat(v.duplicates()).isEqualTo(StoredValue.MAX_DUPLICATES);
        assertThat(StoredValue.decode(v.encode(0), 0)).isEqualTo(v);
    }
}
