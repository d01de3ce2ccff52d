package dev.deja.bench;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.SplittableRandom;

/**
 * Random bytes in which every bit is set with probability 1/2: the fill of a Bloom filter at its design capacity,
 * produced as fast as random bytes are rather than by inserting 5e8 keys.
 */
final class HalfFullBits extends InputStream {

    private final long length;
    private final SplittableRandom random;
    private long position;

    HalfFullBits(long length, long seed) {
        this.length = length;
        this.random = new SplittableRandom(seed);
    }

    /**
     * {@code length} bytes of a filter's bit array: half full (random seed 1), or all zero (held in memory: small
     * filters only).
     */
    static InputStream orZeros(long length, boolean halfFull) {
        return halfFull ? new HalfFullBits(length, 1) : new ByteArrayInputStream(new byte[Math.toIntExact(length)]);
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (position >= length) {
            return -1;
        }
        int n = (int) Math.min(len, length - position);
        for (int i = 0; i < n; i++) {
            b[off + i] = (byte) random.nextInt(256);
        }
        position += n;
        return n;
    }
}
