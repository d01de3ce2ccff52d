package dev.deja.bloom;

import dev.deja.checks.Require;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads Bloom filters serialised by Guava's {@code BloomFilter.writeTo}, for migrating them to deja without Guava.
 */
public final class GuavaBloomFilters {

    /** Words allocated before any is read: 8192 (64 KiB); the array then doubles as the words arrive. */
    private static final int FIRST_WORDS = 1 << 13;

    private GuavaBloomFilters() {}

    /**
     * Reads one filter: a strategy byte, an unsigned byte {@code k}, a big-endian int {@code n}, then {@code n}
     * big-endian longs (docs/FORMAT.md section 2.5). Reads nothing past it. The word array grows as the words
     * arrive, so a stream claiming more words than it holds ends in an {@link EOFException} having allocated at
     * most about twice what it held, not the claimed 8n bytes.
     *
     * @throws IOException if the stream is truncated, names a strategy other than {@code MURMUR128_MITZ_64} (1),
     *                     or holds an impossible {@code k} (0) or length (not positive)
     */
    public static GuavaBloomFilter read(InputStream in, GuavaBloomFilter.Funnel funnel) throws IOException {
        Require.nonNull("in", in);
        Require.nonNull("funnel", funnel);
        DataInputStream din = new DataInputStream(in);
        int strategy;
        int hashes;
        int longs;
        try {
            strategy = din.readUnsignedByte();
            hashes = din.readUnsignedByte();
            longs = din.readInt();
        } catch (EOFException e) {
            throw new EOFException("truncated Guava bloom filter stream: the 6-byte header is cut short");
        }
        if (strategy != GuavaBloomFilter.MURMUR128_MITZ_64) {
            throw new IOException("Guava bloom filter uses strategy " + strategy + "; only MURMUR128_MITZ_64 (1) "
                    + "is supported (0 = MURMUR128_MITZ_32 was written only by Guava 11-13)");
        }
        if (hashes == 0) {
            throw new IOException("Guava bloom filter has 0 hash functions; the stream is corrupt");
        }
        if (longs <= 0) {
            throw new IOException("Guava bloom filter has " + longs + " data words; must be > 0");
        }
        return new GuavaBloomFilter(readWords(din, longs), hashes, funnel);
    }

    /** The {@code count} words, in an array grown by doubling as they arrive. */
    private static long[] readWords(DataInputStream in, int count) throws IOException {
        long[] data = new long[Math.min(count, FIRST_WORDS)];
        for (int i = 0; i < count; i++) {
            if (i == data.length) {
                data = Arrays.copyOf(data, (int) Math.min(count, 2L * i));
            }
            try {
                data[i] = in.readLong();
            } catch (EOFException e) {
                throw new EOFException("truncated Guava bloom filter stream: its header announces " + count
                        + " data words (" + 8L * count + " bytes), the stream ends in word " + i);
            }
        }
        return data;
    }
}
