package dev.deja.bloom;

import dev.deja.checks.Require;
import dev.deja.hash.Hash128;
import dev.deja.sizing.BloomLayout;
import dev.deja.sizing.BloomSizing;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A bloom filter in deja's bloom format (docs/FORMAT.md section 2.3): a checksummed header with kind, shape, capacity,
 * target fpp and hash id, then the bit array, then its CRC32C.
 *
 * <p>The bit array is streamed through a buffer of {@link BloomFormat#BUFFER_BYTES} both ways, so no second copy of
 * it is made; the header is read and checked on its own first, so that a reader can refuse a shape before the bits
 * are allocated.
 */
final class BloomFilterCodec {

    private static final int HEADER_BYTES = 32;
    /**
     * Bytes of bit array that {@link #readBits} tests for zero at a time: eight blocks, so that a filter holding keys
     * here and there stores little more than their blocks, at one comparison call per 512 bytes.
     */
    static final int ZERO_PIECE_BYTES = 512;

    private static final byte[] ZERO_PIECE = new byte[ZERO_PIECE_BYTES];

    /**
     * The header's content: a filter's shape and what it was sized for.
     *
     * @param layout    where a key's bits lie in its block, which the format version gives
     * @param bits      total bits, a multiple of 512
     * @param hashes    bits set per key (k)
     * @param capacity  the number of keys the filter was sized for
     * @param targetFpp the false-positive probability at capacity
     */
    record Header(BloomLayout layout, long bits, int hashes, long capacity, double targetFpp) {}

    private BloomFilterCodec() {}

    /** Writes the header and then the bit array; concurrent adds during the write may or may not be included. */
    static void write(OutputStream out, Header shape, BlockedBits array) throws IOException {
        byte[] header = new byte[HEADER_BYTES];
        header[5] = BloomFormat.KIND_BLOOM;
        header[6] = Hash128.HASH_ID_XXH3_128;
        header[7] = (byte) shape.hashes();
        BloomFormat.putLong(header, 8, shape.bits());
        BloomFormat.putLong(header, 16, shape.capacity());
        BloomFormat.putLong(header, 24, Double.doubleToRawLongBits(shape.targetFpp()));
        BloomFormat.writeHeader(out, header, shape.layout().formatVersion());
        long size = shape.bits() / 8;
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[(int) Math.min(BloomFormat.BUFFER_BYTES, size)];
        for (long offset = 0; offset < size; offset += buffer.length) {
            int n = (int) Math.min(buffer.length, size - offset);
            array.readBytes(offset, buffer, 0, n);
            crc.update(buffer, 0, n);
            out.write(buffer, 0, n);
        }
        BloomFormat.writeCrc(out, (int) crc.getValue());
    }

    /**
     * Reads and checks a header.
     *
     * @throws IOException if the stream is not a deja bloom filter, has an unknown version or hash, a corrupt header,
     *                     impossible parameters, or is truncated
     */
    static Header readHeader(InputStream in) throws IOException {
        byte[] header = BloomFormat.readHeader(
                in, BloomFormat.KIND_BLOOM, BloomLayout.SECTORED.formatVersion(), HEADER_BYTES, "bloom filter");
        BloomLayout layout = BloomLayout.ofFormatVersion(header[4]);
        if (header[6] != Hash128.HASH_ID_XXH3_128) {
            throw new IOException("bloom filter uses unknown hash id " + (header[6] & 0xFF) + " (this reader knows "
                    + Hash128.HASH_ID_XXH3_128 + " = XXH3-128)");
        }
        int k = header[7] & 0xFF;
        long bits = BloomFormat.getLong(header, 8);
        long capacity = BloomFormat.getLong(header, 16);
        double fpp = Double.longBitsToDouble(BloomFormat.getLong(header, 24));
        try {
            BloomSizing.checkShape(bits, k);
            Require.positive("capacity", capacity);
            // [0, 1], not the builder's (0, 1): an explicit shape whose capacity saturates it has a target fpp of 1
            if (!(fpp >= 0 && fpp <= 1)) {
                throw new IllegalArgumentException("target fpp must be in [0, 1] (got " + fpp + ")");
            }
        } catch (IllegalArgumentException e) {
            throw new IOException("bloom filter header holds impossible parameters: " + e.getMessage(), e);
        }
        return new Header(layout, bits, k, capacity, fpp);
    }

    /**
     * Reads the bit array that follows a header into {@code array}, a new array of the header's size that nobody else
     * holds yet, and checks its CRC32C. Reads exactly the bytes written, so several structures may follow each other.
     *
     * @throws IOException if the bit array is truncated or fails its checksum
     */
    static void readBits(InputStream in, BlockedBits array, long sizeInBytes) throws IOException {
        CRC32C crc = new CRC32C();
        byte[] buffer = new byte[(int) Math.min(BloomFormat.BUFFER_BYTES, sizeInBytes)];
        for (long offset = 0; offset < sizeInBytes; offset += buffer.length) {
            int n = (int) Math.min(buffer.length, sizeInBytes - offset);
            BloomFormat.readFully(in, buffer, 0, n, "bit array at byte " + offset + " of " + sizeInBytes + ",");
            crc.update(buffer, 0, n);
            storeNonZero(array, offset, buffer, n);
        }
        if (BloomFormat.readCrc(in, "bit array checksum") != (int) crc.getValue()) {
            throw new IOException("corrupt bloom filter: bit array checksum mismatch");
        }
    }

    /**
     * Stores the pieces of {@code buffer} that hold a set bit, the rest being zero already in a new array. A mostly
     * empty filter's bit array is mostly zero (its snapshot is a sparse file that reads back as zeros): storing those
     * zeros word by word would cost as much as storing a full filter, where finding them zero costs one vectorised
     * comparison per piece. Runs of non-zero pieces are stored with one call.
     */
    private static void storeNonZero(BlockedBits array, long offset, byte[] buffer, int length) {
        int run = -1; // start of the current run of non-zero pieces, or -1
        for (int from = 0; from < length; from += ZERO_PIECE_BYTES) {
            int to = Math.min(from + ZERO_PIECE_BYTES, length);
            boolean zero = Arrays.mismatch(buffer, from, to, ZERO_PIECE, 0, to - from) < 0;
            if (zero && run >= 0) {
                array.storeBytes(offset + run, buffer, run, from - run);
                run = -1;
            } else if (!zero && run < 0) {
                run = from;
            }
        }
        if (run >= 0) {
            array.storeBytes(offset + run, buffer, run, length - run);
        }
    }
}
