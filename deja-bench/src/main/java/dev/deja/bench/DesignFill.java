package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import dev.deja.sizing.BloomLayout;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * deja's and Guava's filters at one shape, each at its design fill, and then holding the keys a benchmark asks for:
 * the in-cache ones by inserting {@code capacity} keys, the 1 GiB ones by loading bits that are each set with
 * probability 1/2 (inserting 5e8 keys would take each fork far longer than what it measures).
 *
 * <p>No key goes in through the single calls a benchmark measures ({@code add}, {@code checkThenAdd}, Guava's
 * {@code put}): HotSpot compiles them for the branch profile of the calls they have seen, and a setup inserting
 * millions of new keys through them would compile for new keys the very methods then measured on duplicates. deja's
 * filter takes its keys through a batch form the fork does not measure ({@link Insert}), Guava's through its
 * serialised form ({@link GuavaFill}).
 */
final class DesignFill {

    private DesignFill() {}

    /**
     * The batch form through which deja's filter takes a setup's keys: each loop is compiled on its own, so a fork
     * measuring one of them takes its keys through the other.
     */
    enum Insert {
        /** {@code checkThenAddAll}: its own loop, with no single call inside. */
        CHECK_THEN_ADD_ALL,
        /** {@code addAll}: a loop over {@code add}'s hashed form, for forks that measure {@code checkThenAddAll}. */
        ADD_ALL;

        /** The form the benchmark {@code run} does not measure. */
        static Insert avoiding(BenchmarkParams run) {
            return run.getBenchmark().contains("batchCheckThenAdd") ? ADD_ALL : CHECK_THEN_ADD_ALL;
        }

        void into(dev.deja.bloom.BloomFilter filter, List<byte[]> keys) {
            if (this == ADD_ALL) {
                filter.addAll(keys);
            } else {
                filter.checkThenAddAll(keys, null);
            }
        }
    }

    /**
     * The key pool of the single-JVM harnesses and deja's and Guava's 1 GiB filters at their design fill, both
     * holding the pool's held keys (deja's taken in through {@code checkThenAddAll}, which no harness measures).
     */
    record OutOfCache(KeyPool pool, dev.deja.bloom.BloomFilter deja, BloomFilter<byte[]> guava) {

        static OutOfCache filled() throws IOException {
            KeyPool pool = new KeyPool(2);
            return new OutOfCache(
                    pool,
                    DesignFill.deja(
                            BloomShape.OUT_OF_CACHE, BloomLayout.SECTORED, pool.held(), Insert.CHECK_THEN_ADD_ALL),
                    DesignFill.guava(BloomShape.OUT_OF_CACHE, pool.held()));
        }
    }

    /** deja's filter at its design fill, in the given layout (format 1's for {@link BloomLayout#SCATTERED}). */
    static dev.deja.bloom.BloomFilter deja(BloomShape shape, BloomLayout layout) throws IOException {
        return deja(shape, layout, List.of(), Insert.CHECK_THEN_ADD_ALL);
    }

    /** {@link #deja(BloomShape, BloomLayout)}, then holding {@code held} too, every key inserted {@code via}. */
    static dev.deja.bloom.BloomFilter deja(BloomShape shape, BloomLayout layout, List<byte[]> held, Insert via)
            throws IOException {
        dev.deja.bloom.BloomFilter filter;
        if (layout == BloomLayout.SCATTERED) {
            filter = FormatOneFilters.sized(shape.capacity, shape.fpp, shape == BloomShape.OUT_OF_CACHE);
        } else {
            filter = dev.deja.bloom.BloomFilter.builder()
                    .capacity(shape.capacity)
                    .fpp(shape.fpp)
                    .build();
        }
        if (shape == BloomShape.IN_CACHE) {
            via.into(filter, fillKeys(shape));
        } else if (layout == BloomLayout.SECTORED) {
            HalfFullBits bits = new HalfFullBits(filter.sizeInBytes(), 1);
            byte[] buffer = new byte[1 << 20];
            for (long offset = 0; offset < filter.sizeInBytes(); offset += buffer.length) {
                int n = bits.read(buffer, 0, (int) Math.min(buffer.length, filter.sizeInBytes() - offset));
                filter.loadBits(offset, buffer, 0, n);
            }
        }
        via.into(filter, held);
        return filter;
    }

    /** Guava's filter at the same capacity and fpp, at its design fill. */
    static BloomFilter<byte[]> guava(BloomShape shape) throws IOException {
        return guava(shape, List.of());
    }

    /** {@link #guava(BloomShape)}, then holding {@code held} too. */
    static BloomFilter<byte[]> guava(BloomShape shape, List<byte[]> held) throws IOException {
        if (shape == BloomShape.IN_CACHE) {
            List<byte[]> keys = new ArrayList<>(fillKeys(shape));
            keys.addAll(held);
            return GuavaFill.filter(shape.capacity, shape.fpp, /* halfFull= */ false, keys);
        }
        return GuavaFill.filter(shape.capacity, shape.fpp, /* halfFull= */ true, held);
    }

    /** The in-cache filters' fill: {@code capacity} keys of their own pool. */
    private static List<byte[]> fillKeys(BloomShape shape) {
        KeyPool fill = new KeyPool(1);
        return java.util.stream.IntStream.range(0, (int) shape.capacity)
                .mapToObj(fill::get)
                .toList();
    }
}
