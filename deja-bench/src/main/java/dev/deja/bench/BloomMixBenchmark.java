package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * check, add and checkThenAdd on a stream of duplicate deliveries with a new key every {@code newEvery} calls (one in
 * sixteen unless {@code -p newEvery=...} says otherwise), out of cache, deja beside Guava, single-threaded: between
 * {@link BloomBenchmark}'s stream of duplicates only and {@link BloomNewKeyBenchmark}'s of new keys only, and the
 * shape of a de-duplication stream whose redeliveries are common.
 *
 * <p>The stream is a {@link DuplicateStream}: the held keys of {@link KeyPool}, and new keys from
 * {@link BloomNewKeyBenchmark.FreshKeys}; the filters are {@link BloomBenchmark}'s 1 GiB ones, holding the same keys,
 * filled the same way ({@link DesignFill}), so the methods measured are compiled for this stream from its first call.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "--add-modules=jdk.incubator.vector"})
public class BloomMixBenchmark {

    /** Held keys, and a fresh key in place of every {@code newEvery}-th ({@link DuplicateStream}). */
    @State(Scope.Thread)
    public static class Stream {
        /** A new key in place of every {@code newEvery}-th held key; 0 for a stream of duplicates only. */
        @Param("16")
        int newEvery;

        final KeyPool keys = new KeyPool(2);
        private DuplicateStream deliveries;

        @Setup(Level.Trial)
        public void setUp() {
            deliveries = new DuplicateStream(keys, newEvery, 0);
        }

        byte[] next() {
            return deliveries.next();
        }
    }

    /** deja's 1 GiB filter at its design fill, holding the stream's duplicates. */
    @State(Scope.Thread)
    public static class Deja {
        dev.deja.bloom.BloomFilter filter;

        @Setup(Level.Trial)
        public void setUp(Stream stream) throws IOException {
            filter = DesignFill.deja(
                    BloomShape.OUT_OF_CACHE,
                    BloomLayout.SECTORED,
                    stream.keys.held(),
                    DesignFill.Insert.CHECK_THEN_ADD_ALL);
        }
    }

    /** Guava's filter at the same capacity and fpp, holding the same keys. */
    @State(Scope.Thread)
    public static class Guava {
        BloomFilter<byte[]> filter;

        @Setup(Level.Trial)
        public void setUp(Stream stream) throws IOException {
            filter = DesignFill.guava(BloomShape.OUT_OF_CACHE, stream.keys.held());
        }
    }

    @Benchmark
    public boolean checkDeja(Deja s, Stream keys) {
        return s.filter.check(keys.next());
    }

    @Benchmark
    public boolean checkGuava(Guava s, Stream keys) {
        return s.filter.mightContain(keys.next());
    }

    @Benchmark
    public void addDeja(Deja s, Stream keys) {
        s.filter.add(keys.next());
    }

    @Benchmark
    public boolean addGuava(Guava s, Stream keys) {
        return s.filter.put(keys.next());
    }

    @Benchmark
    public Verdict checkThenAddDeja(Deja s, Stream keys) {
        return s.filter.checkThenAdd(keys.next());
    }

    /** Guava has no checkThenAdd; {@code put} returns whether any bit changed, the analogue. */
    @Benchmark
    public boolean checkThenAddGuava(Guava s, Stream keys) {
        return s.filter.put(keys.next());
    }
}
