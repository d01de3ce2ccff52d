package dev.deja.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.deja.bloom.BloomFilter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A bloom filter through a snapshot file and back: sparse files, full ones and both in one. */
class BloomSnapshotTest {

    private static final SnapshotCodec<BloomFilter> CODEC = StoreCodecs.BLOOM;

    @TempDir
    Path tmp;

    @Test
    void sparseMixedAndFullFiltersLoadWithTheirExactBitsAndNoMoreMemory() throws IOException {
        long bits = 1L << 28; // 32 MiB: 32 snapshot windows
        Random random = new Random(5);

        BloomFilter sparse =
                BloomFilter.builder().bits(bits).hashes(10).capacity(1_000_000).build();
        for (String key : new String[] {"x", "y", "z"}) {
            sparse.add(key);
        }
        BloomFilter mixed =
                BloomFilter.builder().bits(bits).hashes(10).capacity(1_000_000).build();
        byte[] noise = new byte[6 << 20];
        random.nextBytes(noise);
        mixed.loadBits(9L << 20, noise, 0, noise.length); // full windows amid sparse ones
        for (int i = 0; i < 200; i++) {
            mixed.add("key-" + i);
        }
        BloomFilter full =
                BloomFilter.builder().bits(bits).hashes(10).capacity(1_000_000).build();
        byte[] all = new byte[(int) full.sizeInBytes()];
        random.nextBytes(all);
        full.loadBits(0, all, 0, all.length);

        int position = 1;
        for (BloomFilter filter : new BloomFilter[] {sparse, mixed, full}) {
            Path dir = Files.createDirectory(tmp.resolve("store-" + position));
            Path file = Snapshots.write(dir, position, CODEC, filter);
            Snapshots.Snapshot snapshot = new Snapshots.Snapshot(file, position);
            assertThat(Snapshots.verify(snapshot)).isNull();
            BloomFilter back = Snapshots.read(snapshot, CODEC);

            assertThat(bytes(back)).as("filter %d", position).isEqualTo(bytes(filter));
            assertThat(back.allocatedBytes())
                    .as("filter %d: chunks of zeros stay unallocated", position)
                    .isEqualTo(filter.allocatedBytes());
            assertThat(back.fillRatio()).isEqualTo(filter.fillRatio());
            assertThat(back.approximateCount()).isEqualTo(filter.approximateCount());
            position++;
        }
    }

    private static byte[] bytes(BloomFilter filter) {
        byte[] out = new byte[(int) filter.sizeInBytes()];
        filter.readBits(0, out, 0, out.length);
        return out;
    }
}
