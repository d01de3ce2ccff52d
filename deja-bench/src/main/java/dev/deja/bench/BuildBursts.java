package dev.deja.bench;

import dev.deja.bloom.BloomFilter;
import dev.deja.seen.Verdict;
import java.io.IOException;
import java.util.function.IntToLongFunction;

/**
 * Bursts of single calls on one deja filter of {@link BloomBenchmark}'s (its shape, keys and fill):
 * {@link #applyAsLong} makes {@link KeyPool#SIZE} calls of check (0), add (1) or checkThenAdd (2).
 *
 * <p>{@link BloomPairedRun} runs this class as compiled here and, to compare builds, as loaded into the classes of
 * another build's {@code benchmarks.jar} ({@link BuildLoader}). So it uses only what every build since the first
 * {@code BloomBenchmark} has: the {@code shape} of {@code BloomBenchmark.Deja} and the seen-set calls; it refers to
 * no other class of this build, and an older build runs it against its own.
 */
public final class BuildBursts implements IntToLongFunction {

    private final BloomFilter filter;
    private final KeyPool keys;

    /** deja's filter of {@code BloomBenchmark} at this shape, in the layout of new filters. */
    public BuildBursts(String shape) throws IOException {
        BloomBenchmark.Deja state = new BloomBenchmark.Deja();
        state.shape = BloomShape.valueOf(shape);
        state.setUp();
        filter = state.filter;
        keys = state.keys;
    }

    /** The filter of this build's {@link BloomBenchmark}, for a caller that chose its layout. */
    BuildBursts(BloomFilter filter, KeyPool keys) {
        this.filter = filter;
        this.keys = keys;
    }

    /** One burst of the operation; the answers summed, so no call can be dropped as dead code. */
    @Override
    public long applyAsLong(int operation) {
        return switch (operation) {
            case 0 -> check(filter, keys);
            case 1 -> add(filter, keys);
            default -> checkThenAdd(filter, keys);
        };
    }

    // One method per loop, so that each is compiled with its own profile, as a JMH benchmark method is.

    private static long check(BloomFilter filter, KeyPool keys) {
        long n = 0;
        for (int i = 0; i < KeyPool.SIZE; i++) {
            n += filter.check(keys.next()) ? 1 : 0;
        }
        return n;
    }

    private static long add(BloomFilter filter, KeyPool keys) {
        for (int i = 0; i < KeyPool.SIZE; i++) {
            filter.add(keys.next());
        }
        return KeyPool.SIZE;
    }

    private static long checkThenAdd(BloomFilter filter, KeyPool keys) {
        long n = 0;
        for (int i = 0; i < KeyPool.SIZE; i++) {
            n += filter.checkThenAdd(keys.next()) == Verdict.NEW ? 1 : 0;
        }
        return n;
    }
}
