package dev.deja.bloom;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.seen.Guarantee;
import dev.deja.seen.HashedSeenSet;
import dev.deja.seen.SeenStats;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Clock;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A Bloom filter for unbounded streams: rotating generations of {@link BloomFilter}s that always hold at least the
 * last {@code capacity} recorded keys (or, with a time window, the keys of the last window) while the
 * false-positive probability over everything it answers from stays at most the target fpp.
 *
 * <p>Design. {@code G} generations, oldest to newest, each a blocked Bloom filter sized for
 * {@code per = ceil(capacity / (G - 1))} keys at {@code fpp / G}. Keys are recorded in the newest generation; when it
 * has recorded {@code per} keys the oldest generation is dropped and a fresh one (lazily allocated, so free until
 * written) becomes the newest. The {@code G - 1} older generations then hold at least {@code (G - 1) * per >=
 * capacity} keys. A lookup asks every generation; as each holds at most {@code per} keys its false-positive
 * probability is at most {@code fpp / G}, so by the union bound the answer's is at most {@code fpp}. This is the
 * rotating scheme of "stable" and "aging" Bloom filters for duplicate detection in streams (Deng and Rafiei 2006;
 * Yoon 2010), with deja's blocked filter inside.
 *
 * <p>With a {@code window}, generations also rotate every {@code span = ceil(window / (G - 1))} milliseconds of the
 * injected clock, so a key recorded at time {@code t} is held until at least {@code t + window}: its generation
 * started after {@code t - span} and is dropped {@code G} spans after its start, later than
 * {@code t + (G - 1) * span >= t + window}. The span is rounded up, not down, for that inequality: rounded down, a
 * 100 ms window over 64 generations would rotate every millisecond and drop keys after 64 ms. A key is dropped by
 * {@code t + G * span}, less than {@code window * G / (G - 1) + G} ms after it was recorded. The count limit still
 * applies, to keep the fpp bound; when a generation fills before its span ends it rotates early, and keys are then
 * held for the last {@code capacity} keys rather than the whole window.
 *
 * <p>Recording a key ({@code add}, or {@code checkThenAdd} of a key found in an older generation) always refreshes it
 * into the newest generation, so a key keeps being held as long as it keeps arriving. Concurrency follows
 * {@link BloomFilter}: lock-free checks, adds under the lock of the key's block in the newest generation, and
 * {@code checkThenAdd} serialised per key across the generations by a lock stripe chosen by the key's block, which is
 * the same in every generation because all have the same shape; the generations are an
 * immutable snapshot replaced atomically on rotation. Owners are ignored, {@link Verdict#RETRY} is never answered and
 * {@code forget} is not supported, as for {@link BloomFilter}.
 */
public final class WindowedBloomFilter implements HashedSeenSet {

    private static final int HEADER_BYTES = 48;
    /** The version of this structure's own framing; each generation carries its own (docs/FORMAT.md 2.4). */
    private static final int FORMAT_VERSION = 1;

    private static final int MAX_GENERATIONS = 64;
    /** The longest window: its milliseconds are a u64 on disk and a long in the arithmetic. */
    private static final Duration MAX_WINDOW = Duration.ofMillis(Long.MAX_VALUE);

    private final long capacity;
    private final double fpp;
    private final int generations;
    private final long perGeneration;
    /** The checked settings, and the shape of a new generation found once from them. */
    private final Shape shape;

    private final long windowMillis;
    private final long spanMillis;
    private final InstantSource clock;
    private final Object[] stripes = new Object[BlockLocks.STRIPES];
    private final AtomicReference<Snapshot> current;

    /** The generations, oldest first, with the start time and recorded-key count of the newest. */
    @SuppressWarnings("ArrayRecordComponent") // compared only by identity (compareAndSet of current)
    private record Snapshot(BloomFilter[] filters, long newestStart, AtomicLong newestKeys) {
        BloomFilter newest() {
            return filters[filters.length - 1];
        }
    }

    /**
     * The settings a filter is built from, checked, and the shape of its generations, found once: the search for it
     * is too slow to repeat at every rotation.
     */
    private record Shape(long capacity, double fpp, int generations, long windowMillis, BloomSize generationSize) {

        /**
         * Checks what the builder and the reader both take on trust: capacity, fpp, G, and a window of 0 (none) or at
         * least one millisecond per span; and finds the shape of every generation.
         *
         * @throws IllegalArgumentException naming the first impossible value, or when a generation would exceed the
         *                                  largest bloom filter
         */
        static Shape of(long capacity, double fpp, int generations, long windowMillis) {
            Require.positive("capacity", capacity);
            Require.probability("fpp", fpp);
            Require.inRange("generations", generations, 2, MAX_GENERATIONS);
            Require.inRange("window (ms)", windowMillis, 0, Long.MAX_VALUE);
            if (windowMillis > 0 && windowMillis < generations - 1) {
                throw new IllegalArgumentException("window must be at least " + (generations - 1) + " ms for "
                        + generations + " generations (got " + windowMillis + " ms)");
            }
            long per = perGeneration(capacity, generations);
            try {
                return new Shape(
                        capacity, fpp, generations, windowMillis, BloomSizing.forCapacity(per, fpp / generations));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "each of the " + generations + " generations holds ceil(capacity / " + (generations - 1)
                                + ") = " + per + " keys at fpp / " + generations + ": " + e.getMessage(),
                        e);
            }
        }

        /** The filter {@code capacity(perGeneration).fpp(fpp / G)} builds, without searching for its shape again. */
        BloomFilter newGeneration() {
            return BloomFilter.builder()
                    .bits(generationSize.bits())
                    .hashes(generationSize.hashes())
                    .capacity(perGeneration(capacity, generations))
                    .build();
        }

        /** Every generation new and empty. */
        BloomFilter[] newGenerations() {
            BloomFilter[] filters = new BloomFilter[generations];
            Arrays.setAll(filters, i -> newGeneration());
            return filters;
        }
    }

    private WindowedBloomFilter(Shape shape, InstantSource clock, Snapshot start) {
        this.shape = shape;
        this.capacity = shape.capacity();
        this.fpp = shape.fpp();
        this.generations = shape.generations();
        this.perGeneration = perGeneration(capacity, generations);
        this.windowMillis = shape.windowMillis();
        this.spanMillis = Math.ceilDiv(windowMillis, generations - 1);
        this.clock = clock;
        for (int i = 0; i < stripes.length; i++) {
            stripes[i] = new Object();
        }
        this.current = new AtomicReference<>(start);
    }

    /** A builder: capacity and fpp are required; generations default to 4; window and clock are optional. */
    public static Builder builder() {
        return new Builder();
    }

    @Override
    public boolean checkHash(long high, long low) {
        return holds(live(), high, low);
    }

    /** Records the key's hash in the newest generation; the owner is ignored. */
    @Override
    public void addHash(long high, long low, long owner) {
        record(live(), high, low);
    }

    /**
     * Atomically records the key's hash and answers {@link Verdict#NEW} if no generation held it, else
     * {@link Verdict#DUPLICATE}; never {@link Verdict#RETRY}. A key held only by an older generation is refreshed into
     * the newest one.
     */
    @Override
    public Verdict checkThenAddHash(long high, long low, long owner) {
        Snapshot s = live();
        if (s.newest().checkHash(high, low)) {
            return Verdict.DUPLICATE;
        }
        if (holds(s, high, low)) {
            record(s, high, low);
            return Verdict.DUPLICATE;
        }
        synchronized (stripes[s.newest().stripe(high)]) {
            s = current.get();
            boolean held = holds(s, high, low);
            boolean changed = record(s, high, low);
            return changed && !held ? Verdict.NEW : Verdict.DUPLICATE;
        }
    }

    /**
     * Not supported.
     *
     * @throws UnsupportedOperationException always: a Bloom filter cannot erase a key without risking false "new"
     *                                       answers for other keys that share its bits
     */
    @Override
    public boolean forgetHash(long high, long low, long owner) {
        throw new UnsupportedOperationException(BloomFilter.FORGET_UNSUPPORTED);
    }

    @Override
    public Guarantee guarantee() {
        return Guarantee.NEVER_FALSE_NEW;
    }

    /**
     * Statistics over all generations: the mean fill, the probability that a key never recorded is reported seen by
     * any generation ({@code 1 - prod(1 - fpp_i)}), and the target fpp.
     */
    @Override
    public SeenStats stats() {
        return FilterChains.stats("bloom-windowed", live().filters(), fpp);
    }

    /** The number of most recent keys always held. */
    public long capacity() {
        return capacity;
    }

    /** The false-positive probability bound over all generations. */
    public double targetFpp() {
        return fpp;
    }

    /** Number of generations (G). */
    public int generations() {
        return generations;
    }

    /** Keys recorded per generation before it rotates: {@code ceil(capacity / (G - 1))}. */
    public long perGeneration() {
        return perGeneration;
    }

    /** The time window, or {@link Duration#ZERO} when generations rotate by count only. */
    public Duration window() {
        return Duration.ofMillis(windowMillis);
    }

    /** {@code ceil(capacity / (G - 1))}, without the overflow of the textbook {@code (capacity + G - 2) / (G - 1)}. */
    private static long perGeneration(long capacity, int generations) {
        return Math.ceilDiv(capacity, generations - 1);
    }

    /** The current snapshot, after any rotations the clock calls for. */
    private Snapshot live() {
        Snapshot s = current.get();
        if (windowMillis > 0) {
            long spans = (clock.millis() - s.newestStart()) / spanMillis;
            if (spans > 0) {
                rotate(s, (int) Math.min(spans, generations), s.newestStart() + spans * spanMillis);
                s = current.get();
            }
        }
        return s;
    }

    private static boolean holds(Snapshot s, long high, long low) {
        return FilterChains.anyHolds(s.filters(), high, low);
    }

    /** Puts the key into the newest generation and rotates when it is full; true when a bit was clear. */
    private boolean record(Snapshot s, long high, long low) {
        if (!s.newest().put(high, low)) {
            return false;
        }
        if (s.newestKeys().incrementAndGet() >= perGeneration) {
            rotate(s, 1, windowMillis > 0 ? clock.millis() : 0);
        }
        return true;
    }

    /**
     * Drops the oldest {@code drop} generations of {@code from} and appends as many fresh ones, unless another thread
     * already rotated.
     */
    private void rotate(Snapshot from, int drop, long newestStart) {
        BloomFilter[] next = Arrays.copyOfRange(from.filters(), drop, drop + generations);
        for (int i = generations - drop; i < generations; i++) {
            next[i] = shape.newGeneration();
        }
        current.compareAndSet(from, new Snapshot(next, newestStart, new AtomicLong()));
    }

    // ---- serialisation ----

    /**
     * Writes the filter in deja's windowed bloom format (docs/FORMAT.md section 2.4): a checksummed header, then each
     * generation, oldest first, in the bloom format. Streams; no copy of the generations is made.
     */
    public void writeTo(OutputStream out) throws IOException {
        Require.nonNull("out", out);
        Snapshot s = live();
        byte[] header = new byte[HEADER_BYTES];
        header[5] = BloomFormat.KIND_WINDOWED;
        header[6] = Hash128.HASH_ID_XXH3_128;
        header[7] = (byte) generations;
        BloomFormat.putLong(header, 8, capacity);
        BloomFormat.putLong(header, 16, Double.doubleToRawLongBits(fpp));
        BloomFormat.putLong(header, 24, windowMillis);
        BloomFormat.putLong(header, 32, s.newestStart());
        // A racing add may count past per before its rotation lands; per says the same (full) and reads back.
        BloomFormat.putLong(header, 40, Math.min(s.newestKeys().get(), perGeneration));
        BloomFormat.writeHeader(out, header, FORMAT_VERSION);
        for (BloomFilter f : s.filters()) {
            f.writeTo(out);
        }
    }

    /** {@link #readFrom(InputStream, InstantSource)} with the system clock. */
    public static WindowedBloomFilter readFrom(InputStream in) throws IOException {
        return readFrom(in, Clock.systemUTC());
    }

    /**
     * Reads a filter written by {@link #writeTo}; time windows continue on the given clock (the saved start time is
     * epoch milliseconds, so generations that expired while the filter was on disk rotate on first use).
     *
     * @throws IOException if the stream is not a windowed bloom filter, is corrupt or truncated, or a generation's
     *                     shape does not match the header
     */
    public static WindowedBloomFilter readFrom(InputStream in, InstantSource clock) throws IOException {
        Require.nonNull("in", in);
        Require.nonNull("clock", clock);
        byte[] header = BloomFormat.readHeader(
                in, BloomFormat.KIND_WINDOWED, FORMAT_VERSION, HEADER_BYTES, "windowed bloom filter");
        if (header[6] != Hash128.HASH_ID_XXH3_128) {
            throw new IOException("windowed bloom filter uses unknown hash id " + (header[6] & 0xFF));
        }
        int generations = header[7] & 0xFF;
        long capacity = BloomFormat.getLong(header, 8);
        double fpp = Double.longBitsToDouble(BloomFormat.getLong(header, 16));
        long window = BloomFormat.getLong(header, 24); // a u64 above 2^63 - 1 reads negative and is refused
        long newestStart = BloomFormat.getLong(header, 32);
        long newestKeys = BloomFormat.getLong(header, 40);
        if (window < 0) {
            throw new IOException("windowed bloom filter header holds impossible parameters: a window of "
                    + Long.toUnsignedString(window) + " ms (the most is " + Long.MAX_VALUE + ")");
        }
        long per;
        Shape shape;
        try {
            shape = Shape.of(capacity, fpp, generations, window);
            per = perGeneration(capacity, generations);
            Require.inRange("keys in the newest generation", newestKeys, 0, per);
        } catch (IllegalArgumentException e) {
            throw new IOException("windowed bloom filter header holds impossible parameters: " + e.getMessage(), e);
        }
        // Generation by generation, each shape checked before its bit array is allocated: nothing is built ahead
        // of the bytes that fill it, so a forged header cannot make the reader allocate G filters up front.
        BloomFilter[] filters = new BloomFilter[generations];
        Map<BloomLayout, BloomSize> expectedShapes =
                new EnumMap<>(Map.of(BloomLayout.SECTORED, shape.generationSize()));
        for (int i = 0; i < generations; i++) {
            int generation = i;
            filters[i] = FilterChains.readMember(
                    in, "windowed bloom filter", "generation", i, generations, (layout, bits, hashes) -> {
                        // generations written in format 1 keep its layout, and were sized by its formula
                        BloomSize expected = expectedShapes.computeIfAbsent(
                                layout, l -> BloomSizing.forCapacity(l, per, fpp / generations));
                        if (bits != expected.bits() || hashes != expected.hashes()) {
                            throw new IOException("windowed bloom filter generation " + generation + " has bits=" + bits
                                    + ", hashes=" + hashes + "; the header implies bits=" + expected.bits()
                                    + ", hashes="
                                    + expected.hashes() + " for its layout, " + layout);
                        }
                    });
        }
        Snapshot restored =
                new Snapshot(filters, plausibleStart(newestStart, clock.millis()), new AtomicLong(newestKeys));
        return new WindowedBloomFilter(shape, clock, restored);
    }

    /**
     * The saved start of the newest generation, as the clock can use it. A start after now (saved where the clock
     * ran ahead, or forged: the header's checksum does not prove it was written by deja) would hold up every time
     * rotation until the clock caught up, so keys far older than the window would be answered as seen: it is taken
     * as now. A start before the epoch is taken as the epoch, where every generation has long expired, so that the
     * age computed from it cannot overflow.
     */
    private static long plausibleStart(long saved, long now) {
        return Math.max(0, Math.min(saved, now));
    }

    /** Validated settings for a {@link WindowedBloomFilter}. */
    public static final class Builder {

        private long capacity = -1;
        private double fpp = Double.NaN;
        private int generations = 4;
        private Duration window = Duration.ZERO;
        private InstantSource clock = Clock.systemUTC();

        private Builder() {}

        /** The number of most recent keys always held; must be > 0. */
        public Builder capacity(long capacity) {
            this.capacity = Require.positive("capacity", capacity);
            return this;
        }

        /** The false-positive probability bound over all generations, in (0, 1). */
        public Builder fpp(double fpp) {
            this.fpp = Require.probability("fpp", fpp);
            return this;
        }

        /** Number of generations G, in [2, 64]; more generations waste less memory on the oldest, but cost lookups. */
        public Builder generations(int generations) {
            Require.inRange("generations", generations, 2, MAX_GENERATIONS);
            this.generations = generations;
            return this;
        }

        /**
         * Also hold every key of the last {@code window}: from 1 ms to 2^63 - 1 ms (counted in whole milliseconds,
         * rounded down), and at least one millisecond per generation after the first.
         */
        public Builder window(Duration window) {
            Require.nonNull("window", window);
            if (window.compareTo(Duration.ofMillis(1)) < 0 || window.compareTo(MAX_WINDOW) > 0) {
                throw new IllegalArgumentException(
                        "window must be in [1 ms, " + Long.MAX_VALUE + " ms] (got " + window + ")");
            }
            this.window = window;
            return this;
        }

        /** The clock time windows are measured on; defaults to the system clock. */
        public Builder clock(InstantSource clock) {
            this.clock = Require.nonNull("clock", clock);
            return this;
        }

        /**
         * The filter.
         *
         * @throws IllegalArgumentException if capacity or fpp is missing, the window is shorter than one millisecond
         *                                  per generation, or a generation would exceed the largest filter
         */
        public WindowedBloomFilter build() {
            if (capacity < 0 || Double.isNaN(fpp)) {
                throw new IllegalArgumentException("a windowed bloom filter needs capacity and fpp (got capacity="
                        + capacity + ", fpp=" + fpp + ")");
            }
            long windowMillis = window.toMillis();
            Shape shape = Shape.of(capacity, fpp, generations, windowMillis);
            Snapshot fresh =
                    new Snapshot(shape.newGenerations(), windowMillis > 0 ? clock.millis() : 0, new AtomicLong());
            return new WindowedBloomFilter(shape, clock, fresh);
        }
    }
}
