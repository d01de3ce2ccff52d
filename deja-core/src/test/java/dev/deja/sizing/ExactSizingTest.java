package dev.deja.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ExactSizingTest {

    @Test
    void matchesTheMeasuredHundredMillionUuidRun() {
        // docs/BENCHMARKS.md, section "exact store": the live table files of 100 million UUIDs in 8 generations.
        assertThat(ExactSizing.bytesPerKey(100_000_000, 16, false, 8)).isCloseTo(17.30, within(0.01));
        // A run of the same store with 12 million keys, whose newest generation, still in level 0, weighs more:
        // within 5%.
        assertThat(ExactSizing.bytesPerKey(12_000_000, 16, false, 8)).isCloseTo(17.75, within(17.75 * 0.05));
    }

    @Test
    void filterMemoryIsAboutTwoBytesPerKeyAtThePeak() {
        // A blocked Bloom filter at 0.1% takes 15.73 bits per key (deja size bloom --capacity 12500000 --fpp 0.001).
        assertThat(ExactSize.FILTER_BITS_PER_KEY).isCloseTo(15.73, within(0.01));
        ExactSize size = Sizing.exact(100_000_000, 16, false);
        assertThat(size.peakFilterBytes()).isCloseTo(Math.round(100_000_000 * 1.125 * 15.73 / 8), within(200_000L));
    }

    @Test
    void anEstimateBeyondWhatALongHoldsIsRefusedNotSaturated() {
        assertThatThrownBy(() -> Sizing.exact(Long.MAX_VALUE, 65536, true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("beyond 2^63; lower the keys per window");
        // The largest key counts that still fit give byte counts below Long.MAX_VALUE, not equal to it.
        ExactSize large = Sizing.exact(100_000_000_000_000L, 65536, true);
        assertThat(large.peakDiskBytes()).isLessThan(Long.MAX_VALUE).isGreaterThan(large.diskBytes());
    }

    @Test
    void anOwnerAddsItsEightIncompressibleBytes() {
        assertThat(ExactSizing.bytesPerKey(1_000_000, 16, true, 8) - ExactSizing.bytesPerKey(1_000_000, 16, false, 8))
                .isCloseTo(8.0, within(1e-9));
    }

    @Test
    void largerGenerationsShareMorePrefixAndShortKeysNeverGoNegative() {
        assertThat(ExactSizing.bytesPerKey(1_000_000_000, 16, false, 8))
                .isLessThan(ExactSizing.bytesPerKey(1_000_000, 16, false, 8));
        assertThat(ExactSizing.bytesPerKey(1_000_000, 16, false, 2))
                .isLessThan(ExactSizing.bytesPerKey(1_000_000, 16, false, 64));
        // One-byte keys: the prefix cannot save more than the key; what is left is the measured overhead.
        assertThat(ExactSizing.bytesPerKey(1L << 40, 1, false, 8)).isCloseTo(ExactSizing.OVERHEAD_BYTES, within(1e-9));
    }

    @Test
    void windowDiskIsKeysTimesBytesPerKeyAndPeakAddsOneGeneration() {
        ExactSize size = Sizing.exact(3_600_000, 16, false);
        assertThat(size.generations()).isEqualTo(ExactSizing.DEFAULT_GENERATIONS);
        assertThat(size.diskBytes()).isEqualTo(Math.round(3_600_000 * size.bytesPerKey()));
        assertThat(size.peakDiskBytes()).isEqualTo(Math.round(3_600_000 * 1.125 * size.bytesPerKey()));
        // Segment's de-duplication design holds 60 billion keys in about 1.5 TB (~25 bytes per key); deja's layout
        // needs well under that.
        assertThat(Sizing.exact(60_000_000_000L, 16, false).diskBytes() / 1e12).isBetween(0.8, 1.0);
    }

    @Test
    void rejectsBadArgumentsNamingThem() {
        assertThatThrownBy(() -> ExactSizing.bytesPerKey(10, 0, false, 8)).hasMessageContaining("keyLength");
        assertThatThrownBy(() -> ExactSizing.bytesPerKey(10, 16, false, 1)).hasMessageContaining("generations");
        assertThatThrownBy(() -> ExactSizing.forWindow(0, 16, false)).hasMessageContaining("keys");
    }
}
