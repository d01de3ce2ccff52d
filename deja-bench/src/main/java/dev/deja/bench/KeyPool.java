package dev.deja.bench;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.stream.IntStream;

/**
 * Pre-generated random 16-byte keys walked with a cheap counter, so key generation does not dominate a benchmark.
 * Keys at even indexes are the ones a benchmark's filters hold before measuring ({@link #held()}); odd ones were never
 * added. {@link #next()} and {@link #nextBatch()} walk every key, so half of what they give is held;
 * {@link #nextHeld()} and {@link #nextHeldBatch()} walk the held keys only, a stream of duplicate deliveries.
 */
final class KeyPool {

    static final int SIZE = 1 << 20;
    /** Keys per batch in the batch benchmarks. */
    static final int BATCH = 64;

    private final byte[][] keys = new byte[SIZE][16];
    private final List<List<byte[]>> batches;
    private final List<byte[]> held;
    private final List<List<byte[]>> heldBatches;
    private int next;
    private int nextBatch;

    KeyPool(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        batches = batchesOf(Arrays.asList(keys));
        held = IntStream.range(0, SIZE / 2).mapToObj(i -> keys[2 * i]).toList();
        heldBatches = batchesOf(held);
    }

    private static List<List<byte[]>> batchesOf(List<byte[]> keys) {
        return IntStream.range(0, keys.size() / BATCH)
                .mapToObj(i -> keys.subList(i * BATCH, (i + 1) * BATCH))
                .toList();
    }

    byte[] get(int i) {
        return keys[i];
    }

    /** The keys at even indexes, which the benchmarks' filters hold. */
    List<byte[]> held() {
        return held;
    }

    /** The next key in the cycle over every key. */
    byte[] next() {
        return keys[next++ & (SIZE - 1)];
    }

    /** The next held key: the even keys, in a cycle. */
    byte[] nextHeld() {
        return heldAt(next += 2);
    }

    /** The held key at even index {@code i} of the cycle over the pool, for walkers keeping their own count. */
    byte[] heldAt(int i) {
        return keys[i & (SIZE - 2)];
    }

    /** The next {@link #BATCH} consecutive keys in the cycle over every key. */
    List<byte[]> nextBatch() {
        return batches.get(nextBatch++ & (SIZE / BATCH - 1));
    }

    /** The next {@link #BATCH} held keys, in a cycle. */
    List<byte[]> nextHeldBatch() {
        return heldBatches.get(nextBatch++ & (SIZE / 2 / BATCH - 1));
    }
}
