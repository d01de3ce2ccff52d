package dev.deja.bloom;

import dev.deja.hash.Hash128;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * deja's scaling bloom format (docs/FORMAT.md section 2.7): a 40-byte header (magic, version, kind 3, hash id, a
 * reserved byte, first capacity, fpp, expansion, sub-filter count, keys recorded by the newest sub-filter) with its
 * CRC32C, then every sub-filter, oldest first, in the bloom format.
 */
final class ScalingBloomCodec {

    private static final int HEADER_BYTES = 40;
    private static final int FORMAT_VERSION = 1;

    private ScalingBloomCodec() {}

    static void write(OutputStream out, ScalingBloomFilter filter) throws IOException {
        BloomFilter[] filters = filter.filterArray();
        byte[] header = new byte[HEADER_BYTES];
        header[5] = BloomFormat.KIND_SCALING;
        header[6] = Hash128.HASH_ID_XXH3_128;
        BloomFormat.putLong(header, 8, filter.capacity());
        BloomFormat.putLong(header, 16, Double.doubleToRawLongBits(filter.targetFpp()));
        BloomFormat.putLong(header, 24, ((long) filter.expansion() << 32) | filters.length);
        // the newest sub-filter's count, read after the array: a racing growth leaves it at most at capacity
        BloomFormat.putLong(header, 32, Math.min(filter.newestKeys(), filters[filters.length - 1].capacity()));
        BloomFormat.writeHeader(out, header, FORMAT_VERSION);
        for (BloomFilter f : filters) {
            f.writeTo(out);
        }
    }

    static ScalingBloomFilter read(InputStream in, ScalingBloomFilter.MemoryGate gate) throws IOException {
        byte[] header = BloomFormat.readHeader(
                in, BloomFormat.KIND_SCALING, FORMAT_VERSION, HEADER_BYTES, "scaling bloom filter");
        if (header[6] != Hash128.HASH_ID_XXH3_128) {
            throw new IOException("scaling bloom filter uses unknown hash id " + (header[6] & 0xFF));
        }
        long capacity = BloomFormat.getLong(header, 8);
        double fpp = Double.longBitsToDouble(BloomFormat.getLong(header, 16));
        long packed = BloomFormat.getLong(header, 24);
        long expansion = packed >>> 32;
        long count = packed & 0xFFFF_FFFFL;
        long newestKeys = BloomFormat.getLong(header, 32);
        if (capacity <= 0
                || !(fpp > 0 && fpp < 1)
                || expansion > ScalingBloomFilter.MAX_EXPANSION
                || count < 1
                || count > ScalingBloomFilter.MAX_FILTERS
                || (expansion == 0 && count != 1)
                || newestKeys < 0) {
            throw new IOException("scaling bloom filter header holds impossible parameters: capacity=" + capacity
                    + ", fpp=" + fpp + ", expansion=" + expansion + ", sub-filters=" + count + ", newest keys="
                    + newestKeys);
        }
        BloomFilter[] filters = new BloomFilter[(int) count];
        long admitted = 0;
        try {
            for (int i = 0; i < filters.length; i++) {
                BloomFilter expected = expected(capacity, fpp, (int) expansion, i);
                if (i > 0) {
                    gate.admit(BloomFilter.heapBytes(expected.bits()));
                    admitted += BloomFilter.heapBytes(expected.bits());
                }
                filters[i] = readFilter(in, i, filters.length, expected);
            }
        } catch (IOException | RuntimeException e) {
            gate.release(admitted);
            throw e;
        }
        return ScalingBloomFilter.restored(capacity, fpp, (int) expansion, gate, filters, newestKeys);
    }

    private static BloomFilter expected(long capacity, double fpp, int expansion, int index) throws IOException {
        try {
            return ScalingBloomFilter.expectedFilter(capacity, fpp, expansion, index);
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IOException("scaling bloom filter header holds impossible parameters: sub-filter " + index
                    + " cannot exist (" + e.getMessage() + ")");
        }
    }

    /** One sub-filter, its shape checked against the one its position implies before its bits are allocated. */
    private static BloomFilter readFilter(InputStream in, int index, int count, BloomFilter expected)
            throws IOException {
        return FilterChains.readMember(
                in, "scaling bloom filter", "sub-filter", index, count, (layout, bits, hashes) -> {
                    if (layout != expected.layout() || bits != expected.bits() || hashes != expected.hashes()) {
                        throw new IOException("scaling bloom filter's sub-filter " + index + " has bits=" + bits
                                + ", hashes="
                                + hashes + " (" + layout + "); the header implies bits=" + expected.bits() + ", hashes="
                                + expected.hashes() + " (" + expected.layout() + ")");
                    }
                });
    }
}
