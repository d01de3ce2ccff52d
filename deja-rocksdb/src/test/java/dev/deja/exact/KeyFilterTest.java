package dev.deja.exact;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The in-memory filter in front of each generation: never rules out a key it was given, grows at its rate. */
class KeyFilterTest {

    private static Hash128 key(long i) {
        return Hash128.of(ByteBuffer.allocate(8).putLong(i).array());
    }

    @Test
    void aBatchAddsEveryKeySliceBySliceOrFromHashesItAlreadyHas() {
        int n = 2 * KeyBatch.FILTER_SLICE + 123; // two whole slices and a part of one
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            keys.add(ByteBuffer.allocate(8).putLong(i).array());
        }
        KeyFilter sliced = KeyFilter.forNewGeneration(0);
        KeyBatch.of(IdFormat.RAW, keys).addTo(sliced);
        KeyFilter whole = KeyFilter.forNewGeneration(0);
        KeyBatch hashed = KeyBatch.of(IdFormat.RAW, keys);
        long[] hashes = hashed.hashes();
        hashed.addTo(whole);
        for (KeyFilter filter : List.of(sliced, whole)) {
            assertThat(filter.keys()).isBetween((long) (n * 0.99), (long) n);
            for (int i = 0; i < n; i++) {
                assertThat(filter.mayContain(hashes[2 * i], hashes[2 * i + 1])).isTrue();
            }
        }
        assertThat(sliced.mayContain(key(n).high(), key(n).low())).isFalse();
    }

    @Test
    void aFilterGrownFarPastItsFirstCapacityKeepsEveryKeyAndItsRate() {
        KeyFilter filter = KeyFilter.forNewGeneration(0);
        int n = 1_000_000; // about 15 times the first part's capacity
        for (int i = 0; i < n; i++) {
            Hash128 h = key(i);
            filter.add(h.high(), h.low());
        }
        assertThat(filter.parts()).as("parts of doubling capacity: 64Ki .. 1Mi").isEqualTo(5);
        assertThat(filter.keys()).isBetween((long) (n * 0.99), (long) n);
        for (int i = 0; i < n; i++) {
            Hash128 h = key(i);
            assertThat(filter.mayContain(h.high(), h.low())).isTrue();
        }
        int falsePositives = 0;
        int probes = 1_000_000;
        for (int i = n; i < n + probes; i++) {
            Hash128 h = key(i);
            falsePositives += filter.mayContain(h.high(), h.low()) ? 1 : 0;
        }
        // Each of the 5 parts is at or below its capacity, so at or below 0.1%: at most 0.5% in all. The expected
        // count is at most 5,000 with a standard deviation near 70; the bound leaves more than 10 deviations.
        assertThat(falsePositives).isLessThan(5_800);
    }

    @Test
    void theBatchProbeAgreesWithSingleProbes() {
        KeyFilter filter = KeyFilter.forNewGeneration(1000);
        SplittableRandom random = new SplittableRandom(7);
        long[] hashes = new long[2 * 5000];
        for (int i = 0; i < 5000; i++) {
            Hash128 h = key(random.nextLong());
            hashes[2 * i] = h.high();
            hashes[2 * i + 1] = h.low();
            if (i % 2 == 0) {
                filter.add(h.high(), h.low());
            }
        }
        boolean[] batch = filter.mayContainAll(hashes);
        for (int i = 0; i < 5000; i++) {
            assertThat(batch[i]).isEqualTo(filter.mayContain(hashes[2 * i], hashes[2 * i + 1]));
            if (i % 2 == 0) {
                assertThat(batch[i]).isTrue();
            }
        }
    }

    @Test
    void anIncompleteFilterRulesNothingOutUntilMarkedComplete() {
        KeyFilter filter = KeyFilter.toLoad(1000);
        Hash128 absent = key(42);
        assertThat(filter.mayContain(absent.high(), absent.low())).isTrue();
        assertThat(filter.mayContainAll(new long[] {absent.high(), absent.low()}))
                .containsExactly(true);
        filter.markComplete();
        assertThat(filter.mayContain(absent.high(), absent.low())).isFalse();
    }

    @Test
    void rewritingAKeyDoesNotCountItTwice() {
        KeyFilter filter = KeyFilter.forNewGeneration(1000);
        Hash128 h = key(1);
        for (int i = 0; i < 10; i++) {
            filter.add(h.high(), h.low());
        }
        assertThat(filter.keys()).isEqualTo(1);
    }

    @Test
    void batchAddsHoldEveryKeyCountOnlyNewOnesAndGrowTheFilter() {
        KeyFilter filter = KeyFilter.forNewGeneration(0);
        int n = 200_000; // past the first two parts (64 Ki + 128 Ki keys)
        long[] hashes = new long[2 * 1000];
        for (int from = 0; from < n; from += 1000) {
            for (int i = 0; i < 1000; i++) {
                Hash128 h = key(from + i);
                hashes[2 * i] = h.high();
                hashes[2 * i + 1] = h.low();
            }
            filter.addAll(hashes);
        }
        assertThat(filter.parts()).isEqualTo(3);
        assertThat(filter.keys()).isBetween((long) (n * 0.99), (long) n);
        long counted = filter.keys();
        filter.addAll(hashes); // the last batch again: its keys are in the last part, nothing new is counted
        assertThat(filter.keys()).isEqualTo(counted);
        for (int i = 0; i < n; i++) {
            Hash128 h = key(i);
            assertThat(filter.mayContain(h.high(), h.low())).isTrue();
        }
        filter.addAll(new long[0]);
        assertThat(filter.keys()).isEqualTo(counted);
    }
}
