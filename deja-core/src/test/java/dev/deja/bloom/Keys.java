package dev.deja.bloom;

import java.util.SplittableRandom;

/** Deterministic random 16-byte keys for statistical tests. */
final class Keys {

    private Keys() {}

    /** {@code n} random 16-byte keys from the seed; distinct seeds give disjoint keys with overwhelming probability. */
    static byte[][] random(long seed, int n) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[][] keys = new byte[n][16];
        for (byte[] key : keys) {
            random.nextBytes(key);
        }
        return keys;
    }
}
