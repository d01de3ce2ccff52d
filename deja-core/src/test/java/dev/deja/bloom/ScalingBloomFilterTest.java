package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ScalingBloomFilterTest {

    private static final int HEADER_BYTES = 40;

    @Test
    void growsByTheExpansionAndHoldsEveryKeyRecorded() {
        ScalingBloomFilter filter = ScalingBloomFilter.builder()
                .capacity(1000)
                .fpp(0.01)
                .expansion(2)
                .build();
        assertThat(filter.filters()).isEqualTo(1);
        assertThat(filter.totalCapacity()).isEqualTo(1000);
        byte[][] keys = Keys.random(1, 10_000);
        for (byte[] key : keys) {
            filter.add(key);
        }
        // 1,000 + 2,000 + 4,000 = 7,000 keys fill three; the fourth (8,000) takes the rest
        assertThat(filter.filters()).isEqualTo(4);
        assertThat(filter.totalCapacity()).isEqualTo(15_000);
        for (byte[] key : keys) {
            assertThat(filter.check(key)).isTrue();
        }
        assertThat(filter.stats().kind()).isEqualTo("bloom-scaling");
    }

    @Test
    void subFiltersTightenTheirErrorRateByHalves() {
        ScalingBloomFilter filter = ScalingBloomFilter.builder()
                .capacity(1000)
                .fpp(0.01)
                .expansion(4)
                .build();
        for (byte[] key : Keys.random(2, 20_000)) {
            filter.add(key);
        }
        BloomFilter[] filters = filter.filterArray();
        assertThat(filters).hasSize(3); // 1,000 + 4,000 < 20,000 <= 1,000 + 4,000 + 16,000
        for (int i = 0; i < filters.length; i++) {
            BloomFilter expected = BloomFilter.builder()
                    .capacity(1000L << (2 * i))
                    .fpp(0.01 / (2 << i))
                    .build();
            assertThat(filters[i].bits()).as("sub-filter " + i).isEqualTo(expected.bits());
            assertThat(filters[i].hashes()).as("sub-filter " + i).isEqualTo(expected.hashes());
        }
    }

    @Test
    void keepsTheFalsePositiveBoundAfterGrowingTwentyFoldOverAMillionLookups() {
        ScalingBloomFilter filter =
                ScalingBloomFilter.builder().capacity(10_000).fpp(0.01).build();
        for (byte[] key : Keys.random(3, 200_000)) {
            filter.add(key);
        }
        assertThat(filter.filters()).isEqualTo(5); // 10k + 20k + 40k + 80k < 200k <= ... + 160k
        int falsePositives = 0;
        byte[][] absent = Keys.random(4, 1_000_000);
        for (byte[] key : absent) {
            if (filter.check(key)) {
                falsePositives++;
            }
        }
        // the union bound is 0.01 * (1/2 + 1/4 + ... + 1/32) < 0.01; a plain 10,000-key filter would answer ~all
        assertThat(falsePositives / 1_000_000.0).isLessThan(0.01);
        assertThat(filter.stats().estimate()).isNotNull();
    }

    @Test
    void aFilterThatDoesNotScaleRefusesNewKeysOnceFullAndStillAnswersHeldOnes() {
        ScalingBloomFilter filter = ScalingBloomFilter.builder()
                .capacity(100)
                .fpp(0.01)
                .expansion(0)
                .build();
        assertThat(filter.scales()).isFalse();
        byte[][] keys = Keys.random(5, 200);
        List<byte[]> held = new ArrayList<>();
        BloomFullException refused = null;
        for (byte[] key : keys) {
            try {
                filter.checkThenAdd(key, 0);
                held.add(key);
            } catch (BloomFullException e) {
                refused = e;
                assertThat(filter.check(key))
                        .as("a refused key is not recorded")
                        .isFalse();
                break;
            }
        }
        assertThat(refused).isNotNull();
        assertThat(refused).hasMessageContaining("non scaling filter is full");
        assertThat(filter.refusal()).contains("non scaling filter is full");
        assertThat(held.size()).isBetween(100, 101); // a false positive among the first may need one more key
        assertThat(filter.filters()).isEqualTo(1);
        assertThat(filter.checkThenAdd(held.get(0), 0)).isEqualTo(Verdict.DUPLICATE);
        // in a batch the refused keys answer RETRY and the held ones DUPLICATE
        List<byte[]> batch = List.of(held.get(1), keys[199], held.get(2));
        assertThat(filter.checkThenAddAll(batch, null))
                .containsExactly(Verdict.DUPLICATE, Verdict.RETRY, Verdict.DUPLICATE);
    }

    @Test
    void writesAndReadsBackEverySubFilterAndKeepsGrowingFromWhereItWas() throws IOException {
        ScalingBloomFilter filter = ScalingBloomFilter.builder()
                .capacity(500)
                .fpp(0.001)
                .expansion(3)
                .build();
        byte[][] keys = Keys.random(6, 5_000);
        for (byte[] key : keys) {
            filter.add(key);
        }
        byte[] bytes = bytes(filter);
        ScalingBloomFilter back = ScalingBloomFilter.readFrom(new ByteArrayInputStream(bytes));
        assertThat(back.filters()).isEqualTo(filter.filters()).isEqualTo(3);
        assertThat(back.expansion()).isEqualTo(3);
        assertThat(back.totalCapacity()).isEqualTo(filter.totalCapacity());
        assertThat(back.newestKeys()).isEqualTo(filter.newestKeys());
        for (byte[] key : keys) {
            assertThat(back.check(key)).isTrue();
        }
        assertThat(bytes(back)).isEqualTo(bytes);
        for (byte[] key : Keys.random(7, 20_000)) {
            back.add(key);
        }
        assertThat(back.filters()).isEqualTo(5); // 500 + 1,500 + 4,500 + 13,500 < 25,000 <= ... + 40,500
    }

    @Test
    void refusesDamagedTruncatedAndForgedStreams() throws IOException {
        ScalingBloomFilter filter =
                ScalingBloomFilter.builder().capacity(100).fpp(0.01).build();
        for (byte[] key : Keys.random(8, 400)) {
            filter.add(key);
        }
        byte[] bytes = bytes(filter);
        byte[] damaged = bytes.clone();
        damaged[10] ^= 1;
        assertThatThrownBy(() -> ScalingBloomFilter.readFrom(new ByteArrayInputStream(damaged)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("checksum");
        byte[] truncated = Arrays.copyOf(bytes, bytes.length - 10);
        assertThatThrownBy(() -> ScalingBloomFilter.readFrom(new ByteArrayInputStream(truncated)))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("sub-filter 2 of 3");
        byte[] tooMany = Forged.withLong(bytes, HEADER_BYTES, 24, (2L << 32) | 65);
        assertThatThrownBy(() -> ScalingBloomFilter.readFrom(new ByteArrayInputStream(tooMany)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("impossible parameters");
        // a header claiming a larger first capacity does not match the sub-filters that follow
        byte[] otherShape = Forged.withLong(bytes, HEADER_BYTES, 8, 100_000);
        assertThatThrownBy(() -> ScalingBloomFilter.readFrom(new ByteArrayInputStream(otherShape)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("sub-filter 0");
        assertThatThrownBy(() -> WindowedBloomFilter.readFrom(new ByteArrayInputStream(bytes)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("scaling bloom filter (kind 3)");
    }

    @Test
    void theMemoryGateAdmitsEachNewSubFilterAndARefusalLeavesTheFilterUnchanged() throws IOException {
        AtomicLong admitted = new AtomicLong();
        long limit = ScalingBloomFilter.firstFilterHeapBytes(1000, 0.01, 2) * 3 / 2;
        ScalingBloomFilter.MemoryGate gate = new ScalingBloomFilter.MemoryGate() {
            @Override
            public void admit(long bytes) {
                if (admitted.get() + bytes > limit) {
                    throw new IllegalStateException("over the test's limit");
                }
                admitted.addAndGet(bytes);
            }

            @Override
            public void release(long bytes) {
                admitted.addAndGet(-bytes);
            }
        };
        ScalingBloomFilter filter = ScalingBloomFilter.builder()
                .capacity(1000)
                .fpp(0.01)
                .memoryGate(gate)
                .build();
        byte[][] keys = Keys.random(9, 10_000);
        int recorded = 0;
        BloomFullException refused = null;
        for (byte[] key : keys) {
            try {
                filter.add(key);
                recorded++;
            } catch (BloomFullException e) {
                refused = e;
                assertThat(filter.check(key)).isFalse();
                break;
            }
        }
        assertThat(refused).isNotNull().hasMessageContaining("cannot grow: over the test's limit");
        assertThat(filter.filters()).isEqualTo(2); // the second fits the limit, the third (4,000 keys) does not
        assertThat(recorded).isBetween(3000, 3100); // the false positives among them were not recorded
        assertThat(admitted.get()).isPositive();
        byte[] bytes = bytes(filter);
        filter.close();
        assertThat(admitted.get()).isZero();
        ScalingBloomFilter back = ScalingBloomFilter.readFrom(new ByteArrayInputStream(bytes), gate);
        assertThat(admitted.get())
                .as("reading admits the second sub-filter again")
                .isPositive();
        back.close();
        assertThat(admitted.get()).isZero();
    }

    @Test
    void racingCopiesOfANewKeyAreAnsweredNewOnceAcrossGrowth() throws Exception {
        ScalingBloomFilter filter =
                ScalingBloomFilter.builder().capacity(64).fpp(0.01).build();
        byte[][] keys = Keys.random(10, 20_000);
        AtomicIntegerArray news = new AtomicIntegerArray(keys.length);
        int threads = 4;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < keys.length; i++) {
                        if (filter.checkThenAdd(keys[i], 0) == Verdict.NEW) {
                            news.incrementAndGet(i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        int answeredNew = 0;
        for (int i = 0; i < keys.length; i++) {
            assertThat(news.get(i)).as("key " + i).isLessThanOrEqualTo(1);
            assertThat(filter.check(keys[i])).isTrue();
            answeredNew += news.get(i);
        }
        assertThat(answeredNew).isGreaterThan(keys.length * 98 / 100); // the rest are false positives
        assertThat(filter.filters()).isGreaterThan(5);
    }

    @Test
    void mergingUnitesTheKeysOfTwoFiltersSubFilterBySubFilter() {
        ScalingBloomFilter small =
                ScalingBloomFilter.builder().capacity(100).fpp(0.01).build();
        ScalingBloomFilter large =
                ScalingBloomFilter.builder().capacity(100).fpp(0.01).build();
        byte[][] few = Keys.random(11, 150);
        byte[][] many = Keys.random(12, 1_000);
        for (byte[] key : few) {
            small.add(key);
        }
        for (byte[] key : many) {
            large.add(key);
        }
        small.mergeFrom(large);
        assertThat(small.filters()).isEqualTo(large.filters()).isEqualTo(4);
        for (byte[] key : few) {
            assertThat(small.check(key)).isTrue();
        }
        for (byte[] key : many) {
            assertThat(small.check(key)).isTrue();
        }
        ScalingBloomFilter other =
                ScalingBloomFilter.builder().capacity(100).fpp(0.02).build();
        assertThatThrownBy(() -> small.mergeFrom(other)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void refusesImpossibleSettings() {
        assertThatThrownBy(() -> ScalingBloomFilter.builder().fpp(0.01).build())
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScalingBloomFilter.builder().expansion(-1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScalingBloomFilter.builder().expansion(ScalingBloomFilter.MAX_EXPANSION + 1))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ScalingBloomFilter.builder()
                        .capacity(10)
                        .fpp(0.01)
                        .build()
                        .forget(new byte[] {1}, 0))
                .isInstanceOf(UnsupportedOperationException.class);
    }

    private static byte[] bytes(ScalingBloomFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }
}
