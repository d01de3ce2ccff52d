package dev.deja.bench;

import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import dev.deja.sizing.BloomLayout;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;

/**
 * deja's and Guava's filters at one shape, each at its design fill: the in-cache ones by inserting {@code capacity}
 * keys, the 1 GiB ones by loading bits that are each set with probability 1/2 (inserting 5e8 keys would take
 * minutes per fork).
 */
final class DesignFill {

    private DesignFill() {
    }

    /** deja's filter, in the given layout (format 1's for {@link BloomLayout#SCATTERED}). */
    static dev.deja.bloom.BloomFilter deja(BloomShape shape, BloomLayout layout) throws IOException {
        dev.deja.bloom.BloomFilter filter;
        if (layout == BloomLayout.SCATTERED) {
            filter = FormatOneFilters.sized(shape.capacity, shape.fpp, shape == BloomShape.OUT_OF_CACHE);
        } else {
            filter = dev.deja.bloom.BloomFilter.builder().capacity(shape.capacity).fpp(shape.fpp).build();
        }
        if (shape == BloomShape.IN_CACHE) {
            KeyPool fill = new KeyPool(1);
            for (int i = 0; i < shape.capacity; i++) {
                filter.add(fill.next());
            }
        } else if (layout == BloomLayout.SECTORED) {
            HalfFullBits bits = new HalfFullBits(new byte[0], filter.sizeInBytes(), 1);
            byte[] buffer = new byte[1 << 20];
            for (long offset = 0; offset < filter.sizeInBytes(); offset += buffer.length) {
                int n = bits.read(buffer, 0, (int) Math.min(buffer.length, filter.sizeInBytes() - offset));
                filter.loadBits(offset, buffer, 0, n);
            }
        }
        return filter;
    }

    /** Guava's filter at the same capacity and fpp. */
    static BloomFilter<byte[]> guava(BloomShape shape) throws IOException {
        if (shape == BloomShape.IN_CACHE) {
            BloomFilter<byte[]> filter = BloomFilter.create(Funnels.byteArrayFunnel(), shape.capacity, shape.fpp);
            KeyPool fill = new KeyPool(1);
            for (int i = 0; i < shape.capacity; i++) {
                filter.put(fill.next());
            }
            return filter;
        }
        // Guava's own sizing (BloomFilter.optimalNumOfBits / optimalNumOfHashFunctions), then its serialised
        // form: strategy ordinal 1 (MURMUR128_MITZ_64), k, the number of longs, the longs.
        long bits = (long) (-shape.capacity * Math.log(shape.fpp) / (Math.log(2) * Math.log(2)));
        int k = Math.max(1, (int) Math.round((double) bits / shape.capacity * Math.log(2)));
        int longs = (int) ((bits + 63) / 64);
        ByteArrayOutputStream header = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(header);
        out.writeByte(1);
        out.writeByte(k);
        out.writeInt(longs);
        return BloomFilter.readFrom(new HalfFullBits(header.toByteArray(), 8L * longs, 1), Funnels.byteArrayFunnel());
    }
}
