package dev.deja.bench;

import dev.deja.recent.RecentFilter;
import dev.deja.seen.SeenSet;
import dev.deja.seen.Verdict;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The lookup cost of associativity: {@code recent} operations on pre-hashed keys for each number of ways, at the
 * same memory (2^22 buckets, 32 MiB, larger than the caches), so the difference is the work inside a set.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class RecentFilterBench {

    private static final int KEYS = 1 << 20;
    private static final int MASK = KEYS - 1;

    @Param({"1", "2", "4", "8", "16"})
    public int ways;

    private RecentFilter filter;
    private final long[] high = new long[KEYS];
    private final long[] low = new long[KEYS];
    private long fresh;
    private int next;

    @Setup
    public void setUp() {
        filter = RecentFilter.builder().buckets(1 << 22).ways(ways).build();
        SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < KEYS; i++) {
            high[i] = random.nextLong();
            low[i] = random.nextLong();
        }
        for (long i = 0; i < 1 << 22; i++) { // fill every set first: a full filter is the steady state
            filter.addHash(random.nextLong(), random.nextLong(), SeenSet.NO_OWNER);
        }
        for (int i = 0; i < KEYS; i++) {
            filter.addHash(high[i], low[i], SeenSet.NO_OWNER);
        }
        fresh = random.nextLong();
    }

    /** A lookup of one of the last 2^20 keys added: mostly hits, found somewhere in the set. */
    @Benchmark
    public boolean checkHeld() {
        int i = next++ & MASK;
        return filter.checkHash(high[i], low[i]);
    }

    /** Check-and-set of a new key: a full scan of the set, then the shift that makes room. */
    @Benchmark
    public Verdict checkThenAddNew() {
        fresh += 0x9E3779B97F4A7C15L;
        return filter.checkThenAddHash(fresh * 0xBF58476D1CE4E5B9L, fresh ^ (fresh >>> 31), SeenSet.NO_OWNER);
    }
}
