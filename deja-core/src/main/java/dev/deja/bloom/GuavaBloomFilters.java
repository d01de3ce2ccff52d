package dev.deja.bloom;

import dev.deja.seen.Require;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;

/**
 * Reads Bloom filters serialised by Guava's {@code BloomFilter.writeTo}, for migrating them to deja without Guava.
 */
public final class GuavaBloomFilters {

    /** Guava's ordinal for its {@code MURMUR128_MITZ_64} strategy, the one every Guava since 14 writes. */
    static final int MURMUR128_MITZ_64 = 1;

    /**
     * The Guava funnel the filter's keys were put with. Both funnels feed Murmur3 the same bytes (a string funnel
     * feeds its UTF-8 encoding), so both are answered by the same code: pass byte keys for {@link #BYTE_ARRAY} and
     * strings (or their UTF-8 bytes) for {@link #UTF8_STRING}.
     */
    public enum Funnel {
        /** {@code Funnels.byteArrayFunnel()}. */
        BYTE_ARRAY,
        /** {@code Funnels.stringFunnel(StandardCharsets.UTF_8)}. */
        UTF8_STRING
    }

    private GuavaBloomFilters() {
    }

    /**
     * Reads one filter: a strategy byte, an unsigned byte {@code k}, a big-endian int {@code n}, then {@code n}
     * big-endian longs (docs/FORMAT.md section 2.5). Reads nothing past it.
     *
     * @throws IOException if the stream is truncated, names a strategy other than {@code MURMUR128_MITZ_64} (1),
     *                     or holds an impossible {@code k} or length
     */
    public static GuavaBloomFilter read(InputStream in, Funnel funnel) throws IOException {
        Require.nonNull("in", in);
        Require.nonNull("funnel", funnel);
        DataInputStream din = new DataInputStream(in);
        try {
            int strategy = din.readUnsignedByte();
            if (strategy != MURMUR128_MITZ_64) {
                throw new IOException("Guava bloom filter uses strategy " + strategy + "; only MURMUR128_MITZ_64 (1) "
                        + "is supported (0 = MURMUR128_MITZ_32 was written only by Guava 11-13)");
            }
            int hashes = din.readUnsignedByte();
            if (hashes == 0) {
                throw new IOException("Guava bloom filter has 0 hash functions; the stream is corrupt");
            }
            int longs = din.readInt();
            if (longs <= 0) {
                throw new IOException("Guava bloom filter has " + longs + " data words; must be > 0");
            }
            long[] data = new long[longs];
            for (int i = 0; i < longs; i++) {
                data[i] = din.readLong();
            }
            return new GuavaBloomFilter(data, hashes, funnel);
        } catch (EOFException e) {
            throw new EOFException("truncated Guava bloom filter stream");
        }
    }
}
