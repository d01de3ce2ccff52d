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
 * <p>Every call takes a fresh 16-byte key from a counter (two SplitMix64 words, written into one reused array), the
 * same generator for both filters, so its cost, a few nanoseconds, is in both scores. Out of cache only: a 1 MiB
 * filter taking millions of new keys a second would be saturated within a second, and every key would then read as
 * held. The 1 GiB filters start at their design fill ({@link DesignFill}) and take about 10^8 further keys in a run,
 * which raises their fill but not the cost of a call.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch",
    "--add-modules=jdk.incubator.vector"})
public class BloomNewKeyBenchmark {

    /** Keys that no filter has held: 16 bytes from a counter, in one array each call overwrites. */
    @State(Scope.Thread)
    public static class FreshKeys {
        private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
                ByteOrder.LITTLE_ENDIAN);
        private final byte[] key = new byte[16];
        private long counter;

        /** The keys of series 0, the ones the benchmarks of this class measure. */
        public FreshKeys() {
        }

        /**
         * The keys of another series: two series share no key within their first 2^48 keys, since their counters
         * start a multiple of 2^48 apart and step by an odd number.
         */
        FreshKeys(int series) {
            counter = (long) series << 48;
        }

        byte[] next() {
            long a = mix(counter += 0x9E3779B97F4A7C15L);
            LONG.set(key, 0, a);
            LONG.set(key, 8, mix(a ^ 0x5DEECE66DL));
            return key;
        }

        /** The SplitMix64 finaliser. */
        private static long mix(long z) {
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            return z ^ (z >>> 31);
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
