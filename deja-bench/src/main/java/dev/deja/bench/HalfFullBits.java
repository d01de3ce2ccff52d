package dev.deja.bench;

import java.io.InputStream;
import java.util.SplittableRandom;

/**
 * Random bytes in which every bit is set with probability 1/2: the fill of a Bloom filter at its design capacity,
 * produced in seconds instead of inserting 5e8 keys. Optionally preceded by a fixed header, so Guava's
 * {@code BloomFilter.readFrom} can load it.
 */
final class HalfFullBits extends InputStream {

    private final byte[] header;
    private final long randomBytes;
    private final SplittableRandom random;
    private long position;

    HalfFullBits(byte[] header, long randomBytes, long seed) {
        this.header = header;
        this.randomBytes = randomBytes;
        this.random = new SplittableRandom(seed);
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        long total = header.length + randomBytes;
        if (position >= total) {
            return -1;
        }
        int n = (int) Math.min(len, total - position);
        for (int i = 0; i < n; i++, position++) {
            b[off + i] = position < header.length ? header[(int) position] : (byte) random.nextInt(256);
        }
        return n;
    }
}
