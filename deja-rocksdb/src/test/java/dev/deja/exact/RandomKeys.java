package dev.deja.exact;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Reproducible random 16-byte keys for the exact store's tests. */
final class RandomKeys {

    private RandomKeys() {}

    /** {@code n} keys of 16 random bytes, the same for the same seed. */
    static List<byte[]> of(int n, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        List<byte[]> keys = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            keys.add(ByteBuffer.allocate(16)
                    .putLong(random.nextLong())
                    .putLong(random.nextLong())
                    .array());
        }
        return keys;
    }
}
