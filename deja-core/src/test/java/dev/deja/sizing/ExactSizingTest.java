package dev.deja.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ExactSizingTest {

    @Test
    void uuidKeysCostTheKeyPlusRocksDbOverhead() {
        // (16 + 0 + 8 + 3 + 1.25) * 1.1 and, with an 8-byte owner, (16 + 8 + 8 + 3 + 1.25) * 1.1.
        assertThat(ExactSizing.bytesPerKey(16, false)).isCloseTo(31.075, within(1e-9));
        assertThat(ExactSizing.bytesPerKey(16, true)).isCloseTo(39.875, within(1e-9));
    }

    @Test
    void windowDiskIsKeysTimesBytesPerKey() {
        ExactSize size = Sizing.exact(3_600_000, 16, false);
        assertThat(size.diskBytes()).isEqualTo(111_870_000L);
        // Seed 002's order of magnitude: 60 billion keys in about 1.5 TB, i.e. ~25 bytes per key.
        assertThat(Sizing.exact(60_000_000_000L, 16, false).diskBytes() / 1e12).isBetween(1.5, 2.0);
    }

    @Test
    void rejectsBadArgumentsNamingThem() {
        assertThatThrownBy(() -> ExactSizing.bytesPerKey(0, false)).hasMessageContaining("keyLength");
        assertThatThrownBy(() -> ExactSizing.forWindow(0, 16, false)).hasMessageContaining("keys");
    }
}
