package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.deja.seen.Allocations;
import dev.deja.seen.ErrorEstimate;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;

class WindowedBloomFilterTest {

    /** A clock the test moves by hand. */
    static final class ManualClock implements InstantSource {
        long millis = 1_700_000_000_000L;

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }
    }

    @Test
    void aFilterWrittenInFormatOneKeepsItsGenerationsAndRotatesIntoNewOnes() throws IOException {
        byte[] original = FormatOne.resource("windowed-format1.bin");
        WindowedBloomFilter filter = WindowedBloomFilter.readFrom(new ByteArrayInputStream(original));
        assertThat(filter.capacity()).isEqualTo(3000);
        assertThat(filter.generations()).isEqualTo(4);
        for (int i = 0; i < 2500; i++) {
            assertThat(filter.check("key-" + i)).as("key-" + i).isTrue();
        }
        ByteArrayOutputStream same = new ByteArrayOutputStream();
        filter.writeTo(same);
        assertThat(same.toByteArray()).isEqualTo(original);
        // 1,500 new keys rotate in sectored generations beside the format-1 ones; the mix writes and reads back.
        for (int i = 2500; i < 4000; i++) {
            filter.add("key-" + i);
        }
        ByteArrayOutputStream mixed = new ByteArrayOutputStream();
        filter.writeTo(mixed);
        WindowedBloomFilter back = WindowedBloomFilter.readFrom(new ByteArrayInputStream(mixed.toByteArray()));
        for (int i = 1000; i < 4000; i++) {
            assertThat(back.check("key-" + i)).as("key-" + i).isTrue();
        }
        assertThat(formatVersionsOfGenerations(mixed.toByteArray(), 4)).contains(1, 2);
    }

    /** The format version of each generation in a windowed filter's bytes (docs/FORMAT.md 2.3 and 2.4). */
    private static List<Integer> formatVersionsOfGenerations(byte[] bytes, int generations) {
        List<Integer> versions = new ArrayList<>();
        int at = 52;
        for (int g = 0; g < generations; g++) {
            versions.add((int) bytes[at + 4]);
            long bits = BloomFormat.getLong(bytes, at + 8);
            at += 36 + (int) (bits / 8) + 4;
        }
        assertThat(at).isEqualTo(bytes.length);
        return versions;
    }

    @Test
    void alwaysHoldsTheLastCapacityKeysAndKeepsTheFppBoundOverAMillionKeys() {
        int capacity = 100_000;
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(capacity)
                .fpp(0.01)
                .generations(4)
                .build();
        byte[][] stream = Keys.random(31, 1_000_000);
        int duplicates = 0;
        for (int i = 0; i < stream.length; i++) {
            if (filter.checkThenAdd(stream[i]) == Verdict.DUPLICATE) {
                duplicates++;
            }
            if ((i + 1) % 250_000 == 0) {
                for (int j = i + 1 - capacity; j <= i; j++) {
                    assertThat(filter.check(stream[j]))
                            .as("key %d after %d keys", j, i + 1)
                            .isTrue();
                }
            }
        }
        // Every answer came from at most G generations of at most `per` keys each: the union bound keeps the
        // false-positive rate at or under fpp, both for the fresh stream keys and for 10^6 keys never recorded.
        assertThat((double) duplicates / stream.length).isLessThanOrEqualTo(0.01);
        int positives = 0;
        for (byte[] key : Keys.random(32, 1_000_000)) {
            positives += filter.check(key) ? 1 : 0;
        }
        assertThat(positives / 1e6).isLessThanOrEqualTo(0.01);
        ErrorEstimate.Bloom estimate = (ErrorEstimate.Bloom) filter.stats().estimate();
        assertThat(estimate.currentFpp()).isLessThanOrEqualTo(0.01).isGreaterThan(positives / 1e6 * 0.8);
        // Keys far older than the capacity were dropped with their generation: only false positives remain.
        int oldHeld = 0;
        for (int j = 0; j < capacity; j++) {
            oldHeld += filter.check(stream[j]) ? 1 : 0;
        }
        assertThat(oldHeld).isLessThan(capacity / 100);
    }

    @Test
    void timeWindowHoldsKeysForTheWholeWindowThenDropsThem() {
        ManualClock clock = new ManualClock();
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(1_000_000)
                .fpp(0.001)
                .generations(5)
                .window(Duration.ofSeconds(10))
                .clock(clock)
                .build();
        assertThat(filter.checkThenAdd("early")).isEqualTo(Verdict.NEW);
        clock.millis += 2_400; // still inside the first 2.5 s span: the last moment its generation takes keys
        assertThat(filter.checkThenAdd("late-in-span")).isEqualTo(Verdict.NEW);
        clock.millis += 9_999 - 2_400;
        assertThat(filter.check("early")).isTrue();
        clock.millis += 2_400;
        assertThat(filter.check("late-in-span")).as("held for the full window").isTrue();
        clock.millis += 200; // 12.599 s: five spans after the first generation started, it is dropped
        assertThat(filter.check("early")).isFalse();
        assertThat(filter.check("late-in-span")).isFalse();
        assertThat(filter.checkThenAdd("early")).isEqualTo(Verdict.NEW);
        clock.millis += 3_600_000; // idle for an hour: every generation expires at once
        assertThat(filter.check("early")).isFalse();
    }

    @Test
    void aKeyIsHeldForTheWholeWindowWhateverTheWindowAndTheGenerations() {
        for (int generations : new int[] {2, 3, 4, 5, 7, 8, 16, 33, 63, 64}) {
            for (long window = generations - 1L; window < generations - 1 + 100; window++) {
                assertHeldForTheWholeWindow(generations, window, 10_000);
            }
        }
        // the cases a span rounded down would drop early: 64 generations over 100 ms (after 64 ms) and over 1 s
        // (after 960 ms)
        assertHeldForTheWholeWindow(64, 100, 1_000_000);
        assertHeldForTheWholeWindow(64, 1000, 1_000_000);
    }

    /**
     * Records a key at every millisecond of three spans, so at every phase of a span, and checks each at the last
     * moment it is due, {@code t + window}: a key is in one generation, which once dropped never returns, so a key
     * held then was held all along.
     */
    private static void assertHeldForTheWholeWindow(int generations, long window, long capacity) {
        ManualClock clock = new ManualClock();
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(capacity)
                .fpp(0.01)
                .generations(generations)
                .window(Duration.ofMillis(window))
                .clock(clock)
                .build();
        long recorded = 3 * ((window + generations - 2) / (generations - 1));
        for (long m = 0; m < recorded + window; m++, clock.millis++) {
            if (m < recorded) {
                filter.add("key-" + m);
            }
            if (m >= window) {
                assertThat(filter.check("key-" + (m - window)))
                        .as(
                                "G=%d, window %d ms: the key recorded at %d ms, at %d ms",
                                generations, window, m - window, m)
                        .isTrue();
            }
        }
    }

    @Test
    void exactlyOneRacerIsToldNewEvenAcrossRotations() throws Exception {
        // 1500 keys per generation: the 20,000 raced keys force a dozen rotations while threads race.
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(3000)
                .fpp(1e-7)
                .generations(3)
                .build();
        int threads = 4;
        int keysPerRound = 500;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 40; round++) {
                byte[][] keys = Keys.random(2000 + round, keysPerRound);
                AtomicIntegerArray news = new AtomicIntegerArray(keysPerRound);
                List<Future<?>> racers = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int offset = t;
                    racers.add(pool.submit(() -> {
                        start.await();
                        for (int i = 0; i < keysPerRound; i++) {
                            int index = (i + offset * 11) % keysPerRound;
                            if (filter.checkThenAdd(keys[index]) == Verdict.NEW) {
                                news.incrementAndGet(index);
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> racer : racers) {
                    racer.get();
                }
                for (int i = 0; i < keysPerRound; i++) {
                    assertThat(news.get(i))
                            .as("NEW answers for key %d of round %d", i, round)
                            .isEqualTo(1);
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void roundTripsThroughItsBinaryFormatAndKeepsItsClock() throws IOException {
        ManualClock clock = new ManualClock();
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(30_000)
                .fpp(0.01)
                .generations(4)
                .window(Duration.ofMinutes(3))
                .clock(clock)
                .build();
        byte[][] keys = Keys.random(33, 45_000); // four rotations by count, and half a generation more
        for (byte[] key : keys) {
            filter.add(key);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        WindowedBloomFilter copy = WindowedBloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()), clock);
        assertThat(copy.capacity()).isEqualTo(30_000);
        assertThat(copy.generations()).isEqualTo(4);
        assertThat(copy.window()).isEqualTo(Duration.ofMinutes(3));
        assertThat(copy.stats()).isEqualTo(filter.stats());
        for (int i = 0; i < keys.length; i++) {
            assertThat(copy.check(keys[i])).isEqualTo(filter.check(keys[i]));
            if (i >= keys.length - 30_000) {
                assertThat(copy.check(keys[i])).isTrue();
            }
        }
        for (byte[] key : Keys.random(34, 50_000)) {
            assertThat(copy.check(key)).isEqualTo(filter.check(key));
        }
        // The newest generation's count survives: 5,000 more keys fill it and rotate exactly as in the original.
        byte[][] more = Keys.random(35, 5_000);
        for (byte[] key : more) {
            filter.add(key);
            copy.add(key);
        }
        assertThat(copy.stats()).isEqualTo(filter.stats());

        byte[] corrupt = out.toByteArray().clone();
        corrupt[12] ^= 1;
        assertThatThrownBy(() -> WindowedBloomFilter.readFrom(new ByteArrayInputStream(corrupt)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("header: checksum mismatch");
        byte[] truncated = Arrays.copyOf(out.toByteArray(), out.size() - 100);
        assertThatThrownBy(() -> WindowedBloomFilter.readFrom(new ByteArrayInputStream(truncated)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("truncated");
        assertThatThrownBy(() -> BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray())))
                .hasMessageContaining("windowed bloom filter (kind 2), not a bloom filter (kind 1)");
    }

    @Test
    void aForgedHeaderAllocatesNothingAheadOfTheBytesThatFillIt() {
        // 64 generations of 2^40 bits each: fpp 0.9 / 64 for ceil(7,365,810,721,500 / 63) keys
        long capacity = 7_365_810_721_500L;
        long per = Math.ceilDiv(capacity, 63);
        BloomSize generation = BloomSizing.forCapacity(per, 0.9 / 64);
        assertThat(generation.bits()).isEqualTo(1L << 40);
        byte[] fields = new byte[48];
        fields[5] = BloomFormat.KIND_WINDOWED;
        fields[6] = 1; // XXH3-128
        fields[7] = 64;
        BloomFormat.putLong(fields, 8, capacity);
        BloomFormat.putLong(fields, 16, Double.doubleToRawLongBits(0.9));
        byte[] header = Forged.header(fields, 1);
        assertThat(header).hasSize(52);
        assertThatThrownBy(() -> read(header))
                .isInstanceOf(EOFException.class)
                .hasMessageStartingWith("truncated windowed bloom filter: generation 0 of 64 is cut short");
        assertThat(Allocations.of(() -> read(header))).isLessThan(1L << 20);

        // With a first generation of that shape and a megabyte of its (zero) bits, only that one is allocated.
        byte[] bloom = new byte[32];
        bloom[5] = BloomFormat.KIND_BLOOM;
        bloom[6] = 1;
        bloom[7] = (byte) generation.hashes();
        BloomFormat.putLong(bloom, 8, generation.bits());
        BloomFormat.putLong(bloom, 16, per);
        BloomFormat.putLong(bloom, 24, Double.doubleToRawLongBits(generation.expectedFpp()));
        byte[] first = Forged.header(bloom, 2);
        byte[] stream = Arrays.copyOf(header, header.length + first.length + (1 << 20));
        System.arraycopy(first, 0, stream, header.length, first.length);
        assertThatThrownBy(() -> read(stream))
                .isInstanceOf(EOFException.class)
                .hasMessageContaining("truncated bloom stream: bit array at byte 1048576");
        assertThat(Allocations.of(() -> read(stream))).isLessThan(32L << 20);

        // A generation of another shape is refused before its bits are allocated.
        BloomFormat.putLong(bloom, 8, 1L << 39);
        byte[] other = Forged.header(bloom, 2);
        byte[] mismatched = Arrays.copyOf(header, header.length + other.length);
        System.arraycopy(other, 0, mismatched, header.length, other.length);
        assertThatThrownBy(() -> read(mismatched))
                .isInstanceOf(IOException.class)
                .hasMessageStartingWith("windowed bloom filter generation 0 has bits=549755813888");
    }

    @Test
    void aHeaderWithAnImpossibleCountWindowOrFppIsRefusedThoughItsChecksumIsRight() throws IOException {
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(3000)
                .fpp(0.01)
                .generations(4)
                .build();
        for (int i = 0; i < 10; i++) {
            filter.add("key-" + i);
        }
        byte[] good = serialise(filter);
        String impossible = "windowed bloom filter header holds impossible parameters: ";
        for (long keys : new long[] {-1, Long.MIN_VALUE, 1001, Long.MAX_VALUE}) {
            assertThatThrownBy(() -> read(Forged.withLong(good, 48, 40, keys)))
                    .isInstanceOf(IOException.class)
                    .hasMessage(impossible + "keys in the newest generation must be in [0, 1000] (got " + keys + ")");
        }
        assertThat(read(Forged.withLong(good, 48, 40, 1000)).perGeneration()).isEqualTo(1000); // full: it rotates next
        assertThatThrownBy(() -> read(Forged.withLong(good, 48, 24, -1)))
                .isInstanceOf(IOException.class)
                .hasMessage(impossible + "a window of 18446744073709551615 ms (the most is 9223372036854775807)");
        for (double fpp : new double[] {Double.NaN, -1, 0, 1, 2, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> read(Forged.withLong(good, 48, 16, Double.doubleToRawLongBits(fpp))))
                    .isInstanceOf(IOException.class)
                    .hasMessage(impossible + "fpp must be in the open interval (0, 1) (got " + fpp + ")");
        }
    }

    /**
     * A saved start time after the reader's clock (a clock that ran ahead where the filter was written, or a forged
     * header with a valid checksum) is taken as now: generations still rotate a span after it, and keys leave after
     * the window. One before the epoch is taken as the epoch: every generation has expired.
     */
    @Test
    void aStartTimeInTheFutureOrBeforeTheEpochDoesNotStopTheWindow() throws IOException {
        ManualClock clock = new ManualClock();
        WindowedBloomFilter filter = WindowedBloomFilter.builder()
                .capacity(3000)
                .fpp(0.01)
                .generations(4)
                .window(Duration.ofSeconds(3))
                .clock(clock)
                .build();
        filter.add("saved");
        byte[] good = serialise(filter);
        for (long start : new long[] {clock.millis + 3_600_000, Long.MAX_VALUE}) {
            ManualClock reader = new ManualClock();
            WindowedBloomFilter read = WindowedBloomFilter.readFrom(
                    new ByteArrayInputStream(Forged.withLong(good, 48, 32, start)), reader);
            assertThat(read.check("saved")).as("start %d, at once", start).isTrue();
            reader.millis += 4_000; // past the window plus a span, measured from the reader's now
            assertThat(read.check("saved"))
                    .as("start %d, after the window", start)
                    .isFalse();
        }
        ManualClock reader = new ManualClock();
        WindowedBloomFilter ancient = WindowedBloomFilter.readFrom(
                new ByteArrayInputStream(Forged.withLong(good, 48, 32, Long.MIN_VALUE)), reader);
        assertThat(ancient.check("saved")).as("every generation expired").isFalse();
    }

    @Test
    void hugeSettingsAreRefusedByNameNotByOverflow() {
        assertThatThrownBy(() -> WindowedBloomFilter.builder()
                        .capacity(Long.MAX_VALUE)
                        .fpp(0.5)
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("each of the 4 generations holds ceil(capacity / 3) = 3074457345618258603 "
                        + "keys at fpp / 4: capacity 3074457345618258603 at fpp 0.125 needs more than the largest");
        for (Duration window : new Duration[] {
            Duration.ofSeconds(Long.MAX_VALUE),
            Duration.ofSeconds(Long.MIN_VALUE),
            Duration.ofMillis(Long.MAX_VALUE).plusNanos(1),
            Duration.ofNanos(999_999),
            Duration.ofMillis(-1)
        }) {
            assertThatThrownBy(() -> WindowedBloomFilter.builder().window(window))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("window must be in [1 ms, 9223372036854775807 ms] (got " + window + ")");
        }
        WindowedBloomFilter longest = WindowedBloomFilter.builder()
                .capacity(100)
                .fpp(0.01)
                .window(Duration.ofMillis(Long.MAX_VALUE))
                .build();
        assertThat(longest.window()).isEqualTo(Duration.ofMillis(Long.MAX_VALUE));
        assertThat(longest.checkThenAdd("k")).isEqualTo(Verdict.NEW);
        assertThat(longest.check("k")).isTrue();
    }

    private static byte[] serialise(WindowedBloomFilter filter) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        filter.writeTo(out);
        return out.toByteArray();
    }

    private static WindowedBloomFilter read(byte[] bytes) throws IOException {
        return WindowedBloomFilter.readFrom(new ByteArrayInputStream(bytes));
    }

    @Test
    void rejectsBadSettingsAndForget() {
        assertThatThrownBy(() -> WindowedBloomFilter.builder().fpp(0.01).build())
                .hasMessageContaining("needs capacity and fpp");
        assertThatThrownBy(() -> WindowedBloomFilter.builder().generations(1))
                .hasMessageContaining("generations must be in [2, 64]");
        assertThatThrownBy(() -> WindowedBloomFilter.builder().window(Duration.ZERO))
                .hasMessage("window must be in [1 ms, 9223372036854775807 ms] (got PT0S)");
        assertThatThrownBy(() -> WindowedBloomFilter.builder()
                        .capacity(10)
                        .fpp(0.1)
                        .generations(8)
                        .window(Duration.ofMillis(3))
                        .build())
                .hasMessageContaining("window must be at least 7 ms");
        WindowedBloomFilter filter =
                WindowedBloomFilter.builder().capacity(10).fpp(0.1).build();
        assertThatThrownBy(() -> filter.forget("k".getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("cannot forget");
    }
}
