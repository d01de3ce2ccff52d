package dev.deja.bench;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * Pre-generated random 16-byte keys walked with a cheap counter, so key generation does not dominate a benchmark.
 * Keys at even indexes are the ones a benchmark adds before measuring; odd ones were never added.
 */
final class KeyPool {

    static final int SIZE = 1 << 20;
    /** Keys per batch in the batch benchmarks. */
    static final int BATCH = 64;

    private final byte[][] keys = new byte[SIZE][16];
    private final List<List<byte[]>> batches;
    private int next;
    private int nextBatch;

    KeyPool(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        List<byte[]> all = Arrays.asList(keys);
        batches = java.util.stream.IntStream.range(0, SIZE / BATCH)
                .mapToObj(i -> all.subList(i * BATCH, (i + 1) * BATCH)).toList();
    }

    byte[] get(int i) {
        return keys[i];
    }

    /** The next {@link #BATCH} consecutive keys in the cycle. */
    List<byte[]> nextBatch() {
        return batches.get(nextBatch++ & (SIZE / BATCH - 1));
    }

    /** The next key in the cycle. */
    byte[] next() {
        return keys[next++ & (SIZE - 1)];
    }
}
