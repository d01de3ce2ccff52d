package dev.deja.bloom;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.hash.Hash128;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * {@link BloomFilter#writeTo} copies the bit array a run of words at a time and zero-fills chunks never written to;
 * these tests hold its bytes to a reference encoding of docs/FORMAT.md section 2.3 built from the bits read one byte
 * at a time, and check what a write racing with adds keeps.
 */
class BloomFilterWriteTest {

    /** Several chunks whatever the heap region size, with a short last chunk when chunks are small. */
    private static final long BITS = (1L << 27) + (1L << 16);

    @Test
    void sparseMixedAndFullFiltersWriteExactlyTheReferenceEncoding() throws IOException {
        SplittableRandom random = new SplittableRandom(23);
        long chunkBytes = 64L << ChunkedBits.SLOT_SHIFT; // logical bytes of a chunk, its last slot included

        BloomFilter empty = filter();
        BloomFilter sparse = filter();
        for (String key : new String[] {"x", "y", "z"}) {
            sparse.add(key);
        }
        // a chunk never allocated whose last slot holds a bit: block lookups that skip absent chunks must not skip it
        sparse.loadBits(2 * chunkBytes - 64 + 5, new byte[] {(byte) 0x81}, 0, 1);
        BloomFilter mixed = filter();
        byte[] noise = new byte[(int) chunkBytes + 4096];
        random.nextBytes(noise);
        mixed.loadBits(chunkBytes / 2 + 3, noise, 0, noise.length); // across a chunk boundary, unaligned
        for (int i = 0; i < 500; i++) {
            mixed.add("key-" + i);
        }
        BloomFilter full = filter();
        byte[] all = new byte[(int) full.sizeInBytes()];
        random.nextBytes(all);
        full.loadBits(0, all, 0, all.length);

        for (BloomFilter filter : new BloomFilter[] {empty, sparse, mixed, full}) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            filter.writeTo(out);
            assertThat(out.toByteArray()).as("%s", filter).isEqualTo(reference(filter, out.toByteArray()));
            BloomFilter back = BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()));
            assertThat(bytewise(back)).isEqualTo(bytewise(filter));
        }
        assertThat(full.allocatedBytes()).isGreaterThan(sparse.allocatedBytes());
    }

    @Test
    void aFilterWrittenWhileKeysArriveHoldsEveryKeyAddedBeforeTheWriteAndOnlyBitsSetByThen() throws Exception {
        BloomFilter filter = filter();
        for (int i = 0; i < 20_000; i++) {
            filter.add("before-" + i);
        }
        byte[] before = bytewise(filter);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger added = new AtomicInteger();
        CountDownLatch running = new CountDownLatch(1);
        Thread writer = new Thread(() -> {
            for (int i = 0; !stop.get(); i++) {
                filter.add("during-" + i);
                added.incrementAndGet();
                if (i == 1000) {
                    running.countDown();
                }
            }
        });
        writer.start();
        running.await();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            for (int round = 0; round < 3; round++) { // a few writes, so that some overlap the adds
                out.reset();
                filter.writeTo(out);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        byte[] after = bytewise(filter);
        BloomFilter back = BloomFilter.readFrom(new ByteArrayInputStream(out.toByteArray()));
        for (int i = 0; i < 20_000; i++) {
            assertThat(back.check("before-" + i)).as("before-%d", i).isTrue();
        }
        byte[] written = bytewise(back);
        for (int i = 0; i < written.length; i++) {
            // every bit set before the write began, and none that was never set
            assertThat(before[i] & ~written[i]).as("byte %d lost bits", i).isZero();
            assertThat(written[i] & ~after[i]).as("byte %d gained bits", i).isZero();
        }
        assertThat(added.get()).isGreaterThan(1000);
    }

    private static BloomFilter filter() {
        return BloomFilter.builder().bits(BITS).hashes(10).capacity(1_000_000).build();
    }

    /** The bit array read one byte at a time: the word-by-word path, not the run copy under test. */
    private static byte[] bytewise(BloomFilter filter) {
        byte[] bytes = new byte[(int) filter.sizeInBytes()];
        byte[] one = new byte[1];
        for (int i = 0; i < bytes.length; i++) {
            filter.readBits(i, one, 0, 1);
            bytes[i] = one[0];
        }
        return bytes;
    }

    /**
     * docs/FORMAT.md section 2.3: magic (taken from the output), format version, kind, hash id, k, bits, capacity
     * and fpp little-endian, the header's CRC32C, the bit array, its CRC32C.
     */
    private static byte[] reference(BloomFilter filter, byte[] written) {
        byte[] bits = bytewise(filter);
        ByteBuffer header = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        header.put(Arrays.copyOf(written, 4))
                .put((byte) filter.layout().formatVersion())
                .put((byte) BloomFormat.KIND_BLOOM)
                .put((byte) Hash128.HASH_ID_XXH3_128)
                .put((byte) filter.hashes())
                .putLong(filter.bits())
                .putLong(filter.capacity())
                .putLong(Double.doubleToRawLongBits(filter.targetFpp()));
        ByteBuffer out = ByteBuffer.allocate(32 + 4 + bits.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        out.put(header.array()).putInt(crc(header.array())).put(bits).putInt(crc(bits));
        return out.array();
    }

    private static int crc(byte[] b) {
        CRC32C crc = new CRC32C();
        crc.update(b);
        return (int) crc.getValue();
    }
}
