package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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
 * How the per-key cost of deja's {@code checkAll} depends on the batch size, against single {@code check} calls
 * and Guava's {@code mightContain} on the same keys: whether batching lets the cache misses of different keys
 * overlap.
 *
 * <p>Every invocation checks {@value #KEYS} keys, as {@code KEYS / batch} calls of {@code checkAll}, so the scores
 * are per key and comparable across batch sizes. The filters are those of {@link BloomBenchmark}, at its design fill.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
        value = 1,
        jvmArgsAppend = {"-Xms4g", "-Xmx4g", "-XX:+AlwaysPreTouch", "--add-modules=jdk.incubator.vector"})
public class BloomBatchSizeBenchmark {

    /** Keys checked per invocation; a multiple of every batch size. */
    static final int KEYS = 256;

    /** deja's filter with the key pool cut into batches of one size. */
    @State(Scope.Thread)
    public static class Batches extends BloomBenchmark.Deja {
        @Param({"1", "16", "64", "256"})
        int batch;

        List<List<byte[]>> batches;
        int next;

        @Override
        @Setup(Level.Trial)
        public void setUp(BenchmarkParams run) throws IOException {
            super.setUp(run);
            List<byte[]> all =
                    IntStream.range(0, KeyPool.SIZE).mapToObj(keys::get).toList();
            batches = IntStream.range(0, KeyPool.SIZE / batch)
                    .mapToObj(i -> all.subList(i * batch, (i + 1) * batch))
                    .toList();
        }

        List<byte[]> nextBatch() {
            return batches.get(next++ & (batches.size() - 1));
        }
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public void checkAllDeja(Batches s, Blackhole bh) {
        for (int i = 0; i < KEYS / s.batch; i++) {
            bh.consume(s.filter.checkAll(s.nextBatch()));
        }
    }

    /** The same keys through single {@code check} calls; the batch size does not matter here. */
    @Benchmark
    @OperationsPerInvocation(KEYS)
    public void checkSingleDeja(BloomBenchmark.Deja s, Blackhole bh) {
        for (int i = 0; i < KEYS; i++) {
            bh.consume(s.filter.check(s.keys.next()));
        }
    }

    @Benchmark
    @OperationsPerInvocation(KEYS)
    public void checkSingleGuava(BloomBenchmark.Guava s, Blackhole bh) {
        BloomFilter<byte[]> filter = s.filter;
        for (int i = 0; i < KEYS; i++) {
            bh.consume(filter.mightContain(s.keys.next()));
        }
    }
}
