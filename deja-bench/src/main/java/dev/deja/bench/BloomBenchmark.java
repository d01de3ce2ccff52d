package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import dev.deja.seen.Verdict;
import dev.deja.sizing.BloomLayout;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.Blackhole;

/**
 * check, add and checkThenAdd of deja's blocked Bloom filter beside Guava's {@code BloomFilter} at the same capacity
 * and fpp, in cache (about 1 MiB) and out of cache (about 1 GiB), single-threaded.
 *
 * <p>Both filters start at their design fill ({@link DesignFill}) and then hold the even keys of a 2^20-key pool
 * ({@link KeyPool#held()}), put in without the single calls measured here (the filter's batch form for deja, its
 * serialised form for Guava), so that HotSpot compiles those calls for the stream they are measured on. {@code check}
 * walks every key of the pool, alternating between a present and an absent one; {@code add} and
 * {@code checkThenAdd} walk the held keys only: a stream of duplicate deliveries ({@link BloomNewKeyBenchmark} measures
 * new keys, {@link BloomMixBenchmark} a stream of duplicates with one new key in sixteen). Guava has no checkThenAdd;
 * its {@code put}, which returns whether any bit changed, is the analogue measured. Method names put the operation
 * first so that JMH, which runs benchmarks in name order, measures each deja/Guava pair back to back, under the same
 * machine load.
 *
 * <p>Why the held keys are not put in through {@code add}: a method HotSpot has compiled while it inserted keys keeps
 * the insertion compiled beside the lookup, so its duplicate calls would be measured on code compiled for a stream of
 * new keys, not for the stream of duplicates they run on (docs/BENCHMARKS.md, section Duplicates measured on code
 * compiled for them). For the same reason every key a duplicate stream meets is held before its first pass.
 *
 * <p>The {@code batch*} benchmarks pass 64 keys per call to deja's batch forms ({@code checkAll}, {@code addAll},
 * {@code checkThenAddAll}), which hash every key and then test every block, so the cache misses of one batch
 * overlap; Guava has no batch form, so its side is the loop a caller would write over the same 64 keys (held keys
 * for add and checkThenAdd, as for the single calls). Scores are per key in both families, so the two comparisons
 * sit side by side: single calls against single calls (like for like), and deja's batch API against the Guava loop
 * (the comparison a caller who batches sees).
 * {@link BloomBatchSizeBenchmark} shows how the batch gain depends on the batch size.
 *
 * <p>The forks touch their whole heap at start ({@code -XX:+AlwaysPreTouch}), so that whether a 1 GiB filter lies on
 * transparent huge pages does not change from one iteration to the next, and with it the cost of its cache misses.
 * They add the Vector API's module, as
 * {@code ./deja serve} does, so deja's filter tests its blocks with vectors ({@code VectorBlocks}).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "--add-modules=jdk.incubator.vector"})
public class BloomBenchmark {

    /**
     * deja's filter at one of the two shapes, in the layout of new filters (sectored) unless
     * {@code -p layout=SCATTERED} asks for a filter read from format 1, to compare the two in one run.
     */
    @State(Scope.Thread)
    public static class Deja {
        @Param
        BloomShape shape;

        @Param("SECTORED")
        BloomLayout layout = BloomLayout.SECTORED;

        dev.deja.bloom.BloomFilter filter;
        KeyPool keys;

        @Setup(Level.Trial)
        public void setUp(BenchmarkParams run) throws IOException {
            fill(DesignFill.Insert.avoiding(run));
        }

        /** The setup outside JMH ({@code BloomPairedRun}), whose loops make single calls only. */
        public void setUp() throws IOException {
            fill(DesignFill.Insert.CHECK_THEN_ADD_ALL);
        }

        private void fill(DesignFill.Insert via) throws IOException {
            keys = new KeyPool(2);
            filter = DesignFill.deja(shape, layout, keys.held(), via);
        }
    }

    /** Guava's filter at the same capacity and fpp. */
    @State(Scope.Thread)
    public static class Guava {
        @Param
        BloomShape shape;

        BloomFilter<byte[]> filter;
        KeyPool keys;

        @Setup(Level.Trial)
        public void setUp() throws IOException {
            keys = new KeyPool(2);
            filter = DesignFill.guava(shape, keys.held());
        }
    }

    @Benchmark
    public boolean checkDeja(Deja s) {
        return s.filter.check(s.keys.next());
    }

    @Benchmark
    public boolean checkGuava(Guava s) {
        return s.filter.mightContain(s.keys.next());
    }

    @Benchmark
    public void addDeja(Deja s) {
        s.filter.add(s.keys.nextHeld());
    }

    @Benchmark
    public boolean addGuava(Guava s) {
        return s.filter.put(s.keys.nextHeld());
    }

    @Benchmark
    public Verdict checkThenAddDeja(Deja s) {
        return s.filter.checkThenAdd(s.keys.nextHeld());
    }

    /** Guava's analogue of checkThenAdd: {@code put} returns true when some bit changed, i.e. the key looked new. */
    @Benchmark
    public boolean checkThenAddGuava(Guava s) {
        return s.filter.put(s.keys.nextHeld());
    }

    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public boolean[] batchCheckDeja(Deja s) {
        return s.filter.checkAll(s.keys.nextBatch());
    }

    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public boolean[] batchCheckGuava(Guava s) {
        List<byte[]> batch = s.keys.nextBatch();
        boolean[] out = new boolean[batch.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = s.filter.mightContain(batch.get(i));
        }
        return out;
    }

    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public void batchAddDeja(Deja s) {
        s.filter.addAll(s.keys.nextHeldBatch());
    }

    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public void batchAddGuava(Guava s, Blackhole bh) {
        for (byte[] key : s.keys.nextHeldBatch()) {
            bh.consume(s.filter.put(key));
        }
    }

    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public Verdict[] batchCheckThenAddDeja(Deja s) {
        return s.filter.checkThenAddAll(s.keys.nextHeldBatch());
    }

    /** Guava's analogue of a checkThenAdd batch: {@code put} for each key, collecting whether it looked new. */
    @Benchmark
    @OperationsPerInvocation(KeyPool.BATCH)
    public boolean[] batchCheckThenAddGuava(Guava s) {
        List<byte[]> batch = s.keys.nextHeldBatch();
        boolean[] out = new boolean[batch.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = s.filter.put(batch.get(i));
        }
        return out;
    }
}
