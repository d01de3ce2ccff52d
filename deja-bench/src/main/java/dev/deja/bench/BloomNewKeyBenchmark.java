package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * add and checkThenAdd of keys never seen before, the common case of a de-duplication stream (most deliveries are
 * first deliveries), on the 1 GiB filters of {@link BloomBenchmark}, deja beside Guava, single-threaded.
 * {@link BloomBenchmark}'s add and checkThenAdd measure the other case, a key already held.
 *
 * <p>Every call takes a fresh 16-byte key from a counter ({@link FreshKeys}, written into one reused array), the
 * same generator for both filters, so its small cost is in both scores. Out of cache only: a 1 MiB
 * filter taking millions of new keys a second would be saturated within a second, and every key would then read as
 * held. The 1 GiB filters start at their design fill ({@link DesignFill}) and take about 10^8 further keys in a run,
 * which raises their fill but not the cost of a call.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "--add-modules=jdk.incubator.vector"})
public class BloomNewKeyBenchmark {

    /**
     * Keys that no filter has held, 16 bytes in one array each call overwrites: a counter in the first eight bytes,
     * stepping by an odd number, so no key repeats within 2^64 calls, and the series in the last eight, so no two
     * series share a key. The filters' hashes mix every byte, so keys need not look random to land on random blocks.
     * One eight-byte store per key, as the hash reads it eight bytes at a time: a key written byte by byte would make
     * each of those reads wait for the byte stores before it, a cost of the generator's that the score would count as
     * the filter's.
     */
    @State(Scope.Thread)
    public static class FreshKeys {
        private static final VarHandle LONG =
                MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
        /** The counter's step: odd (the golden ratio's), so the counter takes 2^64 values before it repeats. */
        static final long STEP = 0x9E3779B97F4A7C15L;

        private final byte[] key = new byte[16];
        private long counter;

        /** The keys of series 0, the ones the benchmarks of this class measure. */
        public FreshKeys() {
            this(0);
        }

        /** The keys of another series, none of which any other series gives. */
        FreshKeys(int series) {
            LONG.set(key, 8, (long) series);
        }

        byte[] next() {
            LONG.set(key, 0, counter += STEP);
            return key;
        }
    }

    /** deja's 1 GiB filter at its design fill. */
    @State(Scope.Thread)
    public static class Deja {
        dev.deja.bloom.BloomFilter filter;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            filter = DesignFill.deja(BloomShape.OUT_OF_CACHE, BloomLayout.SECTORED);
        }
    }

    /** Guava's filter at the same capacity and fpp. */
    @State(Scope.Thread)
    public static class Guava {
        BloomFilter<byte[]> filter;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            filter = DesignFill.guava(BloomShape.OUT_OF_CACHE);
        }
    }

    @Benchmark
    public void addNewDeja(Deja s, FreshKeys k) {
        s.filter.add(k.next());
    }

    @Benchmark
    public boolean addNewGuava(Guava s, FreshKeys k) {
        return s.filter.put(k.next());
    }

    @Benchmark
    public Verdict checkThenAddNewDeja(Deja s, FreshKeys k) {
        return s.filter.checkThenAdd(k.next());
    }

    /** Guava has no checkThenAdd; {@code put} returns whether any bit changed, the analogue. */
    @Benchmark
    public boolean checkThenAddNewGuava(Guava s, FreshKeys k) {
        return s.filter.put(k.next());
    }
}
