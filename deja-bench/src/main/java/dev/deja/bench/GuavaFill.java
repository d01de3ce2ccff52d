package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import com.google.common.hash.Hashing;
import com.google.common.primitives.Longs;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.util.Arrays;
import java.util.List;

/**
 * Guava {@code BloomFilter}s read from their serialised form ({@code BloomFilter.writeTo}'s: the strategy's ordinal,
 * {@code k}, the number of longs, the longs big-endian) with chosen keys' bits set in the stream, so that a filter
 * holds keys without its {@code put} having run.
 *
 * <p>Why not {@code put}: HotSpot compiles a method for the branch profile of the calls it has seen, so a setup that
 * inserted the held keys through {@code put} would have compiled the {@code put} of a benchmark that measures duplicate
 * deliveries for new keys. deja's side fills through its batch form for the same reason ({@link DesignFill}).
 *
 * <p>The bits are the ones Guava's default strategy ({@code MURMUR128_MITZ_64}) sets: the key's Murmur3 128-bit hash
 * as two little-endian longs, bit {@code i} at {@code (h1 + i * h2) mod bits} with the sign bit cleared. The sizing is
 * Guava's ({@code optimalNumOfBits}, {@code optimalNumOfHashFunctions}). {@code GuavaFillTest} checks that the result
 * equals a filter filled through {@code put}.
 */
final class GuavaFill {

    /** {@code MURMUR128_MITZ_64}'s ordinal in Guava's {@code BloomFilterStrategies}. */
    private static final int MURMUR128_MITZ_64 = 1;

    private GuavaFill() {}

    /**
     * A filter sized by Guava for {@code capacity} keys at {@code fpp}, holding {@code keys} over a bit array that is
     * otherwise empty or, with {@code halfFull}, has each bit set with probability 1/2 (the design fill,
     * {@link HalfFullBits}).
     */
    static BloomFilter<byte[]> filter(long capacity, double fpp, boolean halfFull, List<byte[]> keys)
            throws IOException {
        long bits = (long) (-capacity * Math.log(fpp) / (Math.log(2) * Math.log(2)));
        int k = Math.max(1, (int) Math.round((double) bits / capacity * Math.log(2)));
        int longs = (int) ((bits + 63) / 64);
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(header);
        out.writeByte(MURMUR128_MITZ_64);
        out.writeByte(k);
        out.writeInt(longs);
        InputStream array = HalfFullBits.orZeros(8L * longs, halfFull);
        long[] positions = streamBits(keys, k, 64L * longs, header.size());
        InputStream stream =
                new OrBits(new SequenceInputStream(new ByteArrayInputStream(header.toByteArray()), array), positions);
        return BloomFilter.readFrom(stream, Funnels.byteArrayFunnel());
    }

    /**
     * The keys' bits as positions in the serialised stream ({@code 8 * byte + bit}, bit 0 the byte's lowest), sorted.
     * Bit {@code b} of long {@code w} is in byte {@code 8w + 7 - b / 8} of the array: the longs are big-endian.
     */
    private static long[] streamBits(List<byte[]> keys, int k, long bitSize, int headerBytes) {
        long[] positions = new long[Math.multiplyExact(keys.size(), k)];
        int n = 0;
        for (byte[] key : keys) {
            byte[] hash = Hashing.murmur3_128().hashBytes(key).asBytes();
            long h1 = Longs.fromBytes(hash[7], hash[6], hash[5], hash[4], hash[3], hash[2], hash[1], hash[0]);
            long h2 = Longs.fromBytes(hash[15], hash[14], hash[13], hash[12], hash[11], hash[10], hash[9], hash[8]);
            long combined = h1;
            for (int i = 0; i < k; i++) {
                long index = (combined & Long.MAX_VALUE) % bitSize;
                long bit = index & 63;
                long streamByte = headerBytes + 8 * (index >>> 6) + 7 - (bit >>> 3);
                positions[n++] = streamByte * 8 + (bit & 7);
                combined += h2;
            }
        }
        Arrays.sort(positions);
        return positions;
    }

    /** A stream with the bits at the given sorted positions set as it passes through. */
    private static final class OrBits extends InputStream {
        private final InputStream in;
        private final long[] positions;
        private int nextPosition;
        private long offset;

        OrBits(InputStream in, long[] positions) {
            this.in = in;
            this.positions = positions;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xFF;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n <= 0) {
                return n;
            }
            long end = offset + n;
            while (nextPosition < positions.length && positions[nextPosition] >>> 3 < end) {
                long position = positions[nextPosition++];
                b[off + (int) ((position >>> 3) - offset)] |= (byte) (1 << (position & 7));
            }
            offset = end;
            return n;
        }
    }
}
