package dev.deja.bench;

import java.util.SplittableRandom;

/**
 * Pre-generated random 16-byte keys walked with a cheap counter, so key generation does not dominate a benchmark.
 * Keys at even indexes are the ones a benchmark adds before measuring; odd ones were never added.
 */
final class KeyPool {

    static final int SIZE = 1 << 20;

    private final byte[][] keys = new byte[SIZE][16];
    private int next;

    KeyPool(long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
    }

    byte[] get(int i) {
        return keys[i];
    }

    /** The next key in the cycle. */
    byte[] next() {
        return keys[next++ & (SIZE - 1)];
    }
}
