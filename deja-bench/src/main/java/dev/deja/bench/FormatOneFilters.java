package dev.deja.bench;

import dev.deja.bloom.BloomFilter;
import dev.deja.sizing.BloomLayout;
import dev.deja.sizing.BloomSize;
import dev.deja.sizing.BloomSizing;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * Filters in bloom format version 1 (scattered bits), built the only way they arise now: written in that format
 * (docs/FORMAT.md section 2.3) and read back by {@link BloomFilter#readFrom}. They let a benchmark measure the
 * scattered layout beside the sectored one in the same run.
 */
final class FormatOneFilters {

    private FormatOneFilters() {}

    /** A format-1 filter sized by its own formula for (capacity, fpp), empty or with half of its bits set. */
    static BloomFilter sized(long capacity, double fpp, boolean halfFull) throws IOException {
        BloomSize size = BloomSizing.forCapacity(BloomLayout.SCATTERED, capacity, fpp);
        long bytes = size.bytes();
        ByteBuffer header = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        header.put(new byte[] {'D', 'J', 'B', 'F', 1, 1, 1, (byte) size.hashes()});
        header.putLong(size.bits()).putLong(capacity).putDouble(size.expectedFpp());
        header.putInt((int) crc(new ByteArrayInputStream(header.array(), 0, 32), 32));
        long bitsCrc = crc(HalfFullBits.orZeros(bytes, halfFull), bytes);
        byte[] trailer = ByteBuffer.allocate(4)
                .order(ByteOrder.LITTLE_ENDIAN)
                .putInt((int) bitsCrc)
                .array();
        InputStream all = new SequenceInputStream(
                new ByteArrayInputStream(header.array(), 0, 36),
                new SequenceInputStream(HalfFullBits.orZeros(bytes, halfFull), new ByteArrayInputStream(trailer)));
        BloomFilter filter = BloomFilter.readFrom(all);
        if (filter.layout() != BloomLayout.SCATTERED) {
            throw new IllegalStateException("expected a format-1 filter, read " + filter);
        }
        return filter;
    }

    private static long crc(InputStream in, long bytes) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[1 << 20];
        for (long done = 0; done < bytes; ) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, bytes - done));
            crc.update(buffer, 0, n);
            done += n;
        }
        return crc.getValue();
    }
}
